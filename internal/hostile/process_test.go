package hostile

// processCases are hostile implementations run as OS processes: each must
// end in a verdict (or, for one that cannot start, bad input), with every
// process it started gone, whatever it did to its sandbox or to itself.
func processCases() []hostileCase {
	procs := []struct{ name, cmd string }{
		{"puts a FIFO at outbox.jsonl", "sh -c 'rm -f outbox.jsonl; mkfifo outbox.jsonl; sleep 100'"},
		{"links outbox.jsonl to /dev/zero", "sh -c 'rm -f outbox.jsonl; ln -s /dev/zero outbox.jsonl; sleep 100'"},
		{"links state.json to /dev/zero", "sh -c 'rm -f state.json; ln -s /dev/zero state.json; sleep 100'"},
		{"a FIFO in private/", "sh -c 'mkdir -p private; mkfifo private/p; sleep 100'"},
		{"starts a detached child", "sh -c 'setsid sleep 1000 & sleep 100'"},
		{"starts a child in its group", "sh -c 'sleep 1000 & sleep 100'"},
		{"ignores SIGTERM", `sh -c 'trap "" TERM INT; while :; do sleep 1; done'`},
		{"writes garbage lines", `sh -c 'printf "\x00\xff{[\n{}\n" >> outbox.jsonl; sleep 100'`},
		{"nests 10^5 arrays in outbox.jsonl", `sh -c 'head -c 100000 /dev/zero | tr "\0" "[" >> outbox.jsonl; echo >> outbox.jsonl; sleep 100'`},
	}
	var out []hostileCase
	for _, p := range procs {
		out = append(out, hostileCase{area: "process", name: p.name, input: "--impl-cmd \"" + p.cmd + "\"",
			args: []string{"run", "b", "--runs", "1", "--timeout", "100ms", "--window", "20ms", "--impl-cmd", p.cmd},
			exit: 1, want: "1 failed"})
	}
	// A process that ends at once never started as far as a verdict goes
	// (D55): bad input, with the exit status named, never a level verdict.
	// The step regime makes "at once" exact: it ended before answering a
	// tick, however slow the machine (in quiescence it depends on whether
	// it was gone before the first window closed).
	out = append(out, hostileCase{area: "process", name: "exits at once with 3", input: `--impl-cmd "sh -c 'exit 3'"`,
		args: []string{"run", "b", "--runs", "1", "--regime", "step", "--impl-cmd", "sh -c 'exit 3'"},
		exit: 2, want: "did not start"})
	out = append(out, hostileCase{area: "process", name: "a command that does not exist", input: `--impl-cmd "no-such-program-amr"`,
		args: []string{"run", "b", "--runs", "1", "--impl-cmd", "no-such-program-amr"}, exit: 2, want: "executable file not found"})
	return out
}
