// Package sim is the deterministic simulator: a virtual clock walks a
// bundle's timeline, fires its schedule into a sandbox (binding approvals and
// signals at fire time), steps the implementation until it is quiescent,
// lands crashes at tick boundaries or between any two writes, and keeps a run
// log of every harness action. A run is a pure function of (bundle,
// implementation, seed).
package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// DefaultMaxSteps bounds the steps of one tick before a forced advance.
const DefaultMaxSteps = 64

// Options are a run's parameters besides the bundle and implementation.
type Options struct {
	// Seed is the run seed: it orders same-tick events and is handed to
	// the implementation for choices of its own.
	Seed uint64
	// MaxSteps bounds the steps per tick; 0 means DefaultMaxSteps.
	MaxSteps int
	// Impl and BundleHash are recorded in the run log's first record.
	Impl       string
	BundleHash string
}

// Result is what a run leaves: the sandbox and the run log.
type Result struct {
	Files   *sandbox.Memory
	Log     []sandbox.LogRecord
	Ticks   int // timeline ticks visited
	Steps   int
	Crashes int
	Forced  int // forced advances
}

// LogBytes renders the run log as JSONL.
func (r *Result) LogBytes() []byte {
	var buf bytes.Buffer
	for _, rec := range r.Log {
		line, err := sandbox.MarshalLine(rec)
		if err != nil {
			panic(fmt.Sprintf("sim: run log record does not marshal: %v", err))
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// Timeline returns the ticks the clock visits: 0 to the horizon, where a
// tick jump at a by b moves straight from a to a+b.
func Timeline(b *scenarios.Bundle) []int {
	jumps := jumpTable(b)
	var ticks []int
	for t := 0; t <= b.Meta.Horizon; {
		ticks = append(ticks, t)
		if by, ok := jumps[t]; ok && by > 1 {
			t += by
		} else {
			t++
		}
	}
	return ticks
}

func jumpTable(b *scenarios.Bundle) map[int]int {
	jumps := map[int]int{}
	for _, f := range b.Faults {
		if f.Kind == scenarios.FaultTickJump {
			jumps[f.At] = f.By
		}
	}
	return jumps
}

// Run plays a bundle against an implementation. It returns an error only
// for a bundle the engine cannot play; everything the implementation does,
// however wrong, ends up in the sandbox for the checker to judge.
func Run(b *scenarios.Bundle, newImpl sandbox.Factory, opts Options) (*Result, error) {
	if b.Meta.Horizon < 0 || b.Meta.Horizon > 1_000_000 {
		return nil, fmt.Errorf("sim: horizon %d out of range", b.Meta.Horizon)
	}
	e := newEngine(b, newImpl, opts)
	if err := e.init(); err != nil {
		return nil, err
	}
	timeline := Timeline(b)
	for i, t := range timeline {
		e.tick = t
		if err := e.playTick(); err != nil {
			return nil, err
		}
		if i+1 < len(timeline) && timeline[i+1] > t+1 {
			e.log(sandbox.LogRecord{Kind: sandbox.LogJump, To: timeline[i+1]})
		}
	}
	e.finish()
	return &Result{Files: e.files, Log: e.logs, Ticks: len(timeline), Steps: e.steps, Crashes: e.crashes, Forced: e.forced}, nil
}

type engine struct {
	b         *scenarios.Bundle
	newImpl   sandbox.Factory
	opts      Options
	files     *sandbox.Memory
	guard     *guardedStore
	stub      *Stub
	env       *sandbox.Env
	impl      sandbox.Implementation
	sched     *schedule
	order     *rng.Rand
	tick      int
	logs      []sandbox.LogRecord
	steps     int
	crashes   int
	forced    int
	lastState []byte
}

func newEngine(b *scenarios.Bundle, newImpl sandbox.Factory, opts Options) *engine {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	files := sandbox.NewMemory()
	e := &engine{b: b, newImpl: newImpl, opts: opts, files: files,
		order: rng.Stream(opts.Seed, "order")}
	e.guard = &guardedStore{mem: files}
	e.stub = NewStub(b.Model, files, func() int { return e.tick })
	e.stub.refuse = func() error {
		if e.guard.crashed {
			return sandbox.ErrCrashed
		}
		return nil
	}
	e.env = &sandbox.Env{Files: e.guard, Model: e.stub, Seed: rng.Mix(opts.Seed, rng.Hash("impl"))}
	e.sched = newSchedule(b)
	return e
}

func (e *engine) log(r sandbox.LogRecord) {
	r.Tick = e.tick
	e.logs = append(e.logs, r)
}

func (e *engine) init() error {
	seed := e.opts.Seed
	e.log(sandbox.LogRecord{Kind: sandbox.LogStart, Bundle: e.b.Meta.Name, BundleHash: e.opts.BundleHash,
		Impl: e.opts.Impl, Seed: &seed, Params: map[string]string{
			"horizon":   strconv.Itoa(e.b.Meta.Horizon),
			"max_steps": strconv.Itoa(e.opts.MaxSteps),
			"top_level": strconv.Itoa(e.b.Meta.TopLevel),
		}})
	fleet, err := json.Marshal(struct {
		Agents []string `json:"agents"`
	}{e.b.Fleet})
	if err != nil {
		return err
	}
	mode, _ := sandbox.MarshalLine(sandbox.ModeFile{Posture: e.b.Mode.Posture, ChangedAt: e.b.Mode.ChangedAt})
	for name, data := range map[string][]byte{
		sandbox.Fleet: append(fleet, '\n'), sandbox.Mode: append(mode, '\n'),
		sandbox.Rules: scenarios.RulesBytes(e.b.Rules),
		sandbox.Inbox: nil, sandbox.Approvals: nil, sandbox.Signals: nil,
	} {
		if err := e.files.Write(name, data); err != nil {
			return err
		}
	}
	e.impl = e.start()
	return nil
}

// start makes a fresh instance. A factory that panics is the
// implementation's fault, not the harness's: it is recorded and the instance
// is one that does nothing.
func (e *engine) start() (impl sandbox.Implementation) {
	defer func() {
		if p := recover(); p != nil {
			e.log(sandbox.LogRecord{Kind: sandbox.LogStepError, Detail: fmt.Sprintf("start panicked: %v", p)})
			impl = idle{}
		}
	}()
	impl = e.newImpl()
	if impl == nil {
		return idle{}
	}
	return impl
}

type idle struct{}

func (idle) Step(*sandbox.Env) error { return nil }

func (e *engine) playTick() error {
	clock, _ := sandbox.MarshalLine(sandbox.ClockFile{Tick: e.tick})
	if err := e.files.Write(sandbox.Clock, append(clock, '\n')); err != nil {
		return err
	}
	crashes := e.sched.crashesAt(e.tick)
	for len(crashes) > 0 && crashes[0].AfterWrites == 0 {
		e.crash(0, 0)
		crashes = crashes[1:]
	}
	if err := e.fire(); err != nil {
		return err
	}
	e.guard.beginTick()
	e.stepUntilQuiet(crashes)
	e.endTick()
	return nil
}

// stepUntilQuiet steps the implementation until a step writes nothing to its
// logs, landing each armed crash right after its k-th write.
func (e *engine) stepUntilQuiet(crashes []scenarios.Fault) {
	arm := func() {
		if len(crashes) > 0 {
			e.guard.arm(crashes[0].AfterWrites)
		} else {
			e.guard.arm(0)
		}
	}
	arm()
	steps, forced := 0, false
	var firstErr string
	errCount := 0
	for {
		if steps >= e.opts.MaxSteps {
			forced = true
			break
		}
		before := e.guard.logWrites
		err := e.step()
		steps++
		if e.guard.crashed {
			e.crash(crashes[0].AfterWrites, e.guard.sinceArm)
			crashes = crashes[1:]
			arm()
			continue
		}
		if err != nil {
			errCount++
			if firstErr == "" {
				firstErr = err.Error()
			}
		}
		if e.guard.logWrites == before {
			break
		}
	}
	if errCount > 0 {
		e.log(sandbox.LogRecord{Kind: sandbox.LogStepError, Detail: fmt.Sprintf("%d step(s) failed; first: %s", errCount, firstErr)})
	}
	for _, c := range crashes {
		// The implementation wrote fewer than k times: the crash lands at
		// the tick's end.
		e.crash(c.AfterWrites, e.guard.sinceArm)
		e.guard.arm(0)
	}
	e.steps += steps
	e.guard.forced = forced
}

// step runs one Step, turning a panic into an error: a panicking
// implementation is judged on what it wrote, never crashes the harness.
func (e *engine) step() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("step panicked: %v", p)
		}
	}()
	return e.impl.Step(e.env)
}

func (e *engine) crash(afterWrites, written int) {
	e.crashes++
	e.log(sandbox.LogRecord{Kind: sandbox.LogCrash, AfterWrites: afterWrites, Written: written})
	e.guard.crashed = false
	e.impl = e.start()
	e.log(sandbox.LogRecord{Kind: sandbox.LogRestart})
}

func (e *engine) endTick() {
	rec := sandbox.LogRecord{Kind: sandbox.LogTickEnd, Writes: e.guard.writes, Forced: e.guard.forced,
		Lines: map[string]int{}}
	for _, name := range sandbox.ImplLogs {
		rec.Lines[name] = countLines(e.files.View(name))
	}
	if st := e.files.View(sandbox.State); st != nil && !bytes.Equal(st, e.lastState) {
		e.lastState = append([]byte(nil), st...)
		if json.Valid(st) {
			var compact bytes.Buffer
			_ = json.Compact(&compact, st)
			rec.State = compact.Bytes()
		} else {
			rec.Detail = "state.json is not valid JSON"
		}
	}
	if e.guard.forced {
		e.forced++
	}
	e.log(rec)
}

func (e *engine) finish() {
	for _, u := range e.sched.unfired() {
		e.log(u)
	}
	e.log(sandbox.LogRecord{Kind: sandbox.LogEnd, Detail: fmt.Sprintf("crashes=%d forced=%d steps=%d", e.crashes, e.forced, e.steps)})
}

// countLines counts newline-terminated lines plus a final unterminated one.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// guardedStore is the implementation's view of the sandbox: harness files
// are read-only, every write is counted, and once an armed crash lands every
// further write fails.
type guardedStore struct {
	mem       *sandbox.Memory
	crashed   bool
	armedAt   int // crash after this many writes since arming; 0 = disarmed
	sinceArm  int
	logWrites int
	writes    []string
	forced    bool
}

func (g *guardedStore) beginTick() {
	g.writes = nil
	g.forced = false
}

func (g *guardedStore) arm(k int) {
	g.armedAt, g.sinceArm = k, 0
}

func (g *guardedStore) Read(name string) ([]byte, error) { return g.mem.Read(name) }
func (g *guardedStore) Names() []string                  { return g.mem.Names() }

func (g *guardedStore) Append(name string, line []byte) error {
	if err := g.allow(name); err != nil {
		return err
	}
	if err := g.mem.Append(name, line); err != nil {
		return err
	}
	g.count(name)
	return nil
}

func (g *guardedStore) Write(name string, data []byte) error {
	if err := g.allow(name); err != nil {
		return err
	}
	if err := g.mem.Write(name, data); err != nil {
		return err
	}
	g.count(name)
	return nil
}

func (g *guardedStore) allow(name string) error {
	if g.crashed {
		return sandbox.ErrCrashed
	}
	if sandbox.IsHarnessFile(name) {
		return fmt.Errorf("%w: %s", sandbox.ErrReadOnly, name)
	}
	if !sandbox.ValidName(name) {
		return fmt.Errorf("%w: %q", sandbox.ErrBadName, name)
	}
	return nil
}

func (g *guardedStore) count(name string) {
	if sandbox.IsImplLog(name) {
		g.logWrites++
		g.writes = append(g.writes, name)
	} else if name == sandbox.State {
		g.writes = append(g.writes, name)
	}
	g.sinceArm++
	if g.armedAt > 0 && g.sinceArm >= g.armedAt {
		g.crashed = true
	}
}
