package safefile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// withDeadline runs f and fails the test if it does not return in time: a
// read that blocks on a FIFO would otherwise hang the test binary.
func withDeadline(t *testing.T, f func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the read blocked")
	}
}

func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo unavailable: %v", err)
	}
	return p
}

func TestReadFileRefusesFIFO(t *testing.T) {
	p := fifo(t)
	withDeadline(t, func() {
		_, err := ReadFile(p, 0)
		require.ErrorIs(t, err, ErrNotRegular)
		require.ErrorContains(t, err, p)
		require.ErrorContains(t, err, "FIFO")
	})
}

func TestReadFileRefusesDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	p := filepath.Join(t.TempDir(), "zero")
	require.NoError(t, os.Symlink("/dev/zero", p))
	withDeadline(t, func() {
		_, err := ReadFile(p, 0)
		require.ErrorIs(t, err, ErrNotRegular)
		require.ErrorContains(t, err, "character device")
	})
}

func TestReadFileFollowsSymlinkToRegular(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("hi"), 0o644))
	require.NoError(t, os.Symlink("f", filepath.Join(dir, "l")))
	data, err := ReadFile(filepath.Join(dir, "l"), 0)
	require.NoError(t, err)
	require.Equal(t, "hi", string(data))
}

func TestReadFileBound(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, make([]byte, 11), 0o644))
	_, err := ReadFile(p, 10)
	require.ErrorIs(t, err, ErrTooLarge)
	data, err := ReadFile(p, 11)
	require.NoError(t, err)
	require.Len(t, data, 11)
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "nope"), 0)
	require.ErrorIs(t, err, fs.ErrNotExist)
}

func TestReadDirRefusesFIFOAndFile(t *testing.T) {
	p := fifo(t)
	withDeadline(t, func() {
		_, err := ReadDir(p)
		require.ErrorIs(t, err, ErrNotDir)
		require.ErrorContains(t, err, "FIFO")
	})
	f := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err := ReadDir(f)
	require.ErrorIs(t, err, ErrNotDir)
	require.ErrorContains(t, err, "a regular file")
}

func TestReadDirUnreadableIsAnError(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	dir := filepath.Join(t.TempDir(), "locked")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), nil, 0o644))
	require.NoError(t, os.Chmod(dir, 0))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err := ReadDir(dir)
	require.Error(t, err)
	require.NoError(t, CheckDir(filepath.Dir(dir)))
	require.True(t, errors.Is(CheckDir(dir), fs.ErrPermission))
}

func TestReadDirSorted(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b", "a", "c"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
	entries, err := ReadDir(dir)
	require.NoError(t, err)
	require.Equal(t, "a", entries[0].Name())
	require.Equal(t, "c", entries[2].Name())
}

func TestWithDirLockSerializesReadModifyWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "n")
	require.NoError(t, os.WriteFile(p, []byte("0"), 0o644))
	done := make(chan struct{})
	for range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 50 {
				require.NoError(t, WithDirLock(dir, func() error {
					data, err := ReadFile(p, 0)
					if err != nil {
						return err
					}
					n := 0
					fmt.Sscan(string(data), &n)
					return WriteFile(p, []byte(fmt.Sprint(n+1)), 0o644)
				}))
			}
		}()
	}
	<-done
	<-done
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "100", string(data), "no increment was lost")
}

func TestCreateExclusiveOneWinner(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, CreateExclusive(p, []byte("first"), 0o600))
	err := CreateExclusive(p, []byte("second"), 0o600)
	require.ErrorIs(t, err, ErrExists)
	data, _ := os.ReadFile(p)
	require.Equal(t, "first", string(data))
	entries, _ := os.ReadDir(filepath.Dir(p))
	require.Len(t, entries, 1, "no temporary file is left")
}

func TestRenameDirExclusive(t *testing.T) {
	root := t.TempDir()
	a, b, dst := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "dst")
	for _, d := range []string{a, b} {
		require.NoError(t, os.Mkdir(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "x"), []byte(d), 0o644))
	}
	require.NoError(t, RenameDirExclusive(a, dst))
	require.ErrorIs(t, RenameDirExclusive(b, dst), ErrExists)
	data, _ := os.ReadFile(filepath.Join(dst, "x"))
	require.Equal(t, a, string(data))
}
