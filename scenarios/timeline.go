package scenarios

// Timeline is the ticks the clock visits, in order: 0 to the horizon,
// except that a tick jump at a visited tick a by b moves straight from a to
// a+b. The engine plays it and the checker judges against it; the history
// oracle builds its own on purpose (docs/history.md).
type Timeline []int

// TimelineOf returns the timeline of b, nil for a nil bundle. A bundle the
// validator accepts meets none of the edges below; an unvalidated one is
// read the way the engine plays it:
//   - a horizon outside 0..MaxHorizon is read as the nearer end;
//   - of two tick jumps at one tick, the last in faults order is the one;
//   - a jump by less than 2 is no jump: the clock moves on one tick;
//   - a jump at a tick an earlier jump skips over is never taken;
//   - a jump that would land past the horizon ends the run at its tick
//     (tested before adding, so no jump can overflow).
func TimelineOf(b *Bundle) Timeline {
	if b == nil {
		return nil
	}
	horizon := min(max(b.Meta.Horizon, 0), MaxHorizon)
	jumps := map[int]int{}
	for _, f := range b.Faults {
		if f.Kind == FaultTickJump {
			jumps[f.At] = f.By
		}
	}
	tl := make(Timeline, 0, horizon+1)
	for t := 0; t <= horizon; t++ {
		tl = append(tl, t)
		if by := jumps[t]; by > 1 {
			if by > horizon-t {
				break
			}
			t += by - 1
		}
	}
	return tl
}
