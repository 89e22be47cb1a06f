package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An implementation written on the official OpenAI clients finds the stub
// through the variables those clients read, with a dummy key; a real key,
// organization or base URL in amr's own environment never reaches it.
func TestAProcessGetsTheOpenAIVariables(t *testing.T) {
	requireLinux(t)
	t.Setenv(EnvOpenAIAPIKey, "sk-a-real-key")
	t.Setenv(EnvOpenAIBaseURL, "https://api.example.com/v1")
	t.Setenv("OPENAI_ORG_ID", "org-real")
	b := shortened(t, "l0-respond", 2)
	res := runProcess(t, b, helperSpec("env", RegimeStep), 1)
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(res.Files.View("private/env"))), "\n") {
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	require.NotEmpty(t, env[EnvModelURL], "the helper ran: %q", res.Files.View("private/env"))
	assert.Equal(t, map[string]string{
		EnvModelURL: env[EnvModelURL], EnvOpenAIBaseURL: env[EnvModelURL], EnvOpenAIAPIBase: env[EnvModelURL],
		EnvOpenAIAPIKey: StubAPIKey, "OPENAI_ORG_ID": "",
	}, env)
	assert.True(t, strings.HasPrefix(env[EnvModelURL], "http://127.0.0.1:"), fmt.Sprint(env))
}
