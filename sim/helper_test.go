package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/sim/sandbox"
)

// The process tests run this test binary as the implementation under test:
// helperSpec starts it with -test.run selecting TestHelperProcess and
// AMR_SIM_HELPER naming the role to play.
const helperEnv = "AMR_SIM_HELPER"

func helperSpec(role, regime string) *ProcessSpec {
	return &ProcessSpec{
		Command:     []string{os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1"},
		Regime:      regime,
		Env:         []string{helperEnv + "=" + role},
		Window:      60 * time.Millisecond,
		Timeout:     10 * time.Second,
		StepTimeout: 10 * time.Second,
		Poll:        time.Millisecond,
	}
}

// TestHelperProcess is not a test: it is the implementation process of the
// process tests, and does nothing in a normal test run.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(helperEnv)
	if role == "" {
		return
	}
	os.Exit(helperMain(role))
}

func helperMain(role string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	regime := os.Getenv(EnvRegime)
	root := os.Getenv(EnvSandbox)
	appendTo := func(name, text string) {
		f, err := os.OpenFile(filepath.Join(root, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			_, _ = f.WriteString(text)
			f.Close()
		}
	}
	switch role {
	case "reference", "weak-cite-failed-call":
		im, _ := examples.Lookup(role)
		err := Serve(ctx, im.New(), ServeConfig{Poll: 2 * time.Millisecond})
		if errors.Is(err, ErrStepFailed) {
			return 1
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "leaving at once")
		return 3
	case "work-then-exit":
		// Writes once, then ends with a failure: it started.
		appendTo(sandbox.Audit, "{\"event\":\"note\",\"at\":0}\n")
		fmt.Fprintln(os.Stderr, "worked, then failed")
		return 4
	case "answer-then-exit":
		// Step regime: answers the first tick, then ends with a failure.
		sc := bufio.NewScanner(os.Stdin)
		if sc.Scan() {
			fmt.Printf("idle %s\n", strings.TrimPrefix(sc.Text(), "tick "))
		}
		fmt.Fprintln(os.Stderr, "answered one tick, then failed")
		return 5
	case "burst", "subdir", "threads", "child", "burst-once", "send", "states", "filters":
		return cutHelper(role, root)
	case "journaled":
		// Step regime: at each tick, the writes of a daemon with a database
		// and a log of its own around two audit lines, 25ms apart.
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			rest, ok := strings.CutPrefix(sc.Text(), "tick ")
			if !ok {
				continue
			}
			_ = os.MkdirAll(filepath.Join(root, "private"), 0o755)
			for i, w := range []func(){
				func() { replaceFile(filepath.Join(root, sandbox.State), `{"tick":`+rest+"}\n") },
				func() { appendTo("private/app.log", "tick "+rest+"\n") },
				func() { appendTo(sandbox.Audit, fmt.Sprintf("{\"event\":\"a1\",\"at\":%s}\n", rest)) },
				func() { replaceFile(filepath.Join(root, "db.json"), rest) },
				func() { appendTo(sandbox.Audit, fmt.Sprintf("{\"event\":\"a2\",\"at\":%s}\n", rest)) },
			} {
				if i > 0 {
					time.Sleep(25 * time.Millisecond)
				}
				w()
			}
			fmt.Printf("idle %s\n", rest)
		}
		return 0
	case "slow-boot", "never-ready":
		// Quiescence: boots for 300ms, says it is ready as AMR_READY asks
		// (never, as never-ready), then records the tick it first sees.
		time.Sleep(300 * time.Millisecond)
		if role == "slow-boot" {
			switch os.Getenv(EnvReady) {
			case ReadyStdout:
				fmt.Println("ready")
			case ReadyFile:
				_ = os.WriteFile(os.Getenv(EnvReadyFile), nil, 0o644)
			}
		}
		clock, _ := os.ReadFile(filepath.Join(root, sandbox.Clock))
		var c sandbox.ClockFile
		_ = json.Unmarshal(clock, &c)
		appendTo(sandbox.Audit, fmt.Sprintf("{\"event\":\"booted\",\"at\":%d}\n", c.Tick))
		return idleForever(ctx, regime)
	case "filler":
		// Fills a subdirectory with 40 files of 256 KiB, 10 MiB in all,
		// none past the per-file bound, then idles. The pause between
		// files gives the quiescence regime's look, which a loaded machine
		// may delay by tens of milliseconds, time to see the bound passed
		// before everything is written (at 2 ms it once saw it only at the
		// end, and TestTheRunDirectoryIsBounded failed on the timing alone).
		_ = os.MkdirAll(filepath.Join(root, "data", "blobs"), 0o755)
		blob := bytes.Repeat([]byte("x"), 256<<10)
		for i := 0; i < 40 && ctx.Err() == nil; i++ {
			_ = os.WriteFile(filepath.Join(root, "data", "blobs", fmt.Sprintf("%02d", i)), blob, 0o644)
			time.Sleep(10 * time.Millisecond)
		}
		return idleForever(ctx, regime)
	case "link-filler":
		// Links a file made outside the run directory into private/ at
		// its first tick, then at its third grows it by 10 MiB through the
		// outside name only: no write names anything in the run directory.
		outside := os.Getenv("AMR_HELPER_OUTSIDE")
		sc := bufio.NewScanner(os.Stdin)
		for n := 1; sc.Scan(); n++ {
			rest, ok := strings.CutPrefix(sc.Text(), "tick ")
			if !ok {
				continue
			}
			switch n {
			case 1:
				_ = os.WriteFile(outside, []byte("x"), 0o644)
				_ = os.MkdirAll(filepath.Join(root, "private"), 0o755)
				_ = os.Link(outside, filepath.Join(root, "private", "linked"))
			case 3:
				if f, err := os.OpenFile(outside, os.O_WRONLY|os.O_APPEND, 0); err == nil {
					_, _ = f.Write(bytes.Repeat([]byte("x"), 10<<20))
					f.Close()
				}
			}
			fmt.Printf("idle %s\n", rest)
		}
		return 0
	case "hang-first":
		// The first instance never answers; every later one idles.
		mark := filepath.Join(root, "private", "hung-once")
		if _, err := os.Stat(mark); err != nil {
			_ = os.MkdirAll(filepath.Dir(mark), 0o755)
			_ = os.WriteFile(mark, nil, 0o644)
			<-ctx.Done()
			return 0
		}
		return idleForever(ctx, regime)
	case "garbage":
		// Lines that are not JSON, a JSON line of the wrong shape, and a
		// last line that never gets its newline.
		appendTo(sandbox.Drafts, "this is not json\n{\"draft_id\": 7}\n")
		appendTo(sandbox.Outbox, "{\"effect_id\":\"e1\",\"draft_id\":\"nope\",\"sent_at\":0}\n{\"effect_id\":")
		appendTo(sandbox.Audit, "\x00\x01 binary\n")
		return idleForever(ctx, regime)
	case "busy":
		// Never quiet, and never answers a step.
		for i := 0; ctx.Err() == nil; i++ {
			appendTo(sandbox.Audit, fmt.Sprintf("{\"event\":\"noise\",\"at\":0,\"n\":%d}\n", i))
			time.Sleep(5 * time.Millisecond)
		}
		return 0
	case "mute":
		// Reads its steps and never answers.
		<-ctx.Done()
		return 0
	case "daemon":
		// Leaves a child behind in a session of its own, out of the group.
		cmd := exec.Command(os.Args[0], os.Args[1:]...)
		cmd.Env = append(os.Environ(), helperEnv+"=sleeper")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		return idleForever(ctx, regime)
	case "lingering-daemon":
		// Leaves a child out of the group that ends by itself 50ms after
		// its parent is gone: dying, not escaped.
		cmd := exec.Command(os.Args[0], os.Args[1:]...)
		up := filepath.Join(root, "private", fmt.Sprintf("lingerer-%d", os.Getpid()))
		cmd.Env = append(os.Environ(), helperEnv+"=lingerer", fmt.Sprintf("AMR_HELPER_PARENT=%d", os.Getpid()), "AMR_HELPER_UP="+up)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		// Answer nothing until the child runs: killed while still
		// starting, it could not notice in time.
		for _, err := os.Stat(up); err != nil && ctx.Err() == nil; _, err = os.Stat(up) {
			time.Sleep(time.Millisecond)
		}
		return idleForever(ctx, regime)
	case "lingerer":
		// The parent may be gone before this process gets here.
		parent, _ := strconv.Atoi(os.Getenv("AMR_HELPER_PARENT"))
		_ = os.MkdirAll(filepath.Join(root, "private"), 0o755)
		_ = os.WriteFile(os.Getenv("AMR_HELPER_UP"), nil, 0o644)
		for os.Getppid() == parent && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		return 0
	case "sleeper":
		for ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
		}
		return 0
	case "huge":
		line := strings.Repeat("x", 1<<16) + "\n"
		for i := 0; i < 64 && ctx.Err() == nil; i++ {
			appendTo(sandbox.Drafts, line)
		}
		return idleForever(ctx, regime)
	case "spy":
		// Quiescence regime: watch the clock in a tight loop and, at the
		// first sight of each new tick, print how many inbox lines there
		// are. It writes nothing to the sandbox.
		last := ""
		for ctx.Err() == nil {
			clock, err := os.ReadFile(filepath.Join(root, sandbox.Clock))
			if err != nil || string(clock) == last {
				continue
			}
			last = string(clock)
			inbox, _ := os.ReadFile(filepath.Join(root, sandbox.Inbox))
			fmt.Printf("seen %s %d\n", strings.TrimSpace(last), bytes.Count(inbox, []byte("\n")))
		}
		return 0
	case "slow":
		// Step regime: at each tick, five audit lines 15ms apart, then the
		// answer; a crash after k writes lands while it is writing.
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			rest, ok := strings.CutPrefix(sc.Text(), "tick ")
			if !ok {
				continue
			}
			for i := 0; i < 5; i++ {
				appendTo(sandbox.Audit, fmt.Sprintf("{\"event\":\"slow\",\"at\":%s,\"n\":%d}\n", rest, i))
				time.Sleep(15 * time.Millisecond)
			}
			fmt.Printf("idle %s\n", rest)
		}
		return 0
	case "caller":
		// Step regime: at each tick, one audit line, then a model call,
		// then (a while later) a line citing the call, then the answer. A
		// crash after one write is due before the call is answered.
		model := &HTTPModel{BaseURL: os.Getenv(EnvModelURL)}
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			rest, ok := strings.CutPrefix(sc.Text(), "tick ")
			if !ok {
				continue
			}
			appendTo(sandbox.Audit, fmt.Sprintf("{\"event\":\"probe\",\"at\":%s}\n", rest))
			c, err := model.Complete("order ORD-1")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			time.Sleep(150 * time.Millisecond)
			appendTo(sandbox.Audit, fmt.Sprintf("{\"event\":\"cites\",\"at\":%s,\"call\":%q}\n", rest, c.CallID))
			fmt.Printf("idle %s\n", rest)
		}
		return 0
	case "retry":
		// One-shot: asks to be run again once per tick, then is done.
		mark := filepath.Join(root, "private", "retried")
		if _, err := os.Stat(mark); err != nil {
			_ = os.MkdirAll(filepath.Dir(mark), 0o755)
			_ = os.WriteFile(mark, nil, 0o644)
			return ExitRetry
		}
		_ = os.Remove(mark)
		return 0
	case "env":
		// Writes what the OpenAI clients would read from its environment.
		var b strings.Builder
		for _, k := range []string{EnvOpenAIBaseURL, EnvOpenAIAPIBase, EnvOpenAIAPIKey, "OPENAI_ORG_ID", EnvModelURL} {
			fmt.Fprintf(&b, "%s=%s\n", k, os.Getenv(k))
		}
		_ = os.MkdirAll(filepath.Join(root, "private"), 0o755)
		_ = os.WriteFile(filepath.Join(root, "private", "env"), []byte(b.String()), 0o644)
		return idleForever(ctx, regime)
	case "idle":
		if os.Getenv("AMR_HELPER_SAY_READY") != "" {
			fmt.Println("ready")
		}
		return idleForever(ctx, regime)
	case "tamper":
		appendTo(sandbox.Inbox, "{\"id\":\"forged\"}\n")
		return idleForever(ctx, regime)
	case "unsend-truncate", "unsend-rewrite", "unsend-rename", "unsend-symlink", "unsend-remove", "rename-keeps-all":
		return unsendMain(role, root)
	}
	fmt.Fprintln(os.Stderr, "unknown helper role", role)
	return 2
}

// idleForever does nothing more, in the manner of the regime: it answers
// every step, exits at once in the one-shot regime, and otherwise waits.
func idleForever(ctx context.Context, regime string) int {
	switch regime {
	case RegimeOnce:
		return 0
	case RegimeStep:
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "tick "); ok {
				fmt.Printf("idle %s\n", rest)
			}
		}
		return 0
	}
	<-ctx.Done()
	return 0
}

// replaceFile writes a file whole, by rename: one new version, never a
// truncated one a look could see.
func replaceFile(path, text string) {
	tmp := path + ".tmp"
	if os.WriteFile(tmp, []byte(text), 0o644) == nil {
		_ = os.Rename(tmp, path)
	}
}
