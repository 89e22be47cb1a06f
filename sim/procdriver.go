package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Files kept beside a process run's sandbox.
const (
	StdoutLog  = "stdout.log"
	StderrLog  = "stderr.log"
	SandboxDir = "sandbox"
)

// procDriver runs an implementation as an OS process on a sandbox
// directory. Each instance is the leader of a process group of its own; a
// crash is SIGKILL to the group and a fresh instance on the same sandbox.
type procDriver struct {
	e       *engine
	spec    ProcessSpec
	ctx     context.Context
	workdir string
	root    string // the sandbox directory
	files   *dirFiles
	watch   *watcher
	freeze  *freezer // nil where the kernel cannot report writes
	stub    *Stub
	server  *stubServer
	stdout  *capWriter
	stderr  *capWriter
	env     []string
	cur     *proc // the running instance, nil when none runs
	gate    callGate
	// traced is set when each instance is traced for exact cuts; cutBy
	// names how the run lands crashes after k writes, tearing the torn
	// write being landed (see proccut.go).
	traced   bool
	cutBy    string
	crashKs  []int // every crash fault's k, in landing order (traceInstance)
	tearing  *tornCut
	armedNow *armed // the tick's armed crashes while it is worked
	// gone is set once the implementation is killed for good (a file or
	// the run directory past its bound), goneWhy says which; hung once it
	// is killed as hung, until a crash fault restarts it. downAt is the
	// tick either happened.
	gone     bool
	goneWhy  string
	hung     bool
	everHung bool
	downAt   int
	paused   bool // the harness is writing a tick's inputs
	// lived is set once an instance has shown it works: it answered a
	// tick, wrote to the sandbox, or was still running at a tick's end.
	// Until then an instance that ends by itself did not start.
	lived       bool
	failedStart *NotStartedError
	facts       ProcessFacts
	final       *ProcessFacts
	measured    time.Time // when the run directory was last measured
	measure     *runMeasure
	// forcedRow counts forced advances (or timed-out invocations) in a row.
	forcedRow int
	instances int
	aborted   bool
	// since is taken before the run's first process starts: no process
	// older than that can have escaped from the run.
	since procMark
}

func newProcDriver(e *engine, spec ProcessSpec) (_ *procDriver, err error) {
	if !processSupported {
		return nil, errors.New("sim: process implementations are supported on Linux only")
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec = spec.WithDefaults()
	d := &procDriver{e: e, spec: spec, ctx: e.opts.Context, since: markProcs()}
	if d.ctx == nil {
		d.ctx = context.Background()
	}
	defer func() {
		if err != nil {
			d.abort()
		}
	}()
	if spec.TempDir == "" {
		spec.TempDir = DefaultTempDir()
		d.spec.TempDir = spec.TempDir
	}
	if d.workdir, err = os.MkdirTemp(spec.TempDir, "amr-run-*"); err != nil {
		return nil, fmt.Errorf("sim: making the run directory: %w", err)
	}
	// The real path, so a process's working directory compares equal.
	if real, err := filepath.EvalSymlinks(d.workdir); err == nil {
		d.workdir = real
	}
	registerWorkdir(d.workdir)
	d.root = filepath.Join(d.workdir, SandboxDir)
	if err = os.Mkdir(d.root, 0o755); err != nil {
		return nil, fmt.Errorf("sim: making the sandbox: %w", err)
	}
	registerSandbox(d.root)
	d.files = newDirFiles(d.root, spec.MaxFileBytes)
	d.measure = newRunMeasure(d.workdir, d.root, spec.MaxRunDirBytes, d.files.expect)
	// A process lists no writes, so a rewrite is placed at the tick only.
	d.watch = newWatcher(d.root, spec.MaxFileBytes, e.seen, func(name string, rw *rewrite, how string) {
		e.rewritten(name, rw, 0, how)
	})
	d.watch.counts = spec.WriteCounter()
	e.refresh = d.watch.verifyLog
	d.chooseCut()
	if !spec.NoFreeze && !d.traced {
		d.freeze = newFreezer(d.root)
	}
	e.files = d.files
	d.stub = NewBundleStub(e.b, d.files, func() int { return int(e.clock.Load()) })
	d.stub.refuse = func() error {
		if !d.gate.pass() {
			return errCutOff
		}
		return nil
	}
	if d.server, err = startStubServer(d.stub); err != nil {
		return nil, err
	}
	if d.stdout, err = newCapWriter(filepath.Join(d.workdir, StdoutLog), spec.MaxLogBytes); err != nil {
		return nil, err
	}
	if d.stderr, err = newCapWriter(filepath.Join(d.workdir, StderrLog), spec.MaxLogBytes); err != nil {
		return nil, err
	}
	d.env = d.environ()
	e.params = spec.Params()
	if d.cutBy != "" {
		e.params["cut"] = d.cutBy
	}
	return d, nil
}

// environ is the process's environment: the harness's own, without any
// variable of the contract it may have inherited, then the contract's.
func (d *procDriver) environ() []string {
	ours := append([]string{EnvSandbox, EnvModelURL, EnvSeed, EnvRegime, EnvTick, EnvLitmusSandbox, EnvLitmusStubURL, EnvReady, EnvReadyFile},
		openAIEnvDropped...)
	var env []string
	for _, kv := range os.Environ() {
		key, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, o := range ours {
			if key == o {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	seed := strconv.FormatUint(seeds.Impl(d.e.opts.Seed), 10)
	env = append(env,
		EnvSandbox+"="+d.root, EnvModelURL+"="+d.server.base, EnvSeed+"="+seed, EnvRegime+"="+d.spec.Regime,
		EnvLitmusSandbox+"="+d.root, EnvLitmusStubURL+"="+d.server.base)
	env = append(env, openAIEnv(d.server.base)...)
	env = append(env, d.readyEnv()...)
	return append(env, d.spec.Env...)
}

// begin writes the clock before the first instance starts, so a process
// never looks at a sandbox without one.
func (d *procDriver) begin() error {
	if err := d.e.writeClock(); err != nil {
		return err
	}
	if d.spec.Regime != RegimeOnce {
		d.startInstance()
	}
	if d.failedStart != nil {
		return d.failedStart
	}
	return nil
}

// down reports whether the implementation is not to be run: killed for
// good, or killed as hung and not yet restarted.
func (d *procDriver) down() bool { return d.gone || d.hung }

func (d *procDriver) startInstance() {
	if d.down() {
		return
	}
	d.instances++
	d.stdout.note("instance %d starts at tick %d", d.instances, d.e.tick)
	d.stderr.note("instance %d starts at tick %d", d.instances, d.e.tick)
	env := d.env
	if d.spec.Regime == RegimeOnce {
		env = append(env[:len(env):len(env)], EnvTick+"="+strconv.Itoa(d.e.tick))
	}
	if d.spec.Ready == ReadyFile {
		_ = os.Remove(d.readyPath())
	}
	armed := d.armedNow != nil && d.armedNow.pending()
	p, err := startProc(d.spec.Command, d.root, env, d.stdout, d.stderr, d.spec.Regime == RegimeStep, d.spec.Ready == ReadyStdout,
		d.traceInstance(armed), armed)
	if err != nil {
		d.cur = nil
		if !d.lived {
			d.notStarted(err.Error(), nil)
			return
		}
		d.e.log(sandbox.LogRecord{Kind: sandbox.LogStepError, Detail: "starting the process: " + err.Error()})
		d.event(ProcNotRestarted, "starting the process: "+err.Error(), nil)
		return
	}
	d.cur = p
	d.awaitReady(p)
	if d.paused {
		// Started by a boundary crash while the tick's inputs are being
		// written: held before it can read a partial tick.
		stopGroup(p.pgid)
	}
}

// pause holds the running instance while the harness writes a tick's clock
// and inputs. Only the quiescence regime needs it: there the process works
// between ticks, and without the pause a daemon could see the new clock and
// an approval appended before the escalation of the same tick, and act on
// the first alone. In the step regime the process waits for "tick N", in
// the one-shot regime none runs.
func (d *procDriver) pause() {
	if d.spec.Regime != RegimeQuiescence {
		return
	}
	d.paused = true
	if d.cur != nil {
		stopGroup(d.cur.pgid)
	}
}

// resume lets the instance see the tick whole.
func (d *procDriver) resume() {
	if !d.paused {
		return
	}
	d.paused = false
	if d.cur != nil {
		contGroup(d.cur.pgid)
	}
}

// killCur kills the running instance's group, if one runs.
func (d *procDriver) killCur() {
	if d.cur != nil {
		d.cur.kill()
		d.cur = nil
	}
}

// escapeGrace is how long the members of a killed group get to die before
// the processes of the run still alive count as escaped: SIGKILL is
// delivered at once, but a process exits only when the kernel has torn it
// down, and a busy member (or one in a system call that must finish) shows
// in /proc as alive for a moment after the kill.
const escapeGrace = time.Second

// reap kills every process of the run that escaped its group (still alive
// once escapeGrace has passed since the kill), records them, and waits
// (briefly) until none is left.
func (d *procDriver) reap() {
	strays := findStrays(d.root, d.since)
	for deadline := time.Now().Add(escapeGrace); len(strays) > 0 && time.Now().Before(deadline); {
		time.Sleep(2 * time.Millisecond)
		strays = findStrays(d.root, d.since)
	}
	if len(strays) == 0 {
		return
	}
	var names []string
	for _, s := range strays {
		names = append(names, s.name)
	}
	for round := 0; round < 200 && len(strays) > 0; round++ {
		for _, s := range strays {
			killPid(s.pid)
		}
		time.Sleep(time.Millisecond)
		strays = findStrays(d.root, d.since)
	}
	sort.Strings(names)
	detail := fmt.Sprintf("%d process(es) outside the process group, alive %s after the kill, killed: %s",
		len(names), escapeGrace, strings.Join(names, ", "))
	d.e.log(sandbox.LogRecord{Kind: sandbox.LogEscaped, Detail: detail})
	d.event(ProcEscaped, detail, nil)
}

// errCutOff is the stub's answer to a model call of an instance that a
// crash is killing.
var errCutOff = errors.New("the instance is being killed by a crash fault")

// crashNow lands a crash: SIGKILL to the group, then a look at the sandbox
// so the record says exactly what had been written when it died, then a
// fresh instance (in the one-shot regime, the next invocation is the fresh
// instance). afterWrites is the fault's k, at the write count it was to
// land at (a replayed cut, or k), armBase the writes seen when it was armed.
func (d *procDriver) crashNow(afterWrites, at, armBase int) {
	running := d.cur != nil
	d.killCur()
	d.watch.poll(true)
	d.watch.verify()
	rec := sandbox.LogRecord{AfterWrites: afterWrites, Written: d.watch.writes - armBase, Lines: d.watch.lines()}
	if running {
		d.tornRecord(&rec)
	}
	d.tearing = nil
	restarted := ""
	switch {
	case d.gone:
		rec.Detail = "nothing to kill: the implementation was killed for good"
		d.e.crashed(rec, nil)
		return
	case d.hung:
		rec.Detail = fmt.Sprintf("nothing to kill: the implementation was killed as hung at tick %d; the crash fault restarts it", d.downAt)
		restarted = fmt.Sprintf("restarted by this crash fault after it was killed as hung at tick %d", d.downAt)
		d.hung, d.forcedRow = false, 0
	case running && afterWrites > 0 && at != afterWrites:
		rec.Detail = fmt.Sprintf("SIGKILL to the process group, at the replayed cut of %d writes", at)
	case running:
		rec.Detail = "SIGKILL to the process group"
	default:
		rec.Detail = "no instance was running"
		if d.spec.Regime != RegimeOnce && d.facts.Exited() {
			restarted = "restarted by this crash fault after it ended by itself"
		}
	}
	if running {
		d.event(ProcCrash, rec.Detail, nil)
	}
	d.e.crashed(rec, func() {
		d.reap()
		if d.spec.Regime != RegimeOnce {
			d.startInstance()
		}
		if restarted != "" {
			d.event(ProcRestart, restarted, nil)
		}
	})
}

// boundaryCrash lands a crash before the tick's inputs are written. The
// sandbox is looked at first, so what the process wrote in earlier ticks is
// not counted as written at the crash.
func (d *procDriver) boundaryCrash() {
	d.watch.poll(true)
	d.crashNow(0, 0, d.watch.writes)
}

// ended records an instance that stopped by itself and cleans up after it.
func (d *procDriver) ended() {
	p := d.cur
	select {
	case <-p.done:
	case <-time.After(100 * time.Millisecond):
	}
	exited := p.exited()
	// What it wrote just before it ended may not have been looked at yet.
	d.watch.poll(true)
	if p.idle != nil && !d.lived && d.answeredBeforeEnd(p) {
		d.lived = true
	}
	p.kill()
	d.cur = nil
	status := "closed its stdout"
	var code *int
	if exited {
		status = p.status()
		if c := p.exitCode(); c >= 0 {
			code = &c
		}
	}
	d.e.log(sandbox.LogRecord{Kind: sandbox.LogExit, Detail: status})
	d.event(ProcExit, status, code)
	d.reap()
	// A step process that ends before answering a tick never spoke the
	// protocol; any other that fails before writing anything never worked.
	if !d.lived && d.watch.writes == 0 && (d.spec.Regime == RegimeStep || d.spec.Ready != "" || code == nil || *code != 0) {
		before := "writing anything to the sandbox"
		switch {
		case d.spec.Ready != "":
			before = "it was ready"
		case d.spec.Regime == RegimeStep:
			before = "answering a tick"
		}
		d.notStarted(fmt.Sprintf("instance %d ended by itself at tick %d before %s (%s)", d.instances, d.e.tick, before, status), p)
	}
}

// answeredBeforeEnd reads what a step process that ended said before its
// stdout closed: its end can be seen before its last answer is read.
func (d *procDriver) answeredBeforeEnd(p *proc) bool {
	timeout := time.After(100 * time.Millisecond)
	for {
		select {
		case n, ok := <-p.idle:
			if !ok {
				return false
			}
			if n == d.e.tick {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

// giveUp kills the implementation for good; the run goes on to the horizon
// without it and it is judged on what it wrote.
// A hung one is down until a crash fault restarts it (the fault a daemon's
// supervisor would be); one killed for a bound stays down.
func (d *procDriver) giveUp(kind, detail string) {
	d.killCur()
	d.downAt = d.e.tick
	switch kind {
	case sandbox.LogHung:
		d.hung, d.everHung = true, true
		d.event(ProcHung, detail, nil)
	case sandbox.LogOversize:
		d.gone, d.goneWhy = true, ProcOversize
		d.event(ProcOversize, detail, nil)
	default:
		d.gone, d.goneWhy = true, ProcBound
		d.event(ProcBound, detail, nil)
	}
	d.e.log(sandbox.LogRecord{Kind: kind, Detail: detail})
	d.reap()
}

// checkOversize gives up on an implementation that wrote a file past the
// read bound.
func (d *procDriver) checkOversize() bool {
	if d.checkBound(false) {
		return true
	}
	if d.watch.oversize == "" || d.gone {
		return d.gone
	}
	d.giveUp(sandbox.LogOversize, fmt.Sprintf("%s grew past %d bytes; the implementation was killed", d.watch.oversize, d.spec.MaxFileBytes))
	return true
}

func (d *procDriver) work(crashes []scenarios.Fault) (tickWork, error) {
	if err := d.ctx.Err(); err != nil {
		return tickWork{}, err
	}
	if len(crashes) > 0 {
		d.watch.rebase()
		d.gate.arm()
	}
	// Held model calls never outlive the tick's work, whatever ends it.
	defer d.gate.open()
	if len(crashes) > 0 || d.spec.Regime != RegimeStep {
		d.watch.poll(false)
	}
	a := d.arm(d.e.tick, crashes)
	d.armedNow = a
	defer func() { d.armedNow = nil }()
	var w tickWork
	var err error
	switch d.spec.Regime {
	case RegimeStep:
		w, err = d.workStep(a)
	case RegimeOnce:
		w, err = d.workOnce(a)
	default:
		w, err = d.workQuiet(a)
	}
	if err != nil {
		return w, err
	}
	if d.failedStart != nil {
		return w, d.failedStart
	}
	if d.cur != nil || d.watch.writes > 0 {
		d.lived = true
	}
	d.watch.verify()
	d.checkBound(true)
	d.checkOversize()
	w.lines = d.watch.lines()
	return w, nil
}

// countForced keeps the run of forced advances and gives up on an
// implementation that needs too many in a row.
func (d *procDriver) countForced(forced bool, why string) {
	if !forced {
		d.forcedRow = 0
		return
	}
	d.forcedRow++
	if d.forcedRow >= d.spec.HangLimit && !d.down() {
		d.giveUp(sandbox.LogHung, fmt.Sprintf("%s %d times in a row; the implementation was killed", why, d.forcedRow))
	}
}

// holdWhileArmed holds the running instance at each write it makes, until
// the harness has looked, while a crash is armed (see freezer); otherwise
// nothing is held. It returns what holds again after a crash, for the
// instance that replaced the killed one. The caller releases the hold when
// the tick's work ends.
func (d *procDriver) holdWhileArmed(a *armed) (rehold func()) {
	rehold = func() {
		if a.pending() && d.cur != nil {
			d.freeze.hold(d.cur.pgid)
		} else {
			d.freeze.release()
		}
		d.armTrace(a.pending())
	}
	rehold()
	return rehold
}

// workQuiet is the quiescence regime: the tick ends when drafts, outbox
// and audit have not changed for the stability window, or at the timeout
// (a forced advance).
func (d *procDriver) workQuiet(a *armed) (tickWork, error) {
	forced := false
	hold := d.holdWhileArmed(a)
	defer d.freeze.release()
	if d.cur != nil {
		d.e.steps++
		ticker := time.NewTicker(d.spec.Poll)
		defer ticker.Stop()
		start := time.Now()
		last := start
	loop:
		for d.cur != nil {
			var held chan bool
			select {
			case <-d.ctx.Done():
				return tickWork{}, d.ctx.Err()
			case <-ticker.C:
			case <-d.freeze.wake():
			case <-d.cur.done:
			case held = <-d.gate.requests():
			}
			now := time.Now()
			if d.watch.poll(a.pending()) {
				last = now
			}
			if d.checkOversize() {
				answer(held, false)
				break loop
			}
			if a.due(d.watch.writes) {
				d.landNext(a)
				answer(held, false)
				hold()
				last = time.Now()
				continue
			}
			answer(held, true)
			d.freeze.resume()
			switch {
			case d.cur.exited():
				d.ended()
				break loop
			case now.Sub(last) >= d.spec.Window:
				break loop
			case now.Sub(start) >= d.spec.Timeout:
				forced = true
				break loop
			}
		}
	}
	d.landRest(a)
	if forced {
		d.event(ProcForced, "never quiet within "+d.spec.Timeout.String(), nil)
	}
	d.countForced(forced, "never quiet within "+d.spec.Timeout.String())
	return tickWork{forced: forced}, nil
}

// workStep is the step regime: "tick N" on stdin, then wait for "idle N"
// on stdout. The sandbox is looked at during the tick only to land a crash
// after a number of writes: every Poll, and at every model call.
func (d *procDriver) workStep(a *armed) (tickWork, error) {
	forced := false
	send := func() {
		d.e.steps++
		if err := d.cur.sendTick(d.e.tick, d.spec.StepTimeout); err != nil {
			select {
			case <-d.cur.done:
				d.ended()
			case <-time.After(100 * time.Millisecond):
				d.giveUp(sandbox.LogHung, fmt.Sprintf("tick %d could not be sent: %v", d.e.tick, err))
				forced = true
			}
		}
	}
	hold := d.holdWhileArmed(a)
	defer d.freeze.release()
	defer d.armTrace(false)
	if d.cur != nil {
		send()
	}
	var pollC <-chan time.Time
	if a.pending() && !d.curTraced() {
		ticker := time.NewTicker(d.spec.Poll)
		defer ticker.Stop()
		pollC = ticker.C
	}
	deadline := time.NewTimer(d.spec.StepTimeout)
	defer deadline.Stop()
	bound := time.NewTicker(boundEvery)
	defer bound.Stop()
loop:
	for d.cur != nil {
		var held chan bool
		var stop *traceStop
		select {
		case <-d.ctx.Done():
			return tickWork{}, d.ctx.Err()
		case <-bound.C:
			d.checkBound(true)
			continue
		case n, ok := <-d.cur.idle:
			if !ok {
				d.ended()
				break loop
			}
			if n == d.e.tick {
				d.lived = true
				break loop
			}
			continue
		case <-d.cur.done:
			d.ended()
			break loop
		case <-deadline.C:
			forced = true
			d.giveUp(sandbox.LogHung, fmt.Sprintf("tick %d not answered within %s", d.e.tick, d.spec.StepTimeout))
			continue
		case <-pollC:
		case <-d.freeze.wake():
		case held = <-d.gate.requests():
		case st := <-d.traceStops():
			stop = st
		}
		killed := d.lookOrStop(a, stop)
		answer(held, !killed)
		if !killed {
			d.freeze.resume()
			continue
		}
		if !a.pending() {
			pollC = nil
		}
		hold()
		if d.cur != nil {
			send()
			deadline.Reset(d.spec.StepTimeout)
		}
	}
	d.landRest(a)
	return tickWork{forced: forced}, nil
}

// workOnce is the one-shot regime: the command runs to completion, and
// again while it keeps writing (exit 0 with new log lines) or asks to
// (exit 75), up to MaxSteps invocations.
func (d *procDriver) workOnce(a *armed) (tickWork, error) {
	forced, timedOut := false, false
	fails, firstFail := 0, ""
	for runs := 0; !d.down() && !d.e.isDown(); runs++ {
		if runs >= d.e.opts.MaxSteps {
			forced = true
			break
		}
		d.e.steps++
		before := d.watch.logLines()
		d.startInstance()
		if d.cur == nil {
			break
		}
		out, err := d.waitOnce(a)
		if err != nil {
			return tickWork{}, err
		}
		if !d.lived && !out.again && !out.timedOut && !out.gone && out.code != 0 && out.code != ExitRetry && d.watch.writes == 0 {
			d.notStarted(fmt.Sprintf("its first invocation, at tick %d, failed before writing anything (%s)", d.e.tick, out.status), out.p)
			return tickWork{}, d.failedStart
		}
		d.lived = true
		if out.again {
			continue
		}
		if out.timedOut {
			forced, timedOut = true, true
			break
		}
		if out.gone {
			break
		}
		if out.code == 0 && d.watch.logLines() > before || out.code == ExitRetry {
			continue
		}
		if out.code != 0 {
			fails++
			if firstFail == "" {
				firstFail = out.status
			}
		}
		break
	}
	if fails > 0 {
		detail := fmt.Sprintf("%d invocation(s) failed; first: %s", fails, firstFail)
		d.e.log(sandbox.LogRecord{Kind: sandbox.LogStepError, Detail: detail})
		d.event(ProcFailed, detail, nil)
	}
	if timedOut {
		detail := "an invocation did not end within " + d.spec.Timeout.String()
		d.e.log(sandbox.LogRecord{Kind: sandbox.LogStepError, Detail: detail})
		d.event(ProcTimeout, detail+"; it was killed", nil)
	}
	if forced && !timedOut {
		d.event(ProcForced, fmt.Sprintf("still writing after %d invocations", d.e.opts.MaxSteps), nil)
	}
	d.landRest(a)
	d.countForced(timedOut, "an invocation timed out")
	return tickWork{forced: forced}, nil
}

// onceOutcome is how one invocation ended.
type onceOutcome struct {
	again    bool // an armed crash killed it: the next invocation is the restart
	timedOut bool // killed at the timeout
	gone     bool // killed for good
	code     int
	status   string
	p        *proc // the invocation, once it ended by itself
}

// waitOnce waits for the running invocation to end, landing an armed
// crash when its writes reach it. Nothing of the invocation runs when it
// returns.
func (d *procDriver) waitOnce(a *armed) (onceOutcome, error) {
	timer := time.NewTimer(d.spec.Timeout)
	defer timer.Stop()
	var pollC <-chan time.Time
	if a.pending() && !d.curTraced() {
		ticker := time.NewTicker(d.spec.Poll)
		defer ticker.Stop()
		pollC = ticker.C
	}
	bound := time.NewTicker(boundEvery)
	defer bound.Stop()
	d.armTrace(a.pending())
	defer d.armTrace(false)
	for {
		var held chan bool
		var stop *traceStop
		select {
		case <-d.ctx.Done():
			return onceOutcome{}, d.ctx.Err()
		case <-bound.C:
			if d.checkBound(true) {
				return onceOutcome{gone: true}, nil
			}
			continue
		case <-d.cur.done:
			p := d.cur
			d.killCur() // members of its group may live on
			out := onceOutcome{code: p.exitCode(), status: p.status(), p: p}
			d.reap()
			d.watch.poll(a.pending())
			return out, nil
		case <-timer.C:
			d.killCur()
			d.reap()
			return onceOutcome{timedOut: true}, nil
		case <-pollC:
		case held = <-d.gate.requests():
		case st := <-d.traceStops():
			stop = st
		}
		killed := d.lookOrStop(a, stop)
		answer(held, !killed)
		switch {
		case d.down():
			return onceOutcome{gone: true}, nil
		case killed:
			return onceOutcome{again: true}, nil
		}
	}
}

// end stops everything and returns the sandbox to judge.
func (d *procDriver) end() (*sandbox.Memory, error) {
	if d.cur != nil && d.cur.exited() {
		d.ended()
	}
	d.freeze.close()
	d.killCur()
	d.reap()
	d.server.close()
	d.measure.close()
	d.watch.close()
	d.files.close()
	mem, cut := d.files.collect()
	if len(cut) > 0 {
		d.e.log(sandbox.LogRecord{Kind: sandbox.LogOversize,
			Detail: fmt.Sprintf("judged only the first %d bytes of: %s", d.spec.MaxFileBytes, strings.Join(cut, ", "))})
	}
	if t := d.files.tampered(); len(t) > 0 {
		d.e.log(sandbox.LogRecord{Kind: sandbox.LogTamper,
			Detail: fmt.Sprintf("changed in the sandbox by the implementation: %s; the harness's own copy is judged", strings.Join(t, ", "))})
	}
	d.stdout.Close()
	d.stderr.Close()
	d.final = d.finishFacts()
	unregisterSandbox(d.root)
	return mem, nil
}

// abort stops everything after an error and removes the run directory:
// there is nothing to judge.
func (d *procDriver) abort() {
	if d.aborted {
		return
	}
	d.aborted = true
	d.freeze.close()
	d.killCur()
	if d.measure != nil {
		d.measure.close()
	}
	if d.watch != nil {
		d.watch.close()
	}
	if d.files != nil {
		d.files.close()
	}
	if d.root != "" {
		for _, s := range findStrays(d.root, procMark{}) {
			killPid(s.pid)
		}
		unregisterSandbox(d.root)
	}
	if d.server != nil {
		d.server.close()
	}
	if d.stdout != nil {
		d.stdout.Close()
	}
	if d.stderr != nil {
		d.stderr.Close()
	}
	if d.workdir != "" {
		_ = removeWorkdir(d.workdir)
	}
}

// Cleanup removes a process run's directory. It does nothing for an
// in-process run.
func (r *Result) Cleanup() error {
	if r.Workdir == "" {
		return nil
	}
	return removeWorkdir(r.Workdir)
}

// output reads the process's stdout.log and stderr.log once it has ended.
func (d *procDriver) output() map[string][]byte {
	out := map[string][]byte{}
	for _, name := range []string{StdoutLog, StderrLog} {
		if data, err := safefile.ReadFile(filepath.Join(d.workdir, name), 0); err == nil {
			out[name] = data
		}
	}
	return out
}

// KeepOutput writes a process run's stdout.log and stderr.log into dir; an
// in-process run has none.
func (r *Result) KeepOutput(dir string) error {
	for _, name := range []string{StdoutLog, StderrLog} {
		data, ok := r.Output[name]
		if !ok {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
