// Package doctest reads the shell commands of the project's Markdown files,
// so a test can run them as a reader would and hold every documented command
// to what its text says.
//
// A fenced code block is annotated by an HTML comment on the line just
// before its opening fence, which GitHub does not render:
//
//	<!-- doc: run -->                          every command must exit 0
//	<!-- doc: run exit=1 -->                   every command must exit 1
//	<!-- doc: run needs=python3,jq -->         skipped, saying so, when a tool is missing
//	<!-- doc: run contains="no change" -->     the block's output must contain the text
//	<!-- doc: run skip="go test ./..." reason="..." -->  that command is not run, for the reason
//	<!-- doc: no-run reason="..." -->          the block is not run, for the reason
//
// A command is a line of the block; a line ending in a backslash goes on
// the next. Blank lines and lines starting with # are not commands.
package doctest

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Block is one fenced code block and what its annotation says.
type Block struct {
	File string
	// Line is the line of the opening fence, counted from 1.
	Line int
	Lang string
	// Annotated is set when an annotation precedes the block.
	Annotated bool
	// Run is set for a block annotated to run; NoRun for one annotated not
	// to, with Reason.
	Run    bool
	NoRun  bool
	Reason string
	// Exit is the exit code every command must have.
	Exit int
	// Needs are the tools that must be on PATH.
	Needs []string
	// Contains are texts the output of the block's commands, stdout and
	// stderr together, must hold.
	Contains []string
	// Skip are commands of the block not run, for Reason.
	Skip     []string
	Commands []Command
}

// Command is one command of a block.
type Command struct {
	Line int
	Text string
	// Skipped is set when the block's annotation names it in skip=.
	Skipped bool
}

// Shell reports whether the block is in a shell language.
func (b Block) Shell() bool {
	switch b.Lang {
	case "sh", "bash", "shell", "console":
		return true
	}
	return false
}

// Where is the block's file:line.
func (b Block) Where() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

const prefix = "<!-- doc:"

// Parse reads every fenced code block of a Markdown file with its
// annotation. A malformed annotation, one that no fence follows, and a block
// meant to run that holds what a shell line by line cannot run (a here
// document, a transcript's "$ " prompt) are errors naming file:line.
func Parse(file string, data []byte) ([]Block, error) {
	var (
		blocks  []Block
		pending *Block // the annotation waiting for its fence
		cur     *Block
		fence   string
		cont    *Command
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur != nil {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`~") == "" {
				if cont != nil {
					return nil, fmt.Errorf("%s:%d: the command ends in a backslash and no line follows it", file, cont.Line)
				}
				if err := checkRunnable(cur); err != nil {
					return nil, err
				}
				blocks = append(blocks, *cur)
				cur, cont = nil, nil
				continue
			}
			cont = addLine(cur, cont, n, line)
			continue
		}
		if strings.HasPrefix(trimmed, prefix) {
			if pending != nil {
				return nil, fmt.Errorf("%s:%d: annotation followed by another annotation, not by a code block", file, pending.Line)
			}
			b, err := parseAnnotation(file, n, trimmed)
			if err != nil {
				return nil, err
			}
			pending = &b
			continue
		}
		if f := openingFence(trimmed); f != "" {
			cur = &Block{File: file, Line: n, Lang: strings.TrimSpace(strings.TrimLeft(trimmed, "`~"))}
			if pending != nil {
				ann := *pending
				ann.Line, ann.Lang = cur.Line, cur.Lang
				cur = &ann
				pending = nil
			}
			fence = f
			continue
		}
		if pending != nil && trimmed != "" {
			return nil, fmt.Errorf("%s:%d: annotation not followed by a code block", file, pending.Line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: code block never closed", file, cur.Line)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: annotation not followed by a code block", file, pending.Line)
	}
	return blocks, nil
}

// openingFence returns the fence a line opens (``` or ~~~, or longer), or "".
func openingFence(line string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(line, c+c+c) {
			n := len(line) - len(strings.TrimLeft(line, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// addLine adds one line of a block to its commands and returns the command
// a trailing backslash continues, if any.
func addLine(b *Block, cont *Command, n int, line string) *Command {
	text := strings.TrimSpace(line)
	if cont == nil && (text == "" || strings.HasPrefix(text, "#")) {
		return nil
	}
	more := strings.HasSuffix(text, `\`)
	text = strings.TrimSpace(strings.TrimSuffix(text, `\`))
	if cont != nil {
		cont.Text += " " + text
	} else {
		b.Commands = append(b.Commands, Command{Line: n, Text: text})
		cont = &b.Commands[len(b.Commands)-1]
	}
	if more {
		return cont
	}
	for _, s := range b.Skip {
		if cont.Text == s || strings.HasPrefix(cont.Text, s+" ") {
			cont.Skipped = true
		}
	}
	return nil
}

// checkRunnable refuses, in a block meant to run, lines a shell reading
// one command per line would get wrong, and a skip= naming no command.
func checkRunnable(b *Block) error {
	if !b.Run {
		return nil
	}
	if len(b.Commands) == 0 {
		return fmt.Errorf("%s: annotated to run but holds no command", b.Where())
	}
	for _, c := range b.Commands {
		switch {
		case strings.HasPrefix(c.Text, "$ "):
			return fmt.Errorf("%s:%d: a transcript's \"$ \" prompt in a block meant to run", b.File, c.Line)
		case strings.Contains(c.Text, "<<"):
			return fmt.Errorf("%s:%d: a here document in a block meant to run: one command per line", b.File, c.Line)
		}
	}
	for _, s := range b.Skip {
		found := false
		for _, c := range b.Commands {
			found = found || (c.Skipped && (c.Text == s || strings.HasPrefix(c.Text, s+" ")))
		}
		if !found {
			return fmt.Errorf("%s: skip=%q names no command of the block", b.Where(), s)
		}
	}
	return nil
}

// parseAnnotation reads "<!-- doc: run exit=1 needs=a,b contains="x" -->".
func parseAnnotation(file string, n int, line string) (Block, error) {
	b := Block{File: file, Line: n, Annotated: true}
	bad := func(format string, args ...any) (Block, error) {
		return Block{}, fmt.Errorf("%s:%d: annotation: %s", file, n, fmt.Sprintf(format, args...))
	}
	if !strings.HasSuffix(line, "-->") {
		return bad("does not end with -->")
	}
	words, err := splitWords(strings.TrimSuffix(strings.TrimPrefix(line, prefix), "-->"))
	if err != nil {
		return bad("%v", err)
	}
	if len(words) == 0 {
		return bad("want run or no-run")
	}
	switch words[0] {
	case "run":
		b.Run = true
	case "no-run":
		b.NoRun = true
	default:
		return bad("want run or no-run, not %q", words[0])
	}
	for _, w := range words[1:] {
		key, value, ok := strings.Cut(w, "=")
		if !ok || value == "" {
			return bad("%q is not key=value", w)
		}
		switch {
		case key == "reason":
			b.Reason = value
		case key == "exit" && b.Run:
			code, err := strconv.Atoi(value)
			if err != nil || code < 0 || code > 255 {
				return bad("exit=%s is not an exit code", value)
			}
			b.Exit = code
		case key == "needs" && b.Run:
			b.Needs = append(b.Needs, strings.Split(value, ",")...)
		case key == "contains" && b.Run:
			b.Contains = append(b.Contains, value)
		case key == "skip" && b.Run:
			b.Skip = append(b.Skip, value)
		default:
			return bad("unknown key %q for %s", key, words[0])
		}
	}
	if (b.NoRun || len(b.Skip) > 0) && b.Reason == "" {
		return bad("say why it is not run: reason=\"...\"")
	}
	return b, nil
}

// splitWords splits on spaces, keeping double-quoted values whole.
func splitWords(s string) ([]string, error) {
	var (
		out   []string
		word  strings.Builder
		quote bool
		any   bool
	)
	for _, r := range s {
		switch {
		case r == '"':
			quote = !quote
			any = true
		case r == ' ' && !quote:
			if any {
				out = append(out, word.String())
			}
			word.Reset()
			any = false
		default:
			word.WriteRune(r)
			any = true
		}
	}
	if quote {
		return nil, fmt.Errorf("unclosed quote")
	}
	if any {
		out = append(out, word.String())
	}
	return out, nil
}
