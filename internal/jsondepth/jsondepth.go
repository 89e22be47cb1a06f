// Package jsondepth owns the nesting bound on JSON amr reads from outside:
// a cheap scan, before any decoder runs, so a document of 10^5 nested
// arrays or objects is refused at once with the line where it went too
// deep instead of costing a recursive decoder its memory and time.
package jsondepth

import "fmt"

// Max is the deepest nesting of arrays and objects amr accepts (D65). No
// artifact, bundle or request amr knows comes near it; the bound is far
// below the depth at which decoding a document costs more than reading it.
const Max = 128

// Error is a document nested deeper than the bound.
type Error struct {
	Line  int // 1-based, counted from the start of the scanned bytes
	Depth int // the bound that was passed
}

func (e *Error) Error() string {
	return fmt.Sprintf("JSON nested deeper than %d arrays or objects", e.Depth)
}

// Check scans data and returns an *Error when arrays and objects nest more
// than max deep (Max when max <= 0). Brackets inside strings do not count.
// It does not judge whether data is JSON at all: the decoder does that.
func Check(data []byte, max int) error {
	if max <= 0 {
		max = Max
	}
	depth, line := 0, 1
	inString, escaped := false, false
	for _, c := range data {
		if c == '\n' {
			line++
		}
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > max {
				return &Error{Line: line, Depth: max}
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// CheckLines is Check for a JSON Lines file: every line is its own value,
// so an unbalanced line does not carry its depth into the next.
func CheckLines(data []byte, max int) error {
	line, start := 1, 0
	for i := 0; i <= len(data); i++ {
		if i < len(data) && data[i] != '\n' {
			continue
		}
		if err := Check(data[start:i], max); err != nil {
			err.(*Error).Line = line
			return err
		}
		line++
		start = i + 1
	}
	return nil
}

// At formats a depth error as ":LINE: message", for a caller that puts the
// file name in front; any other error is returned as ": message".
func At(err error) error {
	if de, ok := err.(*Error); ok {
		return fmt.Errorf("%d: %w", de.Line, err)
	}
	return fmt.Errorf(" %w", err)
}
