package examples

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/amr-bench/amr/sim/sandbox"
)

// maxWrites bounds the writes of one step, so a step always returns even if
// the files describe something the planner cannot settle.
const maxWrites = 4096

// responder is the reference responder, or a weak one when its policy is
// not reference.
//
// The reference keeps nothing in memory that the files do not say: each step
// reads every file, derives what is done, and performs the next missing
// write, re-deriving after each one. Writes come in an order that makes a
// crash between any two of them harmless: a fresh instance derives the same
// next write. Only a weak policy keeps state of its own.
type responder struct {
	p     policy
	cache caches

	// tornChecked is set once the instance has ended any torn last line.
	tornChecked bool

	// settled is what the last step that found nothing to do read. The
	// reference's decisions depend on the files, not on the tick, so a step
	// that reads the same bytes again has nothing to do either.
	settled [][]byte
	// spare is a read of the files no longer needed, to read into next.
	spare [][]byte
	// world is the scratch space each derive reuses.
	world world
	// track keeps the world across steps; only the reference has one.
	track *tracker
	// lastSnap is the last state encoded, and lastState its encoding.
	lastSnap  sandbox.Snapshot
	lastState []byte
	// lay is where the step's lines are laid out.
	lay jsonLine
	// view is what the current step read, made afresh by each step in
	// the same place: the world and the tracker point at it.
	view view
}

// write is one line the planner wants appended.
type write struct {
	file string
	rec  any
	// done runs after the line is written, for a weak policy's memory.
	done func()
}

// Step performs every write the files call for, then refreshes state.json.
func (r *responder) Step(env *sandbox.Env) error {
	if env == nil || env.Files == nil {
		return errors.New("no sandbox")
	}
	if err := r.endTornLines(env.Files); err != nil {
		return err
	}
	if err := r.p.prepare(env.Files); err != nil {
		return err
	}
	raw, err := readRaw(env.Files, r.spare)
	if err != nil {
		return err
	}
	r.spare = raw
	if r.p.settles() && sameFiles(raw, r.settled) {
		return nil
	}
	r.settled, r.spare = nil, r.settled
	v := &r.view
	if err := r.cache.read(env.Files, raw, v); err != nil {
		return err
	}
	r.p.see(v, &r.cache)
	if r.track != nil {
		r.track.newStep()
	}
	for n := 0; n < maxWrites; n++ {
		w := r.derive(v, env.Seed)
		next, err := r.plan(w, env)
		if err != nil {
			return err
		}
		if next == nil {
			wroteState, err := r.writeState(env.Files, v, w)
			if err != nil {
				return err
			}
			if n == 0 && !wroteState {
				r.settled = raw
			}
			return nil
		}
		line, back, err := lineOf(&r.lay, next.file, next.rec)
		if err != nil {
			return fmt.Errorf("encoding %s line: %w", next.file, err)
		}
		if err := env.Files.Append(next.file, line); err != nil {
			return fmt.Errorf("appending to %s: %w", next.file, err)
		}
		if !v.add(&r.cache, next.file, line, back) {
			return fmt.Errorf("wrote a %s line that does not read back: %s", next.file, line)
		}
		if next.done != nil {
			next.done()
		}
	}
	return fmt.Errorf("step stopped after %d writes", maxWrites)
}

// derive is the world the view describes: brought up to date for the
// reference, derived afresh for a weak implementation.
func (r *responder) derive(v *view, seed uint64) *world {
	if _, ref := r.p.(*reference); ref && r.track == nil {
		r.track = &tracker{}
	}
	if r.track != nil {
		return r.track.update(&r.world, v, &r.cache, r.p, seed)
	}
	return r.world.derive(v, r.p, seed)
}

// writeState rewrites state.json when its content changed, and says
// whether it did.
func (r *responder) writeState(s sandbox.Store, v *view, w *world) (bool, error) {
	data, ok, err := r.stateData(w)
	if !ok || err != nil {
		return false, err
	}
	if v.stateSeen && bytes.Equal(data, v.state) {
		return false, nil
	}
	if err := s.Write(sandbox.State, data); err != nil {
		return false, fmt.Errorf("writing %s: %w", sandbox.State, err)
	}
	return true, nil
}

// stateData is the state.json the world calls for, and whether to write
// one: the tracker's entries for the reference, else the policy's
// snapshot encoded whole.
func (r *responder) stateData(w *world) ([]byte, bool, error) {
	if r.track != nil {
		data, err := r.track.state.state(w, r.track)
		return data, err == nil, err
	}
	snap, ok := r.p.snapshot(w)
	if !ok {
		return nil, false, nil
	}
	data, err := r.encodeState(snap)
	return data, err == nil, err
}

// encodeState encodes a snapshot, reusing the last encoding when the
// snapshot did not change: most steps end with the same state.
func (r *responder) encodeState(s sandbox.Snapshot) ([]byte, error) {
	if r.lastState != nil && sameSnapshot(s, r.lastSnap) {
		return r.lastState, nil
	}
	data, err := encodeState(s)
	if err != nil {
		return nil, err
	}
	r.lastSnap, r.lastState = s, data
	return data, nil
}

func sameSnapshot(a, b sandbox.Snapshot) bool {
	return slices.EqualFunc(a.WorkItems, b.WorkItems, func(x, y sandbox.WorkItemState) bool {
		return x.WorkID == y.WorkID && x.Status == y.Status &&
			(x.AssignedAgent == nil) == (y.AssignedAgent == nil) &&
			(x.AssignedAgent == nil || *x.AssignedAgent == *y.AssignedAgent)
	}) && slices.Equal(a.Agents, b.Agents) && slices.Equal(a.Assignments, b.Assignments)
}

func encodeState(s sandbox.Snapshot) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encoding state: %w", err)
	}
	return buf.Bytes(), nil
}

// snapshot is state.json as the files describe it.
func snapshot(w *world) sandbox.Snapshot {
	s := sandbox.Snapshot{
		WorkItems:   []sandbox.WorkItemState{},
		Agents:      []sandbox.AgentState{},
		Assignments: []sandbox.Assignment{},
	}
	for _, wk := range w.works {
		item := sandbox.WorkItemState{WorkID: wk.id, Status: w.status(wk)}
		if wk.lastWon != "" {
			agent := wk.lastWon
			item.AssignedAgent = &agent
			s.Assignments = append(s.Assignments, sandbox.Assignment{WorkID: wk.id, AgentID: agent})
		}
		s.WorkItems = append(s.WorkItems, item)
	}
	for _, a := range w.v.fleet {
		s.Agents = append(s.Agents, sandbox.AgentState{ID: a, Alive: !w.dead[a]})
	}
	return s
}

// Work item statuses in state.json.
const (
	statusAdmitted = "admitted"
	statusDrafted  = "drafted"
	statusApproved = "approved"
)

func (w *world) status(wk *work) string {
	switch {
	case wk.resolved:
		return wk.outcome
	case w.p.stopped(w, wk):
		return sandbox.OutcomeAbandoned
	case w.latestApproved(wk):
		return statusApproved
	case len(wk.drafts) > 0:
		return statusDrafted
	default:
		return statusAdmitted
	}
}
