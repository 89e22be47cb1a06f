package hostile

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
)

// shape is one way to spoil a path amr reads.
type shape struct {
	name, input string
	// want is the fragment of amr's message this shape must bring.
	want  string
	apply func(path string) error
}

// deep nests n objects or arrays: 10^5 of them was a 600 KB bundle that
// took 10 GB to validate.
func deep(open, close string, n int) []byte {
	return []byte(string(bytes.Repeat([]byte(open), n)) + "1" + string(bytes.Repeat([]byte(close), n)))
}

func replaceWith(path string, f func() error) error {
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	return f()
}

var shapes = []shape{
	{"fifo", "a named pipe (FIFO) with no writer", "named pipe (FIFO)", func(p string) error {
		return replaceWith(p, func() error { return syscall.Mkfifo(p, 0o644) })
	}},
	{"devzero", "a symlink to /dev/zero", "character device", func(p string) error {
		return replaceWith(p, func() error { return os.Symlink("/dev/zero", p) })
	}},
	{"deep-objects", "10^5 nested JSON objects", "nested deeper than", func(p string) error {
		return replaceWith(p, func() error { return os.WriteFile(p, deep(`{"a":`, "}", 100_000), 0o644) })
	}},
	{"deep-arrays", "10^5 nested JSON arrays", "nested deeper than", func(p string) error {
		return replaceWith(p, func() error { return os.WriteFile(p, deep("[", "]", 100_000), 0o644) })
	}},
	{"huge", "a sparse file of 1 GiB", "larger than", func(p string) error {
		return replaceWith(p, func() error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			if err := f.Truncate(1 << 30); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		})
	}},
	{"dangling", "a symlink to nothing", "", func(p string) error {
		return replaceWith(p, func() error { return os.Symlink(filepath.Join(filepath.Dir(p), "no-such-file"), p) })
	}},
}

// place is one path amr reads from outside, and the command that reads it.
type place struct {
	area, name string
	target     string   // the path spoiled, relative to the world
	args       []string // the command
	// exits overrides the exit code 2 (bad input) for a shape: a line an
	// implementation wrote is judged, not refused.
	exits map[string]int
	// wants overrides a shape's message fragment.
	wants map[string]string
}

const sb = "out/l0-respond/run-1/sandbox"

var checkArgs = []string{"check", "--bundle", "b", "--sandbox", sb}

// judged is how a sandbox file the implementation writes answers the
// shapes that are still readable files: a line that is not a record is
// the implementation's failure (L0), not amr's bad input; one past the
// size bound is bad input.
var judged = map[string]int{"deep-objects": 1, "deep-arrays": 1, "dangling": 1}

// judgedWants names the line the verdict cites.
func judgedWants(file string) map[string]string {
	return map[string]string{"deep-objects": file + ":1", "deep-arrays": file + ":1", "dangling": "L0."}
}

// notDir is what a place that must be a directory answers the shapes that
// put a file there.
var notDir = map[string]string{"huge": "not a directory: it is a regular file", "deep-objects": "not a directory: it is a regular file",
	"deep-arrays": "not a directory: it is a regular file"}

// optional is a bundle file whose absence is an empty schedule, so a
// symlink to nothing is a bundle without that schedule.
var optional = map[string]int{"dangling": 0}
var optionalWant = map[string]string{"dangling": "ok  b"}

const cutFrom = "out/l0-respond/run-1/run.jsonl"

var places = []place{
	// Bundles, directory form: every file, and the directory itself.
	{area: "bundle", name: "dir bundle.json", target: "b/bundle.json", args: []string{"validate", "b"}},
	{area: "bundle", name: "dir inbox.jsonl", target: "b/inbox.jsonl", args: []string{"validate", "b"}, wants: map[string]string{"dangling": "is not in the inbox"}},
	{area: "bundle", name: "dir rules.json", target: "b/rules.json", args: []string{"validate", "b"}},
	{area: "bundle", name: "dir model.json", target: "b/model.json", args: []string{"validate", "b"}},
	{area: "bundle", name: "dir mode.json", target: "b/mode.json", args: []string{"validate", "b"}},
	{area: "bundle", name: "dir approvals.jsonl", target: "b/approvals.jsonl", args: []string{"validate", "b"}, exits: optional, wants: optionalWant},
	{area: "bundle", name: "dir signals.jsonl", target: "b/signals.jsonl", args: []string{"validate", "b"}, exits: optional, wants: optionalWant},
	{area: "bundle", name: "dir faults.jsonl", target: "b/faults.jsonl", args: []string{"validate", "b"}, exits: optional, wants: optionalWant},
	{area: "bundle", name: "the bundle path itself", target: "b", args: []string{"validate", "b"}},
	// Bundles, single-JSON form, through every command that loads one.
	{area: "bundle", name: "validate", target: "b.json", args: []string{"validate", "b.json"}},
	{area: "bundle", name: "hash", target: "b.json", args: []string{"hash", "b.json"}},
	{area: "bundle", name: "run", target: "b.json", args: []string{"run", "--runs", "1", "b.json"}},
	{area: "bundle", name: "replay", target: "b.json", args: []string{"replay", "b.json"}},
	{area: "bundle", name: "shrink", target: "b.json", args: []string{"shrink", "b.json", "--impl", "weak-no-send"}},
	{area: "bundle", name: "promote", target: "b.json", args: []string{"promote", "b.json", "--name", "l0-hostile", "--scenarios", "pub"}},
	{area: "bundle", name: "check --bundle", target: "b.json", args: []string{"check", "--bundle", "b.json", "--sandbox", sb}},
	// Sandboxes judged by amr check.
	{area: "sandbox", name: "outbox.jsonl", target: sb + "/outbox.jsonl", args: checkArgs, exits: judged, wants: judgedWants("outbox.jsonl")},
	{area: "sandbox", name: "drafts.jsonl", target: sb + "/drafts.jsonl", args: checkArgs, exits: judged, wants: judgedWants("drafts.jsonl")},
	{area: "sandbox", name: "audit.jsonl", target: sb + "/audit.jsonl", args: checkArgs, exits: judged, wants: judgedWants("audit.jsonl")},
	// l0-respond is judged at L0 only, which reads nothing of state.json.
	{area: "sandbox", name: "state.json", target: sb + "/state.json", args: checkArgs,
		exits: map[string]int{"deep-objects": 0, "deep-arrays": 0, "dangling": 0},
		wants: map[string]string{"deep-objects": "l0-respond  pass", "deep-arrays": "l0-respond  pass", "dangling": "l0-respond  pass"}},
	// The stub's log is the harness's own file: a bad line is a fixture
	// defect, never the implementation's failure.
	{area: "sandbox", name: "model-calls.jsonl", target: sb + "/model-calls.jsonl", args: checkArgs,
		exits: map[string]int{"deep-objects": 0, "deep-arrays": 0, "dangling": 1},
		wants: map[string]string{"deep-objects": "FIXTURE DEFECTS: 1", "deep-arrays": "FIXTURE DEFECTS: 1", "dangling": "L0."}},
	{area: "sandbox", name: "inbox.jsonl", target: sb + "/inbox.jsonl", args: checkArgs, exits: judged, wants: judgedWants("inbox.jsonl")},
	{area: "sandbox", name: "the sandbox path itself", target: sb, args: checkArgs, wants: notDir},
	// A run log beside the sandbox is optional: none there is a verdict
	// without one.
	{area: "sandbox", name: "run log beside it", target: cutFrom, args: checkArgs,
		exits: map[string]int{"dangling": 0}, wants: map[string]string{"dangling": "judged without a run log"}},
	{area: "sandbox", name: "run log by --log", target: "out/l0-respond/run-1/run.jsonl", args: append(append([]string{}, checkArgs...), "--log", "out/l0-respond/run-1/run.jsonl")},
	{area: "sandbox", name: "replay --cut-from", target: cutFrom, args: []string{"replay", "b", "--impl-cmd", "{amr} serve-impl reference", "--cut-from", cutFrom}},
	// The fuzz corpus.
	// A corpus bundle that does not load is a warning and is skipped; one that
	// is no file at all is bad input.
	{area: "corpus", name: "a corpus bundle", target: "corpus/c.json", args: []string{"fuzz", "--runs", "1", "--corpus", "corpus"},
		exits: map[string]int{"deep-objects": 0, "deep-arrays": 0, "huge": 0, "dangling": 0},
		wants: map[string]string{"dangling": "warning: corpus corpus/c.json"}},
	// A missing corpus is an empty one.
	{area: "corpus", name: "the corpus directory", target: "corpus", args: []string{"fuzz", "--runs", "1", "--corpus", "corpus"},
		exits: map[string]int{"dangling": 0}, wants: withWant(notDir, "dangling", "1 run(s) of campaign 1")},
	// Ledgers.
	// A line of a ledger that is not a receipt is a finding of the verifier.
	{area: "ledger", name: "ledger verify", target: "ledger.jsonl", args: []string{"ledger", "verify", "ledger.jsonl"},
		exits: map[string]int{"deep-objects": 1, "deep-arrays": 1}},
	// A missing ledger is an empty one.
	{area: "ledger", name: "run --ledger", target: "ledger.jsonl", args: []string{"run", "--runs", "1", "b", "--ledger", "ledger.jsonl"},
		exits: map[string]int{"dangling": 0}, wants: map[string]string{"dangling": "1 receipt(s) appended"}},
	// Reserve files.
	{area: "reserve", name: "verify: the manifest", target: "m.json", args: []string{"reserve", "verify", "--manifest", "m.json", "revealed"}},
	{area: "reserve", name: "verify: the revealed directory", target: "revealed", args: []string{"reserve", "verify", "--manifest", "m.json", "revealed"}, wants: notDir},
	{area: "reserve", name: "seal: a bundle", target: "seal/r1.json", args: []string{"reserve", "seal", "seal", "--manifest", "m2.json", "--secrets", "s2.json"}},
	{area: "reserve", name: "seal: the directory", target: "seal", args: []string{"reserve", "seal", "seal", "--manifest", "m2.json", "--secrets", "s2.json"}, wants: notDir},
	{area: "reserve", name: "reveal: the secrets", target: "s.json", args: []string{"reserve", "reveal", "--secrets", "s.json", "--bundles", "seal", "--out", "rev2"}},
	{area: "reserve", name: "apply: the manifest", target: "m.json", args: []string{"reserve", "apply", "--manifest", "m.json", "--secrets", "s.json", "--bundles", "seal", "--out", "apply.json"}},
	// Baselines and declarations.
	{area: "baseline", name: "regress --baseline", target: "baseline.json", args: []string{"regress", "--runs", "1", "--baseline", "baseline.json"}},
	{area: "declaration", name: "conform --declaration", target: "decl.json", args: []string{"conform", "--runs", "1", "--declaration", "decl.json"}},
}

func withWant(m map[string]string, shape, want string) map[string]string {
	out := map[string]string{shape: want}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// readCases crosses every place with every shape.
func readCases() []hostileCase {
	var out []hostileCase
	for _, p := range places {
		for _, s := range shapes {
			p, s := p, s
			code := 2
			if c, ok := p.exits[s.name]; ok {
				code = c
			}
			want := s.want
			if w, ok := p.wants[s.name]; ok {
				want = w
			}
			if want == "" {
				want = filepath.Base(p.target)
			}
			out = append(out, hostileCase{
				area: p.area, name: p.name + "/" + s.name,
				input: s.input + " at " + p.target, args: p.args, exit: code, want: want,
				setup: func(w *world) error { return s.apply(w.path(p.target)) },
			})
		}
	}
	return out
}
