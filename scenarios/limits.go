package scenarios

// The named limits every layer shares. They live here, at the bottom of
// the house, so the validator, the engine, the checker and the history
// oracle bound a bundle the same way: a bundle the validator accepts is one
// the engine plays and both oracles judge in full, and a hostile one is cut
// off at the same place by all of them (docs/bundles.md, "Limits").
const (
	// MinLevel and MaxLevel are the ends of the level ladder (spec §4:
	// L0 through L6).
	MinLevel = 0
	MaxLevel = 6
	// Levels is how many levels a verdict reports.
	Levels = MaxLevel - MinLevel + 1
	// MaxHorizon is the last tick a bundle may run to. The validator
	// rejects a larger horizon, the engine refuses to play one, and the
	// oracles read one as this, so no bundle can make a timeline exhaust
	// memory.
	MaxHorizon = 100_000
	// ScoredRuns is how many consecutive runs a level must hold in to pass
	// (spec §5: five).
	ScoredRuns = 5
	// MaxDown is the longest a crash may keep the implementation down.
	MaxDown = MaxHorizon
)
