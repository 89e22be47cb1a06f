package sandbox

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// editAt is where a state edit stands in the run log it was read from:
// its line, and the state_edit member's value in it when the line's
// members were scanned in place.
type editAt struct {
	src          io.ReaderAt
	line, member span
	// after is the held edit of the version this one was replayed on,
	// when the record before it that changed the state was one; sum is
	// the sha256 of the member's bytes as first read, set (exact) when
	// the member decoded alone gives the hunks the line gave. Together
	// they let a replay that rebuilt after's version apply this edit
	// without hashing the whole version again: the same hunks on the
	// same version give the bytes the first read hashed.
	after *editAt
	sum   [sha256.Size]byte
	exact bool
}

// span is n bytes of a file from offset off.
type span struct {
	off int64
	n   int
}

// lazy returns e as ParseRunLogAt keeps it: its hash and where its hunks
// are in src, in which o's line, raw, stands at offset off. An edit
// without hunks is kept as it is. after is the held edit of the version e
// was replayed on, or nil; fast, that the line's record was made by
// fastLogRecord, whose edit is its last state_edit member decoded alone.
func (e *StateEdit) lazy(src io.ReaderAt, o *object, raw []byte, off int64, after *editAt, fast bool) *StateEdit {
	if e == nil || len(e.Hunks) == 0 {
		return e
	}
	at := &editAt{src: src, line: spanIn(raw, o.raw).from(off), after: after}
	if o.m == nil {
		// keep takes the last member of a name; so does this.
		var val []byte
		for _, f := range o.fields {
			if string(f.key) == "state_edit" {
				at.member, val = spanIn(raw, f.val).from(off), f.val
			}
		}
		if fast && at.member.n > 0 {
			at.sum, at.exact = sha256.Sum256(val), true
		}
	}
	return &StateEdit{Hash: e.Hash, at: at}
}

// from is s moved by off, for a span found in a part of a file that
// starts at off; an empty span stays empty.
func (s span) from(off int64) span {
	if s.n == 0 {
		return s
	}
	s.off += off
	return s
}

// spanIn is where part, a slice of data, stands in it: an empty span when
// it is not in data. (A member's value is sliced to its own length and
// capacity, so its place is found from its address, not its capacity.)
func spanIn(data, part []byte) span {
	d := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
	if len(part) == 0 || p < d || p+uintptr(len(part)) > d+uintptr(len(data)) {
		return span{}
	}
	return span{off: int64(p - d), n: len(part)}
}

// errLogChanged is what applying a held edit gives when the run log no
// longer holds the edit it was read with.
var errLogChanged = errors.New("the run log changed since it was read")

// apply rebuilds the version from prev with the hunks read again, and
// checks it against hash. The member alone is decoded first; should that
// not rebuild the version (a line whose members only the full decode
// reads as the first read did), the line is decoded as ParseRunLogAt did.
// last is the held edit prev was rebuilt with, or nil: when it is the one
// this edit was first replayed after, and the member reads back as the
// bytes first read, the version is the one the first read hashed.
func (a *editAt) apply(hash string, prev []byte, last *editAt) ([]byte, error) {
	if a.exact && last != nil && a.after == last {
		var e StateEdit
		if buf, err := a.read(a.member); err == nil && sha256.Sum256(buf) == a.sum && decodeStateEdit(buf, &e) {
			if next, err := e.rebuild(prev); err == nil {
				return next, nil
			}
		}
	}
	if a.member.n > 0 {
		var e StateEdit
		if buf, err := a.read(a.member); err == nil && decodeStateEdit(buf, &e) {
			e.Hash = hash
			if next, err := e.Apply(prev); err == nil {
				return next, nil
			}
		}
	}
	hunks, err := a.lineHunks()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errLogChanged, err)
	}
	next, err := StateEdit{Hunks: hunks, Hash: hash}.Apply(prev)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errLogChanged, err)
	}
	return next, nil
}

// lineHunks decodes the edit's line again, as ParseRunLogAt did.
func (a *editAt) lineHunks() ([]Hunk, error) {
	buf, err := a.read(a.line)
	if err != nil {
		return nil, err
	}
	o, _, ok := decodeObject(buf, nil)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	r := decodeLogRecord(&o)
	switch {
	case o.err != nil:
		return nil, o.err
	case r.StateEdit == nil:
		return nil, errors.New("no state_edit")
	}
	return r.StateEdit.Hunks, nil
}

func (a *editAt) read(s span) ([]byte, error) {
	buf := make([]byte, s.n)
	if n, err := a.src.ReadAt(buf, s.off); n < len(buf) {
		return nil, err
	}
	return buf, nil
}

// decodeStateEdit is json.Unmarshal of a state edit member into e, by the
// hand decoder when it is sure of the member.
func decodeStateEdit(buf []byte, e *StateEdit) bool {
	if got, ok := (logDecoder{}).stateEdit(buf); ok {
		*e = *got
		return true
	}
	return json.Unmarshal(buf, e) == nil
}
