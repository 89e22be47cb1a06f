package hostile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
)

// amrBin is the binary every case runs, built once; base is the world
// every case starts from, copied per case.
var amrBin, base string

// repoRoot is the repository's root, from this package's directory.
const repoRoot = "../.."

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	tmp, err := os.MkdirTemp("", "amr-hostile-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	// AMR_HOSTILE_BIN runs the table against another build (an older
	// one, to see which cases it fails).
	if amrBin = os.Getenv("AMR_HOSTILE_BIN"); amrBin == "" {
		amrBin = filepath.Join(tmp, "amr")
		build := exec.Command("go", "build", "-o", amrBin, "./cmd/amr")
		build.Dir = repoRoot
		if out, err := build.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("building amr: %v\n%s", err, out)
		}
	}
	base = filepath.Join(tmp, "base")
	if err := makeBase(base); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// makeBase writes the world of well-formed inputs that the cases spoil:
// a bundle in both forms, a kept run with its ledger, a fuzz corpus, a
// sealed and revealed reserve set, a baseline and a declaration.
func makeBase(dir string) error {
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		return err
	}
	steps := [][]string{
		{"cp", "-r", filepath.Join(abs, "scenarios", "l0-respond"), "b"},
		{"mkdir", "-p", "corpus", "seal", "pub"},
		{amrBin, "run", "b", "--runs", "1", "--out", "out", "--ledger", "ledger.jsonl"},
		{"cp", filepath.Join(abs, "testdata", "baseline.json"), "baseline.json"},
		{"cp", filepath.Join(abs, "examples", "submissions", "reference.json"), "decl.json"},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range steps {
		if err := sh(dir, s...); err != nil {
			return err
		}
	}
	b, _, err := scenarios.Load(filepath.Join(dir, "b"))
	if err != nil {
		return err
	}
	for _, p := range []string{"b.json", "corpus/c.json", "seal/r1.json"} {
		if err := scenarios.SaveJSON(b, filepath.Join(dir, p)); err != nil {
			return err
		}
	}
	for _, s := range [][]string{
		{amrBin, "fuzz", "--impl", "weak-send-before-record", "--seed", "7", "--runs", "5000", "--no-shrink", "--no-corpus", "--out", "cx0"},
		{"cp", "cx0/raw/bundle.json", "cx.json"},
		{"cp", "-r", "cx0/raw", "cxrun"},
		{"rm", "-r", "cx0"},
		{amrBin, "reserve", "seal", "seal", "--manifest", "m.json", "--secrets", "s.json", "--created-at", "2026-01-01T00:00:00Z"},
		{amrBin, "reserve", "reveal", "--secrets", "s.json", "--bundles", "seal", "--out", "revealed"},
	} {
		if err := sh(dir, s...); err != nil {
			return err
		}
	}
	return nil
}

func sh(dir string, args ...string) error {
	c := exec.Command(args[0], args[1:]...)
	c.Dir = dir
	out, err := c.CombinedOutput()
	// A campaign that finds its counterexample exits 1, as it must.
	if len(args) > 1 && args[1] == "fuzz" && exitCode(err) == 1 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// world is one case's copy of base, with a temporary directory of its own
// (TMPDIR) so what amr leaves there can be seen.
type world struct {
	dir, tmp string
	args     []string // the case's command
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{dir: filepath.Join(root, "w"), tmp: filepath.Join(root, "tmp")}
	require.NoError(t, sh(root, "cp", "-r", base, w.dir))
	require.NoError(t, os.Mkdir(w.tmp, 0o755))
	return w
}

func (w *world) path(rel string) string { return filepath.Join(w.dir, filepath.FromSlash(rel)) }

// result is what one command did.
type result struct {
	code           int
	stdout, stderr string
	timedOut       bool
}

func (r result) output() string { return r.stdout + r.stderr }

// caseDeadline bounds every command: amr must answer within it, and a
// command that blocks is killed and reported, never waited out.
var caseDeadline = deadlineFromEnv()

// deadlineFromEnv lets AMR_HOSTILE_DEADLINE shorten the bound, to see how a
// build that blocks answers without waiting the full bound on every case.
func deadlineFromEnv() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("AMR_HOSTILE_DEADLINE")); err == nil && d > 0 {
		return d
	}
	return 20 * time.Second
}

// start runs amr in the world, in a process group of its own so that
// whatever it leaves running can be found.
func (w *world) command(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	args = append([]string{}, args...)
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "{amr}", amrBin)
	}
	c := exec.CommandContext(ctx, amrBin, args...)
	c.Dir = w.dir
	c.Env = append(os.Environ(), "TMPDIR="+w.tmp, "NO_COLOR=1", markerVar+"="+w.dir)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 2 * time.Second
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	return c, &out, &errb
}

func (w *world) run(t *testing.T, args ...string) result {
	t.Helper()
	r, pid := w.exec(t, args...)
	w.noLeftovers(t, pid, r.output())
	return r
}

// exec runs amr and returns its result and process id, without looking for
// what it left: for commands run side by side in one world, checked once
// all have ended.
func (w *world) exec(t *testing.T, args ...string) (result, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), caseDeadline)
	defer cancel()
	c, out, errb := w.command(ctx, args...)
	err := c.Run()
	r := result{stdout: out.String(), stderr: errb.String(), timedOut: ctx.Err() != nil}
	r.code = exitCode(err)
	return r, c.Process.Pid
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	default:
		return -1
	}
}

// noLeftovers checks that nothing of the command outlived it: no process
// in its group, nothing in its temporary directory. A straggler is killed
// so one failing case does not spoil the next.
// A directory amr's output names as left for reading ("failed run left in
// DIR") is by design, not a stray.
func (w *world) noLeftovers(t *testing.T, pgid int, output ...string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := w.processes()
		if syscall.Kill(-pgid, 0) != nil && len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("processes outlived amr: group %d, pids %v", pgid, left)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	entries, err := os.ReadDir(w.tmp)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if said := strings.Join(output, ""); strings.Contains(said, "left in "+filepath.Join(w.tmp, e.Name())) {
			continue
		}
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		t.Errorf("left in TMPDIR: %v", names)
	}
}

// markerVar is set in every command's environment: a process that still
// carries this world's marker after the command ended is one it left
// behind, whatever process group it moved to (what ps would show).
const markerVar = "AMR_HOSTILE_WORLD"

func (w *world) processes() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	marker := []byte(markerVar + "=" + w.dir + "\x00")
	var out []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, marker) {
			out = append(out, pid)
		}
	}
	return out
}
