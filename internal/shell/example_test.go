package shell_test

import (
	"fmt"

	"github.com/amr-bench/amr/internal/shell"
)

// A replay command is printed so that pasting it into a shell runs it
// with exactly these words.
func ExampleJoin() {
	fmt.Println(shell.Join("amr", "run", "--impl-cmd", "python3 responder.py", "scenarios/l0-respond"))
	// Output: amr run --impl-cmd 'python3 responder.py' scenarios/l0-respond
}

func ExampleQuote() {
	fmt.Println(shell.Quote("plain"), shell.Quote("it's"), shell.Quote(""))
	// Output: plain 'it'\''s' ''
}
