package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DigestPrefix starts the self-digest of a history file.
const DigestPrefix = "sha256:"

// header is the first line of history.jsonl.
type header struct {
	Format   string   `json:"format"`
	Scenario string   `json:"scenario"`
	Ordering string   `json:"ordering"`
	Fleet    []string `json:"fleet"`
	Skipped  []string `json:"skipped"`
	Ops      int      `json:"ops"`
	// Admission is H9's material: the timeline, the admission contexts
	// and the messages' contents.
	Admission *Admission `json:"admission,omitempty"`
}

// digestLine is the last line of history.jsonl: the SHA-256 of every byte
// before it.
type digestLine struct {
	Digest string `json:"digest"`
}

// Bytes renders the history as history.jsonl: a header line, one line per
// operation, and a final {"digest": "sha256:..."} over the bytes before it.
func (h *History) Bytes() []byte {
	var buf bytes.Buffer
	if _, err := h.WriteTo(&buf); err != nil {
		// Every value written is a plain struct of strings, ints and bools,
		// or rules that decoded from JSON and so encode again.
		panic(fmt.Sprintf("history: encoding: %v", err))
	}
	return buf.Bytes()
}

// WriteTo writes the bytes Bytes returns a line at a time, so a history of
// hundreds of megabytes is written out without a copy of it whole.
func (h *History) WriteTo(w io.Writer) (int64, error) {
	sum := sha256.New()
	cw := &countingWriter{w: io.MultiWriter(w, sum)}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(header{Format: h.Format, Scenario: h.Scenario, Ordering: h.Ordering, Fleet: nonNil(h.Fleet),
		Skipped: nonNil(h.Skipped), Ops: len(h.Ops), Admission: h.Admission}); err != nil {
		return cw.n, err
	}
	for i := range h.Ops {
		if err := enc.Encode(h.Ops[i].line()); err != nil {
			return cw.n, err
		}
	}
	// The digest covers every byte before its own line.
	cw.w = w
	err := enc.Encode(digestLine{Digest: DigestPrefix + hex.EncodeToString(sum.Sum(nil))})
	return cw.n, err
}

// countingWriter counts the bytes written through it, for WriteTo.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Errors Parse returns.
var (
	ErrNoDigest  = errors.New("history: the last line is not a digest")
	ErrDigest    = errors.New("history: the digest does not match the content")
	ErrBadFormat = errors.New("history: not an " + Format + " document")
)

// Parse reads history.jsonl back, verifying its self-digest and its format
// tag. The operations come back exactly as they were written.
func Parse(data []byte) (*History, error) {
	body, last, ok := cutLastLine(data)
	if !ok {
		return nil, ErrNoDigest
	}
	var d digestLine
	if err := json.Unmarshal(last, &d); err != nil || d.Digest == "" {
		return nil, ErrNoDigest
	}
	sum := sha256.Sum256(body)
	if d.Digest != DigestPrefix+hex.EncodeToString(sum[:]) {
		return nil, ErrDigest
	}
	lines := bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n"))
	var hd header
	if err := json.Unmarshal(lines[0], &hd); err != nil || hd.Format != Format {
		return nil, ErrBadFormat
	}
	h := &History{Format: hd.Format, Scenario: hd.Scenario, Ordering: hd.Ordering, Fleet: nonNil(hd.Fleet),
		Skipped: nonNil(hd.Skipped), Admission: hd.Admission}
	for i, raw := range lines[1:] {
		var op Op
		if err := json.Unmarshal(raw, &op); err != nil {
			return nil, fmt.Errorf("history: line %d: %w", i+2, err)
		}
		h.Ops = append(h.Ops, op)
	}
	if len(h.Ops) != hd.Ops {
		return nil, fmt.Errorf("history: header counts %d operations, found %d", hd.Ops, len(h.Ops))
	}
	return h, nil
}

// cutLastLine splits off the last newline-terminated line.
func cutLastLine(data []byte) (body, last []byte, ok bool) {
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, nil, false
	}
	trimmed := data[:len(data)-1]
	i := bytes.LastIndexByte(trimmed, '\n')
	if i < 0 {
		return nil, nil, false
	}
	return data[:i+1], trimmed[i+1:], true
}
