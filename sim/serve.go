package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/sim/sandbox"
)

// ServeConfig says how Serve runs an implementation as a process.
type ServeConfig struct {
	// Regime is the clock regime; empty means AMR_REGIME, else quiescence.
	Regime string
	// Poll is how often the quiescence regime looks at the sandbox.
	Poll time.Duration
	// MaxSteps bounds the steps of one round of work (0: DefaultMaxSteps).
	MaxSteps int
	// Stdin, Stdout and Stderr default to the process's own.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// ErrStepFailed is what Serve returns in the one-shot regime when the last
// step of the round failed; the process should exit non-zero.
var ErrStepFailed = errors.New("a step failed")

// Serve is the other side of the process contract: it runs an in-process
// implementation as a process implementation. The sandbox is AMR_SANDBOX
// (or LITMUS_SANDBOX, or the working directory), the stub model is reached
// over HTTP at AMR_MODEL_URL (or LITMUS_STUB_URL, or OPENAI_BASE_URL), and
// the seed is AMR_SEED.
// A round of work steps the implementation until a step writes nothing to
// drafts, outbox or audit. In the quiescence regime Serve does a round
// every Poll until ctx ends; in the step regime it does one for each
// "tick N" line on stdin and answers "idle N", until stdin ends; in the
// one-shot regime it does one round and returns.
func Serve(ctx context.Context, impl sandbox.Implementation, cfg ServeConfig) error {
	cfg = cfg.withDefaults()
	s, err := newServer(impl, cfg)
	if err != nil {
		return err
	}
	switch cfg.Regime {
	case RegimeQuiescence:
		t := time.NewTicker(cfg.Poll)
		defer t.Stop()
		for {
			_ = s.round()
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
		}
	case RegimeStep:
		return s.steps(ctx, cfg.Stdin, cfg.Stdout)
	case RegimeOnce:
		if err := s.round(); err != nil {
			return fmt.Errorf("%w: %v", ErrStepFailed, err)
		}
		return nil
	}
	return fmt.Errorf("unknown regime %q (want %s)", cfg.Regime, strings.Join(Regimes, ", "))
}

// server is one instance of an implementation working on a sandbox
// directory.
type server struct {
	impl     sandbox.Implementation
	env      *sandbox.Env
	store    *processStore
	maxSteps int
	errs     io.Writer
	lastErr  string
	// settle is set where nothing but this process changes the sandbox
	// during a round of work (the step and one-shot regimes).
	settle bool
}

func (cfg ServeConfig) withDefaults() ServeConfig {
	if cfg.Regime == "" {
		cfg.Regime = os.Getenv(EnvRegime)
	}
	if cfg.Regime == "" {
		cfg.Regime = RegimeQuiescence
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 10 * time.Millisecond
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.Stdin == nil {
		cfg.Stdin = os.Stdin
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	return cfg
}

func newServer(impl sandbox.Implementation, cfg ServeConfig) (*server, error) {
	root := firstEnv(EnvSandbox, EnvLitmusSandbox)
	if root == "" {
		root = "."
	}
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("sandbox %q is not a directory (set %s)", root, EnvSandbox)
	}
	var model sandbox.Model = noModel{}
	if url := firstEnv(EnvModelURL, EnvLitmusStubURL, EnvOpenAIBaseURL); url != "" {
		model = &HTTPModel{BaseURL: url}
	}
	var seed uint64
	if v := os.Getenv(EnvSeed); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%q is not an unsigned integer", EnvSeed, v)
		}
		seed = n
	}
	store := &processStore{dir: &sandbox.Dir{Root: root}, cache: newReadCache(root)}
	return &server{impl: impl, env: &sandbox.Env{Files: store, Model: model, Seed: seed},
		store: store, maxSteps: cfg.MaxSteps, errs: cfg.Stderr, settle: cfg.Regime != RegimeQuiescence}, nil
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// round steps until a step writes nothing to the logs and returns the last
// step's error; an error is reported on stderr when it differs from the
// last one reported.
func (s *server) round() error {
	if s.settle {
		s.store.cache.settle()
		defer s.store.cache.unsettle()
	}
	var err error
	for i := 0; i < s.maxSteps; i++ {
		before := s.store.logWrites
		err = s.step()
		if s.store.logWrites == before {
			break
		}
	}
	msg := ""
	if err != nil {
		msg = err.Error()
		if msg != s.lastErr {
			fmt.Fprintln(s.errs, "step:", msg)
		}
	}
	s.lastErr = msg
	return err
}

func (s *server) step() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("step panicked: %v", p)
		}
	}()
	return s.impl.Step(s.env)
}

// steps speaks the step protocol until stdin ends.
func (s *server) steps(ctx context.Context, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if ctx.Err() != nil {
			return nil
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "tick ")
		n, err := strconv.Atoi(strings.TrimSpace(rest))
		if !ok || err != nil {
			fmt.Fprintf(s.errs, "not a step line: %q\n", sc.Text())
			continue
		}
		_ = s.round()
		if _, err := fmt.Fprintf(out, "idle %d\n", n); err != nil {
			return err
		}
	}
	return sc.Err()
}

// processStore is a sandbox directory as an implementation process sees
// it: the harness's files are read-only, and writes to the logs are counted
// so a round of work knows when it is quiet. Files are read from disk only
// when they changed since they were last read.
type processStore struct {
	dir       *sandbox.Dir
	cache     *readCache
	logWrites int
}

func (c *processStore) Read(name string) ([]byte, error) {
	if !sandbox.ValidName(name) {
		return c.dir.Read(name)
	}
	return c.cache.read(c.dir.Root, name, c.readLimit(), func() ([]byte, error) { return c.dir.Read(name) })
}

func (c *processStore) Names() []string { return c.dir.Names() }

func (c *processStore) Append(name string, line []byte) error {
	if err := c.allow(name); err != nil {
		return err
	}
	if err := c.dir.Append(name, line); err != nil {
		c.cache.forget(name)
		return err
	}
	c.cache.appended(name, line, c.readLimit())
	c.count(name)
	return nil
}

func (c *processStore) Write(name string, data []byte) error {
	if err := c.allow(name); err != nil {
		return err
	}
	c.cache.forget(name)
	if err := c.dir.Write(name, data); err != nil {
		return err
	}
	c.cache.wrote(name, data, c.readLimit())
	c.count(name)
	return nil
}

// readLimit is the largest file the store's Read returns.
func (c *processStore) readLimit() int64 {
	if c.dir.MaxFileBytes > 0 {
		return c.dir.MaxFileBytes
	}
	return safefile.DefaultLimit
}

func (c *processStore) allow(name string) error {
	if sandbox.IsHarnessFile(name) {
		return fmt.Errorf("%w: %s", sandbox.ErrReadOnly, name)
	}
	return nil
}

func (c *processStore) count(name string) {
	if sandbox.IsImplLog(name) {
		c.logWrites++
	}
}

// noModel is the model when no stub URL is given: every call fails.
type noModel struct{}

func (noModel) Complete(string) (sandbox.Completion, error) {
	return sandbox.Completion{}, errors.New("no stub model: set " + EnvModelURL)
}
