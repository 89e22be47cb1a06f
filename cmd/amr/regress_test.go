package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

// withRegressSet makes regress run the given scenarios against the given
// implementations, each implementation name mapped to the factory of the
// built-in named by the value.
func withRegressSet(t *testing.T, names []string, impls map[string]string) {
	t.Helper()
	oldImpls, oldScen := regressImpls, regressScenarios
	t.Cleanup(func() { regressImpls, regressScenarios = oldImpls, oldScen })
	var list []play.Impl
	for name, as := range impls {
		im, ok := examples.Lookup(as)
		require.True(t, ok, as)
		list = append(list, play.Impl{Name: name, New: im.New})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	regressImpls = func() []play.Impl { return list }
	regressScenarios = func() ([]*scenarios.Bundle, error) {
		var out []*scenarios.Bundle
		for _, n := range names {
			out = append(out, publishedBundle(t, n))
		}
		return out, nil
	}
}

var regressScenarioNames = []string{"l0-respond", "l2-tick-jump-intake"}

func honest() map[string]string {
	return map[string]string{"reference": "reference", "weak-no-send": "weak-no-send", "weak-jump-blind": "weak-jump-blind"}
}

func TestRegressPassesAgainstItsOwnBaseline(t *testing.T) {
	withRegressSet(t, regressScenarioNames, honest())
	path := filepath.Join(t.TempDir(), "testdata", "baseline.json")
	stdout, stderr, code := execAMR(t, "regress", "--runs", "1", "--baseline", path, "--update")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "baseline written: "+path+" (6 results)")
	first, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(first)), "\n")
	assert.Len(t, lines, 6+6, "one result per line")
	assert.Contains(t, lines[4], `{"scenario":"l0-respond","impl":"reference",`)

	base, err := suite.ReadBaseline(path)
	require.NoError(t, err)
	assert.Equal(t, 1, base.Runs)
	assert.Equal(t, map[string]string{"L0": "fail"}, base.Results[2].Levels, "l0-respond weak-no-send")

	stdout, stderr, code = execAMR(t, "regress", "--runs", "1", "--baseline", path)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "no change: 6 results match the baseline")

	_, _, code = execAMR(t, "regress", "--runs", "1", "--baseline", path, "--update")
	require.Equal(t, exitOK, code)
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(first), string(again), "the baseline is stable")
}

// A published scenario made to fail on purpose: the reference is replaced by
// a weak implementation, so levels it passed now fail.
func TestRegressFailsWhenAPassingLevelFails(t *testing.T) {
	withRegressSet(t, regressScenarioNames, honest())
	path := filepath.Join(t.TempDir(), "baseline.json")
	_, stderr, code := execAMR(t, "regress", "--runs", "1", "--baseline", path, "--update")
	require.Equal(t, exitOK, code, stderr)

	broken := honest()
	broken["reference"] = "weak-no-send"
	broken["weak-jump-blind"] = "reference"
	withRegressSet(t, regressScenarioNames, broken)
	stdout, _, code := execAMR(t, "regress", "--runs", "1", "--baseline", path)
	assert.Equal(t, exitFail, code)
	assert.Regexp(t, `pass -> FAIL\s+l0-respond\s+reference\s+L0\s+regression`, stdout)
	assert.Regexp(t, `FAIL -> pass\s+l2-tick-jump-intake\s+weak-jump-blind\s+L2\s+lost: a weak implementation is no longer caught here`, stdout)
	assert.Contains(t, stdout, "regression(s)")

	stdout, _, code = execAMR(t, "regress", "--runs", "1", "--baseline", path, "--json")
	assert.Equal(t, exitFail, code)
	var r suite.Comparison
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	assert.False(t, r.Passed)
	assert.Contains(t, r.Regressions, suite.Change{Scenario: "l0-respond", Impl: "reference", Level: "L0", Before: "pass", After: "fail"})
	assert.Contains(t, r.Lost, suite.Change{Scenario: "l2-tick-jump-intake", Impl: "weak-jump-blind", Level: "L2", Before: "fail", After: "pass"})

	// A lost detection alone fails too: a planted defect no longer caught
	// is the benchmark getting weaker.
	lost := honest()
	lost["weak-no-send"] = "reference"
	withRegressSet(t, regressScenarioNames, lost)
	stdout, _, code = execAMR(t, "regress", "--runs", "1", "--baseline", path)
	assert.Equal(t, exitFail, code, stdout)
	assert.Contains(t, stdout, "0 regression(s), ")
	assert.Regexp(t, `FAIL -> pass\s+l0-respond\s+weak-no-send\s+L0\s+lost:`, stdout)
}

// The reference passing what it failed is an improvement, not a failure.
func TestRegressPassesOnAnImprovement(t *testing.T) {
	weaker := honest()
	weaker["reference"] = "weak-no-send"
	withRegressSet(t, regressScenarioNames, weaker)
	path := filepath.Join(t.TempDir(), "baseline.json")
	_, stderr, code := execAMR(t, "regress", "--runs", "1", "--baseline", path, "--update")
	require.Equal(t, exitOK, code, stderr)

	withRegressSet(t, regressScenarioNames, honest())
	stdout, _, code := execAMR(t, "regress", "--runs", "1", "--baseline", path)
	assert.Equal(t, exitOK, code, stdout)
	assert.Regexp(t, `FAIL -> pass\s+l0-respond\s+reference\s+L0\n`, stdout)
	assert.Contains(t, stdout, "0 regression(s), 0 lost detection(s), ")
}

func TestRegressReportsOtherChanges(t *testing.T) {
	withRegressSet(t, regressScenarioNames, honest())
	path := filepath.Join(t.TempDir(), "baseline.json")
	_, _, code := execAMR(t, "regress", "--runs", "1", "--baseline", path, "--update")
	require.Equal(t, exitOK, code)

	// A new scenario and a removed implementation are changes, not
	// regressions; an edited scenario is noted.
	fewer := honest()
	delete(fewer, "weak-jump-blind")
	withRegressSet(t, append(regressScenarioNames, "l4-operator-escalation"), fewer)
	edited := regressScenarios
	regressScenarios = func() ([]*scenarios.Bundle, error) {
		bs, err := edited()
		bs[0].Meta.Description = "edited"
		return bs, err
	}
	stdout, _, code := execAMR(t, "regress", "--runs", "1", "--baseline", path)
	assert.Equal(t, exitOK, code, stdout)
	assert.Regexp(t, `- -> vacuous\s+l4-operator-escalation\s+reference\s+L0\n`, stdout)
	assert.Regexp(t, `- -> pass\s+l4-operator-escalation\s+reference\s+L1 L2 L3 L4\n`, stdout)
	assert.Regexp(t, `pass -> -\s+l2-tick-jump-intake\s+weak-jump-blind\s+L1\n`, stdout)
	assert.Regexp(t, `FAIL -> -\s+l2-tick-jump-intake\s+weak-jump-blind\s+L0\n`, stdout)
	assert.Contains(t, stdout, "note: l0-respond changed since the baseline")
}

// A scenario edited so that its reply is no longer due still passes L0, but
// L0 then judges nothing: hollowed, and regress fails. For the weak
// implementation L0 failed before, so it is a lost detection.
func TestRegressFailsWhenALevelIsHollowed(t *testing.T) {
	withRegressSet(t, []string{"l0-respond"}, map[string]string{"reference": "reference", "weak-no-send": "weak-no-send"})
	path := filepath.Join(t.TempDir(), "baseline.json")
	_, stderr, code := execAMR(t, "regress", "--runs", "1", "--baseline", path, "--update")
	require.Equal(t, exitOK, code, stderr)
	base, err := suite.ReadBaseline(path)
	require.NoError(t, err)
	for _, r := range base.Results {
		assert.Empty(t, r.Vacuous, r.Impl)
	}

	unapproved := regressScenarios
	regressScenarios = func() ([]*scenarios.Bundle, error) {
		bs, err := unapproved()
		bs[0].Approvals = nil
		return bs, err
	}
	stdout, _, code := execAMR(t, "regress", "--runs", "1", "--baseline", path)
	assert.Equal(t, exitFail, code, stdout)
	assert.Regexp(t, `pass -> vacuous\s+l0-respond\s+reference\s+L0\s+hollowed: `, stdout)
	assert.Regexp(t, `FAIL -> vacuous\s+l0-respond\s+weak-no-send\s+L0\s+lost: `, stdout)
	assert.Contains(t, stdout, "0 regression(s), 1 lost detection(s), 1 hollowed level(s)")

	_, _, code = execAMR(t, "regress", "--runs", "1", "--baseline", path, "--update")
	require.Equal(t, exitOK, code)
	base, err = suite.ReadBaseline(path)
	require.NoError(t, err)
	for _, r := range base.Results {
		assert.Equal(t, []string{"L0"}, r.Vacuous, r.Impl)
		assert.Equal(t, map[string]string{"L0": "pass"}, r.Levels, "levels keep pass / fail / untested")
	}
	stdout, _, code = execAMR(t, "regress", "--runs", "1", "--baseline", path)
	assert.Equal(t, exitOK, code, stdout)
	assert.Contains(t, stdout, "no change")
}

func TestRegressRefusesBadBaselines(t *testing.T) {
	withRegressSet(t, regressScenarioNames, honest())
	dir := t.TempDir()
	_, stderr, code := execAMR(t, "regress", "--baseline", filepath.Join(dir, "missing.json"))
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "amr regress --update")

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"format":"other","runs":1,"results":[]}`), 0o644))
	_, stderr, code = execAMR(t, "regress", "--baseline", bad)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "is not \"amr.baseline/v1\"")

	_, _, code = execAMR(t, "regress", "--runs", "0", "--baseline", bad)
	assert.Equal(t, exitBad, code)
}
