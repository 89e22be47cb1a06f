// Package sandbox owns the file contract of spec §2: the names of the
// sandbox files, the record types written to them, strict parsers that turn
// an implementation's lines into records or located errors, the store that
// holds the files (in memory or in a real directory), and the interface an
// in-process implementation is written against.
//
// Both sides of the contract import this package: the engine and the
// implementations under test write through it, the checker reads through it.
// It knows nothing of the engine, the checker or any scenario.
package sandbox

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The sandbox files, spelled as the spec spells them.
const (
	Inbox      = "inbox.jsonl"
	Drafts     = "drafts.jsonl"
	Outbox     = "outbox.jsonl"
	Signals    = "signals.jsonl"
	Approvals  = "approvals.jsonl"
	Audit      = "audit.jsonl"
	State      = "state.json"
	Mode       = "mode.json"
	Clock      = "clock"
	Rules      = "rules.json"
	ModelCalls = "model-calls.jsonl"
	// Fleet is an amr extension: the agent ids the scenario suggests. An
	// implementation may use them or name its agents itself.
	Fleet = "fleet.json"
	// PrivateDir is where an implementation keeps files of its own.
	PrivateDir = "private/"
)

// HarnessFiles are written only by the harness; an implementation that tries
// to write one gets ErrReadOnly.
var HarnessFiles = []string{Inbox, Signals, Approvals, Mode, Clock, Rules, ModelCalls, Fleet}

// ImplLogs are the append-only logs an implementation writes. Writes to them
// count against quiescence; writes to state.json and private files do not.
var ImplLogs = []string{Drafts, Outbox, Audit}

// IsHarnessFile reports whether only the harness may write name.
func IsHarnessFile(name string) bool {
	for _, f := range HarnessFiles {
		if f == name {
			return true
		}
	}
	return false
}

// IsImplLog reports whether name is one of the implementation's logs.
func IsImplLog(name string) bool {
	for _, f := range ImplLogs {
		if f == name {
			return true
		}
	}
	return false
}

// Errors a store returns.
var (
	ErrReadOnly = errors.New("sandbox: file is written by the harness only")
	ErrCrashed  = errors.New("sandbox: the instance has crashed; its writes are lost")
	ErrBadName  = errors.New("sandbox: not a sandbox file name")
)

// ValidName reports whether name may be used in a sandbox: one of the spec's
// files, or a plain relative name under private/.
func ValidName(name string) bool {
	switch name {
	case Inbox, Drafts, Outbox, Signals, Approvals, Audit, State, Mode, Clock, Rules, ModelCalls, Fleet:
		return true
	}
	rest, ok := strings.CutPrefix(name, PrivateDir)
	if !ok || rest == "" || strings.HasPrefix(rest, "/") {
		return false
	}
	for _, part := range strings.Split(rest, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// Store holds a sandbox's files. Append adds one line (a newline is added);
// Write replaces a whole file. Reads of a missing file return nil, nil.
// Append and Write keep no reference to the bytes they are given: a caller
// may reuse its buffer as soon as they return (the reference lays out its
// lines in one buffer it reuses).
type Store interface {
	Read(name string) ([]byte, error)
	Append(name string, line []byte) error
	Write(name string, data []byte) error
	// Names lists the files present, sorted.
	Names() []string
}

// Memory is a Store in memory: the fast path of the simulator.
type Memory struct {
	files map[string][]byte
	// spec holds the spec's files as files does, found by a switch on the
	// name: an implementation views them tens of times a tick, and hashing
	// the name was most of each view.
	spec [len(specNames)][]byte
}

var specNames = [...]string{Inbox, Drafts, Outbox, Signals, Approvals, Audit, State, Mode, Clock, Rules, ModelCalls, Fleet}

// specSlot is the place of a spec file in specNames, -1 for any other name.
func specSlot(name string) int {
	switch name {
	case Inbox:
		return 0
	case Drafts:
		return 1
	case Outbox:
		return 2
	case Signals:
		return 3
	case Approvals:
		return 4
	case Audit:
		return 5
	case State:
		return 6
	case Mode:
		return 7
	case Clock:
		return 8
	case Rules:
		return 9
	case ModelCalls:
		return 10
	case Fleet:
		return 11
	}
	return -1
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{files: map[string][]byte{}} }

// Read returns a copy of the file, or nil when absent.
func (m *Memory) Read(name string) ([]byte, error) {
	if !ValidName(name) {
		return nil, fmt.Errorf("%w: %q", ErrBadName, name)
	}
	d, ok := m.files[name]
	if !ok {
		return nil, nil
	}
	return append([]byte(nil), d...), nil
}

// View returns the file without copying; callers must not modify it.
func (m *Memory) View(name string) []byte {
	if i := specSlot(name); i >= 0 {
		return m.spec[i]
	}
	return m.files[name]
}

// Append adds line and a newline to the file.
func (m *Memory) Append(name string, line []byte) error {
	if !ValidName(name) {
		return fmt.Errorf("%w: %q", ErrBadName, name)
	}
	d := m.View(name)
	d = append(d, line...)
	m.set(name, append(d, '\n'))
	return nil
}

// Write replaces the file.
func (m *Memory) Write(name string, data []byte) error {
	if !ValidName(name) {
		return fmt.Errorf("%w: %q", ErrBadName, name)
	}
	m.set(name, append([]byte(nil), data...))
	return nil
}

func (m *Memory) set(name string, data []byte) {
	m.files[name] = data
	if i := specSlot(name); i >= 0 {
		m.spec[i] = data
	}
}

// Names lists the files present, sorted.
func (m *Memory) Names() []string {
	out := make([]string, 0, len(m.files))
	for k := range m.files {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Files returns every file, for writing out or hashing; the map must not
// be modified.
func (m *Memory) Files() map[string][]byte { return m.files }
