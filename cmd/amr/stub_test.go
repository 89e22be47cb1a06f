package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

// amr stub serves a bundle's stub alone: a client pointed at the URL it
// prints gets the bundle's reply, and the call is logged in --dir.
func TestStubCommandServesTheBundlesStub(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestAMRHelper$", "-test.count=1", "--",
		"stub", scenario("l0-respond"), "--dir", dir)
	cmd.Env = append(os.Environ(), cmdHelperEnv+"=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	lines := bufio.NewScanner(out)
	var base string
	deadline := time.Now().Add(20 * time.Second)
	for base == "" && time.Now().Before(deadline) && lines.Scan() {
		if v, ok := strings.CutPrefix(lines.Text(), "OPENAI_BASE_URL="); ok {
			base, _, _ = strings.Cut(v, " ")
		}
	}
	require.NotEmpty(t, base, "the stub printed its URL")

	client := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey("x"), option.WithMaxRetries(0))
	c, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4oMini,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("where is ORD-1001?")},
	})
	require.NoError(t, err)
	assert.Equal(t, "Hello, we looked into order ORD-1001: it ships tomorrow. Sorry for the wait.", c.Choices[0].Message.Content)
	calls, errs := sandbox.ParseModelCalls(mustRead(t, filepath.Join(dir, sandbox.ModelCalls)))
	require.Empty(t, errs)
	require.Len(t, calls, 1)
	assert.Equal(t, c.ID, calls[0].Rec.CallID)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	var ee *exec.ExitError
	require.ErrorAs(t, cmd.Wait(), &ee)
	assert.Equal(t, 143, ee.ExitCode(), "a stub stopped by SIGTERM exits 143, never a success (D67)")
	_, err = os.Stat(filepath.Join(dir, sandbox.ModelCalls))
	assert.NoError(t, err, "the log in a --dir the user gave is kept")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}
