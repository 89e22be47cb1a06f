package fuzz_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/fuzz"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want fuzz.Shard
	}{
		{"", fuzz.Shard{Index: 0, Count: 1}},
		{"0/1", fuzz.Shard{Index: 0, Count: 1}},
		{"2/4", fuzz.Shard{Index: 2, Count: 4}},
	} {
		got, err := fuzz.ParseShard(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "a/b", "1/0", "1/2/3"} {
		_, err := fuzz.ParseShard(bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "want k/n with 0 <= k < n")
	}
}

// An implementation's name, a process's command line included, is one
// path element of the default directories.
func TestDefaultDirsNameTheImplementationInOnePathElement(t *testing.T) {
	assert.Equal(t, filepath.Join(".amr", "corpus", "weak-no-send"), fuzz.DefaultCorpusDir("weak-no-send"))
	assert.Equal(t, filepath.Join(".amr", "fuzz", "python3_impl.py_--fast", "7", "run-3"),
		fuzz.CounterexampleDir("python3 impl.py --fast", 7, "default", "generated", 3, ""))
	assert.Equal(t, filepath.Join(".amr", "corpus", "_.._etc"), fuzz.DefaultCorpusDir("/../etc"))
	assert.Equal(t, filepath.Join(".amr", "corpus", "impl"), fuzz.DefaultCorpusDir(".."))
}
