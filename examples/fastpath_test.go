package examples_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
)

// plainStore shows only what sandbox.Store offers, so the reference must
// read every file with a copying Read, as through a file system.
type plainStore struct{ s sandbox.Store }

func (p plainStore) Read(name string) ([]byte, error)      { return p.s.Read(name) }
func (p plainStore) Append(name string, line []byte) error { return p.s.Append(name, line) }
func (p plainStore) Write(name string, data []byte) error  { return p.s.Write(name, data) }
func (p plainStore) Names() []string                       { return p.s.Names() }

// overStore plays impl on a plain view of the engine's store.
type overStore struct{ impl sandbox.Implementation }

func (o overStore) Step(env *sandbox.Env) error {
	plain := *env
	plain.Files = plainStore{env.Files}
	return o.impl.Step(&plain)
}

// restartEveryStep starts a fresh instance for every step, so nothing one
// step learned (the last settled read, parse caches, the last state
// encoded) reaches the next.
type restartEveryStep struct{ f sandbox.Factory }

func (r restartEveryStep) Step(env *sandbox.Env) error { return r.f().Step(env) }

// The in-process reference reads the engine's store without copying it,
// skips a step whose files are those of its last idle step, and reuses
// parses of bytes it saw before. Each shortcut is one a process could
// take too (a read-only mapping of the files, a comparison of their
// contents), so none may change an artifact: played with the shortcuts
// defeated, every run writes the same bytes, the same run log and the same
// verdicts (decision D50).
func TestReferenceShortcutsLeaveEveryArtifactAsIs(t *testing.T) {
	ref := examples.Reference()
	variants := map[string]sandbox.Factory{
		"no zero-copy view":       func() sandbox.Implementation { return overStore{ref()} },
		"fresh instance per step": func() sandbox.Implementation { return restartEveryStep{ref} },
		"both": func() sandbox.Implementation {
			return overStore{restartEveryStep{ref}}
		},
	}
	names := []string{"no zero-copy view", "fresh instance per step", "both"}

	type game struct {
		b    *scenarios.Bundle
		runs []uint64
	}
	var games []game
	published, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range published {
		games = append(games, game{p.Bundle, []uint64{1, 2}})
	}
	for i := 0; i < 24; i++ {
		_, b, err := fuzz.Generated(50, i, "default")
		require.NoError(t, err)
		games = append(games, game{b, []uint64{seeds.Run(50, i)}})
	}
	for _, g := range games {
		b := g.b
		for _, run := range g.runs {
			s := seeds.OfScored(run, 1)
			want := artifacts(t, b, ref, s)
			for _, name := range names {
				got := artifacts(t, b, variants[name], s)
				if !assert.Equal(t, want.digest, got.digest, "%s, run seed %d, %s", b.Meta.Name, run, name) {
					assert.Equal(t, want.text, got.text)
				}
			}
		}
	}
}

// played is a run's artifacts: a digest to compare, and the text behind it
// to show where two differ.
type played struct {
	digest string
	text   string
}

func artifacts(t *testing.T, b *scenarios.Bundle, f sandbox.Factory, s seeds.Seeds) played {
	t.Helper()
	r, err := play.Play(b, play.Impl{Name: examples.ReferenceName, New: f}, s, play.Options{})
	require.NoError(t, err)
	var buf bytes.Buffer
	files := r.Result.Files
	for _, name := range files.Names() {
		data, err := files.Read(name)
		require.NoError(t, err)
		fmt.Fprintf(&buf, "== %s\n%s", name, data)
	}
	fmt.Fprintf(&buf, "== run log\n%s", r.Result.LogBytes())
	v, err := json.Marshal(r.Judgement)
	require.NoError(t, err)
	fmt.Fprintf(&buf, "== judgement\n%s\n", v)
	return played{digest: fmt.Sprintf("%x", sha256.Sum256(buf.Bytes())), text: buf.String()}
}

// The variants above must take the slow path: the plain store offers no
// View, while the engine's store does, or the fast path would be gone.
func TestPlainStoreHidesView(t *testing.T) {
	type viewer interface{ View(string) []byte }
	_, ok := sandbox.Store(plainStore{sandbox.NewMemory()}).(viewer)
	assert.False(t, ok, "the plain store offers View")
	_, ok = sandbox.Store(sandbox.NewMemory()).(viewer)
	assert.True(t, ok, "the engine's store offers no View")
}
