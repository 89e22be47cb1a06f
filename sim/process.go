package sim

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/amr-bench/amr/internal/shell"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Clock regimes of a process implementation (docs/processes.md).
const (
	// RegimeQuiescence advances the clock when drafts, outbox and audit
	// have had no writes for a stability window, or after a wall-clock
	// timeout (a forced advance). It works with any implementation.
	RegimeQuiescence = "quiescence"
	// RegimeStep writes "tick N" on the process's stdin after each clock
	// advance and waits for "idle N" on its stdout. No polling, no window.
	RegimeStep = "step"
	// RegimeOnce runs the command once per tick (and again while it keeps
	// writing): exit 0 is done, 75 asks to be run again, anything else is
	// a failure.
	RegimeOnce = "once"
)

// Regimes lists the clock regimes.
var Regimes = []string{RegimeQuiescence, RegimeStep, RegimeOnce}

// Defaults of a ProcessSpec.
const (
	DefaultWindow       = 200 * time.Millisecond
	DefaultTimeout      = 2 * time.Second
	DefaultStepTimeout  = 10 * time.Second
	DefaultHangLimit    = 3
	DefaultPoll         = 2 * time.Millisecond
	DefaultMaxFileBytes = 64 << 20
	DefaultMaxLogBytes  = 1 << 20
)

// ExitRetry is the one-shot exit code that asks to be run again at once.
const ExitRetry = 75

// Environment variables a process implementation is started with.
const (
	EnvSandbox  = "AMR_SANDBOX"   // the sandbox directory (also the working directory)
	EnvModelURL = "AMR_MODEL_URL" // the stub model's base URL
	EnvSeed     = "AMR_SEED"      // the implementation's seed, for choices of its own
	EnvRegime   = "AMR_REGIME"    // quiescence, step or once
	EnvTick     = "AMR_TICK"      // once regime: the tick of this invocation
	// The names implementations of this benchmark written for an earlier
	// harness read; they carry the same values.
	EnvLitmusSandbox = "LITMUS_SANDBOX"
	EnvLitmusStubURL = "LITMUS_STUB_URL"
	// The names the official OpenAI clients and the frameworks built on
	// them read: the stub's URL and a dummy key.
	EnvOpenAIBaseURL = "OPENAI_BASE_URL"
	EnvOpenAIAPIBase = "OPENAI_API_BASE"
	EnvOpenAIAPIKey  = "OPENAI_API_KEY"
)

// openAIEnvDropped are the OpenAI client variables a process never inherits
// from amr's environment: with a real key, organization or project an
// implementation could reach the real API, or send them to the stub.
var openAIEnvDropped = []string{EnvOpenAIBaseURL, EnvOpenAIAPIBase, EnvOpenAIAPIKey, "OPENAI_ADMIN_KEY",
	"OPENAI_ORG_ID", "OPENAI_ORGANIZATION", "OPENAI_PROJECT_ID"}

// openAIEnv points the OpenAI clients at the stub.
func openAIEnv(base string) []string {
	return []string{EnvOpenAIBaseURL + "=" + base, EnvOpenAIAPIBase + "=" + base, EnvOpenAIAPIKey + "=" + StubAPIKey}
}

// ProcessSpec says how to run an implementation as an OS process. Zero
// fields take the defaults.
type ProcessSpec struct {
	// Command is the program and its arguments; no shell is involved.
	Command []string
	// Regime is one of Regimes; empty means quiescence.
	Regime string
	// Window is the quiescence stability window.
	Window time.Duration
	// Timeout is the wall-clock limit of one tick's work: the forced
	// advance of the quiescence regime, and the limit of one invocation in
	// the one-shot regime.
	Timeout time.Duration
	// StepTimeout is how long the step regime waits for "idle N".
	StepTimeout time.Duration
	// HangLimit is how many forced advances (or timed-out invocations) in a
	// row make the implementation hung: it is killed and the run goes on to
	// the horizon without it.
	HangLimit int
	// Poll is how often the sandbox is looked at while the process works.
	Poll time.Duration
	// MaxFileBytes bounds what is read of any file the implementation
	// writes; a file that grows past it gets the implementation killed.
	MaxFileBytes int64
	// MaxLogBytes bounds each of stdout.log and stderr.log.
	MaxLogBytes int64
	// MaxRunDirBytes bounds the whole run directory, the sandbox's
	// subdirectories included, measured while the process works: past it
	// the implementation is killed for good (decision D59).
	MaxRunDirBytes int64
	// TempDir is where run directories are made; empty means
	// DefaultTempDir.
	TempDir string
	// Env adds KEY=VALUE entries to the process's environment.
	Env []string
	// Cuts replays the cuts of an earlier run (CutsOf its run log): each
	// crash after k writes they name lands at the recorded write count
	// instead of k.
	Cuts []Cut
	// CountWrites and IgnoreWrites name the files, besides the spec's,
	// whose new versions count as writes for a crash after k writes (see
	// WriteCounter): patterns of slash-separated paths relative to the
	// sandbox, as path.Match reads them; a pattern also names everything
	// under a directory it matches, and one ending in "/" everything under
	// it. By default the spec's files count (every complete line of
	// drafts, outbox and audit, every new version of state.json), and
	// nothing else: an implementation's database and logs would otherwise
	// land every cut before its first draft.
	CountWrites  []string
	IgnoreWrites []string
	// Ready is the readiness handshake the harness waits for after every
	// start and restart, holding the clock: ReadyStdout, ReadyFile, or
	// empty for none. ReadyTimeout bounds each wait (wall clock).
	Ready        string
	ReadyTimeout time.Duration
	// NoFreeze turns off holding the process at each of its writes while a
	// crash after k writes is armed (Linux; step and quiescence regimes;
	// see freezer): crashes are then
	// landed by the looks every Poll and at model calls alone, and land
	// later in a burst of writes.
	NoFreeze bool
	// NoTrace turns off exact cuts (D105): crashes after k writes are
	// landed by watching, as where the kernel refuses tracing.
	NoTrace bool
}

// WithDefaults returns the spec with every zero field set to its default.
func (s ProcessSpec) WithDefaults() ProcessSpec {
	if s.Regime == "" {
		s.Regime = RegimeQuiescence
	}
	if s.Window <= 0 {
		s.Window = DefaultWindow
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.StepTimeout <= 0 {
		s.StepTimeout = DefaultStepTimeout
	}
	if s.HangLimit <= 0 {
		s.HangLimit = DefaultHangLimit
	}
	if s.Poll <= 0 {
		s.Poll = DefaultPoll
	}
	if s.MaxFileBytes <= 0 {
		s.MaxFileBytes = DefaultMaxFileBytes
	}
	if s.MaxLogBytes <= 0 {
		s.MaxLogBytes = DefaultMaxLogBytes
	}
	if s.MaxRunDirBytes <= 0 {
		s.MaxRunDirBytes = DefaultMaxRunDirBytes
	}
	if s.ReadyTimeout <= 0 {
		s.ReadyTimeout = DefaultReadyTimeout
	}
	return s
}

// DefaultTempDir is where run directories are made when a spec names no
// place: $TMPDIR when it is set, else /dev/shm when it is a writable
// directory, else os.TempDir(). A sandbox is small and lives for one run,
// and the clock is rewritten at every tick: on a memory file system that
// costs microseconds, on a journalled disk it can cost a millisecond.
func DefaultTempDir() string {
	if os.Getenv("TMPDIR") != "" {
		return os.TempDir()
	}
	const shm = "/dev/shm"
	if info, err := os.Stat(shm); err == nil && info.IsDir() && writable(shm) {
		return shm
	}
	return os.TempDir()
}

// Validate reports a spec that cannot run.
func (s ProcessSpec) Validate() error {
	if len(s.Command) == 0 || s.Command[0] == "" {
		return errors.New("process: no command")
	}
	switch s.Regime {
	case "", RegimeQuiescence, RegimeStep, RegimeOnce:
	default:
		return fmt.Errorf("process: unknown regime %q (want %s)", s.Regime, strings.Join(Regimes, ", "))
	}
	switch s.Ready {
	case "", ReadyStdout, ReadyFile:
	default:
		return fmt.Errorf("process: unknown readiness handshake %q (want %s or %s)", s.Ready, ReadyStdout, ReadyFile)
	}
	if s.Ready != "" && s.Regime == RegimeOnce {
		return errors.New("process: a readiness handshake is for the step and quiescence regimes: in the one-shot regime every invocation starts afresh")
	}
	for _, p := range append(append([]string(nil), s.CountWrites...), s.IgnoreWrites...) {
		if _, err := path.Match(p, ""); err != nil || p == "" {
			return fmt.Errorf("process: %q is not a path pattern", p)
		}
	}
	for _, p := range s.IgnoreWrites {
		for _, log := range sandbox.ImplLogs {
			if matchesPath(p, log) {
				return fmt.Errorf("process: %q would ignore %s: the spec's logs always count as writes", p, log)
			}
		}
	}
	if s.Window > 0 && s.Timeout > 0 && s.Window >= s.Timeout {
		return fmt.Errorf("process: the stability window (%s) must be shorter than the timeout (%s)", s.Window, s.Timeout)
	}
	return nil
}

// Params are the spec's parameters as the run log's start record shows
// them: what a reader needs to know which regime the run lived in.
func (s ProcessSpec) Params() map[string]string {
	s = s.WithDefaults()
	p := map[string]string{
		"regime":     s.Regime,
		"command":    JoinCommand(s.Command),
		"hang_limit": strconv.Itoa(s.HangLimit),
	}
	switch s.Regime {
	case RegimeQuiescence:
		p["window"] = s.Window.String()
		p["timeout"] = s.Timeout.String()
	case RegimeStep:
		p["step_timeout"] = s.StepTimeout.String()
	case RegimeOnce:
		p["timeout"] = s.Timeout.String()
	}
	if len(s.Cuts) > 0 {
		p["cuts"] = formatCuts(s.Cuts)
	}
	if s.NoFreeze {
		p["freeze"] = "off"
	}
	if s.MaxRunDirBytes != DefaultMaxRunDirBytes {
		p["max_run_dir_bytes"] = strconv.FormatInt(s.MaxRunDirBytes, 10)
	}
	if s.Ready != "" {
		p["ready"] = s.Ready
		p["ready_timeout"] = s.ReadyTimeout.String()
	}
	if len(s.CountWrites) > 0 {
		p["count_writes"] = strings.Join(s.CountWrites, " ")
	}
	if len(s.IgnoreWrites) > 0 {
		p["ignore_writes"] = strings.Join(s.IgnoreWrites, " ")
	}
	return p
}

// WriteCounter says whether a new version of a file other than the spec's
// logs counts as a write for a crash after k writes: state.json and the
// files CountWrites names, unless IgnoreWrites names them.
func (s ProcessSpec) WriteCounter() func(rel string) bool {
	return func(rel string) bool {
		for _, p := range s.IgnoreWrites {
			if matchesPath(p, rel) {
				return false
			}
		}
		if rel == sandbox.State {
			return true
		}
		for _, p := range s.CountWrites {
			if matchesPath(p, rel) {
				return true
			}
		}
		return false
	}
}

// matchesPath reports whether a pattern names a sandbox path: the path
// itself, or a directory above it.
func matchesPath(pattern, rel string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/"); ok {
		return strings.HasPrefix(rel, dir+"/")
	}
	for p := rel; p != "."; p = path.Dir(p) {
		if ok, _ := path.Match(pattern, p); ok {
			return true
		}
	}
	return false
}

// SplitCommand splits a command line into words the way a shell would for
// plain words, single quotes, double quotes and backslash escapes, and
// nothing more: no variables, globs, pipes or redirections.
func SplitCommand(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	quote := rune(0)
	escaped := false
	for _, r := range line {
		switch {
		case escaped:
			// Inside double quotes a backslash escapes only what a shell
			// lets it escape there; before anything else it stays.
			if quote == '"' && !strings.ContainsRune("\"\\$`", r) {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if escaped {
		return nil, errors.New("command line ends with a backslash")
	}
	if quote != 0 {
		return nil, fmt.Errorf("command line has an unclosed %c quote", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("command line is empty")
	}
	return words, nil
}

// JoinCommand renders words as a command line SplitCommand reads back, and
// a POSIX shell too.
func JoinCommand(words []string) string { return shell.Join(words...) }
