package jsondepth

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCheckRefusesDeepNesting(t *testing.T) {
	for _, open := range []string{"[", "{\"a\":"} {
		data := append(bytes.Repeat([]byte(open), 100_000), "1"...)
		start := time.Now()
		err := Check(data, 0)
		var de *Error
		require.True(t, errors.As(err, &de), "open %q", open)
		require.Equal(t, 1, de.Line)
		require.Less(t, time.Since(start), 5*time.Second) // a hang guard, not a benchmark
	}
}

func TestCheckAcceptsUpToTheBound(t *testing.T) {
	data := []byte(string(bytes.Repeat([]byte("["), Max)) + string(bytes.Repeat([]byte("]"), Max)))
	require.NoError(t, Check(data, 0))
	data = append([]byte("["), data...)
	require.Error(t, Check(data, 0))
}

func TestCheckIgnoresBracketsInStrings(t *testing.T) {
	s := `{"a":"` + string(bytes.Repeat([]byte("[{"), 1000)) + `\"[["}`
	require.NoError(t, Check([]byte(s), 0))
}

func TestCheckNamesTheLine(t *testing.T) {
	data := []byte("{\n\"a\":\n" + string(bytes.Repeat([]byte("["), Max)))
	var de *Error
	require.True(t, errors.As(Check(data, 0), &de))
	require.Equal(t, 3, de.Line)
}

func TestCheckLinesResetsPerLine(t *testing.T) {
	line := string(bytes.Repeat([]byte("["), Max-1))
	data := []byte(line + "\n" + line + "\n" + line)
	require.NoError(t, CheckLines(data, 0), "each line alone is within the bound")
	require.Error(t, Check(data, 0), "as one document it is not")
	data = []byte("{}\n{}\n" + line + "[[")
	var de *Error
	require.True(t, errors.As(CheckLines(data, 0), &de))
	require.Equal(t, 3, de.Line)
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"[["}]}`))
	f.Add(bytes.Repeat([]byte("["), 200))
	f.Add([]byte("\"\\\"[[[\"\n[]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data, 8)
		if err != nil {
			var de *Error
			require.True(t, errors.As(err, &de))
			require.GreaterOrEqual(t, de.Line, 1)
			require.LessOrEqual(t, de.Line, bytes.Count(data, []byte("\n"))+1)
		}
		_ = CheckLines(data, 8)
	})
}
