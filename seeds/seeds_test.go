package seeds_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/seeds"
)

// The derivations are pinned to numbers amr has always produced: a change
// here changes every run of every campaign and suite.
func TestDerivationsArePinned(t *testing.T) {
	// amr run (no --seed): l0-respond's scored run 1.
	assert.Equal(t, uint64(7139752554441156396), seeds.Engine(seeds.Named("l0-respond"), 1))
	// amr run --seed 7: scored runs 1 and 2.
	assert.Equal(t, uint64(17042791889534226679), seeds.Engine(7, 1))
	assert.Equal(t, uint64(14574411252864424862), seeds.Engine(7, 2))
	// amr fuzz --seed 7: run 0's run and engine seeds.
	assert.Equal(t, uint64(9924559172128392378), seeds.Run(7, 0))
	assert.Equal(t, uint64(8119599445417915252), seeds.Engine(seeds.Run(7, 0), 1))
}

func TestGeneratedSeedsChainTheLevels(t *testing.T) {
	s := seeds.OfGenerated(7, 3)
	require.NotNil(t, s.Campaign)
	require.NotNil(t, s.Run)
	require.NotNil(t, s.Engine)
	assert.Equal(t, seeds.Seed(7), *s.Campaign)
	assert.Equal(t, seeds.Seed(seeds.Run(7, 3)), *s.Run)
	assert.Equal(t, seeds.Seed(seeds.Engine(seeds.Run(7, 3), 1)), *s.Engine)
	assert.Equal(t, seeds.OfScored(seeds.Run(7, 3), 1).Engine, s.Engine, "a generated run is scored run 1 of its run seed")
	assert.NotEqual(t, seeds.Engine(1, 1), seeds.Engine(1, 2))
	assert.NotEqual(t, seeds.Impl(5), uint64(5))
}

func TestRunOrFallsBackToTheName(t *testing.T) {
	given := uint64(42)
	assert.Equal(t, given, seeds.RunOr(&given, "l0-respond"))
	assert.Equal(t, seeds.Named("l0-respond"), seeds.RunOr(nil, "l0-respond"))
	assert.NotEqual(t, seeds.Named("a"), seeds.Named("b"))
}

// Above 2^53 a JSON number is not exact in JavaScript or jq, so seeds are
// written as strings; numbers are read, exactly, from older documents.
func TestSeedJSON(t *testing.T) {
	big := seeds.Seed(18446744073709551615)
	data, err := json.Marshal(big)
	require.NoError(t, err)
	assert.Equal(t, `"18446744073709551615"`, string(data))

	for _, in := range []string{`"18446744073709551615"`, `18446744073709551615`} {
		var s seeds.Seed
		require.NoError(t, json.Unmarshal([]byte(in), &s), in)
		assert.Equal(t, big, s, in)
	}
	for _, in := range []string{`"-1"`, `-1`, `1.5`, `1e3`, `"18446744073709551616"`, `""`, `" 7"`, `true`, `"0x10"`} {
		var s seeds.Seed
		assert.Error(t, json.Unmarshal([]byte(in), &s), in)
	}
}

func TestSeedsJSONCarriesTheKnownLevels(t *testing.T) {
	type record struct {
		Kind string `json:"kind"`
		seeds.Seeds
	}
	data, err := json.Marshal(record{Kind: "x", Seeds: seeds.OfGenerated(7, 0)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"x","campaign_seed":"7","run_seed":"9924559172128392378","engine_seed":"8119599445417915252"}`, string(data))

	data, err = json.Marshal(record{Kind: "x", Seeds: seeds.OfEngine(3)})
	require.NoError(t, err)
	assert.Equal(t, `{"kind":"x","engine_seed":"3"}`, string(data))

	var back record
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"x","run_seed":9924559172128392378,"engine_seed":"1"}`), &back))
	assert.Nil(t, back.Campaign)
	assert.Equal(t, "run=9924559172128392378 engine=1", back.Text())
}

func ExampleSeeds_Line() {
	fmt.Println(seeds.OfCampaign(7).Line())
	fmt.Println(seeds.OfGenerated(7, 0).Line())
	fmt.Println(seeds.OfScored(7, 2).Line())
	// Output:
	// seed: campaign=7
	// seed: campaign=7 run=9924559172128392378 engine=8119599445417915252
	// seed: run=7 engine=14574411252864424862
}
