package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/amr-bench/amr/scenarios"
)

// Ledger is an append-only file of receipts, one canonical JSON line each,
// every receipt linking to the one before it.
type Ledger struct {
	path     string
	receipts []Receipt
	memo     map[Key]int // key -> index of the latest ran receipt
	// withheld counts the ran receipts read that failed verification, and
	// so are never copied forward.
	withheld int
	report   *Report
}

// Open reads the ledger at path; a missing file is an empty ledger. A line
// that is not a receipt is an error: appending to a ledger one cannot read
// would link the new receipt to the wrong one. The ledger is verified as
// it is read (Verify), and only the ran receipts that pass are memoized.
func Open(path string) (*Ledger, error) {
	l := &Ledger{path: path, memo: map[Key]int{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	l.report = verify(path, data, "")
	for _, e := range l.report.receipts {
		if !e.parsed {
			_, err := parseReceipt(e.raw)
			return nil, fmt.Errorf("%s:%d: %w", path, e.pos, err)
		}
		l.receipts = append(l.receipts, e.r)
	}
	ok := l.report.reusable()
	for i, r := range l.receipts {
		switch {
		case r.Status != StatusRan:
		case ok[r.ContentHash]:
			l.remember(r, i)
		default:
			l.withheld++
		}
	}
	return l, nil
}

// remember makes a ran receipt the memo of its key.
func (l *Ledger) remember(r Receipt, i int) {
	if r.Status == StatusRan && !strings.HasSuffix(r.Impl.Fingerprint, UnknownSuffix) {
		l.memo[r.Key()] = i
	}
}

func (l *Ledger) add(r Receipt) {
	l.receipts = append(l.receipts, r)
	l.remember(r, len(l.receipts)-1)
}

// Withheld counts the ran receipts read from the file that failed
// verification: none of them is copied forward.
func (l *Ledger) Withheld() int {
	if l == nil {
		return 0
	}
	return l.withheld
}

// Verification is what verifying the file found when it was opened (nil
// for a ledger that did not exist yet).
func (l *Ledger) Verification() *Report {
	if l == nil {
		return nil
	}
	return l.report
}

// Path is the ledger file.
func (l *Ledger) Path() string { return l.path }

// Dir is the directory artifact paths are relative to.
func (l *Ledger) Dir() string { return filepath.Dir(l.path) }

// Receipts returns the receipts read or appended so far; none for a nil
// ledger.
func (l *Ledger) Receipts() []Receipt {
	if l == nil {
		return nil
	}
	return append([]Receipt(nil), l.receipts...)
}

// Lookup returns the latest ran receipt with this key.
func (l *Ledger) Lookup(k Key) (Receipt, bool) {
	i, ok := l.memo[k]
	if !ok {
		return Receipt{}, false
	}
	return l.receipts[i], true
}

// Append links a receipt to the last one, seals it with its content hash,
// and appends it to the file. It returns the sealed receipt.
func (l *Ledger) Append(r Receipt) (Receipt, error) {
	r.Format, r.HashAlg = Format, HashAlg
	if r.Signature.Scheme == "" {
		r.Signature = Unsigned()
	}
	if r.Artifacts == nil {
		r.Artifacts = []Artifact{}
	}
	if r.Verdict.Violations == nil {
		r.Verdict.Violations = []Violation{}
	}
	if r.Verdict.History == nil {
		r.Verdict.History = map[string]int{}
	}
	if r.Verdict.Levels == nil {
		r.Verdict.Levels = map[string]string{}
	}
	r.Prev = nil
	if n := len(l.receipts); n > 0 {
		prev := l.receipts[n-1].ContentHash
		r.Prev = &prev
	}
	r.ContentHash = ""
	hash, err := r.Hash()
	if err != nil {
		return Receipt{}, err
	}
	r.ContentHash = hash
	line, err := r.Line()
	if err != nil {
		return Receipt{}, err
	}
	if err := os.MkdirAll(l.Dir(), 0o755); err != nil {
		return Receipt{}, err
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return Receipt{}, err
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return Receipt{}, fmt.Errorf("appending to %s: %w", l.path, err)
	}
	if err := f.Close(); err != nil {
		return Receipt{}, err
	}
	l.add(r)
	return r, nil
}

// ObjectsDir is where a ledger keeps the artifacts its receipts hash,
// beside the ledger file.
const ObjectsDir = "objects"

// Store keeps data as a content-addressed object beside the ledger and
// returns its path relative to the ledger's directory: objects/<2 hex>/<62
// hex> of its SHA-256. An object already there is not written again, so
// the files many runs share (rules, fleet, inbox) are kept once, and a
// later run cannot overwrite what an earlier receipt points to.
func (l *Ledger) Store(data []byte) (string, error) {
	hex := strings.TrimPrefix(Digest(data), scenarios.HashPrefix)
	rel := path.Join(ObjectsDir, hex[:2], hex[2:])
	p := filepath.Join(l.Dir(), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err == nil {
		return rel, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	// Write then rename, so a half-written object never has a name.
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return "", err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return rel, nil
}
