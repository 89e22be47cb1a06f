//go:build unix

package doctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commandTimeout bounds one documented command.
const commandTimeout = 10 * time.Minute

// tally counts what happened to the documented commands.
type tally struct {
	ran, failed, missingTool, notRun int
	notRunWhy                        []string
}

// TestDocumentedCommands runs every command of a block annotated to run, in
// README.md and then docs/*.md, in a fresh clone of the repository's HEAD
// (what is committed, not the working tree) with a fresh module cache, each
// file from a clean checkout, and fails when a command's exit code is not
// the one its annotation says or its output lacks what the annotation
// names. It takes minutes, so it runs only with AMR_DOCTEST=1, as bash
// .ci/run runs it, in a step of its own.
func TestDocumentedCommands(t *testing.T) {
	if os.Getenv("AMR_DOCTEST") != "1" {
		t.Skip("the documented commands run only with AMR_DOCTEST=1 (bash .ci/run sets it in a step of its own): they take minutes")
	}
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH: the documented commands cannot run", tool)
		}
	}
	root := repoRoot(t)
	work := t.TempDir()
	clone := filepath.Join(work, "amr")
	head := strings.TrimSpace(mustRun(t, root, nil, "git", "rev-parse", "HEAD"))
	mustRun(t, work, nil, "git", "clone", "--quiet", root, clone)
	mustRun(t, clone, nil, "git", "checkout", "--quiet", head)
	if dirty := strings.TrimSpace(mustRun(t, root, nil, "git", "status", "--porcelain", "--untracked-files=no")); dirty != "" {
		t.Logf("note: the working tree has uncommitted changes; the commands run on commit %s as committed", head[:12])
	}
	env := commandEnv(t, filepath.Join(work, "gomodcache"))

	docs := parseDocs(t, clone)
	var n tally
	start := time.Now()
	for _, f := range docFiles(t, clone) {
		if !hasRunnable(docs[f]) {
			continue
		}
		t.Run(strings.ReplaceAll(f, "/", "_"), func(t *testing.T) {
			mustRun(t, clone, nil, "git", "reset", "--quiet", "--hard", head)
			mustRun(t, clone, nil, "git", "clean", "--quiet", "-fdx")
			runFile(t, clone, env, docs[f], &n)
		})
	}
	t.Logf("documented commands: %d run (%d failed), %d skipped for a missing tool, %d not run as annotated; %s in all, on commit %s",
		n.ran, n.failed, n.missingTool, n.notRun, time.Since(start).Round(100*time.Millisecond), head[:12])
	for _, why := range n.notRunWhy {
		t.Logf("  not run: %s", why)
	}
}

func hasRunnable(blocks []Block) bool {
	for _, b := range blocks {
		if b.Run || b.NoRun {
			return true
		}
	}
	return false
}

// outcome is what one documented command did, or, for a block's
// contains=, what its output lacked.
type outcome struct {
	where, text string
	code        int
	output      string
	took        time.Duration
	// skipped says why the command was not run (a missing tool).
	skipped string
	// problem says how the command broke what its text says.
	problem string
}

// runFile runs one file's blocks in order, each command as a subtest, and
// stops at the first that breaks its text: the ones after it depend on
// what it should have done.
func runFile(t *testing.T, dir string, env []string, blocks []Block, n *tally) {
	runBlocks(dir, env, blocks, n, func(o outcome) bool {
		return t.Run(filepath.Base(o.where), func(t *testing.T) {
			if o.skipped != "" {
				t.Skipf("%s: not run: %s: %s", o.where, o.skipped, o.text)
			}
			t.Logf("%s: exit %d in %s: %s", o.where, o.code, o.took.Round(100*time.Millisecond), o.text)
			if o.problem != "" {
				t.Fatalf("%s: %s\n%s; its output ends:\n%s", o.where, o.text, o.problem, tail(o.output, 4000))
			}
		})
	})
}

// runBlocks runs the blocks meant to run and hands each outcome to report,
// stopping at the first problem or when report says to.
func runBlocks(dir string, env []string, blocks []Block, n *tally, report func(outcome) bool) {
	for _, b := range blocks {
		if b.NoRun {
			n.notRun += len(b.Commands)
			n.notRunWhy = append(n.notRunWhy, fmt.Sprintf("%s (%d command(s)): %s", b.Where(), len(b.Commands), b.Reason))
			continue
		}
		if !b.Run {
			continue
		}
		missing := missingTools(b.Needs)
		var out strings.Builder
		for _, c := range b.Commands {
			o := outcome{where: fmt.Sprintf("%s:%d", b.File, c.Line), text: c.Text}
			switch {
			case c.Skipped:
				n.notRun++
				n.notRunWhy = append(n.notRunWhy, fmt.Sprintf("%s %s: %s", o.where, c.Text, b.Reason))
				continue
			case len(missing) > 0:
				n.missingTool++
				o.skipped = "needs " + strings.Join(missing, ", ") + ", not on PATH"
			default:
				n.ran++
				o.code, o.output, o.took = runCommand(dir, env, c.Text)
				out.WriteString(o.output)
				if o.code != b.Exit {
					n.failed++
					o.problem = fmt.Sprintf("exits %d, the text says %d", o.code, b.Exit)
				}
			}
			if !report(o) || o.problem != "" {
				return
			}
		}
		if len(missing) > 0 {
			continue
		}
		for _, want := range b.Contains {
			if !strings.Contains(out.String(), want) {
				n.failed++
				report(outcome{where: b.Where(), text: "(the block's output)", output: out.String(),
					problem: fmt.Sprintf("the block's output lacks %q", want)})
				return
			}
		}
	}
}

func missingTools(tools []string) []string {
	var out []string
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			out = append(out, tool)
		}
	}
	return out
}

// runCommand runs one command line with bash, as a reader pasting it would,
// in its own process group so a timeout ends everything it started.
func runCommand(dir string, env []string, line string) (code int, output string, took time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	if ctx.Err() != nil {
		return -1, buf.String() + fmt.Sprintf("\n(killed after %s)\n", commandTimeout), took
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), buf.String(), took
		}
		return -1, buf.String() + "\n" + err.Error() + "\n", took
	}
	return 0, buf.String(), took
}

// commandEnv is the environment of the documented commands: this one,
// without AMR_DOCTEST (a documented go test must not run this test again),
// with an empty module cache of its own, filled from the module proxy this
// machine's own cache serves (and the configured proxy behind it), so a
// module go.mod and go.sum do not name cannot come from a warm cache. The
// build cache stays shared: it is keyed by content and only saves time.
func commandEnv(t *testing.T, modcache string) []string {
	t.Helper()
	goenv := func(name string) string { return strings.TrimSpace(mustRun(t, ".", nil, "go", "env", name)) }
	proxy := goenv("GOPROXY")
	if dl := filepath.Join(goenv("GOMODCACHE"), "cache", "download"); isDir(dl) {
		proxy = "file://" + filepath.ToSlash(dl) + "," + proxy
	}
	flags := goenv("GOFLAGS")
	if !strings.Contains(flags, "-mod=") {
		flags = strings.TrimSpace(flags + " -mod=readonly")
	}
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "AMR_DOCTEST", "GOMODCACHE", "GOPROXY", "GOFLAGS":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GOMODCACHE="+modcache, "GOPROXY="+proxy, "GOFLAGS="+flags)
	// Module files are read-only: only go itself removes them.
	t.Cleanup(func() {
		if isDir(modcache) {
			cmd := exec.Command("go", "clean", "-modcache")
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Logf("go clean -modcache: %v\n%s", err, out)
			}
		}
	})
	return env
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s: %s", name, strings.Join(args, " "), out)
	return string(out)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// The runner holds a command to its block's exit code and text, skips a
// block whose tool is missing, and stops at the first problem: it can fail.
func TestRunBlocksHoldsCommandsToTheirText(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	md := "<!-- doc: run -->\n```sh\ntrue\necho hello\n```\n" +
		"<!-- doc: run exit=3 contains=\"hello\" -->\n```sh\necho hello; exit 3\n```\n" +
		"<!-- doc: run needs=no-such-tool-amr -->\n```sh\nno-such-tool-amr --version\n```\n" +
		"<!-- doc: no-run reason=\"it is CI\" -->\n```sh\nbash .ci/run\n```\n"
	parse := func(md string) []Block {
		blocks, err := Parse("x.md", []byte(md))
		require.NoError(t, err)
		return blocks
	}
	run := func(blocks []Block) (tally, []outcome) {
		var n tally
		var got []outcome
		runBlocks(t.TempDir(), os.Environ(), blocks, &n, func(o outcome) bool { got = append(got, o); return true })
		return n, got
	}

	n, got := run(parse(md))
	require.Len(t, got, 4)
	for _, o := range got {
		assert.Empty(t, o.problem, o.where)
	}
	assert.Equal(t, "hello\n", got[1].output)
	assert.Equal(t, 3, got[2].code)
	assert.Contains(t, got[3].skipped, "needs no-such-tool-amr")
	assert.Equal(t, tally{ran: 3, missingTool: 1, notRun: 1, notRunWhy: []string{"x.md:15 (1 command(s)): it is CI"}}, n)

	tests := []struct{ name, md, want string }{
		{"an exit code the text does not say", "<!-- doc: run -->\n```sh\nexit 2\necho after\n```\n", "exits 2, the text says 0"},
		{"a failure the text does not say", "<!-- doc: run exit=1 -->\n```sh\ntrue\n```\n", "exits 0, the text says 1"},
		{"a pipe that hides a failure", "<!-- doc: run -->\n```sh\nfalse | cat\n```\n", "exits 1, the text says 0"},
		{"output without the text", "<!-- doc: run contains=\"no change\" -->\n```sh\necho 2 changes\n```\n", `lacks "no change"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, got := run(parse(tc.md))
			require.NotEmpty(t, got)
			last := got[len(got)-1]
			assert.Contains(t, last.problem, tc.want)
			assert.Equal(t, 1, n.failed)
			for _, o := range got {
				assert.NotEqual(t, "echo after", o.text, "nothing runs after a problem")
			}
		})
	}
}
