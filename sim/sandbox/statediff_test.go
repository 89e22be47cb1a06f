package sandbox

import (
	"bytes"
	"hash/maphash"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// fullTraceHunks is the token diff as it was first written, a copy of v
// per step: the oracle the windowed trace of StateDiffer must agree with,
// hunk for hunk, since the run log records the hunks.
func fullTraceHunks(old, cur []byte) ([]Hunk, bool) {
	seed := maphash.MakeSeed()
	as, ah := tokens(old, seed, nil, nil)
	bs, bh := tokens(cur, seed, nil, nil)
	eq := func(x, y int) bool {
		return ah[x] == bh[y] && bytes.Equal(old[as[x]:as[x+1]], cur[bs[y]:bs[y+1]])
	}
	n, m := len(ah), len(bh)
	off := maxTokenEdits + 1
	v := make([]int, 2*maxTokenEdits+3)
	var trace [][]int
	for d := 0; d <= maxTokenEdits; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			x := v[off+k-1] + 1
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			}
			y := x - k
			for x < n && y < m && eq(x, y) {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return fullBacktrack(trace, off, n, m, as, bs, cur), true
			}
		}
	}
	return nil, false
}

func fullBacktrack(trace [][]int, off, n, m int, as, bs []int, cur []byte) []Hunk {
	var hunks []Hunk
	x, y := n, m
	x1, y1, open := 0, 0, false
	closeHunk := func(x0, y0 int) {
		if open {
			hunks = append(hunks, Hunk{At: as[x0], Del: as[x1] - as[x0], Text: string(cur[bs[y0]:bs[y1]])})
			open = false
		}
	}
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		}
		px := v[off+prevK]
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

// One differ reused over a run of versions gives, for every pair, the
// hunks the full-trace diff gives, including past the bound (where both
// give up) and around it.
func TestStateDifferMatchesTheFullTrace(t *testing.T) {
	words := []string{`{"w":1}`, `"s":"a"`, `"é"`, `[]`, `{}`, `"x":2`, `"y":3`}
	rapid.Check(t, func(t *rapid.T) {
		gen := func(label string) []byte {
			parts := rapid.SliceOfN(rapid.SampledFrom(words), 0, 700).Draw(t, label)
			return []byte("[" + strings.Join(parts, ",") + "]")
		}
		var d StateDiffer
		prev := gen("first")
		for i := 0; i < 4; i++ {
			next := gen("next")
			if rapid.Bool().Draw(t, "near") {
				// mostly prev, with a few tokens changed
				next = bytes.Clone(prev)
				for j := rapid.IntRange(0, 300).Draw(t, "changes"); j > 0; j-- {
					from := rapid.IntRange(0, len(next)-1).Draw(t, "from")
					at := bytes.IndexByte(next[from:], ',')
					if at < 0 {
						break
					}
					at += from
					next = append(next[:at+1], append([]byte(`"y":3,`), next[at+1:]...)...)
				}
			}
			want, wantOK := fullTraceHunks(prev, next)
			got, gotOK := d.tokenHunks(prev, next)
			require.Equal(t, wantOK, gotOK)
			require.Equal(t, want, got)
			edit, ok := d.Edit(prev, next)
			require.True(t, ok)
			rebuilt, err := edit.Apply(prev)
			require.NoError(t, err)
			require.Equal(t, string(next), string(rebuilt))
			prev = next
		}
	})
}
