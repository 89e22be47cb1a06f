package fuzz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/amr-bench/amr/sim/sandbox"
)

// artifacts are the bytes a run leaves: its sandbox files, its run log and
// its verdict.
type artifacts struct {
	names   []string
	files   map[string][]byte
	log     []byte
	verdict []byte
}

func artifactsOf(r *Run) artifacts {
	a := artifacts{files: r.Result.Files.Files(), log: r.Result.LogBytes()}
	for name := range a.files {
		a.names = append(a.names, name)
	}
	sort.Strings(a.names)
	a.verdict, _ = json.Marshal(r.Verdict())
	return a
}

// hash is one digest over every byte of the artifacts, names included.
func (a artifacts) hash() string {
	h := sha256.New()
	for _, name := range a.names {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(a.files[name]))
		h.Write(a.files[name])
	}
	fmt.Fprintf(h, "%s\x00%d\x00", sandbox.RunLogFile, len(a.log))
	h.Write(a.log)
	fmt.Fprintf(h, "verdict.json\x00%d\x00", len(a.verdict))
	h.Write(a.verdict)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// compareRuns returns nil when two plays of one run left the same bytes,
// else where they first differ.
func compareRuns(x, y *Run) *Divergence {
	a, b := artifactsOf(x), artifactsOf(y)
	ha, hb := a.hash(), b.hash()
	if ha == hb {
		return nil
	}
	d := &Divergence{Index: x.Index, Seeds: x.Seeds, Profile: x.Profile, Bundle: x.Bundle, HashA: ha, HashB: hb}
	d.Where, d.A, d.B = firstDifference(a, b)
	return d
}

func firstDifference(a, b artifacts) (where, x, y string) {
	names := append(append([]string(nil), a.names...), b.names...)
	sort.Strings(names)
	for i, name := range names {
		if i > 0 && names[i-1] == name {
			continue
		}
		fa, oka := a.files[name]
		fb, okb := b.files[name]
		switch {
		case oka != okb:
			return "sandbox/" + name, presence(oka), presence(okb)
		case !bytes.Equal(fa, fb):
			n, la, lb := firstLine(fa, fb)
			return fmt.Sprintf("sandbox/%s line %d", name, n), la, lb
		}
	}
	if !bytes.Equal(a.log, b.log) {
		n, la, lb := firstLine(a.log, b.log)
		return fmt.Sprintf("%s record %d", sandbox.RunLogFile, n), la, lb
	}
	return "verdict.json", string(a.verdict), string(b.verdict)
}

func presence(ok bool) string {
	if ok {
		return "(present)"
	}
	return "(missing)"
}

// firstLine finds the first line (1-based) where two texts differ.
func firstLine(a, b []byte) (int, string, string) {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y []byte
		okx, oky := i < len(la), i < len(lb)
		if okx {
			x = la[i]
		}
		if oky {
			y = lb[i]
		}
		if okx != oky || !bytes.Equal(x, y) {
			return i + 1, clip(x, okx), clip(y, oky)
		}
	}
	return 0, "", ""
}

func clip(line []byte, ok bool) string {
	if !ok {
		return "(end of file)"
	}
	const most = 300
	if len(line) > most {
		return string(line[:most]) + "…"
	}
	return string(line)
}
