package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/stretchr/testify/require"
)

// The lookup answers what a scan of every line answers, as the logs grow,
// with a last line not yet ended, and after a rewrite that starts the log
// indexes over.
func TestLookupAnswersAsAScanOfEveryLine(t *testing.T) {
	audit := sandbox.NewLogIndex(sandbox.ParseAudit)
	drafts := sandbox.NewLogIndex(sandbox.ParseDrafts)
	var k lookup
	var lean auditLook
	var auditData, draftData []byte
	check := func(step string) {
		al, _ := audit.Update(auditData)
		dl, _ := drafts.Update(draftData)
		k.syncAudit(audit, al)
		k.syncDrafts(drafts, dl)
		lean.update(auditData)
		for w := 0; w < 4; w++ {
			work, msg := fmt.Sprintf("w-%d", w), fmt.Sprintf("m%d", w)
			want := ""
			var claims, mine []int
			for i, l := range al {
				if l.Rec.Event == sandbox.EventAdmission && l.Rec.MessageID == msg && want == "" {
					want = l.Rec.WorkID
				}
				if l.Rec.Event == sandbox.EventClaim && l.Rec.WorkID == work {
					claims = append(claims, i)
				}
			}
			for i, l := range dl {
				if l.Rec.WorkID == work {
					mine = append(mine, i)
				}
			}
			require.Equal(t, want, k.workFor(msg, al), "%s: work for %s", step, msg)
			require.Equal(t, claims, k.claimLines(work, al), "%s: claims of %s", step, work)
			require.Equal(t, mine, k.draftLines(work, dl), "%s: drafts of %s", step, work)
			require.Equal(t, want, lean.workFor(msg), "%s: lean work for %s", step, msg)
			var leanWant []claimAt
			for _, i := range claims {
				leanWant = append(leanWant, claimAt{agent: al[i].Rec.AgentID, won: al[i].Rec.Outcome == sandbox.ClaimWon})
			}
			require.Equal(t, leanWant, lean.claimsOf(work), "%s: lean claims of %s", step, work)
		}
	}
	check("empty")
	for i := 0; i < 12; i++ {
		w := i % 4
		auditData = fmt.Appendf(auditData, `{"event":"admission","at":%d,"work_id":"w-%d","message_id":"m%d","rules_hash":"h","rule_id":"r","posture":"normal"}`+"\n", i, (w+i)%4, w)
		auditData = fmt.Appendf(auditData, `{"event":"claim","at":%d,"work_id":"w-%d","agent_id":"a%d","outcome":"%s","reason":"r"}`+"\n", i, w, i%3, []string{"won", "claimed", "stood_down"}[i%3])
		draftData = fmt.Appendf(draftData, `{"draft_id":"d%d","work_id":"w-%d","conversation_id":"c","body":"x","content_hash":"sha256:x","declared_at":1,"origin":"model-free"}`+"\n", i, w)
		check(fmt.Sprintf("line %d", i))
	}
	al, _ := audit.Update(auditData)
	dl, _ := drafts.Update(draftData)
	require.Len(t, al, 24, "every audit line parses")
	require.Len(t, dl, 12, "every draft line parses")
	whole := auditData
	auditData = append(auditData[:len(auditData):len(auditData)], `{"event":"claim","at":99,"work_id":"w-1","agent_id":"b","outcome":"won","reason":"r"}`...)
	check("a last line without its newline")
	auditData = append([]byte(nil), whole[len(whole)/2:]...)
	draftData = draftData[:len(draftData)/3]
	check("rewritten")
}

// A line count kept as a file grows is the count of the whole file, with
// a last line not yet ended and after a rewrite.
func TestLineCountFollowsTheFile(t *testing.T) {
	var c lineCount
	var data []byte
	for i := 0; i < 20; i++ {
		data = fmt.Appendf(data, `{"n":%d}`, i)
		require.Equal(t, countLines(data), c.lines(data), "line %d unended", i)
		data = append(data, '\n')
		require.Equal(t, countLines(data), c.lines(data), "line %d", i)
	}
	rewritten := append([]byte("x\n"), data[:len(data)-2]...)
	require.Equal(t, countLines(rewritten), c.lines(rewritten), "rewritten as long")
	short := []byte("a\nb\n")
	require.Equal(t, 2, c.lines(short), "shorter")
}

// The holder is the agent whose latest claim outcome is won, and of several
// such the one whose win came last, over drawn claim sequences.
func TestHolderOfIsTheLatestStandingWin(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for n := 0; n < 2000; n++ {
		claims := make([]claimAt, r.IntN(7))
		for i := range claims {
			claims[i] = claimAt{agent: fmt.Sprintf("a%d", r.IntN(3)), won: r.IntN(2) == 0}
		}
		want := ""
		for i := len(claims) - 1; i >= 0 && want == ""; i-- {
			if !claims[i].won {
				continue
			}
			standing := true
			for _, c := range claims[i+1:] {
				if c.agent == claims[i].agent {
					standing = false
				}
			}
			if standing {
				want = claims[i].agent
			}
		}
		require.Equal(t, want, holderOf(claims), "%+v", claims)
	}
}
