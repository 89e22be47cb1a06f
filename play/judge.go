package play

import (
	"sync"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Judgement is one run judged by both oracles, and the guard's comparison
// of their answers.
type Judgement struct {
	Level   checker.Verdict
	History history.Verdict
	Guard   checker.GuardResult
	// Surprise attributes every model call; a diagnostic, never a verdict.
	Surprise history.Surprise
	// Compiled is the history both the history oracle and the surprise
	// diagnostic read; it is what history.jsonl holds.
	Compiled *history.History
	// Parsed is the parse of the run's files both oracles read, for any
	// later reader of the same files (a campaign's coverage).
	Parsed *sandbox.Parsed `json:"-"`
}

// Invalid reports whether the oracles disagreed: the run is a harness
// bug, neither a pass nor a fail of the implementation.
func (j Judgement) Invalid() bool { return !j.Guard.Agree }

// Judge runs both oracles over one run's artifacts and compares them. The
// run log may be nil (artifacts from elsewhere): both oracles then read the
// files' own ticks. Play judges with it, and so does amr check, which
// judges a sandbox no engine of ours played.
func Judge(b *scenarios.Bundle, files map[string][]byte, log []sandbox.LogRecord) Judgement {
	return judgeParsed(b, files, log, &sandbox.Parsed{})
}

// judgeParsed is Judge starting from parsed, the parse of files a reader
// already made (the engine's of the logs it indexed).
func judgeParsed(b *scenarios.Bundle, files map[string][]byte, log []sandbox.LogRecord, parsed *sandbox.Parsed) Judgement {
	level, hist := currentOracles()
	j := Judgement{Level: level(checker.Input{Bundle: b, Files: files, Log: log, Parsed: parsed}), Parsed: parsed}
	j.Compiled = history.Compile(history.Input{Bundle: b, Files: files, Log: log, Parsed: parsed})
	j.History = hist(j.Compiled)
	j.Guard = checker.Guard(j.Level, j.History)
	j.Surprise = history.Surprises(j.Compiled)
	return j
}

// The oracles Judge uses. Only WithOracles replaces them.
var (
	oraclesMu    sync.RWMutex
	levelOracle  = checker.Check
	historyCheck = history.Check
)

func currentOracles() (func(checker.Input) checker.Verdict, func(*history.History) history.Verdict) {
	oraclesMu.RLock()
	defer oraclesMu.RUnlock()
	return levelOracle, historyCheck
}

// WithOracles makes Judge use the given oracles (nil keeps the current one)
// until the returned function restores the real ones. It exists so tests
// can prove that the guard catches a doctored oracle; production code never
// calls it.
func WithOracles(level func(checker.Input) checker.Verdict, hist func(*history.History) history.Verdict) (restore func()) {
	oraclesMu.Lock()
	defer oraclesMu.Unlock()
	prevLevel, prevHist := levelOracle, historyCheck
	if level != nil {
		levelOracle = level
	}
	if hist != nil {
		historyCheck = hist
	}
	return func() {
		oraclesMu.Lock()
		defer oraclesMu.Unlock()
		levelOracle, historyCheck = prevLevel, prevHist
	}
}
