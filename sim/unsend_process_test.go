package sim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

// unsendRoles are the helper roles that take a send back, each its own way.
var unsendRoles = []string{"unsend-truncate", "unsend-rewrite", "unsend-rename", "unsend-symlink", "unsend-remove"}

// elsewhere is the file outside the sandbox that unsend-symlink links the
// outbox to; the harness must never read it.
const elsewhere = "elsewhere.jsonl"

// unsendMain is those roles, in the step regime: at tick 0 a draft and its
// send, with no approval; at tick 1 the send is taken back.
func unsendMain(role, root string) int {
	outbox := filepath.Join(root, sandbox.Outbox)
	write := func(name, text string) error {
		f, err := os.OpenFile(filepath.Join(root, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		_, err = f.WriteString(text + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	erase := map[string]func() error{
		"unsend-truncate": func() error { return os.Truncate(outbox, 0) },
		"unsend-rewrite": func() error {
			// The same bytes but one, in place: the size does not change.
			f, err := os.OpenFile(outbox, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = f.WriteAt([]byte(strings.Replace(unsentEffect, `"sent_at":1`, `"sent_at":2`, 1)), 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		},
		"unsend-rename": func() error {
			tmp := filepath.Join(root, "outbox.new")
			if err := os.WriteFile(tmp, []byte(`{"effect_id":"e1","draft_id":"d1","sent_at":9}`+"\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, outbox)
		},
		"unsend-symlink": func() error {
			out := filepath.Join(root, "..", elsewhere)
			if err := os.WriteFile(out, []byte(`{"effect_id":"outside","draft_id":"d1","sent_at":1}`+"\n"), 0o644); err != nil {
				return err
			}
			// Made aside and renamed over the outbox: no look finds it
			// missing in between.
			link := filepath.Join(root, "outbox.link")
			if err := os.Symlink(out, link); err != nil {
				return err
			}
			return os.Rename(link, outbox)
		},
		"unsend-remove": func() error { return os.Remove(outbox) },
		// Not an unsend: a new file holding every line, and one more,
		// renamed over the outbox.
		"rename-keeps-all": func() error {
			old, err := os.ReadFile(outbox)
			if err != nil {
				return err
			}
			tmp := filepath.Join(root, "outbox.new")
			if err := os.WriteFile(tmp, append(old, `{"effect_id":"e2","draft_id":"d1","sent_at":1}`+"\n"...), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, outbox)
		},
	}[role]
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "tick ")
		if !ok {
			continue
		}
		var err error
		switch rest {
		case "0":
			if err = write(sandbox.Drafts, unsentDraft); err == nil {
				err = write(sandbox.Outbox, unsentEffect)
			}
			if err == nil && role == "unsend-rewrite" {
				// A line after it, so the change is not in the last line.
				err = write(sandbox.Outbox, `{"effect_id":"e9","draft_id":"d1","sent_at":0}`)
			}
		case "1":
			err = erase()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Printf("idle %s\n", rest)
	}
	return 0
}

func TestProcessUnsendsAreOnRecordAndStillJudged(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 3)
	b.Meta.TopLevel = 2
	for _, role := range unsendRoles {
		t.Run(role, func(t *testing.T) {
			res := runProcess(t, b, helperSpec(role, RegimeStep), 1)
			rws := kinds(res, sandbox.LogRewrite)
			require.Len(t, rws, 1, "%s", res.LogBytes())
			rw := rws[0]
			assert.Equal(t, sandbox.Outbox, rw.Rewrite().File)
			assert.Equal(t, 1, rw.Tick)
			assert.Equal(t, []string{unsentEffect}, rw.Rewrite().Lost, "the send, verbatim")
			switch role {
			case "unsend-symlink":
				assert.Contains(t, rw.Detail, "not a regular file")
				assert.Empty(t, res.Files.View(sandbox.Outbox), "a link is never followed")
				assert.NotContains(t, string(res.LogBytes()), "outside")
			case "unsend-remove":
				assert.Contains(t, rw.Detail, "removed")
			case "unsend-truncate":
				assert.Contains(t, rw.Detail, "truncated")
			}
			v := judgeBoth(t, b, res)
			got := map[string]bool{}
			for _, x := range v.Violations {
				got[x.Invariant] = true
			}
			assert.True(t, got["L0.append-only"], "%v", v.Violations)
			assert.True(t, got["L2.approval-binding"], "the erased send had no approval: %v", v.Violations)
		})
	}
}

// Replacing a log by a file that keeps every line, in place, is appending.
func TestProcessRenamingOverALogThatKeepsEveryLineIsAnAppend(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 3)
	res := runProcess(t, b, helperSpec("rename-keeps-all", RegimeStep), 1)
	assert.Empty(t, kinds(res, sandbox.LogRewrite))
	ends := kinds(res, sandbox.LogTickEnd)
	assert.Equal(t, 2, ends[len(ends)-1].Lines[sandbox.Outbox])
	v := judgeBoth(t, b, res)
	for _, x := range v.Violations {
		assert.NotEqual(t, "L0.append-only", x.Invariant, x.Detail)
	}
}
