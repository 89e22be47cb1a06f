package sim

import (
	"bytes"
	"fmt"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
)

// inproc is the in-process driver: it steps a Go implementation on the
// engine's in-memory sandbox. Nothing in it depends on time, so a run is a
// pure function of (bundle, implementation, seed).
type inproc struct {
	e       *engine
	mem     *sandbox.Memory
	newImpl sandbox.Factory
	guard   *guardedStore
	stub    *Stub
	env     *sandbox.Env
	impl    sandbox.Implementation
}

func newInproc(e *engine, newImpl sandbox.Factory) *inproc {
	mem := e.files.(*sandbox.Memory)
	d := &inproc{e: e, mem: mem, newImpl: newImpl, guard: &guardedStore{mem: mem}}
	d.guard.saw = func(name string, trusted bool, written int) int {
		return e.sawLog(name, mem.View(name), trusted, written, "")
	}
	d.stub = NewBundleStub(e.b, mem, func() int { return e.tick })
	d.stub.refuse = func() error {
		if d.guard.crashed {
			return sandbox.ErrCrashed
		}
		return nil
	}
	d.env = &sandbox.Env{Files: d.guard, Model: d.stub, Seed: seeds.Impl(e.opts.Seed)}
	return d
}

func (d *inproc) begin() error {
	d.impl = d.start()
	return nil
}

// start makes a fresh instance. A factory that panics is the
// implementation's fault, not the harness's: it is recorded and the instance
// is one that does nothing.
func (d *inproc) start() (impl sandbox.Implementation) {
	defer func() {
		if p := recover(); p != nil {
			d.e.log(sandbox.LogRecord{Kind: sandbox.LogStepError, Detail: fmt.Sprintf("start panicked: %v", p)})
			impl = idle{}
		}
	}()
	impl = d.newImpl()
	if impl == nil {
		return idle{}
	}
	return impl
}

type idle struct{}

func (idle) Step(*sandbox.Env) error { return nil }

func (d *inproc) crash(afterWrites, written int) {
	rec := sandbox.LogRecord{AfterWrites: afterWrites, Written: written}
	rec.Torn, rec.TornText, rec.Line = d.guard.tornFile, d.guard.tornText, d.guard.tornLine
	d.guard.tornFile, d.guard.tornText, d.guard.tornLine = "", "", 0
	d.e.crashed(rec, func() {
		d.guard.crashed = false
		d.impl = d.start()
	})
}

func (d *inproc) boundaryCrash() { d.crash(0, 0) }

// An in-process implementation runs only inside work: nothing to pause.
func (d *inproc) pause()  {}
func (d *inproc) resume() {}

func (d *inproc) end() (*sandbox.Memory, error) { return d.mem, nil }

func (d *inproc) abort() {}

// work steps the implementation until a step writes nothing to its logs,
// landing each armed crash right after its k-th write.
func (d *inproc) work(crashes []scenarios.Fault) (tickWork, error) {
	d.guard.beginTick()
	arm := func() {
		if len(crashes) > 0 {
			d.guard.arm(crashes[0].AfterWrites, crashes[0].WritesTo)
			d.guard.tear = crashes[0].Torn
		} else {
			d.guard.arm(0, "")
		}
	}
	arm()
	steps, forced := 0, false
	var firstErr string
	errCount := 0
	for {
		if steps >= d.e.opts.MaxSteps {
			forced = true
			break
		}
		before := d.guard.logWrites
		err := d.step()
		steps++
		if d.guard.crashed {
			d.crash(crashes[0].AfterWrites, d.guard.sinceArm)
			crashes = crashes[1:]
			arm()
			if d.e.isDown() {
				break
			}
			continue
		}
		if err != nil {
			errCount++
			if firstErr == "" {
				firstErr = err.Error()
			}
		}
		if d.guard.logWrites == before {
			break
		}
	}
	if errCount > 0 {
		d.e.log(sandbox.LogRecord{Kind: sandbox.LogStepError, Detail: fmt.Sprintf("%d step(s) failed; first: %s", errCount, firstErr)})
	}
	for _, c := range crashes {
		// The implementation wrote fewer than k times: the crash lands at
		// the tick's end.
		d.crash(c.AfterWrites, d.guard.sinceArm)
		d.guard.arm(0, "")
	}
	d.e.steps += steps
	return tickWork{writes: d.guard.writes, forced: forced}, nil
}

// step runs one Step, turning a panic into an error: a panicking
// implementation is judged on what it wrote, never crashes the harness.
func (d *inproc) step() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("step panicked: %v", p)
		}
	}()
	return d.impl.Step(d.env)
}

// guardedStore is the implementation's view of the sandbox: harness files
// are read-only, every write is counted, and once an armed crash lands every
// further write fails. The engine sees every change to the implementation's
// logs as it happens (saw), so a line taken back is on record.
type guardedStore struct {
	mem      *sandbox.Memory
	saw      func(name string, trusted bool, written int) int
	crashed  bool
	armedAt  int // crash after this many writes since arming; 0 = disarmed
	sinceArm int
	// armedLog, when set, is the one log whose new lines count toward
	// armedAt (D138); sinceLog counts them.
	armedLog  string
	sinceLog  int
	logWrites int
	writes    []string
	// tear tears the write the armed crash lands at (D75); tornFile,
	// tornText and tornLine say what it left, for the crash record.
	tear     bool
	tornFile string
	tornText string
	tornLine int
}

func (g *guardedStore) beginTick() {
	g.writes = nil
}

func (g *guardedStore) arm(k int, log string) {
	g.armedAt, g.sinceArm, g.tear = k, 0, false
	g.armedLog, g.sinceLog = log, 0
}

// tearing reports whether the next write, to name, is the one an armed
// torn crash lands at.
func (g *guardedStore) tearing(name string) bool {
	if !g.tear || g.armedAt <= 0 {
		return false
	}
	if g.armedLog != "" {
		return name == g.armedLog && g.sinceLog+1 >= g.armedAt
	}
	return g.sinceArm+1 >= g.armedAt
}

// tornWrite lands the armed crash in the middle of a write: the first half
// of what was to be written reaches the file, a line without its newline
// or a state.json cut short, and the instance is dead.
func (g *guardedStore) tornWrite(name string, data []byte, appending bool) error {
	// An empty write (a line that is only its newline) tears to nothing.
	var cut []byte
	if len(data) > 0 {
		cut = data[:max(1, len(data)/2)]
	}
	old := g.mem.View(name)
	content := cut
	if appending {
		content = append(append([]byte(nil), old...), cut...)
		g.tornLine = bytes.Count(old, []byte("\n")) + 1
	}
	if err := g.mem.Write(name, content); err != nil {
		return err
	}
	if !appending && sandbox.IsImplLog(name) {
		// A log written whole and cut short can take lines back, as an
		// empty one takes back every line: the engine sees what it left,
		// or the lines it lists after it are numbered wrong.
		for n := g.saw(name, false, len(g.writes)); n > 0; n-- {
			g.writes = append(g.writes, name)
		}
	}
	if len(cut) > 0 {
		g.tornFile, g.tornText = name, string(cut)
	} else {
		g.tornLine = 0 // nothing reached the file: nothing is torn
	}
	g.sinceArm++
	g.crashed = true
	return sandbox.ErrCrashed
}

func (g *guardedStore) Read(name string) ([]byte, error) { return g.mem.Read(name) }
func (g *guardedStore) Names() []string                  { return g.mem.Names() }

// View returns a file without copying it, for an implementation that reads
// every file at every step. The store never changes bytes in place, so what
// it returns stays valid; the implementation must not modify it.
func (g *guardedStore) View(name string) []byte { return g.mem.View(name) }

func (g *guardedStore) Append(name string, line []byte) error {
	if err := g.allow(name); err != nil {
		return err
	}
	if g.tearing(name) {
		return g.tornWrite(name, line, true)
	}
	if err := g.mem.Append(name, line); err != nil {
		return err
	}
	if sandbox.IsImplLog(name) {
		g.saw(name, true, len(g.writes))
	}
	g.count(name, 1)
	return nil
}

func (g *guardedStore) Write(name string, data []byte) error {
	if err := g.allow(name); err != nil {
		return err
	}
	if g.tearing(name) {
		if old := g.mem.View(name); sandbox.IsImplLog(name) && bytes.HasPrefix(data, old) {
			// A log written whole tears in what it adds.
			return g.tornWrite(name, data[len(old):], true)
		}
		return g.tornWrite(name, data, false)
	}
	if err := g.mem.Write(name, data); err != nil {
		return err
	}
	listed := 1
	if sandbox.IsImplLog(name) {
		// A whole log written at once is listed once per line it adds, so
		// the tick's writes still name each new line.
		listed = g.saw(name, false, len(g.writes))
	}
	g.count(name, listed)
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

// count counts one write, listed in the tick's writes that many times.
func (g *guardedStore) count(name string, listed int) {
	if sandbox.IsImplLog(name) {
		g.logWrites++
	}
	if name == g.armedLog {
		g.sinceLog += listed
	}
	if sandbox.IsImplLog(name) || name == sandbox.State {
		for ; listed > 0; listed-- {
			g.writes = append(g.writes, name)
		}
	}
	g.sinceArm++
	if g.armedAt > 0 && g.counted() >= g.armedAt {
		g.crashed = true
	}
}

// counted is how far the armed crash has come: the writes since arming, or
// the armed log's new lines.
func (g *guardedStore) counted() int {
	if g.armedLog != "" {
		return g.sinceLog
	}
	return g.sinceArm
}
