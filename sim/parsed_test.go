package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// requireParsedIsTheParse checks that the parse a run hands the oracles is
// exactly the parsers' answer for the final files.
func requireParsedIsTheParse(t *testing.T, what string, res *sim.Result) {
	t.Helper()
	require.NotNil(t, res.Parsed, what)
	audit, drafts := res.Files.View(sandbox.Audit), res.Files.View(sandbox.Drafts)
	wantA, wantAE := sandbox.ParseAudit(audit)
	gotA, gotAE := res.Parsed.Audit(audit)
	require.Equal(t, wantA, gotA, what)
	require.Equal(t, wantAE, gotAE, what)
	wantD, wantDE := sandbox.ParseDrafts(drafts)
	gotD, gotDE := res.Parsed.Drafts(drafts)
	require.Equal(t, wantD, gotD, what)
	require.Equal(t, wantDE, gotDE, what)
}

// Every built-in implementation on every published bundle, rewrites, torn
// lines and crashes included: the engine's parse of the logs it indexed is
// the parse of the files it leaves.
func TestResultParsedIsTheParseOfTheFinalLogs(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	for _, im := range examples.All() {
		for _, p := range published {
			res, err := sim.Run(p.Bundle, im.New, sim.Options{Seed: 1})
			require.NoError(t, err)
			requireParsedIsTheParse(t, im.Name+" on "+p.Name, res)
		}
	}
}

// rewriter appends audit lines, then rewrites the log with its first line
// changed, a broken line and a last line left without its newline: the
// engine's index starts over, and what it hands on is still the parse.
type rewriter struct{ steps int }

func (r *rewriter) Step(env *sandbox.Env) error {
	r.steps++
	switch r.steps {
	case 1:
		_ = env.Files.Append(sandbox.Audit, []byte(`{"event":"note","at":0,"n":1}`))
		_ = env.Files.Append(sandbox.Drafts, []byte(`{"draft_id":"d1"}`))
	case 2:
		_ = env.Files.Append(sandbox.Audit, []byte(`{"event":"note","at":0,"n":2}`))
	case 3:
		_ = env.Files.Write(sandbox.Audit, []byte("{\"event\":\"note\",\"at\":0,\"n\":9}\nnot json\n{\"event\":\"note\",\"at\":1"))
	}
	return nil
}

func TestResultParsedFollowsARewrittenLog(t *testing.T) {
	res, err := sim.Run(quietBundle(3), func() sandbox.Implementation { return &rewriter{} }, sim.Options{Seed: 1})
	require.NoError(t, err)
	requireParsedIsTheParse(t, "rewriter", res)
	lines, errs := res.Parsed.Audit(res.Files.View(sandbox.Audit))
	require.Len(t, lines, 1, "the first line and nothing else parses")
	require.Len(t, errs, 2, "the broken line and the cut-off one")
	// Asked about other bytes, it parses those.
	other := []byte(`{"event":"note","at":2}` + "\n")
	got, _ := res.Parsed.Audit(other)
	want, _ := sandbox.ParseAudit(other)
	require.Equal(t, want, got)
}
