package sim

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

// measuredRun is a run directory as a process run lays it out, the harness's
// files written through its dirFiles, with the measure kept on it.
type measuredRun struct {
	t       *testing.T
	workdir string
	root    string
	files   *dirFiles
	m       *runMeasure
}

func newMeasuredRun(t *testing.T) *measuredRun {
	workdir := t.TempDir()
	root := filepath.Join(workdir, SandboxDir)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "private", "a"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(workdir, StdoutLog), []byte("instance 1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, sandbox.Drafts), []byte(`{"x":1}`+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "private", "a", "db"), []byte("0123456789"), 0o644))
	r := &measuredRun{t: t, workdir: workdir, root: root, files: newDirFiles(root, 1<<20)}
	require.NoError(t, r.files.Write(sandbox.Clock, []byte(`{"tick":0}`+"\n")))
	require.NoError(t, r.files.Append(sandbox.Inbox, []byte(`{"id":"m1"}`)))
	r.m = newRunMeasure(workdir, root, 1<<30, r.files.expect)
	t.Cleanup(r.m.close)
	r.look() // the first look measures and watches
	return r
}

// look takes the kept measure, which must be the measure taken afresh, and
// returns how many full measures it took.
func (r *measuredRun) look() int {
	r.t.Helper()
	before := r.m.measures
	size, entries := r.m.measure()
	wsize, wentries := dirSize(r.workdir, 1<<30)
	require.Equal(r.t, wsize, size, "bytes")
	require.Equal(r.t, wentries, entries, "entries")
	return r.m.measures - before
}

func (r *measuredRun) path(name string) string {
	return filepath.Join(r.root, filepath.FromSlash(name))
}

func (r *measuredRun) appendTo(path, text string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(r.t, err)
	_, err = f.WriteString(text)
	require.NoError(r.t, err)
	require.NoError(r.t, f.Close())
}

// remembers says whether this system keeps the measure between looks;
// elsewhere every look measures, which the tests of what is seen still hold.
func remembers() bool { return runtime.GOOS == "linux" && runtime.GOARCH == "amd64" }

// Every change the measure at every tick saw is seen by the kept measure.
func TestRunMeasureSeesEveryChangeTheWalkSaw(t *testing.T) {
	t.Run("a write through a hard link from outside", func(t *testing.T) {
		r := newMeasuredRun(t)
		outside := filepath.Join(t.TempDir(), "big")
		require.NoError(t, os.WriteFile(outside, []byte("x"), 0o644))
		require.NoError(t, os.Link(outside, r.path("private/linked")))
		assert.Equal(t, 1, r.look(), "a new entry")
		r.appendTo(outside, strings.Repeat("y", 5000))
		assert.Equal(t, 1, r.look(), "written under the other name only")
	})
	t.Run("a write through a hard link to one of the harness's files", func(t *testing.T) {
		r := newMeasuredRun(t)
		require.NoError(t, os.Link(r.path(sandbox.Inbox), r.path("private/inbox")))
		r.look()
		require.NoError(t, r.files.Append(sandbox.Inbox, []byte(`{"id":"m2"}`)))
		assert.Equal(t, 1, r.look(), "the harness's append grew the link too")
	})
	t.Run("a rename over a file", func(t *testing.T) {
		r := newMeasuredRun(t)
		tmp := filepath.Join(r.workdir, "new")
		require.NoError(t, os.WriteFile(tmp, make([]byte, 3000), 0o644))
		r.look()
		require.NoError(t, os.Rename(tmp, r.path(sandbox.Drafts)))
		assert.Equal(t, 1, r.look())
	})
	t.Run("a truncate and a rewrite to the same size", func(t *testing.T) {
		r := newMeasuredRun(t)
		require.NoError(t, os.Truncate(r.path("private/a/db"), 0))
		require.NoError(t, os.WriteFile(r.path("private/a/db"), []byte("abcdefghij"), 0o644))
		assert.Equal(t, 1, r.look(), "reported though the size is the same")
	})
	t.Run("a write in a subdirectory", func(t *testing.T) {
		r := newMeasuredRun(t)
		r.appendTo(r.path("private/a/db"), strings.Repeat("z", 777))
		assert.Equal(t, 1, r.look())
		require.NoError(t, os.MkdirAll(r.path("private/b/c"), 0o755))
		require.NoError(t, os.WriteFile(r.path("private/b/c/d"), []byte("new"), 0o644))
		assert.Equal(t, 1, r.look(), "a new directory and a file in it")
		r.appendTo(r.path("private/b/c/d"), "more")
		assert.Equal(t, 1, r.look(), "a file of the new directory")
	})
	t.Run("a write that keeps the mtime", func(t *testing.T) {
		r := newMeasuredRun(t)
		p := r.path("private/a/db")
		info, err := os.Stat(p)
		require.NoError(t, err)
		r.look()
		r.appendTo(p, strings.Repeat("m", 4096))
		require.NoError(t, os.Chtimes(p, info.ModTime(), info.ModTime()))
		assert.Equal(t, 1, r.look())
	})
	t.Run("a write beside the sandbox", func(t *testing.T) {
		r := newMeasuredRun(t)
		r.appendTo(filepath.Join(r.workdir, StdoutLog), "printed\n")
		assert.Equal(t, 1, r.look())
	})
	t.Run("one of the harness's files written by someone else", func(t *testing.T) {
		r := newMeasuredRun(t)
		r.appendTo(r.path(sandbox.Clock), strings.Repeat("c", 100))
		assert.Equal(t, 1, r.look(), "grown past the harness's copy")
		r = newMeasuredRun(t)
		require.NoError(t, os.WriteFile(r.path(sandbox.Approvals), []byte("{}\n"), 0o644))
		assert.Equal(t, 1, r.look(), "made where the harness wrote none")
		r = newMeasuredRun(t)
		require.NoError(t, os.WriteFile(r.path(".amr-"+sandbox.Clock+".tmp"), make([]byte, 900), 0o644))
		assert.Equal(t, 1, r.look(), "the harness's temporary name left in place")
		r = newMeasuredRun(t)
		require.NoError(t, os.Remove(r.path(sandbox.Inbox)))
		require.NoError(t, os.Mkdir(r.path(sandbox.Inbox), 0o755))
		assert.Equal(t, 1, r.look(), "a directory in its place")
	})
	t.Run("a file removed", func(t *testing.T) {
		r := newMeasuredRun(t)
		require.NoError(t, os.Remove(r.path("private/a/db")))
		assert.Equal(t, 1, r.look())
	})
}

// What the harness writes itself, and nothing at all, take no measure; the
// kept measure is still the walk's (look checks it every time).
func TestRunMeasureTakesTheHarnessWritesWithoutAMeasure(t *testing.T) {
	if !remembers() {
		t.Skip("the measure is kept between looks on linux/amd64 only")
	}
	r := newMeasuredRun(t)
	assert.Equal(t, 0, r.look(), "nothing changed")
	for tick := 1; tick <= 5; tick++ {
		require.NoError(t, r.files.Write(sandbox.Clock, []byte(`{"tick":`+strings.Repeat("9", tick)+"}\n")))
		require.NoError(t, r.files.Append(sandbox.Inbox, []byte(`{"id":"m`+strings.Repeat("2", tick)+`"}`)))
		require.NoError(t, r.files.Append(sandbox.Signals, []byte(`{"kind":"x"}`)))
		assert.Equal(t, 0, r.look(), "tick %d: only the harness wrote", tick)
	}
	// A write that lands between the harness's and the look is still seen.
	require.NoError(t, r.files.Write(sandbox.Clock, []byte(`{"tick":6}`+"\n")))
	r.appendTo(r.path(sandbox.Drafts), `{"y":2}`+"\n")
	assert.Equal(t, 1, r.look())
	time.Sleep(time.Millisecond)
	assert.Equal(t, 0, r.look())
}

// A line changed in place through a shared mapping is found by the read of
// every log at the tick's end (D151): the kernel reports no change for such
// a write, so a report could not stand in for that read.
func TestALogChangedThroughAMappingIsFoundAtTheTicksEnd(t *testing.T) {
	root := t.TempDir()
	seen := map[string]*appendLog{}
	for _, n := range sandbox.ImplLogs {
		seen[n] = &appendLog{}
	}
	var got []string
	w := newWatcher(root, 1<<20, seen, func(name string, _ *rewrite, _ string) { got = append(got, name) })
	p := filepath.Join(root, sandbox.Outbox)
	require.NoError(t, os.WriteFile(p, []byte(`{"id":"a"}`+"\n"+`{"id":"b"}`+"\n"), 0o644))
	w.poll(false)
	require.Equal(t, 2, w.writes)

	w.verify()
	assert.Empty(t, got, "nothing changed: no rewrite")

	f, err := os.OpenFile(p, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	mem, err := syscall.Mmap(int(f.Fd()), 0, 22, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Skip("no shared mapping here: " + err.Error())
	}
	mem[8] = 'z' // "a" becomes "z": the same size, no write call
	require.NoError(t, syscall.Munmap(mem))

	w.poll(false)
	assert.Empty(t, got, "a poll trusts a log that did not grow")
	w.verify()
	assert.Equal(t, []string{sandbox.Outbox}, got, "the whole read finds the line changed in place")
}

// A process that grows a file of its sandbox only through a hard link from
// outside the run directory is still killed for the run directory's bound
// (D59, D150): the file's watch is on its inode.
func TestAWriteThroughAHardLinkFromOutsideHitsTheBound(t *testing.T) {
	requireLinux(t)
	// Beside the run directories, on their file system: a hard link
	// cannot cross one.
	dir, err := os.MkdirTemp(DefaultTempDir(), "amr-outside-*")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	outside := filepath.Join(dir, "grows")
	spec := helperSpec("link-filler", RegimeStep)
	spec.Env = append(spec.Env, "AMR_HELPER_OUTSIDE="+outside)
	spec.MaxRunDirBytes = 2 << 20
	res := runProcess(t, shortened(t, "l0-respond", 6), spec, 1)
	info, err := os.Stat(outside)
	require.NoError(t, err)
	require.Greater(t, info.Size(), int64(10<<20), "the helper grew the file")
	require.Equal(t, uint64(2), info.Sys().(*syscall.Stat_t).Nlink, "and linked it into the sandbox")
	bound := kinds(res, sandbox.LogBound)
	require.Len(t, bound, 1, "the growth through the other name is seen")
	assert.Contains(t, bound[0].Detail, "more than 2097152 bytes")
	assert.Equal(t, ProcBound, res.Process.Down)
	assert.Equal(t, 2, bound[0].Tick, "at the end of the tick it grew in")
}

// A lost report (the kernel's queue overflowed) makes the next look a full
// measure, which is again the walk's: here every report the queue kept is
// of the harness's own writes, so only the loss can say a measure is due.
func TestRunMeasureMeasuresAfterALostReport(t *testing.T) {
	if !remembers() {
		t.Skip("the measure is kept between looks on linux/amd64 only")
	}
	data, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	require.NoError(t, err)
	queue, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	if queue > 1<<15 {
		t.Skipf("the queue holds %d reports; filling it would take too long", queue)
	}
	r := newMeasuredRun(t)
	// A clock rewrite is five reports and an append two, none the same as
	// the one before, so the kernel merges none of them.
	for i := 0; i <= queue/7+100; i++ {
		require.NoError(t, r.files.Write(sandbox.Clock, []byte(`{"tick":`+strconv.Itoa(i%10)+"}\n")))
		require.NoError(t, r.files.Append(sandbox.Inbox, []byte(`{"id":"m"}`)))
	}
	r.appendTo(r.path("private/a/db"), "reported into a full queue")
	assert.Equal(t, 1, r.look())
	assert.Equal(t, 0, r.look(), "and kept again once the watches are put back")
}
