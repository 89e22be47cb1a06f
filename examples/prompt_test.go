package examples

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/sim/sandbox"
)

// The prompt is the conversation's subjects and bodies in the fixed frame
// the model stub answers by, whatever their bytes.
func TestPromptOfIsTheConversationInItsFrame(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var msgs []sandbox.Message
		var want strings.Builder
		want.WriteString("Draft a reply to this support conversation.\n")
		for i := rapid.IntRange(0, 4).Draw(t, "msgs"); i > 0; i-- {
			m := sandbox.Message{Subject: rapid.String().Draw(t, "subject"), Body: rapid.String().Draw(t, "body")}
			msgs = append(msgs, m)
			fmt.Fprintf(&want, "\nSubject: %s\n%s\n", m.Subject, m.Body)
		}
		require.Equal(t, want.String(), promptOf(msgs))
	})
}
