package doctest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	md := "# title\n" +
		"```sh\nplain --not-annotated\n```\n" +
		"<!-- doc: run -->\n" +
		"```sh\n# a comment\n\ngo build -o amr ./cmd/amr   # build\n./amr run \\\n  --runs 1 \\\n  scenarios/l0-respond\n```\n" +
		"text\n" +
		"<!-- doc: run exit=1 needs=python3,jq contains=\"no change\" contains=\"FAIL\" -->\n" +
		"```bash\n./amr run --impl weak-no-send\n```\n" +
		"<!-- doc: run skip=\"go test ./...\" reason=\"CI runs it\" -->\n" +
		"```sh\ngo run ./cmd/amr run\ngo test ./...\n```\n" +
		"<!-- doc: no-run reason=\"it is CI itself\" -->\n" +
		"```sh\nbash .ci/run\n```\n" +
		"```json\n{\"a\": 1}\n```\n"
	blocks, err := Parse("README.md", []byte(md))
	require.NoError(t, err)
	require.Len(t, blocks, 6)

	plain := blocks[0]
	assert.True(t, plain.Shell())
	assert.False(t, plain.Annotated)
	assert.False(t, plain.Run)

	build := blocks[1]
	assert.True(t, build.Run)
	assert.Equal(t, "README.md:6", build.Where())
	assert.Equal(t, 0, build.Exit)
	assert.Equal(t, []Command{
		{Line: 9, Text: "go build -o amr ./cmd/amr   # build"},
		{Line: 10, Text: "./amr run --runs 1 scenarios/l0-respond"},
	}, build.Commands)

	weak := blocks[2]
	assert.Equal(t, "bash", weak.Lang)
	assert.Equal(t, 1, weak.Exit)
	assert.Equal(t, []string{"python3", "jq"}, weak.Needs)
	assert.Equal(t, []string{"no change", "FAIL"}, weak.Contains)

	skip := blocks[3]
	require.Len(t, skip.Commands, 2)
	assert.False(t, skip.Commands[0].Skipped)
	assert.True(t, skip.Commands[1].Skipped)
	assert.Equal(t, "CI runs it", skip.Reason)

	norun := blocks[4]
	assert.True(t, norun.NoRun)
	assert.False(t, norun.Run)
	assert.Equal(t, "it is CI itself", norun.Reason)

	assert.False(t, blocks[5].Shell())
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, md, want string
	}{
		{"unknown verb", "<!-- doc: maybe -->\n```sh\nls\n```\n", "want run or no-run"},
		{"unknown key", "<!-- doc: run colour=red -->\n```sh\nls\n```\n", `unknown key "colour"`},
		{"bad exit", "<!-- doc: run exit=one -->\n```sh\nls\n```\n", "is not an exit code"},
		{"exit out of range", "<!-- doc: run exit=300 -->\n```sh\nls\n```\n", "is not an exit code"},
		{"no-run without a reason", "<!-- doc: no-run -->\n```sh\nls\n```\n", "say why"},
		{"skip without a reason", "<!-- doc: run skip=\"ls\" -->\n```sh\nls\n```\n", "say why"},
		{"skip naming no command", "<!-- doc: run skip=\"rm\" reason=\"x\" -->\n```sh\nls\n```\n", "names no command"},
		{"unclosed quote", "<!-- doc: run contains=\"x -->\n```sh\nls\n```\n", "unclosed quote"},
		{"not closed", "<!-- doc: run\n```sh\nls\n```\n", "does not end with -->"},
		{"no block after", "<!-- doc: run -->\nsome text\n", "not followed by a code block"},
		{"annotation at the end", "text\n<!-- doc: run -->\n", "not followed by a code block"},
		{"two annotations", "<!-- doc: run -->\n<!-- doc: run -->\n```sh\nls\n```\n", "followed by another annotation"},
		{"transcript", "<!-- doc: run -->\n```sh\n$ amr run\n```\n", "prompt"},
		{"here document", "<!-- doc: run -->\n```sh\ncat <<EOF\n```\n", "here document"},
		{"empty run block", "<!-- doc: run -->\n```sh\n# nothing\n```\n", "holds no command"},
		{"dangling backslash", "<!-- doc: run -->\n```sh\nls \\\n```\n", "backslash"},
		{"unclosed block", "```sh\nls\n", "never closed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.md", []byte(tc.md))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "x.md:")
		})
	}
}

// A fence inside a block of a longer fence does not close it.
func TestParseLongerFence(t *testing.T) {
	blocks, err := Parse("x.md", []byte("````md\n```sh\nls\n```\n````\n"))
	require.NoError(t, err)
	require.Len(t, blocks, 1)
	assert.Equal(t, "md", blocks[0].Lang)
}
