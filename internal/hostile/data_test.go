package hostile

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dataCases are the lost and stray data of two writers meeting, a refused
// command that must write nothing, and a sandbox amr cannot read.
func dataCases() []hostileCase {
	var out []hostileCase
	for _, n := range []string{"1", "2", "3"} {
		out = append(out, hostileCase{area: "data", name: "two promotes of one name, trial " + n,
			input: "two concurrent amr promote with the same --name", args: []string{"promote", "cx.json", "--name", "l1-race", "--scenarios", "pub"},
			exit: 2, want: "promote refused: ", drive: promoteRace})
	}
	out = append(out,
		hostileCase{area: "data", name: "seal refusing an existing manifest",
			input: "amr reserve seal with --manifest naming a file that exists", exit: 2, want: "already exists",
			args:  []string{"reserve", "seal", "seal", "--manifest", "m.json", "--secrets", "fresh-secrets.json"},
			drive: noneWritten("fresh-secrets.json")},
		hostileCase{area: "data", name: "seal refusing a manifest in no directory",
			input: "amr reserve seal with --manifest in a directory that does not exist", exit: 2, want: "no-such-dir",
			args:  []string{"reserve", "seal", "seal", "--manifest", "no-such-dir/m.json", "--secrets", "fresh-secrets.json"},
			drive: noneWritten("fresh-secrets.json")},
		hostileCase{area: "data", name: "seal refusing secrets over the manifest",
			input: "amr reserve seal with --secrets and --manifest the same new path", exit: 2, want: "already exists",
			args:  []string{"reserve", "seal", "seal", "--manifest", "same.json", "--secrets", "same.json"},
			drive: noneWritten("same.json")},
		hostileCase{area: "data", name: "an unreadable sandbox directory",
			input: "amr check of a sandbox directory with mode 000", exit: 2, want: "permission denied",
			args: checkArgs, drive: unreadable(sb)},
		hostileCase{area: "data", name: "an unreadable sandbox subdirectory",
			input: "amr check of a sandbox whose private/ directory has mode 000", exit: 2, want: "permission denied",
			args: checkArgs, drive: unreadable(sb + "/private")},
		hostileCase{area: "data", name: "an unreadable corpus directory",
			input: "amr fuzz with a corpus directory of mode 000", exit: 2, want: "permission denied",
			args: []string{"fuzz", "--runs", "1", "--corpus", "corpus"}, drive: unreadable("corpus")},
		hostileCase{area: "data", name: "an unreadable revealed directory",
			input: "amr reserve verify of a revealed directory of mode 000", exit: 2, want: "permission denied",
			args: []string{"reserve", "verify", "--manifest", "m.json", "revealed"}, drive: unreadable("revealed")},
	)
	return out
}

// promoteRace runs the case's promote twice at once: exactly one lands,
// the other is refused (the case's exit and message), and what landed is
// a whole bundle.
func promoteRace(t *testing.T, w *world) result {
	var wg sync.WaitGroup
	rs := make([]result, 2)
	pids := make([]int, 2)
	for i := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs[i], pids[i] = w.exec(t, "promote", "cx.json", "--name", "l1-race", "--scenarios", "pub")
		}()
	}
	wg.Wait()
	// Only once both have ended: each is the other's live process.
	for i := range pids {
		w.noLeftovers(t, pids[i], rs[i].output())
	}
	if rs[0].code == 0 {
		rs[0], rs[1] = rs[1], rs[0]
	}
	require.Equal(t, 0, rs[1].code, "one promotion must land: %s / %s", rs[0].output(), rs[1].output())
	v := w.run(t, "validate", "pub/l1-race")
	require.Equal(t, 0, v.code, v.output())
	entries, err := os.ReadDir(w.path("pub"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing but the promoted bundle is left in the published set")
	return rs[0]
}

// noneWritten runs the case and checks that the refused command left no
// file at path.
func noneWritten(rel string) func(t *testing.T, w *world) result {
	return func(t *testing.T, w *world) result {
		_, before := os.Stat(w.path(rel))
		r := w.run(t, w.args...)
		if os.IsNotExist(before) {
			_, err := os.Stat(w.path(rel))
			assert.True(t, os.IsNotExist(err), "a refused seal left %s", rel)
		}
		entries, _ := os.ReadDir(w.dir)
		for _, e := range entries {
			assert.False(t, strings.Contains(e.Name(), ".tmp-"), "a refused seal left %s", e.Name())
		}
		return r
	}
}

// unreadable makes rel a directory nobody may read and runs the case as a
// user the mode applies to: root reads every directory, so as root the
// command runs as nobody.
func unreadable(rel string) func(t *testing.T, w *world) result {
	return func(t *testing.T, w *world) result {
		p := w.path(rel)
		require.NoError(t, os.MkdirAll(p, 0o755))
		var cred *syscall.Credential
		if os.Geteuid() == 0 {
			cred = &syscall.Credential{Uid: 65534, Gid: 65534}
			openUp(t, w)
		}
		require.NoError(t, os.Chmod(p, 0))
		t.Cleanup(func() { os.Chmod(p, 0o755) })
		ctx, cancel := context.WithTimeout(context.Background(), caseDeadline)
		defer cancel()
		c, out, errb := w.command(ctx, w.args...)
		c.SysProcAttr.Credential = cred
		err := c.Run()
		r := result{stdout: out.String(), stderr: errb.String(), timedOut: ctx.Err() != nil, code: exitCode(err)}
		w.noLeftovers(t, c.Process.Pid)
		return r
	}
}

// openUp lets another user reach the world and run the binary: every
// directory from the world up, and the binary's, become searchable and the
// world's files readable and writable, as a user's own tree is to them.
func openUp(t *testing.T, w *world) {
	t.Helper()
	for d := w.dir; d != "/" && d != "."; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		require.NoError(t, err)
		if info.Mode().Perm()&0o005 != 0o005 {
			require.NoError(t, os.Chmod(d, info.Mode().Perm()|0o005))
		}
	}
	require.NoError(t, os.Chmod(filepath.Dir(amrBin), 0o755))
	require.NoError(t, exec.Command("chmod", "-R", "a+rwX", w.dir, w.tmp).Run())
}
