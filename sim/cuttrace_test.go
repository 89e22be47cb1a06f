package sim

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// cutHelper plays the implementations of the exact-cut tests, step regime.
// Each writes a tick's lines with no pause between them, so only a cut
// before each call lands between two of them.
func cutHelper(role, root string) int {
	if role == "burst-once" {
		// One-shot: the tick's six lines in one burst, once per tick.
		tick := os.Getenv(EnvTick)
		if _, err := os.Stat(filepath.Join(root, "private", "done-"+tick)); err == nil {
			return 0
		}
		for i := 0; i < 6; i++ {
			appendLine(root, sandbox.Audit, fmt.Sprintf("{\"event\":\"once\",\"at\":%s,\"n\":%d}\n", tick, i))
		}
		_ = os.MkdirAll(filepath.Join(root, "private"), 0o755)
		appendLine(root, "private/done-"+tick, "")
		return 0
	}
	if role == "filters" {
		// Each instance notes whether it runs under the write filter.
		_ = os.MkdirAll(filepath.Join(root, "private"), 0o755)
		appendLine(root, "private/filters", ownSeccomp()+"\n")
		role = "burst"
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		tick, ok := strings.CutPrefix(sc.Text(), "tick ")
		if !ok {
			continue
		}
		line := func(i int) string {
			return fmt.Sprintf("{\"event\":\"%s\",\"at\":%s,\"n\":%d}\n", role, tick, i)
		}
		switch role {
		case "burst":
			// Four writes of a line each, then one write of two lines.
			f, err := os.OpenFile(filepath.Join(root, sandbox.Audit), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return 2
			}
			for i := 0; i < 4; i++ {
				_, _ = f.WriteString(line(i))
			}
			_, _ = f.WriteString(line(4) + line(5))
			f.Close()
		case "subdir":
			// A draft, a journal entry two directories down, then the send.
			appendLine(root, sandbox.Drafts, fmt.Sprintf("{\"draft_id\":\"d-%s\",\"at\":%s}\n", tick, tick))
			dir := filepath.Join(root, "private", "deep")
			_ = os.MkdirAll(dir, 0o755)
			appendLine(root, "private/deep/journal", "sending "+tick+"\n")
			appendLine(root, sandbox.Outbox, fmt.Sprintf("{\"effect_id\":\"e-%s\",\"at\":%s}\n", tick, tick))
		case "send":
			// A draft, two sends in one write, then their record: a cut
			// after the first send must shorten that write.
			appendLine(root, sandbox.Drafts, line(0))
			appendLine(root, sandbox.Outbox, line(1)+line(2))
			appendLine(root, sandbox.Audit, line(3))
		case "states":
			// A draft, state.json renamed into place, a record, a second
			// state.json, a second record: a cut after the k-th state.json
			// lands between them (D157).
			appendLine(root, sandbox.Drafts, line(0))
			replaceFile(filepath.Join(root, sandbox.State), fmt.Sprintf("{\"tick\":%s,\"v\":1}\n", tick))
			appendLine(root, sandbox.Audit, line(1))
			replaceFile(filepath.Join(root, sandbox.State), fmt.Sprintf("{\"tick\":%s,\"v\":2}\n", tick))
			appendLine(root, sandbox.Audit, line(2))
		case "threads":
			// Each line from a goroutine locked to a thread of its own, in turn.
			for i := 0; i < 6; i++ {
				done := make(chan struct{})
				go func() {
					runtime.LockOSThread()
					appendLine(root, sandbox.Audit, line(i))
					close(done)
				}()
				<-done
			}
		case "child":
			// The lines are written by a shell the helper starts.
			var script strings.Builder
			for i := 0; i < 6; i++ {
				fmt.Fprintf(&script, "printf '%%s' '%s' >> %s\n", line(i), sandbox.Audit)
			}
			cmd := exec.Command("sh", "-c", script.String())
			cmd.Dir = root
			if err := cmd.Run(); err != nil {
				return 2
			}
		}
		fmt.Printf("idle %s\n", tick)
	}
	return 0
}

// ownSeccomp is this process's Seccomp field: "2" under a filter.
func ownSeccomp() string {
	data, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "Seccomp:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func appendLine(root, name, text string) {
	f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(name)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err == nil {
		_, _ = f.WriteString(text)
		f.Close()
	}
}

func requireTrace(t *testing.T) {
	t.Helper()
	requireLinux(t)
	if why := traceRefused(); why != "" {
		if os.Getenv("AMR_REQUIRE_TRACE") != "" {
			t.Fatalf("exact cuts are required but refused: %s", why)
		}
		t.Skip("exact cuts are not available here: " + why)
	}
}

func crashAt(k int, torn bool) []scenarios.Fault {
	return []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: k, Torn: torn}}
}

// The k-th write is cut exactly, inside a burst, for every k, and a second
// run leaves the same bytes.
func TestATracedCrashLandsAtTheKthWrite(t *testing.T) {
	requireTrace(t)
	for _, k := range []int{1, 3, 5, 6} {
		b := shortened(t, "l0-respond", 2)
		b.Faults = crashAt(k, false)
		var first []byte
		for run := 0; run < 2; run++ {
			res := runProcess(t, b, helperSpec("burst", RegimeStep), 1)
			c := kinds(res, sandbox.LogCrash)
			require.Len(t, c, 1)
			assert.Equal(t, k, c[0].Written, "k=%d", k)
			assert.Equal(t, 6+k, c[0].Lines[sandbox.Audit], "k=%d: tick 0's six lines and k of tick 1", k)
			assert.Equal(t, CutTrace, res.Process.Cut)
			audit := res.Files.View(sandbox.Audit)
			if run == 0 {
				first = audit
			} else {
				assert.Equal(t, string(first), string(audit), "k=%d: the same cut, the same bytes", k)
			}
		}
	}
}

// Only the instances a crash after k writes can meet are traced (D224): in
// a step run the one the next crash fault to land is such a crash for, in
// a one-shot run the invocations of a tick with one armed. Each still lands
// its crash at exactly the k-th write.
func TestOnlyTheInstancesACutCanMeetAreTraced(t *testing.T) {
	requireTrace(t)
	b := shortened(t, "l0-respond", 6)
	b.Faults = []scenarios.Fault{
		{At: 1, Kind: scenarios.FaultCrash},
		{At: 2, Kind: scenarios.FaultCrash, AfterWrites: 3},
		{At: 2, Kind: scenarios.FaultCrash, AfterWrites: 2},
		{At: 4, Kind: scenarios.FaultCrash},
	}
	res := runProcess(t, b, helperSpec("filters", RegimeStep), 1)
	assert.Equal(t, CutTrace, res.Process.Cut)
	// Started at the run's start, at the crash of tick 1, at each of the
	// two of tick 2, at tick 4's.
	assert.Equal(t, "0\n2\n2\n0\n0\n", string(res.Files.View("private/filters")))
	c := kinds(res, sandbox.LogCrash)
	require.Len(t, c, 4)
	assert.Equal(t, 2, c[1].Written, "the first crash of tick 2 is the one after 2 writes")
	assert.Equal(t, 3, c[2].Written)
	assert.Equal(t, 6+6+2+3, c[2].Lines[sandbox.Audit], "six lines at each of ticks 0 and 1, then 2 and 3 at tick 2")

	b.Faults = crashAt(4, false)
	b.Faults = append(b.Faults, scenarios.Fault{At: 3, Kind: scenarios.FaultCrash})
	res = runProcess(t, b, helperSpec("burst-once", RegimeOnce), 1)
	assert.Equal(t, CutTrace, res.Process.Cut)
	c = kinds(res, sandbox.LogCrash)
	require.Len(t, c, 2)
	assert.Equal(t, 4, c[0].Written)
}

// A one-shot invocation is cut from its first call: it is armed before
// the implementation runs.
func TestATracedCrashCutsAOneShotInvocation(t *testing.T) {
	requireTrace(t)
	b := shortened(t, "l0-respond", 2)
	b.Faults = crashAt(4, false)
	res := runProcess(t, b, helperSpec("burst-once", RegimeOnce), 1)
	c := kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	assert.Equal(t, 4, c[0].Written)
	assert.Equal(t, 6+4, c[0].Lines[sandbox.Audit])
	assert.Equal(t, CutTrace, res.Process.Cut)
}

// The write before the send is in a subdirectory: the cut between them is
// reached, whether the journal counts or not.
func TestATracedCutLandsBeforeAWriteInASubdirectory(t *testing.T) {
	requireTrace(t)
	b := shortened(t, "l0-respond", 2)
	journal := func(res *Result) string {
		data, _ := os.ReadFile(filepath.Join(res.Workdir, SandboxDir, "private", "deep", "journal"))
		return string(data)
	}
	// By default the journal does not count: the crash after the draft
	// lands before the journal entry, so tick 1's entry is written once,
	// by the restarted instance.
	b.Faults = crashAt(1, false)
	res := runProcess(t, b, helperSpec("subdir", RegimeStep), 1)
	c := kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	assert.Equal(t, 1, c[0].Written)
	assert.Equal(t, 1, c[0].Lines[sandbox.Outbox], "tick 0's send only")
	assert.Equal(t, 1, strings.Count(journal(res), "sending 1\n"))

	// Counted, the journal entry is the second write: the cut falls
	// between it and the send.
	b.Faults = crashAt(2, false)
	spec := helperSpec("subdir", RegimeStep)
	spec.CountWrites = []string{"private/"}
	res = runProcess(t, b, spec, 1)
	c = kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	assert.Equal(t, 2, c[0].Written)
	assert.Equal(t, 1, c[0].Lines[sandbox.Outbox], "killed before the send")
	assert.Equal(t, 2, strings.Count(journal(res), "sending 1\n"), "the killed instance's entry and the restart's")
}

// A torn crash lets half of the k-th line through and kills: the record
// names it, and the helper, which does not end the torn line, glues its
// next line onto it.
func TestATracedTornCrashWritesHalfTheLine(t *testing.T) {
	requireTrace(t)
	b := shortened(t, "l0-respond", 2)
	b.Faults = crashAt(3, true)
	res := runProcess(t, b, helperSpec("burst", RegimeStep), 1)
	c := kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	line := "{\"event\":\"burst\",\"at\":1,\"n\":2}\n"
	assert.Equal(t, sandbox.Audit, c[0].Torn)
	assert.Equal(t, line[:len(line)/2], c[0].TornText)
	assert.Equal(t, 6+3, c[0].Line, "the ninth line of audit.jsonl")
	assert.Equal(t, 3, c[0].Written, "the torn write is the k-th")
	assert.NotContains(t, c[0].Detail, "nothing torn")
	glued := line[:len(line)/2] + "{\"event\":\"burst\",\"at\":1,\"n\":0}\n"
	assert.Contains(t, string(res.Files.View(sandbox.Audit)), glued)

	// Untraced, a torn crash is a plain kill and says so.
	spec := helperSpec("burst", RegimeStep)
	spec.NoTrace = true
	res = runProcess(t, b, spec, 1)
	c = kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	assert.Empty(t, c[0].Torn)
	assert.Contains(t, c[0].Detail, "nothing torn")
}

// Writes from other threads and from a child process are followed.
func TestATracedCutFollowsThreadsAndChildren(t *testing.T) {
	requireTrace(t)
	for _, role := range []string{"threads", "child"} {
		for _, k := range []int{2, 5} {
			b := shortened(t, "l0-respond", 2)
			b.Faults = crashAt(k, false)
			res := runProcess(t, b, helperSpec(role, RegimeStep), 1)
			c := kinds(res, sandbox.LogCrash)
			require.Len(t, c, 1, role)
			assert.Equal(t, k, c[0].Written, "%s k=%d", role, k)
			assert.Equal(t, 6+k, c[0].Lines[sandbox.Audit], "%s k=%d", role, k)
		}
	}
}

// Tracing refused (here: turned off) falls back to the watch, and the run
// says so in its facts and its start record.
func TestWithoutTracingTheRunSaysItWatched(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 2)
	b.Faults = crashAt(2, false)
	spec := helperSpec("burst", RegimeStep)
	spec.NoTrace = true
	res := runProcess(t, b, spec, 1)
	assert.Equal(t, "watch: tracing turned off", res.Process.Cut)
	assert.Equal(t, "watch: tracing turned off", res.Log[0].Start().Params["cut"])

	t.Setenv(EnvNoTrace, "1")
	res = runProcess(t, b, helperSpec("burst", RegimeStep), 1)
	assert.Equal(t, "watch: "+EnvNoTrace+" is set", res.Process.Cut)

	// A run with no crash after k writes needs no cut and names none.
	b.Faults = nil
	res = runProcess(t, b, helperSpec("burst", RegimeStep), 1)
	assert.Empty(t, res.Process.Cut)
	_, named := res.Log[0].Start().Params["cut"]
	assert.False(t, named)
}

// The tracer waits for its own tracees only: a child of the harness that
// is no run's, and the processes of a run on another worker, are left to
// their own waits.
func TestATracerReapsNoOtherChild(t *testing.T) {
	requireTrace(t)
	other := exec.Command("sleep", "30")
	require.NoError(t, other.Start())
	b := shortened(t, "l0-respond", 2)
	b.Faults = crashAt(3, false)
	var wg sync.WaitGroup
	results := make([]*Result, 3)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Run(b, nil, Options{Seed: 1, Impl: "process", Process: helperSpec("burst", RegimeStep)})
			if err == nil {
				results[i] = res
			}
		}()
	}
	wg.Wait()
	for _, res := range results {
		require.NotNil(t, res)
		t.Cleanup(func() { _ = res.Cleanup() })
		c := kinds(res, sandbox.LogCrash)
		require.Len(t, c, 1)
		assert.Equal(t, 3, c[0].Written)
	}
	require.NoError(t, other.Process.Kill())
	err := other.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the harness's own child was still there to be waited for")
	assert.Equal(t, "signal: killed", exit.ProcessState.String())
	_ = time.Second
}

// A tracer's thread outlives its run: the runtime ends a locked thread whose
// goroutine returns, and the kernel then sends the parent-death signal of
// every process that thread had forked, SIGKILL for an instance (Pdeathsig),
// to processes of other runs that happened to be started from it before it
// was locked. Untraced children started with an instance's attributes, from
// many goroutines and so many threads, must outlive traced runs played
// beside them. A fuzz campaign with several workers lost about one run in
// forty this way: a restarted instance killed at once, its run failing every
// liveness level, and no replay failing.
func TestATracedRunKillsNoChildOfAnotherThread(t *testing.T) {
	requireTrace(t)
	var children []*exec.Cmd
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := exec.Command("sleep", "60")
			c.SysProcAttr = sysProcAttr()
			if c.Start() == nil {
				mu.Lock()
				children = append(children, c)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	defer func() {
		for _, c := range children {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	b := shortened(t, "l0-respond", 2)
	b.Faults = crashAt(3, false)
	for range 4 {
		var runs sync.WaitGroup
		for range 4 {
			runs.Add(1)
			go func() {
				defer runs.Done()
				if res, err := Run(b, nil, Options{Seed: 1, Impl: "process", Process: helperSpec("burst", RegimeStep)}); err == nil {
					_ = res.Cleanup()
				}
			}()
		}
		runs.Wait()
	}
	require.NotEmpty(t, children)
	for _, c := range children {
		st, ok := procStat(filepath.Join("/proc", strconv.Itoa(c.Process.Pid)))
		assert.True(t, ok && st.state != 'Z' && st.state != 'X', "child %d of another thread was killed (state %q)", c.Process.Pid, st.state)
	}
}

// statusField is a field of /proc/PID/status.
func statusField(t *testing.T, pid int, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	require.NoError(t, err)
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no %s in /proc/%d/status", name, pid)
	return ""
}

// Where the tracer injects the filter (D173), a traced instance is the
// implementation from its start, never amr first: once startTraced
// returns, the process is the command's executable, with the filter and
// no_new_privs in place. An untraced start has neither.
func TestATracedInstanceStartsOnceWithItsFilter(t *testing.T) {
	requireTrace(t)
	if !injectsFilter {
		t.Skip("this platform installs the filter through the trampoline")
	}
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)
	sh, err = filepath.EvalSymlinks(sh)
	require.NoError(t, err)
	dir := t.TempDir()
	start := func(traced bool) (*proc, int) {
		p, err := startProc([]string{sh, "-c", "read line"}, dir, os.Environ(), io.Discard, io.Discard, true, false, traced, false)
		require.NoError(t, err)
		t.Cleanup(func() { p.kill() })
		return p, p.pgid
	}
	_, pid := start(true)
	exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
	require.NoError(t, err)
	assert.Equal(t, sh, exe, "the traced instance is the command itself")
	assert.Equal(t, "2", statusField(t, pid, "Seccomp"), "a filter is installed")
	assert.Equal(t, "1", statusField(t, pid, "NoNewPrivs"))

	_, pid = start(false)
	assert.Equal(t, "0", statusField(t, pid, "Seccomp"), "an untraced instance has no filter")
	assert.Equal(t, "0", statusField(t, pid, "NoNewPrivs"))
}

// A dynamically linked program traced from its first instruction runs as
// it would untraced once the injection has put its entry point and its
// registers back, and its writes stop at the tracer while armed: each
// write of a shell's lines is a stop naming the file, and the file holds
// every line once the stops are answered.
func TestAnInjectedFilterStopsAShellAtEachWrite(t *testing.T) {
	requireTrace(t)
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)
	dir := t.TempDir()
	script := "printf 'a\\n' >> " + sandbox.Audit + "; printf 'b\\n' >> " + sandbox.Audit + "; echo done"
	p, err := startProc([]string{sh, "-c", script}, dir, os.Environ(), io.Discard, io.Discard, false, false, true, true)
	require.NoError(t, err)
	defer p.kill()
	var writes []string
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case st := <-p.tr.stops:
			if !st.exit && st.call == "write" {
				writes = append(writes, st.path)
			}
			st.reply <- traceVerdict{}
		case <-p.tr.leaderDone:
			done = true
		case <-deadline:
			t.Fatal("the traced shell did not finish")
		}
	}
	assert.Equal(t, []string{sandbox.Audit, sandbox.Audit}, writes)
	data, err := os.ReadFile(filepath.Join(dir, sandbox.Audit))
	require.NoError(t, err)
	assert.Equal(t, "a\nb\n", string(data))
	assert.True(t, p.tr.exitStatus().Exited() && p.tr.exitStatus().ExitStatus() == 0, "status %#x", uint32(p.tr.exitStatus()))
}

// Where the kernel lets the harness trace a child at all, the probe
// passes: a refusal then is the harness's own failure (an injection that
// broke), not the machine's, and must not turn every exact-cut test into a
// skip.
func TestTheProbePassesWhereAChildCanBeTraced(t *testing.T) {
	requireLinux(t)
	if !traceSupported || os.Getenv(EnvNoTrace) != "" {
		t.Skip("no tracing on this platform, or it is turned off")
	}
	if statusField(t, os.Getpid(), "Seccomp") == "" {
		t.Skip("the kernel has no seccomp")
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cmd := exec.Command("true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			done <- err
			return
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(cmd.Process.Pid, &ws, syscall.WALL, nil)
		_ = cmd.Process.Kill()
		_, _ = syscall.Wait4(cmd.Process.Pid, &ws, syscall.WALL, nil)
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Skip("this machine refuses to trace a child: " + err.Error())
	}
	assert.Empty(t, traceRefused(), "a child can be traced here, so the probe must pass")
}
