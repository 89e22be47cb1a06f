package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/suite"
)

// l4-operator-escalation's one message is escalated before its reply is
// due, so L0 judges nothing there; l0-respond's reply is due.
func TestRunTableShowsVacuousLevels(t *testing.T) {
	dir := t.TempDir()
	l4 := publishedCopy(t, "l4-operator-escalation", dir)
	l0 := publishedCopy(t, "l0-respond", dir)
	out, errOut, code := execAMR(t, "run", "--runs", "2", l0, l4)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `\nl0-respond\s+pass\s+-\s+-`, out)
	assert.Regexp(t, `\nl4-operator-escalation\s+vacuous\s+pass\s+pass\s+pass\s+pass\s+-\s+-`, out)
	assert.Contains(t, out, "\nvacuous: passed with no obligation judged in any run")
	assert.Contains(t, out, "  l4-operator-escalation L0\n")
	assert.Contains(t, out, "2 scenario(s): 2 passed, 0 failed, 1 vacuous level(s) (impl reference")
	assert.NotContains(t, out, "pass*")

	again, _, _ := execAMR(t, "run", "--runs", "2", l0, l4)
	assert.Equal(t, out, again, "the table is deterministic")

	js, _, code := execAMR(t, "run", "--runs", "2", "--json", l0, l4)
	require.Equal(t, exitOK, code)
	var doc struct {
		Results []struct {
			Scenario    string            `json:"scenario"`
			Levels      map[string]string `json:"levels"`
			Obligations map[string]int    `json:"obligations"`
			VacuousRuns map[string]int    `json:"vacuous_runs"`
			Vacuous     []string          `json:"vacuous"`
			Runs        []struct {
				Vacuous []string       `json:"vacuous"`
				Judged  map[string]int `json:"judged"`
			} `json:"runs"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	require.Len(t, doc.Results, 2)
	r0, r4 := doc.Results[0], doc.Results[1]
	assert.Empty(t, r0.Vacuous)
	assert.Positive(t, r0.Obligations["L0"])
	assert.Equal(t, []string{"L0"}, r4.Vacuous)
	assert.Equal(t, "pass", r4.Levels["L0"], "levels keep pass / fail / untested")
	assert.Equal(t, 2, r4.VacuousRuns["L0"])
	assert.Zero(t, r4.Obligations["L0"])
	for _, run := range r4.Runs {
		assert.Equal(t, []string{"L0"}, run.Vacuous)
		assert.Zero(t, run.Judged["L0.reply"])
	}
	jsAgain, _, _ := execAMR(t, "run", "--runs", "2", "--json", l0, l4)
	assert.Equal(t, js, jsAgain, "--json is deterministic")
}

// A level vacuous in some runs only is a pass, marked and explained.
func TestTableMarksAPartlyVacuousLevel(t *testing.T) {
	levels := map[string]string{"L0": "pass", "L1": "pass"}
	run := func(l1 int, vacuous ...string) suite.RunReport {
		return suite.RunReport{Levels: levels, Obligations: map[string]int{"L0": 1, "L1": l1},
			Vacuous: append([]string{}, vacuous...), Violations: []checker.Violation{}}
	}
	mixed := suite.NewReport("l1-sometimes", "x", 1, []suite.RunReport{run(2), run(0, "L1"), run(0, "L1")})
	never := suite.NewReport("l1-never", "x", 1, []suite.RunReport{run(0, "L1"), run(0, "L1")})
	var buf bytes.Buffer
	printTable(&buf, []*suite.Report{mixed, never}, 0, false)
	out := buf.String()
	assert.Regexp(t, `\nl1-sometimes\s+pass\s+pass\*\s+-`, out)
	assert.Regexp(t, `\nl1-never\s+pass\s+vacuous\s+-`, out)
	assert.Contains(t, out, "\npass*: passed, but no obligation was judged in some runs:\n  l1-sometimes L1 in 2 of 3 runs\n")
	assert.Contains(t, out, "  l1-never L1\n")
	assert.Equal(t, 1, vacuousLevels([]*suite.Report{mixed, never}))

	buf.Reset()
	printTable(&buf, []*suite.Report{suite.NewReport("l1-always", "x", 1, []suite.RunReport{run(2), run(1)})}, 0, false)
	assert.NotContains(t, buf.String(), "vacuous")
	assert.NotContains(t, buf.String(), "pass*")
}

func TestCheckShowsVacuousLevels(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		scenario string
		vacuous  []string
	}{
		{"l4-operator-escalation", []string{"L0"}},
		{"l0-respond", []string{}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			b := publishedCopy(t, tc.scenario, dir)
			out := filepath.Join(dir, "out")
			_, errOut, code := execAMR(t, "run", "--runs", "1", "--out", out, b)
			require.Equal(t, exitOK, code, errOut)
			sb := filepath.Join(out, tc.scenario, "run-1", "sandbox")
			text, _, code := execAMR(t, "check", "--bundle", b, "--sandbox", sb)
			require.Equal(t, exitOK, code)
			js, _, code := execAMR(t, "check", "--json", "--bundle", b, "--sandbox", sb)
			require.Equal(t, exitOK, code)
			var doc checkJSON
			require.NoError(t, json.Unmarshal([]byte(js), &doc))
			assert.Equal(t, tc.vacuous, doc.Vacuous)
			assert.Equal(t, "pass", doc.Levels["L0"])
			assert.Contains(t, doc.Obligations, "L0")
			assert.Contains(t, doc.Judged, "L0.reply")
			if len(tc.vacuous) > 0 {
				assert.Regexp(t, `\nl4-operator-escalation\s+vacuous\s+pass`, text)
				assert.Contains(t, text, "vacuous: passed with no obligation judged")
			} else {
				assert.NotContains(t, text, "vacuous")
			}
		})
	}
}
