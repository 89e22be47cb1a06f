package sandbox

import "bytes"

// LogIndex keeps the parse of one JSONL file that normally only grows, so
// that reading it again parses only the bytes appended since the last
// read. Update always returns exactly what the file's parser returns for
// the whole content, line numbers included: when the content is not an
// extension of what was indexed (an implementation rewrote or truncated
// the file), the index starts over from the whole content.
//
// The index keeps a reference to the complete lines of the content it was
// last given and relies on those bytes never changing in place, which is
// how every store in this package and the simulator's views behave: an
// append writes past the end, a rewrite makes a new slice.
type LogIndex[T any] struct {
	parse func([]byte) ([]Line[T], []LineError)
	raw   []byte // the complete lines indexed so far
	n     int    // the lines in raw, blank ones included
	lines []Line[T]
	errs  []LineError
	// resets counts the updates that started over from the whole content.
	resets int
}

// NewLogIndex returns an empty index over a file parsed by parse, one of
// this package's Parse functions (or any parser that reads each line on
// its own).
func NewLogIndex[T any](parse func([]byte) ([]Line[T], []LineError)) *LogIndex[T] {
	return &LogIndex[T]{parse: parse}
}

// Update indexes data, the file's current content, and returns its parsed
// lines and line errors. The returned slices are shared with the index and
// must not be modified.
func (x *LogIndex[T]) Update(data []byte) ([]Line[T], []LineError) {
	if len(data) < len(x.raw) || !extends(data, x.raw) {
		x.raw, x.n, x.lines, x.errs = nil, 0, nil, nil
		x.resets++
	}
	rest := data[len(x.raw):]
	cut := bytes.LastIndexByte(rest, '\n') + 1
	if cut > 0 {
		lines, errs := x.parse(rest[:cut])
		x.lines = appendShifted(x.lines, lines, x.n)
		x.errs = appendShiftedErrs(x.errs, errs, x.n)
		x.n += bytes.Count(rest[:cut], []byte("\n"))
		x.raw = data[:len(x.raw)+cut]
	}
	lines, errs := x.lines[:len(x.lines):len(x.lines)], x.errs[:len(x.errs):len(x.errs)]
	if cut < len(rest) {
		// A last line without a newline is still a line, but it may yet
		// grow: it is parsed every time and never kept.
		tl, te := x.parse(rest[cut:])
		lines = appendShifted(lines, tl, x.n)
		errs = appendShiftedErrs(errs, te, x.n)
	}
	if len(lines) == 0 {
		lines = nil
	}
	if len(errs) == 0 {
		errs = nil
	}
	return lines, errs
}

func appendShifted[T any](dst, src []Line[T], by int) []Line[T] {
	for _, l := range src {
		l.N += by
		dst = append(dst, l)
	}
	return dst
}

func appendShiftedErrs(dst, src []LineError, by int) []LineError {
	for _, e := range src {
		e.Line += by
		dst = append(dst, e)
	}
	return dst
}

// extends reports whether data starts with raw. Content that starts at the
// same address as raw does without a look, since the bytes indexed never
// change in place: comparing them on every update would cost the file's
// size each time.
func extends(data, raw []byte) bool {
	if len(raw) == 0 || &data[0] == &raw[0] {
		return true
	}
	return bytes.Equal(data[:len(raw)], raw)
}

// Resets counts the updates that found the content no longer extends what
// was indexed, so a reader keeping its own index over the lines knows to
// start over too.
func (x *LogIndex[T]) Resets() int { return x.resets }

// Kept is how many of the lines the last update returned are complete
// lines, kept from one update to the next; any after them are a last line
// without its newline, parsed again each time.
func (x *LogIndex[T]) Kept() int { return len(x.lines) }
