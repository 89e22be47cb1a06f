package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
)

// Problem kinds Verify reports.
const (
	ProblemUnparsable        = "unparsable"         // the line is not a receipt
	ProblemEdited            = "edited"             // the content does not match its content_hash, or is not canonical
	ProblemFirstLinked       = "first-linked"       // the first receipt links to a previous one: receipts before it are gone
	ProblemLinkMissing       = "link-missing"       // links to a receipt that is not in the ledger: it was deleted
	ProblemLinkReordered     = "link-reordered"     // links to a receipt that comes after it
	ProblemLinkSkips         = "link-skips"         // links to an earlier receipt than the one before it
	ProblemArtifactChanged   = "artifact-changed"   // a kept artifact no longer has its hash
	ProblemArtifactPath      = "artifact-path"      // an artifact path that is not relative to the ledger's directory
	ProblemArtifactDisagrees = "artifact-disagrees" // a kept verdict.json or run.jsonl says other than the receipt
	ProblemBadCopy           = "bad-copy"           // a skipped receipt whose copied verdict is not its source's
	ProblemHead              = "head"               // the last receipt is not the expected head
)

// Problem is one finding, by position: the 1-based line of the ledger file.
type Problem struct {
	Position int    `json:"position"`
	Kind     string `json:"kind"`
	Detail   string `json:"detail"`
}

// Report is what Verify found.
type Report struct {
	Path     string `json:"path"`
	Receipts int    `json:"receipts"`
	Ran      int    `json:"ran"`
	Skipped  int    `json:"skipped"`
	Failed   int    `json:"failed_to_run"`
	// Head is the content hash of the last receipt: publishing it is what
	// makes a truncated tail detectable.
	Head             string `json:"head"`
	ArtifactsChecked int    `json:"artifacts_checked"`
	ArtifactsMissing int    `json:"artifacts_missing"`
	// Unavailable names, receipt by receipt, the artifacts that could not
	// be read back: what the receipt says about them was not checked.
	Unavailable []Unavailable `json:"unavailable"`
	Problems    []Problem     `json:"problems"`

	// crossChecked holds the positions of the ran receipts whose verdict
	// was checked against the verdict.json they name and agreed.
	crossChecked map[int]bool
	receipts     []entry
}

// Unavailable is one receipt's artifacts that were not on disk, or of which
// the ledger kept no copy.
type Unavailable struct {
	Position  int      `json:"position"`
	Scenario  string   `json:"scenario"`
	Run       int      `json:"run"`
	Artifacts []string `json:"artifacts"`
	// VerdictUnchecked says the receipt's verdict was checked against no
	// kept verdict.json.
	VerdictUnchecked bool `json:"verdict_unchecked"`
}

// OK reports whether the ledger verified clean.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// entry is one line of the ledger as read.
type entry struct {
	pos    int
	raw    []byte
	r      Receipt
	parsed bool
}

// Verify recomputes every receipt's content hash, follows every link from
// the first receipt, checks that skipped receipts copy their source's
// verdict, and re-hashes every artifact that is present (paths relative to
// the ledger's directory). wantHead, when not empty, is the content hash the
// last receipt must have. An unreadable file is an error; everything else is
// a problem in the report.
func Verify(ledgerPath, wantHead string) (*Report, error) {
	data, err := os.ReadFile(ledgerPath)
	if err != nil {
		return nil, err
	}
	return verify(ledgerPath, data, wantHead), nil
}

// verify is Verify over the ledger's bytes, read once by the caller.
func verify(ledgerPath string, data []byte, wantHead string) *Report {
	rep := &Report{Path: ledgerPath, Problems: []Problem{}, Unavailable: []Unavailable{}, crossChecked: map[int]bool{}}
	var es []entry
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e := entry{pos: i + 1, raw: line}
		r, err := parseReceipt(line)
		if err != nil {
			rep.add(e.pos, ProblemUnparsable, err.Error())
		} else {
			e.r, e.parsed = r, true
		}
		es = append(es, e)
	}
	rep.Receipts = len(es)
	byHash := map[string]int{}
	for i, e := range es {
		if e.parsed && e.r.ContentHash != "" {
			if _, dup := byHash[e.r.ContentHash]; !dup {
				byHash[e.r.ContentHash] = i
			}
		}
	}
	dir := filepath.Dir(ledgerPath)
	for i, e := range es {
		if !e.parsed {
			continue
		}
		switch e.r.Status {
		case StatusRan:
			rep.Ran++
		case StatusSkipped:
			rep.Skipped++
		case StatusFailed:
			rep.Failed++
		}
		rep.checkContent(e)
		rep.checkLink(es, i, byHash)
		rep.checkCopy(es, i, byHash)
		rep.checkArtifacts(dir, e)
	}
	rep.receipts = es
	if n := len(es); n > 0 && es[n-1].parsed {
		rep.Head = es[n-1].r.ContentHash
	}
	if wantHead != "" && rep.Head != wantHead {
		rep.add(lastPos(es), ProblemHead, fmt.Sprintf("the last receipt is %s, not the expected head %s: receipts were added or removed at the end", orNone(rep.Head), wantHead))
	}
	return rep
}

func lastPos(es []entry) int {
	if len(es) == 0 {
		return 0
	}
	return es[len(es)-1].pos
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (rep *Report) add(pos int, kind, detail string) {
	rep.Problems = append(rep.Problems, Problem{Position: pos, Kind: kind, Detail: detail})
}

func (rep *Report) checkContent(e entry) {
	canonical, line, err := e.r.sealed()
	if err != nil {
		rep.add(e.pos, ProblemEdited, err.Error())
		return
	}
	if hash := Digest(canonical); hash != e.r.ContentHash {
		rep.add(e.pos, ProblemEdited, fmt.Sprintf("content hashes to %s, the receipt says %s", hash, orNone(e.r.ContentHash)))
		return
	}
	if !bytes.Equal(line, e.raw) {
		rep.add(e.pos, ProblemEdited, "the line is not the receipt's canonical JSON")
	}
}

func (rep *Report) checkLink(es []entry, i int, byHash map[string]int) {
	e := es[i]
	if i == 0 {
		if e.r.Prev != nil {
			rep.add(e.pos, ProblemFirstLinked, fmt.Sprintf("the first receipt links to %s: the receipts before it are missing", *e.r.Prev))
		}
		return
	}
	prev := es[i-1]
	if e.r.Prev != nil && prev.parsed && *e.r.Prev == prev.r.ContentHash {
		return
	}
	if e.r.Prev == nil {
		rep.add(e.pos, ProblemLinkMissing, fmt.Sprintf("links to nothing, but follows the receipt at position %d", prev.pos))
		return
	}
	j, ok := byHash[*e.r.Prev]
	switch {
	case !ok:
		rep.add(e.pos, ProblemLinkMissing, fmt.Sprintf("links to %s, which is not in the ledger: the receipt before it was deleted or edited", *e.r.Prev))
	case j > i:
		rep.add(e.pos, ProblemLinkReordered, fmt.Sprintf("links to the receipt at position %d, which comes after it: receipts were reordered", es[j].pos))
	default:
		rep.add(e.pos, ProblemLinkSkips, fmt.Sprintf("links to the receipt at position %d, not to the one at position %d before it: receipts were moved or inserted", es[j].pos, prev.pos))
	}
}

func (rep *Report) checkCopy(es []entry, i int, byHash map[string]int) {
	e := es[i]
	if e.r.Status != StatusSkipped {
		return
	}
	j, ok := byHash[e.r.CopiedFrom]
	switch {
	case !ok:
		rep.add(e.pos, ProblemBadCopy, fmt.Sprintf("copies the verdict of %s, which is not in the ledger", orNone(e.r.CopiedFrom)))
	case j >= i:
		rep.add(e.pos, ProblemBadCopy, fmt.Sprintf("copies the verdict of the receipt at position %d, which comes after it", es[j].pos))
	case es[j].r.Status != StatusRan || es[j].r.Key() != e.r.Key():
		rep.add(e.pos, ProblemBadCopy, fmt.Sprintf("copies the receipt at position %d, which is not a ran receipt of the same run", es[j].pos))
	case !reflect.DeepEqual(es[j].r.Verdict, e.r.Verdict):
		rep.add(e.pos, ProblemBadCopy, fmt.Sprintf("its verdict differs from the one at position %d it copies", es[j].pos))
	}
}

func (rep *Report) checkArtifacts(dir string, e entry) {
	var missing []string
	// verdictSeen: the verdict.json agreed; verdictBad: it was read and
	// did not (changed, or saying other than the receipt).
	verdictSeen, verdictBad := false, false
	for _, a := range e.r.Artifacts {
		if a.Path == "" {
			missing = append(missing, a.Name)
			continue
		}
		if !relativePath(a.Path) {
			rep.add(e.pos, ProblemArtifactPath, fmt.Sprintf("artifact %s: path %q is not relative to the ledger's directory", a.Name, a.Path))
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(a.Path)))
		if errors.Is(err, fs.ErrNotExist) {
			rep.ArtifactsMissing++
			missing = append(missing, a.Name)
			continue
		}
		rep.ArtifactsChecked++
		if err != nil {
			rep.add(e.pos, ProblemArtifactChanged, fmt.Sprintf("artifact %s: %v", a.Path, err))
			continue
		}
		if got := Digest(data); got != a.Hash {
			rep.add(e.pos, ProblemArtifactChanged, fmt.Sprintf("artifact %s hashes to %s, the receipt says %s", a.Path, got, a.Hash))
			verdictBad = verdictBad || a.Name == verdictArtifact
			continue
		}
		if e.r.Status != StatusRan {
			continue
		}
		before := len(rep.Problems)
		switch a.Name {
		case verdictArtifact:
			rep.checkVerdict(e, a.Name, data)
			verdictSeen = len(rep.Problems) == before
			verdictBad = !verdictSeen
		case runLogArtifact:
			rep.checkRunLog(e, a.Name, data)
		}
	}
	if verdictSeen {
		rep.crossChecked[e.pos] = true
	}
	unchecked := e.r.Status == StatusRan && !verdictSeen && !verdictBad
	if len(missing) > 0 || unchecked {
		rep.Unavailable = append(rep.Unavailable, Unavailable{Position: e.pos, Scenario: e.r.Scenario, Run: e.r.Run,
			Artifacts: append([]string{}, missing...), VerdictUnchecked: unchecked})
	}
}

// relativePath reports whether an artifact path is relative and
// slash-separated, as Append writes them; an absolute path would make the
// ledger depend on the machine that wrote it.
func relativePath(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(p, "\\") && !filepath.IsAbs(filepath.FromSlash(p)) &&
		path.Clean(p) != "."
}

// reusable returns the content hashes of the ran receipts whose verdict may
// be copied forward: a receipt that fails verification never is. That is a
// receipt with a problem of its own, one whose verdict no kept verdict.json
// confirmed, and every receipt before a broken link, since a link breaks
// where receipts before it were edited and re-hashed, inserted or removed,
// and the chain cannot say which of them are still what was sealed.
func (rep *Report) reusable() map[string]bool {
	own := map[int]bool{}
	brokenAt := -1
	for _, p := range rep.Problems {
		switch p.Kind {
		case ProblemLinkMissing, ProblemLinkReordered, ProblemLinkSkips:
			for i, e := range rep.receipts {
				if e.pos == p.Position && i > brokenAt {
					brokenAt = i
				}
			}
		case ProblemHead, ProblemFirstLinked:
			// Receipts missing at either end take nothing from those left.
		default:
			own[p.Position] = true
		}
	}
	out := map[string]bool{}
	for i, e := range rep.receipts {
		if i < brokenAt || !e.parsed || e.r.Status != StatusRan || own[e.pos] || !rep.crossChecked[e.pos] {
			continue
		}
		out[e.r.ContentHash] = true
	}
	return out
}
