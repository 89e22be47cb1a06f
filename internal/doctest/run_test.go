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

// runFile runs one file's blocks in order and stops at the first command
// that fails: the ones after it depend on what it should have done.
func runFile(t *testing.T, dir string, env []string, blocks []Block, n *tally) {
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
		var out bytes.Buffer
		for _, c := range b.Commands {
			where := fmt.Sprintf("%s:%d", b.File, c.Line)
			if c.Skipped {
				n.notRun++
				n.notRunWhy = append(n.notRunWhy, fmt.Sprintf("%s %s: %s", where, c.Text, b.Reason))
				continue
			}
			ok := t.Run(filepath.Base(where), func(t *testing.T) {
				if len(missing) > 0 {
					n.missingTool++
					t.Skipf("%s: not run: needs %s, not on PATH: %s", where, strings.Join(missing, ", "), c.Text)
				}
				n.ran++
				got, output, took := runCommand(dir, env, c.Text)
				out.WriteString(output)
				t.Logf("%s: exit %d in %s: %s", where, got, took.Round(100*time.Millisecond), c.Text)
				if got != b.Exit {
					n.failed++
					t.Fatalf("%s: %s\nexits %d, the text says %d; its output ends:\n%s", where, c.Text, got, b.Exit, tail(output, 4000))
				}
			})
			if !ok {
				t.FailNow()
			}
		}
		if len(missing) > 0 {
			continue
		}
		for _, want := range b.Contains {
			if !strings.Contains(out.String(), want) {
				n.failed++
				t.Fatalf("%s: the block's output lacks %q; it ends:\n%s", b.Where(), want, tail(out.String(), 4000))
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
