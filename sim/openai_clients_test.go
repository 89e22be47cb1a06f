package sim

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// The stub is held to what the official clients do with it, not to what
// amr's own HTTP code expects: each feature below is used the way the
// client's documentation shows it.

var clientModel = scenarios.Model{Anchors: []string{"ORD-1", "ORD-2"},
	Reply: "Order {{anchor}} ships tomorrow.", ReplyNoAnchor: "Which order?"}

// officialGoClient is the official Go client built from the environment,
// as a process implementation that amr starts builds it.
func officialGoClient(t *testing.T, base string) openai.Client {
	t.Setenv("OPENAI_BASE_URL", base)
	t.Setenv("OPENAI_API_KEY", StubAPIKey)
	return openai.NewClient(option.WithMaxRetries(0), option.WithRequestTimeout(10*time.Second))
}

func orderQuestion(extra string) []openai.ChatCompletionMessageParamUnion {
	return []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("You answer customers."),
		openai.UserMessage("where is my order ORD-1? " + extra),
	}
}

func TestOfficialGoClientNonStreaming(t *testing.T) {
	srv, mem := stubServerFor(t, clientModel)
	client := officialGoClient(t, srv.URL+"/v1")
	var raw *http.Response
	c, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: openai.ChatModelGPT4oMini, Messages: orderQuestion("plain"),
	}, option.WithResponseInto(&raw))
	require.NoError(t, err)
	assert.Equal(t, "call-0001", c.ID)
	assert.Equal(t, "Order ORD-1 ships tomorrow.", c.Choices[0].Message.Content)
	assert.Equal(t, "stop", c.Choices[0].FinishReason)
	assert.Positive(t, c.Usage.PromptTokens)
	assert.Positive(t, c.Usage.CompletionTokens)
	assert.Equal(t, c.Usage.PromptTokens+c.Usage.CompletionTokens, c.Usage.TotalTokens)
	assert.Equal(t, "req_call-0001", raw.Header.Get("x-request-id"))
	calls, errs := sandbox.ParseModelCalls(mem.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	require.Len(t, calls, 1)
	assert.Equal(t, "call-0001", calls[0].Rec.CallID)
}

func TestOfficialGoClientStreaming(t *testing.T) {
	srv, _ := stubServerFor(t, clientModel)
	client := officialGoClient(t, srv.URL+"/v1")
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model: openai.ChatModelGPT4oMini, Messages: orderQuestion("streamed"),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	require.NoError(t, stream.Err())
	require.Len(t, acc.Choices, 1)
	assert.Equal(t, "call-0001", acc.ID)
	assert.Equal(t, "Order ORD-1 ships tomorrow.", acc.Choices[0].Message.Content)
	assert.Equal(t, "stop", acc.Choices[0].FinishReason)
	assert.Positive(t, acc.Usage.TotalTokens, "include_usage sends a usage chunk")
}

func TestOfficialGoClientJSONObject(t *testing.T) {
	srv, _ := stubServerFor(t, clientModel)
	client := officialGoClient(t, srv.URL+"/v1")
	c, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: openai.ChatModelGPT4oMini, Messages: orderQuestion("answer in JSON"),
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}},
	})
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(c.Choices[0].Message.Content), &obj), c.Choices[0].Message.Content)
	assert.Equal(t, map[string]any{"reply": "Order ORD-1 ships tomorrow.", "anchor": "ORD-1", "call_id": "call-0001"}, obj)
}

func TestOfficialGoClientJSONSchema(t *testing.T) {
	srv, _ := stubServerFor(t, clientModel)
	client := officialGoClient(t, srv.URL+"/v1")
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"text":     map[string]any{"type": "string"},
			"call_id":  map[string]any{"type": "string"},
			"priority": map[string]any{"type": "string", "enum": []string{"low", "high"}},
			"count":    map[string]any{"type": "integer", "minimum": 2},
			"labels":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1},
		},
		"required":             []string{"text", "call_id", "priority", "count", "labels"},
		"additionalProperties": false,
	}
	c, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: openai.ChatModelGPT4oMini, Messages: orderQuestion("answer by the schema"),
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "answer", Strict: openai.Bool(true), Schema: schema},
		}},
	})
	require.NoError(t, err)
	var got struct {
		Text     string   `json:"text"`
		CallID   string   `json:"call_id"`
		Priority string   `json:"priority"`
		Count    int      `json:"count"`
		Labels   []string `json:"labels"`
	}
	content := c.Choices[0].Message.Content
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&got), content)
	assert.Equal(t, "Order ORD-1 ships tomorrow.", got.Text)
	assert.Equal(t, c.ID, got.CallID)
	assert.Contains(t, []string{"low", "high"}, got.Priority)
	assert.GreaterOrEqual(t, got.Count, 2)
	assert.NotEmpty(t, got.Labels)
}

var goSendReplyTool = openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
	Name: "send_reply", Strict: openai.Bool(true),
	Parameters: shared.FunctionParameters{
		"type": "object",
		"properties": map[string]any{
			"body": map[string]any{"type": "string"},
			"to":   map[string]any{"type": "string"},
		},
		"required":             []string{"body", "to"},
		"additionalProperties": false,
	},
})

func TestOfficialGoClientForcedToolCall(t *testing.T) {
	srv, mem := stubServerFor(t, clientModel)
	client := officialGoClient(t, srv.URL+"/v1")
	c, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: openai.ChatModelGPT4oMini, Messages: orderQuestion("use the tool"),
		Tools: []openai.ChatCompletionToolUnionParam{goSendReplyTool},
		ToolChoice: openai.ToolChoiceOptionFunctionToolChoice(
			openai.ChatCompletionNamedToolChoiceFunctionParam{Name: "send_reply"}),
	})
	require.NoError(t, err)
	require.Equal(t, "tool_calls", c.Choices[0].FinishReason)
	require.Len(t, c.Choices[0].Message.ToolCalls, 1)
	call := c.Choices[0].Message.ToolCalls[0]
	assert.Equal(t, "call-0001", call.ID, "a tool call's id is the stub call's id, so citing it traces")
	assert.Equal(t, "send_reply", call.Function.Name)
	var args map[string]string
	require.NoError(t, json.Unmarshal([]byte(call.Function.Arguments), &args))
	assert.Equal(t, "Order ORD-1 ships tomorrow.", args["body"])
	assert.Contains(t, args, "to")

	// The streamed form of the same request, accumulated by the client.
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model: openai.ChatModelGPT4oMini, Messages: orderQuestion("use the tool"),
		Tools:      []openai.ChatCompletionToolUnionParam{goSendReplyTool},
		ToolChoice: openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")},
	})
	acc := openai.ChatCompletionAccumulator{}
	var finished []openai.FinishedChatCompletionToolCall
	for stream.Next() {
		acc.AddChunk(stream.Current())
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished = append(finished, tc)
		}
	}
	require.NoError(t, stream.Err())
	require.Len(t, finished, 1)
	assert.Equal(t, "send_reply", finished[0].Name)
	assert.JSONEq(t, call.Function.Arguments, finished[0].Arguments)

	calls, errs := sandbox.ParseModelCalls(mem.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	require.Len(t, calls, 2)
	require.Len(t, calls[0].Rec.ToolCalls, 1)
	assert.Equal(t, "send_reply", calls[0].Rec.ToolCalls[0].Name)
}

func TestOfficialGoClientErrorShape(t *testing.T) {
	srv, mem := stubServerFor(t, clientModel)
	client := officialGoClient(t, srv.URL+"/v1")
	_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: openai.ChatModelGPT4oMini, Messages: []openai.ChatCompletionMessageParamUnion{},
	})
	var apiErr *openai.Error
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Equal(t, "invalid_request_error", apiErr.Type)
	assert.Equal(t, "messages", apiErr.Param)
	assert.NotEmpty(t, apiErr.Code)
	calls, errs := sandbox.ParseModelCalls(mem.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	require.Len(t, calls, 1, "a rejected request is logged")
	require.NotNil(t, calls[0].Rec.Rejected)
	assert.Equal(t, http.StatusBadRequest, calls[0].Rec.Rejected.Status)
}

// TestOfficialNodeClient runs examples/node/clientmatrix.mjs, which drives
// the stub with the official openai npm package. It skips, saying why, when
// node or the package is not installed; with AMR_REQUIRE_CLIENTS=1 (as CI
// sets where node exists) a missing package fails instead.
func TestOfficialNodeClient(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node")
	}
	dir, err := filepath.Abs(filepath.Join("..", "examples", "node"))
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(dir, "clientmatrix.mjs"))
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the official openai npm package was not tried")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err != nil {
		msg := "the openai npm package is not installed: run `npm ci` in examples/node"
		if os.Getenv("AMR_REQUIRE_CLIENTS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	mem := sandbox.NewMemory()
	srv := httptest.NewServer(StubHandler(NewStub(clientModel, mem, func() int { return 3 })))
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "clientmatrix.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY="+StubAPIKey)
	out, err := cmd.CombinedOutput()
	t.Logf("node clientmatrix.mjs:\n%s", out)
	require.NoError(t, err, "every feature must work with the official client")
	assert.Contains(t, string(out), " 0 failed")

	calls, errs := sandbox.ParseModelCalls(mem.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	assert.NotEmpty(t, calls)
}
