package sim

import (
	"fmt"
	"net/http"
	"unicode/utf8"
)

// completion is one answer in the chat-completions shape.
type completion struct {
	id     string
	text   string
	tool   *toolCallOut
	legacy bool
	finish string
	usage  map[string]any
}

type toolCallOut struct {
	name, arguments string
}

func newCompletion(req *chatRequest, a Answer) completion {
	c := completion{id: a.CallID, text: a.Text, legacy: req.Legacy, finish: "stop"}
	out := tokens(a.Text)
	if a.Tool != nil {
		c.tool = &toolCallOut{name: a.Tool.Name, arguments: a.Tool.Arguments}
		c.finish = "tool_calls"
		if req.Legacy {
			c.finish = "function_call"
		}
		out = tokens(a.Tool.Name) + tokens(a.Tool.Arguments)
	}
	c.usage = usage(req.Texts, out)
	return c
}

// tokens is the stub's token count of a text: one per four characters,
// rounded up. Real tokenizers differ by model; this one is documented,
// deterministic, and grows with the text, which is what a client that
// budgets by usage needs.
func tokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// usage counts a call: each message's tokens plus 4 for its framing, 3
// for priming the reply, and the answer's tokens.
func usage(texts []string, completionTokens int) map[string]any {
	prompt := 3
	for _, t := range texts {
		prompt += tokens(t) + 4
	}
	return map[string]any{
		"prompt_tokens": prompt, "completion_tokens": completionTokens, "total_tokens": prompt + completionTokens,
		"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0},
	}
}

func (c completion) message() map[string]any {
	m := map[string]any{"role": "assistant", "content": c.text, "refusal": nil}
	switch {
	case c.tool != nil && c.legacy:
		m["content"] = nil
		m["function_call"] = map[string]any{"name": c.tool.name, "arguments": c.tool.arguments}
	case c.tool != nil:
		m["content"] = nil
		m["tool_calls"] = []any{map[string]any{"id": c.id, "type": "function",
			"function": map[string]any{"name": c.tool.name, "arguments": c.tool.arguments}}}
	}
	return m
}

func (c completion) body(model string) map[string]any {
	return map[string]any{
		"id": c.id, "object": "chat.completion", "created": 0, "model": model,
		"choices": []any{map[string]any{
			"index": 0, "message": c.message(), "logprobs": nil, "finish_reason": c.finish,
		}},
		"usage": c.usage,
	}
}

// streamCompletion answers a streaming request: the whole content in one
// chunk (or a tool call's name, then its arguments), the finish chunk, the
// usage chunk when stream_options.include_usage asks for it, and [DONE].
func streamCompletion(w http.ResponseWriter, model string, req *chatRequest, c completion) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(choices []any, usage any) {
		chunk := map[string]any{"id": c.id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": choices}
		if req.IncludeUsage {
			chunk["usage"] = usage
		}
		fmt.Fprintf(w, "data: %s\n\n", jsonText(chunk))
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}
	}
	for _, d := range c.deltas() {
		send(delta(d, nil), nil)
	}
	send(delta(map[string]any{}, c.finish), nil)
	if req.IncludeUsage {
		send([]any{}, c.usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func (c completion) deltas() []map[string]any {
	switch {
	case c.tool != nil && c.legacy:
		return []map[string]any{
			{"role": "assistant", "content": nil, "function_call": map[string]any{"name": c.tool.name, "arguments": ""}},
			{"function_call": map[string]any{"arguments": c.tool.arguments}},
		}
	case c.tool != nil:
		return []map[string]any{
			{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"index": 0, "id": c.id,
				"type": "function", "function": map[string]any{"name": c.tool.name, "arguments": ""}}}},
			{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": c.tool.arguments}}}},
		}
	}
	return []map[string]any{{"role": "assistant", "content": c.text}}
}
