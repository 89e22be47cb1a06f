package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"unicode/utf8"
)

// StateEdit is how a tick_end record carries a changed state.json: the
// edits that turn the version before it (empty before the first) into the
// new one, both in compact JSON. Hash is the sha256 hex of the new version,
// so a reader knows it rebuilt the version exactly. A run log of full
// copies grows with the square of a run's length, since an implementation
// rewrites every work item on every tick; an edit is about as long as the
// change.
type StateEdit struct {
	Hunks []Hunk `json:"hunks"`
	Hash  string `json:"hash"`
	// at, set by ParseRunLogAt in place of Hunks, is where the hunks are
	// in the run log. Such an edit is for applying, not for writing out.
	at *editAt
}

// Hunk replaces Del bytes of the old version, from byte At on, with Text.
// Hunks are in order and do not overlap.
type Hunk struct {
	At   int    `json:"at"`
	Del  int    `json:"del,omitempty"`
	Text string `json:"text,omitempty"`
}

// maxTokenEdits bounds the token diff's work; a change past it is recorded
// as one hunk over everything between the common head and tail.
const maxTokenEdits = 256

// NewStateEdit returns the edit from prev to next, or false when next is
// not valid UTF-8, which a JSON string cannot carry byte for byte (the
// record then carries the full copy, as older logs do).
func NewStateEdit(prev, next []byte) (StateEdit, bool) {
	var d StateDiffer
	return d.Edit(prev, next)
}

// StateDiffer makes state edits as NewStateEdit does, keeping its working
// buffers from one edit to the next: an engine makes one per changed tick,
// and the diff's scratch was most of what a run allocated. The zero value
// is ready; it is not safe for concurrent use.
type StateDiffer struct {
	oldStarts, curStarts []int
	oldSums, curSums     []uint64
	v                    []int
	// trace holds, for each step d of the diff, the part of v the step
	// reads and backtracking needs (diagonals -d-1 to d+1), one after the
	// other: a full copy of v per step was 4 KB each.
	trace  []int
	seed   maphash.Seed
	seeded bool
}

// Edit returns the edit from prev to next, as NewStateEdit does.
func (d *StateDiffer) Edit(prev, next []byte) (StateEdit, bool) {
	if !utf8.Valid(next) {
		return StateEdit{}, false
	}
	head := commonHead(prev, next)
	for head > 0 && head < len(next) && !utf8.RuneStart(next[head]) {
		head--
	}
	tail := commonTail(prev[head:], next[head:])
	for tail > 0 && !utf8.RuneStart(next[len(next)-tail]) {
		tail--
	}
	old, cur := prev[head:len(prev)-tail], next[head:len(next)-tail]
	e := StateEdit{Hash: stateHash(next)}
	if len(old) == 0 && len(cur) == 0 {
		return e, true
	}
	hunks, ok := d.tokenHunks(old, cur)
	if !ok {
		hunks = []Hunk{{Del: len(old), Text: string(cur)}}
	}
	for i := range hunks {
		hunks[i].At += head
	}
	e.Hunks = hunks
	return e, true
}

// block is how many bytes the common head and tail are compared at a time:
// a version is mostly the one before, so the compare runs at memory speed
// rather than a byte at a time.
const block = 64

// commonHead is the length of the longest common prefix of a and b.
func commonHead(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonTail is the length of the longest common suffix of a and b.
func commonTail(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+block <= n && bytes.Equal(a[len(a)-i-block:len(a)-i], b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// tokens splits compact JSON after every comma, so an item added to a list
// or one field changed is a token or two. The cut is at an ASCII byte, so
// every token of valid UTF-8 is valid UTF-8. The starts and sums are
// appended to the buffers given.
func tokens(data []byte, seed maphash.Seed, starts []int, sums []uint64) ([]int, []uint64) {
	start := 0
	for start < len(data) {
		end := bytes.IndexByte(data[start:], ',')
		if end < 0 {
			end = len(data)
		} else {
			end += start + 1
		}
		starts = append(starts, start)
		sums = append(sums, maphash.Bytes(seed, data[start:end]))
		start = end
	}
	return append(starts, len(data)), sums
}

// tokenHunks diffs old and cur token by token (the greedy shortest edit
// script), and reports false when more than maxTokenEdits tokens differ.
// Equal hashes are checked byte for byte, so a collision only makes a hunk
// longer, never wrong.
func (d *StateDiffer) tokenHunks(old, cur []byte) ([]Hunk, bool) {
	if !d.seeded {
		d.seed, d.seeded = maphash.MakeSeed(), true
	}
	d.oldStarts, d.oldSums = tokens(old, d.seed, d.oldStarts[:0], d.oldSums[:0])
	d.curStarts, d.curSums = tokens(cur, d.seed, d.curStarts[:0], d.curSums[:0])
	as, ah, bs, bh := d.oldStarts, d.oldSums, d.curStarts, d.curSums
	eq := func(x, y int) bool {
		return ah[x] == bh[y] && bytes.Equal(old[as[x]:as[x+1]], cur[bs[y]:bs[y+1]])
	}
	n, m := len(ah), len(bh)
	off := maxTokenEdits + 1
	if d.v == nil {
		d.v = make([]int, 2*maxTokenEdits+3)
	}
	v := d.v
	clear(v)
	trace := d.trace[:0]
	defer func() { d.trace = trace[:0] }()
	for step := 0; step <= maxTokenEdits; step++ {
		trace = append(trace, v[off-step-1:off+step+2]...)
		for k := -step; k <= step; k += 2 {
			x := v[off+k-1] + 1
			if k == -step || (k != step && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			}
			y := x - k
			for x < n && y < m && eq(x, y) {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, step, n, m, as, bs, cur), true
			}
		}
	}
	return nil, false
}

// traceAt is v[k] as it stood before step d, from the trace tokenHunks
// keeps: step d's part starts at (d+1)^2-1, after the 2e+3 entries of each
// step e before it, and holds diagonals -d-1 to d+1.
func traceAt(trace []int, d, k int) int {
	return trace[(d+1)*(d+1)-1+k+d+1]
}

// backtrack walks the diff back from the end (step last) and gathers each
// run of deleted and inserted tokens into a hunk.
func backtrack(trace []int, last, n, m int, as, bs []int, cur []byte) []Hunk {
	var hunks []Hunk
	x, y := n, m
	// the open hunk, as token ranges [x0,x1) of old and [y0,y1) of cur
	x1, y1, open := 0, 0, false
	closeHunk := func(x0, y0 int) {
		if open {
			hunks = append(hunks, Hunk{At: as[x0], Del: as[x1] - as[x0], Text: string(cur[bs[y0]:bs[y1]])})
			open = false
		}
	}
	for d := last; d >= 0; d-- {
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && traceAt(trace, d, k-1) < traceAt(trace, d, k+1)) {
			prevK = k + 1
		}
		px := traceAt(trace, d, prevK)
		py := px - prevK
		if x > px && y > py {
			closeHunk(x, y)
		}
		for x > px && y > py {
			x, y = x-1, y-1
		}
		if d == 0 {
			break
		}
		if !open {
			x1, y1, open = x, y, true
		}
		x, y = px, py
	}
	closeHunk(x, y)
	for i, j := 0, len(hunks)-1; i < j; i, j = i+1, j-1 {
		hunks[i], hunks[j] = hunks[j], hunks[i]
	}
	return hunks
}

func stateHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Apply rebuilds the version the edit describes from the one before it.
func (e StateEdit) Apply(prev []byte) ([]byte, error) {
	if e.at != nil {
		return e.at.apply(e.Hash, prev, nil)
	}
	next, err := e.rebuild(prev)
	if err != nil {
		return nil, err
	}
	if got := stateHash(next); got != e.Hash {
		return nil, fmt.Errorf("the rebuilt version hashes to %s, not %s", got, e.Hash)
	}
	return next, nil
}

// rebuild applies the edit's hunks to prev, unchecked against its hash.
func (e StateEdit) rebuild(prev []byte) ([]byte, error) {
	next := make([]byte, 0, len(prev))
	at := 0
	for i, h := range e.Hunks {
		if h.At < at || h.Del < 0 || h.At+h.Del > len(prev) {
			return nil, fmt.Errorf("hunk %d (at %d, del %d) does not fit the %d bytes of the version before", i+1, h.At, h.Del, len(prev))
		}
		next = append(append(next, prev[at:h.At]...), h.Text...)
		at = h.At + h.Del
	}
	return append(next, prev[at:]...), nil
}

// StateReplay follows state.json through a run log's tick_end records,
// whichever way each carries a changed version: a full copy (State, the
// only way in older logs) or an edit (StateEdit).
type StateReplay struct {
	cur []byte
	// last is the held edit cur was rebuilt with, nil when cur came
	// another way (see editAt.apply).
	last *editAt
}

// Next returns the version a tick_end record says state.json had at the
// tick's end when the record carries one. Other records, and tick_end
// records without a changed state, return false. The version returned is
// the replay's own, which the next edit is applied to: it is not to be
// changed.
func (s *StateReplay) Next(r LogRecord) ([]byte, bool, error) {
	if r.Kind != LogTickEnd {
		return nil, false, nil
	}
	switch {
	case r.StateEdit != nil:
		var next []byte
		var err error
		if at := r.StateEdit.at; at != nil {
			next, err = at.apply(r.StateEdit.Hash, s.cur, s.last)
		} else {
			next, err = r.StateEdit.Apply(s.cur)
		}
		if err != nil {
			s.last = nil
			return nil, false, fmt.Errorf("state_edit: %w", err)
		}
		s.cur, s.last = next, r.StateEdit.at
	case len(r.State) > 0:
		s.cur, s.last = append([]byte(nil), r.State...), nil
	default:
		return nil, false, nil
	}
	return s.cur, true, nil
}

// CompactJSON returns data as json.Compact writes it, and false when data
// is not valid JSON. Well-formed input (by the scanner, which is stricter
// than encoding/json only where it gives up: nesting past maxScanDepth) is
// compacted here, in one pass that copies the runs between spaces, and
// returned itself, uncopied, when it holds no space to drop; anything else
// is left to json.Compact, which then decides. json.Compact of every
// version was most of the engine's work on large runs.
func CompactJSON(data []byte) ([]byte, bool) {
	start := skipSpace(data, 0)
	end := scanValue(data, start, 1)
	if end < 0 || skipSpace(data, end) != len(data) {
		var b bytes.Buffer
		if json.Compact(&b, data) != nil {
			return nil, false
		}
		return b.Bytes(), true
	}
	return dropSpace(data[start:end]), true
}

// dropSpace removes the space outside the strings of well-formed JSON.
// An indented version is about a third space, in runs: each run is passed
// over in one step, and the bytes between, inside strings or out, by table.
func dropSpace(data []byte) []byte {
	var out []byte
	run := 0 // data[run:i] is yet to be copied
	i := 0
	for i < len(data) {
		for i < len(data) && solidByte[data[i]] {
			i++
		}
		if i == len(data) {
			break
		}
		if data[i] == '"' {
			// Well-formed, so the string closes before data does.
			for i++; ; i++ {
				for stringByte[data[i]] {
					i++
				}
				if data[i] == '"' {
					break
				}
				i++ // the byte a backslash escapes
			}
			i++
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(data))
		}
		out = append(out, data[run:i]...)
		for i < len(data) && !solidByte[data[i]] && data[i] != '"' {
			i++
		}
		run = i
	}
	if out == nil {
		return data
	}
	return append(out, data[run:]...)
}

// solidByte marks the bytes dropSpace keeps as they come outside strings:
// all but JSON's four spaces and the quote.
var solidByte = func() (t [256]bool) {
	for c := range t {
		switch c {
		case ' ', '\t', '\n', '\r', '"':
		default:
			t[c] = true
		}
	}
	return t
}()

// stringByte marks the bytes that stand for themselves inside a string of
// well-formed JSON: all but the quote and the backslash.
var stringByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
