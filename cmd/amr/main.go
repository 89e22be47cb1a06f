// Command amr is the harness of the Async Message Responder benchmark: it
// runs scenario bundles against implementations on a deterministic
// simulator and judges the artifacts, level by level.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Exit codes (DESIGN: conventions).
const (
	exitOK      = 0
	exitFail    = 1
	exitBad     = 2
	exitInvalid = 3
	// exitNotReproduced: a failing run that did not fail again on replay,
	// or failed only with a harness timeout (amr fuzz).
	exitNotReproduced = 4
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr is bad usage or bad input: exit 2.
func usageErr(format string, args ...any) error {
	return &exitError{code: exitBad, err: fmt.Errorf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	end := stops.watch(cancel)
	err := execute(ctx, args)
	end()
	if sig := stops.signal(); sig != 0 {
		// Whatever the command made of it, an interrupted command has not
		// done what it was asked: its code is never 0, 1 or 2.
		if err != nil && !errors.Is(err, context.Canceled) {
			printErr(err)
		}
		code := stops.finish()
		fmt.Fprintf(os.Stderr, "amr: %s\n", signalName(sig))
		return code
	}
	return printErr(err)
}

// execute runs the command args name. An instance of a built-in
// implementation starts at every crash of a process run: a plain
// serve-impl command line is run without building a command (D226).
func execute(ctx context.Context, args []string) error {
	if name, cfg, ok := quickServeImpl(args); ok {
		return serveImpl(ctx, name, cfg)
	}
	root := rootFor(args)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// printErr prints a command's error and returns its exit code.
func printErr(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "amr:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(os.Stderr, "amr:", err)
	return exitBad
}
