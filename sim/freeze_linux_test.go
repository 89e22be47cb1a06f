//go:build linux

package sim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The freezer reports changes to the sandbox only while it holds a group:
// the harness's own writes of every tick, and the process's while no crash
// is armed, wake nothing. Held, a change wakes the driver with the group
// stopped.
func TestTheFreezerWakesOnlyWhileHolding(t *testing.T) {
	dir := t.TempDir()
	f := newFreezer(dir)
	if f == nil {
		t.Skip("the kernel will not watch the sandbox (inotify)")
	}
	defer f.close()
	write := func(name string) { require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644)) }
	woke := func() bool {
		select {
		case <-f.wake():
			return true
		case <-time.After(200 * time.Millisecond):
			return false
		}
	}

	write("clock")
	assert.False(t, woke(), "nothing held: no wake")

	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	f.hold(cmd.Process.Pid)
	write("drafts.jsonl")
	require.True(t, woke(), "held: a change wakes the driver")
	waitStopped(cmd.Process.Pid, time.Second)
	st, ok := procStat(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid)))
	require.True(t, ok)
	assert.Equal(t, byte('T'), st.state, "the held group is stopped")

	f.release()
	write("outbox.jsonl")
	assert.False(t, woke(), "released: no wake")
}
