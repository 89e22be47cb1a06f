package fuzz

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// flaky is an implementation that is weak-no-send on the plays pick
// chooses (counted from 0) and the reference on the others.
func flaky(t *testing.T, pick func(n int64) bool) play.Impl {
	weak, ref := builtin(t, "weak-no-send"), builtin(t, "reference")
	var n atomic.Int64
	return play.Impl{Name: "flaky", New: func() sandbox.Implementation {
		if pick(n.Add(1) - 1) {
			return weak.New()
		}
		return ref.New()
	}}
}

func found(t *testing.T, impl play.Impl) *Counterexample {
	t.Helper()
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	var b *scenarios.Bundle
	for _, p := range pubs {
		if p.Name == "l0-respond" {
			b = p.Bundle
		}
	}
	require.NotNil(t, b)
	r, err := Play(b, impl, nil, 0)
	require.NoError(t, err)
	require.True(t, r.Failed(), "the first play fails")
	return &Counterexample{Run: r, Source: "generated"}
}

func TestReproduceClassifies(t *testing.T) {
	ctx := context.Background()
	weak := builtin(t, "weak-no-send")

	rep, err := Reproduce(ctx, found(t, weak), weak, 3, 0)
	require.NoError(t, err)
	assert.Equal(t, Reproduction{Status: Reproduced, Replays: 3, Failed: 3}, rep)

	once := flaky(t, func(n int64) bool { return n == 0 })
	rep, err = Reproduce(ctx, found(t, once), once, 4, 0)
	require.NoError(t, err)
	assert.Equal(t, Reproduction{Status: NotReproduced, Replays: 4}, rep)
	assert.Equal(t, "0 of 4 replays failed", rep.Rate())

	odd := flaky(t, func(n int64) bool { return n%2 == 0 })
	rep, err = Reproduce(ctx, found(t, odd), odd, 4, 0)
	require.NoError(t, err)
	assert.Equal(t, Reproduction{Status: Nondeterministic, Replays: 4, Failed: 2}, rep)
}

// A run that failed with a harness timeout in it and passes when replayed
// is not reproduced, and says so.
func TestReproduceTimedOutRun(t *testing.T) {
	once := flaky(t, func(n int64) bool { return n == 0 })
	cx := found(t, once)
	cx.Result.Log = append(cx.Result.Log, sandbox.LogRecord{Kind: sandbox.LogHung, Tick: 3, Detail: "tick 3 not answered within 10s"})
	rep, err := Reproduce(context.Background(), cx, once, 2, 0)
	require.NoError(t, err)
	assert.Equal(t, NotReproduced, rep.Status)
	assert.True(t, rep.RawTimedOut)
	assert.True(t, TimedOut(cx.Result.Log))
	assert.False(t, TimedOut(cx.Result.Log[:1]))
}
