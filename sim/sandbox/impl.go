package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// Completion is the stub model's answer to one call.
type Completion struct {
	CallID string
	Text   string
}

// Model is the stub model as an implementation sees it. Every call is logged
// by the harness to model-calls.jsonl under the returned call id, which is
// what a draft's origin cites.
type Model interface {
	Complete(prompt string) (Completion, error)
}

// Env is everything an in-process implementation may touch: the sandbox
// files, the stub model, and its own seed for any choice of its own
// (derived from the run's engine seed; a process gets it as AMR_SEED).
type Env struct {
	Files Store
	Model Model
	Seed  uint64
}

// Implementation is an implementation under test, run in-process. The
// engine calls Step repeatedly within a tick until a step writes nothing to
// drafts, outbox or audit. A crash discards the instance and the engine asks
// the Factory for a fresh one: only what was written to Files survives.
//
// Step should do a bounded amount of work and return; an error ends the
// step (the engine records it) and is not a crash.
type Implementation interface {
	Step(env *Env) error
}

// Factory starts a fresh instance of an implementation.
type Factory func() Implementation

// ReadClock reads the current tick from the clock file.
func ReadClock(s Store) (int, error) {
	data, err := s.Read(Clock)
	if err != nil {
		return 0, err
	}
	return ParseClock(data)
}

// ParseClock reads the tick from the clock file's bytes, as ReadClock does
// from the store.
func ParseClock(data []byte) (int, error) {
	if tick, ok := plainClock(data); ok {
		return tick, nil
	}
	var c ClockFile
	if err := json.Unmarshal(data, &c); err != nil {
		return 0, fmt.Errorf("clock: %w", err)
	}
	return c.Tick, nil
}

// plainClock reads the clock file as the harness writes it, {"tick":N} and
// a newline, where json.Unmarshal can only say N: every step of an
// implementation in process reads the clock, and reflection was most of it.
// Anything else is left to json.Unmarshal.
func plainClock(data []byte) (int, bool) {
	const head = `{"tick":`
	if len(data) > 0 && data[len(data)-1] == '\n' {
		data = data[:len(data)-1]
	}
	if len(data) < len(head)+2 || string(data[:len(head)]) != head || data[len(data)-1] != '}' {
		return 0, false
	}
	digits := data[len(head) : len(data)-1]
	if len(digits) > 15 || digits[0] == '0' && len(digits) > 1 {
		return 0, false
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// ReadMode reads mode.json.
func ReadMode(s Store) (ModeFile, error) {
	data, err := s.Read(Mode)
	if err != nil {
		return ModeFile{}, err
	}
	var m ModeFile
	if err := json.Unmarshal(data, &m); err != nil {
		return ModeFile{}, fmt.Errorf("mode.json: %w", err)
	}
	return m, nil
}

// AppendJSON marshals v (without HTML escaping) and appends it as one line.
func AppendJSON(s Store, name string, v any) error {
	line, err := MarshalLine(v)
	if err != nil {
		return err
	}
	return s.Append(name, line)
}

// MarshalLine renders v as one compact JSON line without HTML escaping.
func MarshalLine(v any) ([]byte, error) {
	le := lineEncoders.Get().(*lineEncoder)
	defer func() {
		if le.buf.Cap() <= maxKeptLine {
			lineEncoders.Put(le)
		}
	}()
	le.buf.Reset()
	if err := le.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimRight(le.buf.Bytes(), "\n")), nil
}

// lineEncoder is an encoder with its buffer, kept for the next line: every
// harness line and every line the reference writes is marshalled, and a
// buffer grown from nothing and an encoder each was most of the cost.
type lineEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// maxKeptLine bounds the buffer kept: a rare huge line is not held on to.
const maxKeptLine = 64 << 10

var lineEncoders = sync.Pool{New: func() any {
	le := &lineEncoder{}
	le.enc = json.NewEncoder(&le.buf)
	le.enc.SetEscapeHTML(false)
	return le
}}

// ModelError is a call to the stub model that failed: the bundle made it
// fail, in one of the ways a real endpoint does. CallID is the call's id
// when the failure is logged under one (always in process; over HTTP only
// when the response said it). RetryAfter is a rate limit's, in seconds;
// Wall says it is wall-clock time, as over HTTP, where a client waits it.
type ModelError struct {
	CallID     string
	Kind       string
	Status     int
	RetryAfter int
	Wall       bool
	Msg        string
}

// Error says what came back; Msg, when set, is the client's own account.
func (e *ModelError) Error() string {
	if e.Msg != "" {
		return "model: " + e.Msg
	}
	s := "model call failed: " + e.Kind
	if e.Status != 0 {
		s += fmt.Sprintf(" (%d)", e.Status)
	}
	if e.CallID != "" {
		s += " on " + e.CallID
	}
	return s
}
