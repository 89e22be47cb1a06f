package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/amr-bench/amr/sim/sandbox"
)

// HTTPModel is the stub model as a process implementation reaches it: a
// sandbox.Model that sends each prompt as one user message to
// {BaseURL}/chat/completions and returns the reply and its call id.
type HTTPModel struct {
	BaseURL string
	Client  *http.Client // nil: a client with a 30s timeout
}

// Complete asks the stub for one completion.
func (m *HTTPModel) Complete(prompt string) (sandbox.Completion, error) {
	body, err := json.Marshal(map[string]any{
		"model":    StubModelID,
		"messages": []map[string]string{{"role": "user", "content": prompt}},
	})
	if err != nil {
		return sandbox.Completion{}, err
	}
	client := m.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	url := strings.TrimSuffix(m.BaseURL, "/") + "/chat/completions"
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return sandbox.Completion{}, fmt.Errorf("model: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRequestBytes))
	if err != nil {
		return sandbox.Completion{}, fmt.Errorf("model: reading the reply: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return sandbox.Completion{}, fmt.Errorf("model: %s: %s", resp.Status, bytes.TrimSpace(data))
	}
	var out struct {
		ID      string `json:"id"`
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return sandbox.Completion{}, fmt.Errorf("model: the reply is not a chat completion {id, choices: [{message: {content}}]}: %s",
			excerpt(data))
	}
	if len(out.Choices) == 0 {
		return sandbox.Completion{}, errors.New("model: the reply has no choices")
	}
	id := resp.Header.Get(CallIDHeader)
	if id == "" {
		id = out.ID
	}
	return sandbox.Completion{CallID: id, Text: out.Choices[0].Message.Content}, nil
}

// excerpt is the start of a body, for an error that shows what came back.
func excerpt(data []byte) string {
	const max = 200
	t := bytes.TrimSpace(data)
	if len(t) > max {
		return fmt.Sprintf("%q...", t[:max])
	}
	return fmt.Sprintf("%q", t)
}
