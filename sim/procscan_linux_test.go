//go:build linux

package sim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

func TestPidAfterIsTheCyclicRange(t *testing.T) {
	for _, c := range []struct {
		pid, from, to int
		want          bool
	}{
		{pid: 101, from: 100, to: 200, want: true},
		{pid: 200, from: 100, to: 200, want: true},
		{pid: 100, from: 100, to: 200, want: false}, // the mark's own last pid is older
		{pid: 201, from: 100, to: 200, want: false},
		{pid: 50, from: 100, to: 200, want: false},
		{pid: 150, from: 150, to: 150, want: false}, // nothing allocated since
		// The pids went past the top of the space and began again.
		{pid: 32000, from: 30000, to: 400, want: true},
		{pid: 350, from: 30000, to: 400, want: true},
		{pid: 401, from: 30000, to: 400, want: false},
		{pid: 29999, from: 30000, to: 400, want: false},
	} {
		assert.Equal(t, c.want, pidAfter(c.pid, c.from, c.to), "pid %d in (%d, %d]", c.pid, c.from, c.to)
	}
}

// startSandboxed starts a process that carries AMR_SANDBOX=dir, as a run's
// process does, and kills it when the test ends.
func startSandboxed(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), EnvSandbox+"="+dir)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

func pidsOf(strays []stray) []int {
	var out []int
	for _, s := range strays {
		out = append(out, s.pid)
	}
	return out
}

// A look from a mark finds a process of the run forked after the mark, and
// reads no process forked before it: the run cannot have made that one.
func TestAScanFromAMarkLooksOnlyAtProcessesForkedSince(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("needs sleep: " + err.Error())
	}
	dir := filepath.Join(t.TempDir(), "sandbox")
	before := startSandboxed(t, dir)
	mark := markProcs()
	if !mark.ok {
		t.Skip("this /proc gives no pid window (another pid namespace, or unreadable)")
	}
	after := startSandboxed(t, dir)
	from, to, ok := mark.window()
	require.True(t, ok)
	assert.True(t, pidAfter(after.Process.Pid, from, to), "forked after the mark")
	assert.False(t, pidAfter(before.Process.Pid, from, to), "forked before the mark")

	since := pidsOf(findStrays(dir, mark))
	assert.Contains(t, since, after.Process.Pid)
	assert.NotContains(t, since, before.Process.Pid)
	// The zero mark looks at every process.
	all := pidsOf(findStrays(dir, procMark{}))
	assert.Contains(t, all, after.Process.Pid)
	assert.Contains(t, all, before.Process.Pid)
}

// A mark whose pids may have gone round the whole space gives no window,
// and every process is looked at.
func TestAMarkPastAWholeCycleOfPidsLooksAtAll(t *testing.T) {
	mark := markProcs()
	if !mark.ok {
		t.Skip("this /proc gives no pid window (another pid namespace, or unreadable)")
	}
	mark.forks -= uint64(mark.pidMax)
	_, _, ok := mark.window()
	assert.False(t, ok)
	_, _, ok = procMark{}.window()
	assert.False(t, ok, "the zero mark has no window")
}

// A harness file is written through a temporary file that must be new: one
// left over, or a link planted in its place, is removed first and never
// written through.
func TestWriteNewReplacesWhatIsInItsPlace(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o644))
	tmp := filepath.Join(dir, ".amr-clock.tmp")
	require.NoError(t, os.Symlink(target, tmp))
	require.NoError(t, writeNew(tmp, []byte("one")))
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(got), "never written through the link")
	info, err := os.Lstat(tmp)
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular())
	require.NoError(t, writeNew(tmp, []byte("two")), "a file left over is replaced")
	got, err = os.ReadFile(tmp)
	require.NoError(t, err)
	assert.Equal(t, "two", string(got))
	require.NoError(t, writeNew(filepath.Join(dir, "fresh"), []byte("three")))
}

// BenchmarkWriteClock is the clock's rewrite at every tick: a new
// temporary file, then a rename over the clock.
func BenchmarkWriteClock(b *testing.B) {
	root, err := os.MkdirTemp(DefaultTempDir(), "amr-bench-*")
	require.NoError(b, err)
	defer os.RemoveAll(root)
	files := newDirFiles(root, 1<<20)
	for i := 0; b.Loop(); i++ {
		if err := files.Write(sandbox.Clock, []byte(`{"tick":`+strconv.Itoa(i)+"}\n")); err != nil {
			b.Fatal(err)
		}
	}
}
