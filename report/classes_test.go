package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseClasses(t *testing.T) {
	override := classSource{path: "over.json", override: true}
	disclosure := classSource{path: "sub/classes.json", impl: "mine"}
	cases := []struct {
		name string
		src  classSource
		data string
		err  string
	}{
		{"override justified", override,
			`{"format":"amr.classes/v1","classes":[{"impl":"x","scenario":"l2-govern","level":"L2","class":"adapter","justification":"the HITL shim dropped the approval"}]}`, ""},
		{"override without justification", override,
			`{"format":"amr.classes/v1","classes":[{"impl":"x","scenario":"l2-govern","level":"L2","class":"adapter"}]}`,
			"over.json: classes[0].justification: required in an override file"},
		{"override blank justification", override,
			`{"format":"amr.classes/v1","classes":[{"impl":"x","scenario":"l2-govern","level":"L2","class":"mechanism","justification":"  "}]}`,
			"classes[0].justification: required"},
		{"override without impl", override,
			`{"format":"amr.classes/v1","classes":[{"scenario":"l2-govern","level":"L2","class":"adapter","justification":"j"}]}`,
			"over.json: classes[0].impl: required in an override file"},
		{"disclosure mechanism needs no justification", disclosure,
			`{"format":"amr.classes/v1","classes":[{"scenario":"l2-govern","level":"L2","class":"mechanism"}]}`, ""},
		{"disclosure fixture-defect needs one", disclosure,
			`{"format":"amr.classes/v1","classes":[{"scenario":"l2-govern","level":"L2","class":"fixture-defect"}]}`,
			"sub/classes.json: classes[0].justification: required for a fixture-defect"},
		{"disclosure of another implementation", disclosure,
			`{"format":"amr.classes/v1","classes":[{"impl":"other","scenario":"l2-govern","level":"L2","class":"mechanism"}]}`,
			"classes[0].impl: \"other\", but the submission is \"mine\"'s"},
		{"unknown class", override,
			`{"format":"amr.classes/v1","classes":[{"impl":"x","scenario":"s","level":"L2","class":"bad-luck","justification":"j"}]}`,
			"classes[0].class: \"bad-luck\" is not a class"},
		{"bad level", override,
			`{"format":"amr.classes/v1","classes":[{"impl":"x","scenario":"s","level":"L9","class":"adapter","justification":"j"}]}`,
			"classes[0].level: \"L9\" is not a level"},
		{"no scenario", override,
			`{"format":"amr.classes/v1","classes":[{"impl":"x","level":"L1","class":"adapter","justification":"j"}]}`,
			"classes[0].scenario: required"},
		{"twice", override,
			`{"format":"amr.classes/v1","classes":[{"impl":"x","scenario":"s","level":"L1","class":"adapter","justification":"j"},{"impl":"x","scenario":"s","level":"L1","class":"mechanism","justification":"k"}]}`,
			"classes[1].level: classifies x s L1 again (first at classes[0])"},
		{"wrong format", override, `{"format":"amr.classes/v0","classes":[]}`, "format: \"amr.classes/v0\""},
		{"misspelt field", override,
			`{"format":"amr.classes/v1","classes":[{"impl":"x","scenario":"s","level":"L1","class":"adapter","justificaton":"j"}]}`,
			"unknown field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseClasses(c.src, []byte(c.data))
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.NotEmpty(t, got[0].Impl, "a disclosure's entries name the submission's implementation")
		})
	}
}
