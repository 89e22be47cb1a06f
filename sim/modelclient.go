package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/amr-bench/amr/scenarios"
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
		return sandbox.Completion{}, transportError(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRequestBytes))
	if err != nil {
		return sandbox.Completion{}, transportError(err)
	}
	if resp.StatusCode/100 != 2 {
		if e := statusError(resp, data); e != nil {
			return sandbox.Completion{}, e
		}
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
		return sandbox.Completion{}, &sandbox.ModelError{CallID: resp.Header.Get(CallIDHeader), Kind: scenarios.ModelMalformed,
			Status: resp.StatusCode, Wall: true,
			Msg: "the reply is not a chat completion {id, choices: [{message: {content}}]}: " + excerpt(data)}
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

// transportError reads a call that got no answer: the client's timeout,
// or a connection reset or closed.
func transportError(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &sandbox.ModelError{Kind: scenarios.ModelTimeout, Wall: true, Msg: err.Error()}
	}
	return &sandbox.ModelError{Kind: scenarios.ModelReset, Wall: true, Msg: err.Error()}
}

// statusError reads the statuses a failing endpoint answers with, or nil
// for another status.
func statusError(resp *http.Response, data []byte) error {
	kinds := map[int]string{
		http.StatusTooManyRequests:     scenarios.ModelRateLimit,
		http.StatusInternalServerError: scenarios.ModelServerError,
		http.StatusServiceUnavailable:  scenarios.ModelUnavailable,
		http.StatusGatewayTimeout:      scenarios.ModelTimeout,
	}
	kind, ok := kinds[resp.StatusCode]
	if !ok {
		return nil
	}
	e := &sandbox.ModelError{CallID: resp.Header.Get(CallIDHeader), Kind: kind, Status: resp.StatusCode, Wall: true,
		Msg: fmt.Sprintf("%s: %s", resp.Status, bytes.TrimSpace(data))}
	if s := resp.Header.Get("Retry-After"); s != "" {
		e.RetryAfter, _ = strconv.Atoi(s)
	}
	return e
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
