package fuzz

import (
	"context"
	"fmt"
	"time"

	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// StepTimeoutFactor is how many times the calibration run's wall time one
// step may take before the step regime gives up on the implementation.
const StepTimeoutFactor = 20

// Calibration is the measured baseline a campaign's step timeout is scaled
// from: one quiet generated run (preset quiet, run 0), start-up included.
type Calibration struct {
	Ticks   int           `json:"ticks"`
	Wall    time.Duration `json:"wall_ns"`
	Timeout time.Duration `json:"step_timeout_ns"`
}

func (c Calibration) String() string {
	return fmt.Sprintf("step timeout %s (%d × the %s a quiet run of %d ticks took, at least %s)",
		c.Timeout, StepTimeoutFactor, c.Wall.Round(time.Millisecond), c.Ticks, sim.DefaultStepTimeout)
}

// CalibrateStepTimeout measures how long the implementation takes for a
// quiet run on this machine, now, and returns the step timeout it earns:
// StepTimeoutFactor times that, never below sim.DefaultStepTimeout. A fixed
// timeout misses a restarted process that a loaded machine slows down and
// calls it hung; one scaled from the implementation's own pace does not.
// The measurement is wall clock, so it is reported, never written into an
// artifact.
func CalibrateStepTimeout(ctx context.Context, impl play.Impl, seed uint64) (Calibration, error) {
	_, b, err := Generated(seed, 0, "quiet")
	if err != nil {
		return Calibration{}, err
	}
	start := time.Now()
	r, err := play.Play(b, impl, seeds.OfGenerated(seed, 0), play.Options{Context: ctx})
	if err != nil {
		return Calibration{}, fmt.Errorf("calibrating the step timeout: %w", err)
	}
	c := Calibration{Wall: time.Since(start)}
	for _, rec := range r.Result.Log {
		if rec.Kind == sandbox.LogTickEnd {
			c.Ticks++
		}
	}
	c.Timeout = max(sim.DefaultStepTimeout, StepTimeoutFactor*c.Wall)
	return c, nil
}
