//go:build !linux

package sim

import (
	"io"
	"os"
	"syscall"
)

// Process implementations need process groups, a parent-death signal and
// /proc to be run safely; elsewhere they are refused.
const processSupported = false

func sysProcAttr() *syscall.SysProcAttr { return nil }

func writable(string) bool { return false }

func waitExit(int) {}

func killGroup(int) {}

func stopGroup(int) {}

func contGroup(int) {}

func killPid(int) {}

func readRegular(path string, off, limit int64) ([]byte, int64, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, 0, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, errNotRegular
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	end := min(info.Size(), limit)
	if end <= off {
		return nil, info.Size(), nil
	}
	buf := make([]byte, end-off)
	n, err := f.ReadAt(buf, off)
	if err == io.EOF {
		err = nil
	}
	return buf[:n], info.Size(), err
}

// heldOpen keeps nothing open here: every read opens the path.
type heldOpen struct{}

func newHeldOpen() heldOpen { return heldOpen{} }

func (*heldOpen) read(path string, off, limit int64) ([]byte, int64, error) {
	return readRegular(path, off, limit)
}

func (k *heldOpen) readReusing(path string, off, limit int64) ([]byte, int64, error) {
	return k.read(path, off, limit)
}

func (*heldOpen) close() {}

func writeNew(path string, data []byte) error {
	_ = os.Remove(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func renameOver(from, to string) error { return os.Rename(from, to) }

func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
}

type stray struct {
	pid  int
	pgid int
	name string
}

func findStrays(string, procMark) []stray { return nil }

// procMark is a moment a scan for a run's processes starts from.
type procMark struct{ start uint64 }

func markProcs() procMark { return procMark{} }

func startTime(int) uint64 { return 0 }

// syscallNoFollow: process runs are Linux only; elsewhere nothing is kept.
const syscallNoFollow = 0
