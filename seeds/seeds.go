// Package seeds names amr's seeds and derives them, one word per level:
//
//   - campaign: the seed of a fuzz campaign (amr fuzz --seed). Run i of the
//     campaign has the run seed Run(campaign, i).
//   - run: the seed of one bundle's runs (amr run --seed, amr replay --seed,
//     and what amr fuzz prints for a counterexample). A generated run draws
//     its profile and its bundle from it. Scored run k of a bundle (k from 1)
//     plays with the engine seed Engine(run, k); a generated run is played as
//     scored run 1. Given no run seed, a bundle's is Named(its name).
//   - engine: the seed the simulator plays one run with. It orders same-tick
//     events, and the implementation gets its own seed derived from it,
//     Impl(engine), as AMR_SEED.
//
// Every derivation is fixed by internal/rng, so a seed reproduces the same
// run on every machine. In JSON a seed is a decimal string (a 64-bit integer
// is not exact as a JavaScript or jq number), under the key campaign_seed,
// run_seed or engine_seed; a JSON number is accepted too when read.
package seeds

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/amr-bench/amr/internal/rng"
)

// Run is the run seed of run i of a campaign.
func Run(campaign uint64, i int) uint64 { return rng.Mix(campaign, uint64(i)) }

// Engine is the engine seed of scored run k (from 1) played from a run seed.
func Engine(run uint64, k int) uint64 { return rng.Mix(run, uint64(k)) }

// Named is the run seed of a bundle given none: derived from its name, so
// two invocations agree byte for byte.
func Named(bundle string) uint64 { return rng.Hash("bundle:" + bundle) }

// RunOr is the given run seed, or Named(bundle) when none is given.
func RunOr(given *uint64, bundle string) uint64 {
	if given != nil {
		return *given
	}
	return Named(bundle)
}

// Impl is the seed the implementation is handed for its own choices: derived
// from the engine seed, so they never share a stream with the harness's.
func Impl(engine uint64) uint64 { return rng.Mix(engine, rng.Hash("impl")) }

// Seed is one seed. It marshals to a JSON string and reads a string or a
// number.
type Seed uint64

func (s Seed) String() string { return strconv.FormatUint(uint64(s), 10) }

// MarshalJSON writes the seed as a decimal string.
func (s Seed) MarshalJSON() ([]byte, error) { return strconv.AppendQuote(nil, s.String()), nil }

// UnmarshalJSON reads a decimal string or a JSON number, exactly: digits
// only, no sign, fraction or exponent.
func (s *Seed) UnmarshalJSON(data []byte) error {
	text := string(data)
	if strings.HasPrefix(text, `"`) {
		if err := json.Unmarshal(data, &text); err != nil {
			return err
		}
	}
	n, err := Parse(text)
	if err != nil {
		return err
	}
	*s = n
	return nil
}

// Parse reads a seed written in decimal.
func Parse(text string) (Seed, error) {
	if text == "" || strings.TrimLeft(text, "0123456789") != "" {
		return 0, fmt.Errorf("seed %q: want an unsigned decimal integer", text)
	}
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("seed %q: beyond 64 bits", text)
	}
	return Seed(n), nil
}

// Seeds are the seeds of one play, or of a whole command, each level that
// is known. A record embeds them, so JSON carries campaign_seed, run_seed
// and engine_seed beside its other fields.
type Seeds struct {
	Campaign *Seed `json:"campaign_seed,omitempty"`
	Run      *Seed `json:"run_seed,omitempty"`
	Engine   *Seed `json:"engine_seed,omitempty"`
}

// OfCampaign are the seeds of a campaign before any run.
func OfCampaign(campaign uint64) Seeds { return Seeds{Campaign: ptr(campaign)} }

// OfGenerated are the seeds of run i of a campaign, played once.
func OfGenerated(campaign uint64, i int) Seeds {
	s := OfScored(Run(campaign, i), 1)
	s.Campaign = ptr(campaign)
	return s
}

// OfScored are the seeds of scored run k played from a run seed.
func OfScored(run uint64, k int) Seeds {
	return Seeds{Run: ptr(run), Engine: ptr(Engine(run, k))}
}

// OfRun are the seeds of a command given only a run seed.
func OfRun(run uint64) Seeds { return Seeds{Run: ptr(run)} }

// OfEngine are the seeds of a play known only by its engine seed, as a run
// log records it.
func OfEngine(engine uint64) Seeds { return Seeds{Engine: ptr(engine)} }

// Text is how every command prints seeds, after "seed: ": the known levels
// as campaign=… run=… engine=…, outermost first.
func (s Seeds) Text() string {
	var parts []string
	for _, l := range []struct {
		name string
		seed *Seed
	}{{"campaign", s.Campaign}, {"run", s.Run}, {"engine", s.Engine}} {
		if l.seed != nil {
			parts = append(parts, l.name+"="+l.seed.String())
		}
	}
	return strings.Join(parts, " ")
}

// Line is the line a command prints first: "seed: " and Text.
func (s Seeds) Line() string { return "seed: " + s.Text() }

func ptr(n uint64) *Seed {
	s := Seed(n)
	return &s
}
