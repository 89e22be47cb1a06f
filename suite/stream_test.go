package suite

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A streamed file holds what was written, more than its buffer, with the
// mode os.WriteFile gives; a failed write or a missing folder is an error.
func TestStreamFileWritesAsWriteFileDoes(t *testing.T) {
	dir := t.TempDir()
	want := bytes.Repeat([]byte("line <&>\n"), 20000)
	require.NoError(t, streamFile(filepath.Join(dir, "streamed"), func(w io.Writer) error {
		for line := range bytes.Lines(want) {
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
		return nil
	}))
	got, err := os.ReadFile(filepath.Join(dir, "streamed"))
	require.NoError(t, err)
	assert.Equal(t, want, got)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "written"), want, 0o644))
	streamed, err := os.Stat(filepath.Join(dir, "streamed"))
	require.NoError(t, err)
	written, err := os.Stat(filepath.Join(dir, "written"))
	require.NoError(t, err)
	assert.Equal(t, written.Mode(), streamed.Mode())

	bad := errors.New("bad")
	assert.ErrorIs(t, streamFile(filepath.Join(dir, "failed"), func(io.Writer) error { return bad }), bad)
	assert.Error(t, streamFile(filepath.Join(dir, "missing", "file"), func(io.Writer) error { return nil }))
}
