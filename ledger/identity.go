package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/amr-bench/amr/internal/jcs"
	"github.com/amr-bench/amr/internal/lazyset"
	"github.com/amr-bench/amr/scenarios"
)

// UnknownSuffix ends the fingerprint of a process implementation whose
// identity amr cannot know. No receipt with it is ever copied forward.
const UnknownSuffix = "@unknown"

// Bounds on what a directory's identity hashes: past them the identity is
// unknown rather than slow, and a version can be declared instead.
const (
	MaxIdentityFiles = 20000
	MaxIdentityBytes = 512 << 20
)

// Part is one thing an identity hashed: the executable, a file or a
// directory the command names, its interpreter, a declared directory or a
// declared version.
type Part struct {
	Role string `json:"role"`
	// Path is the file or directory as the command names it (made
	// absolute where the command ran it relative).
	Path string `json:"path,omitempty"`
	// Value is a declared version string.
	Value string `json:"value,omitempty"`
	Hash  string `json:"hash,omitempty"`
}

// Part roles.
const (
	RoleExecutable  = "executable"
	RoleInterpreter = "interpreter"
	RoleFile        = "file"
	RoleDirectory   = "directory"
	RoleDeclaredDir = "declared-directory"
	RoleVersion     = "declared-version"
)

// Identity is what a process implementation is, for memoization: the
// command line and the hash of everything it names that amr can read.
type Identity struct {
	Fingerprint string
	Parts       []Part
	// Unknown says why amr cannot know what runs; empty when it can.
	Unknown string
}

// Known reports whether the identity covers what runs.
func (id Identity) Known() bool { return id.Unknown == "" }

// Declared is what the person running amr says the implementation is,
// beyond its command: a directory whose whole content is its identity, or
// a version string.
type Declared struct {
	Dir     string
	Version string
}

// ProcessIdentity returns the identity of the process implementation run
// by command: the executable's content (and a script's interpreter), the
// content of every file and directory its arguments name, and what is
// declared. It is unknown (never memoized) where the command runs code it
// does not name as a file: a shell or an interpreter given inline code or
// a module name, a build tool or package runner that resolves a project, an
// interpreter given no file at all, an executable amr cannot read; a
// declared directory or version makes it known, the person declaring it
// answering for it. An error is a declared directory that cannot be read.
func ProcessIdentity(command []string, d Declared) (Identity, error) {
	var id Identity
	if len(command) == 0 {
		return Identity{}, errors.New("identity: no command")
	}
	declared := d.Dir != "" || d.Version != ""
	var unknown string
	id.Parts, unknown = commandParts(command)
	if d.Dir != "" {
		info, err := os.Stat(d.Dir)
		if err != nil || !info.IsDir() {
			return Identity{}, fmt.Errorf("identity: declared directory %s: not a readable directory", d.Dir)
		}
		h, err := DirectoryDigest(d.Dir)
		if err != nil {
			return Identity{}, fmt.Errorf("identity: declared directory %s: %w", d.Dir, err)
		}
		abs, _ := filepath.Abs(d.Dir)
		id.Parts = append(id.Parts, Part{Role: RoleDeclaredDir, Path: abs, Hash: h})
	}
	if d.Version != "" {
		id.Parts = append(id.Parts, Part{Role: RoleVersion, Value: d.Version})
	}
	if !declared {
		id.Unknown = unknown
	}
	line := strings.Join(command, " ")
	if !id.Known() {
		id.Fingerprint = "process:" + line + UnknownSuffix
		return id, nil
	}
	data, err := jcs.Marshal(id.Parts)
	if err != nil {
		return Identity{}, err
	}
	id.Fingerprint = "process:" + line + "@" + Digest(data)
	return id, nil
}

// commandParts hashes what a command names, and says why that is not all
// that runs when it is not.
func commandParts(command []string) ([]Part, string) {
	exe, err := resolve(command[0])
	if err != nil {
		return nil, fmt.Sprintf("the executable %s: %v", command[0], err)
	}
	h, err := fileDigest(exe)
	if err != nil {
		return nil, fmt.Sprintf("the executable %s: %v", exe, err)
	}
	parts := []Part{{Role: RoleExecutable, Path: exe, Hash: h}}
	base := filepath.Base(exe)
	if base == "env" {
		rest := afterEnv(command[1:])
		if len(rest) == 0 {
			return parts, "env runs no command amr can name"
		}
		more, unknown := commandParts(rest)
		return append(parts, more...), unknown
	}
	if interp, ok := shebang(exe); ok {
		if p, err := resolve(interp); err == nil {
			if h, err := fileDigest(p); err == nil {
				parts = append(parts, Part{Role: RoleInterpreter, Path: p, Hash: h})
			}
		}
	}
	files, unknown := argumentParts(command[1:])
	parts = append(parts, files...)
	if unknown != "" {
		return parts, unknown
	}
	switch kind := kindOf(base); {
	case kind == kindRunner:
		return parts, fmt.Sprintf("%s resolves what runs from a project amr does not read", base)
	case kind != kindPlain && inlineCode(kind, command[1:]) != "":
		return parts, fmt.Sprintf("%s %s runs code its command line does not name as a file", base, inlineCode(kind, command[1:]))
	case kind != kindPlain && len(files) == 0:
		return parts, fmt.Sprintf("%s is given no file to run", base)
	}
	return parts, ""
}

// argumentParts hashes every argument (or --flag=value value) that names a
// file or a directory.
func argumentParts(args []string) ([]Part, string) {
	var parts []Part
	for _, a := range args {
		p := a
		if strings.HasPrefix(a, "-") {
			_, v, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			p = v
		}
		if p == "" {
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			continue // a word, not a path
		}
		abs, _ := filepath.Abs(p)
		switch {
		case info.Mode().IsRegular():
			h, err := fileDigest(p)
			if err != nil {
				return parts, fmt.Sprintf("the file %s: %v", p, err)
			}
			parts = append(parts, Part{Role: RoleFile, Path: abs, Hash: h})
		case info.IsDir():
			h, err := DirectoryDigest(p)
			if err != nil {
				return parts, fmt.Sprintf("the directory %s: %v", p, err)
			}
			parts = append(parts, Part{Role: RoleDirectory, Path: abs, Hash: h})
		default:
			return parts, fmt.Sprintf("%s is not a regular file", p)
		}
	}
	return parts, ""
}

type programKind int

const (
	kindPlain programKind = iota
	kindShell
	kindInterpreter
	kindRunner
)

var (
	shells       = lazyset.Of("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox", "tcsh", "csh")
	interpreters = lazyset.Of("node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "luajit", "java", "Rscript", "tclsh", "elixir", "erl", "escript", "julia", "osascript", "pwsh")
	runners      = lazyset.Of("go", "cargo", "npm", "npx", "pnpm", "yarn", "uv", "uvx", "poetry", "pipenv", "pipx", "bundle", "make", "just", "dotnet", "mvn", "gradle", "sbt", "mix", "stack", "cabal", "docker", "podman")
	// Compiled at its first use, not at every start of amr.
	pythonName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(python|pypy)[0-9.]*$`) })
)

func kindOf(base string) programKind {
	switch {
	case shells()[base]:
		return kindShell
	case interpreters()[base] || pythonName().MatchString(base):
		return kindInterpreter
	case runners()[base]:
		return kindRunner
	}
	return kindPlain
}

// inlineCode returns the flag with which an interpreter or a shell is told
// to run code that is no file: inline code, a module, standard input.
func inlineCode(kind programKind, args []string) string {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch {
		case name == "-":
			return name
		case kind == kindShell && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "cs"):
			return a // sh -c '...', sh -ec '...', sh -s
		case kind == kindInterpreter && interpreterCode()[name]:
			return name
		case !strings.HasPrefix(a, "-"):
			return "" // the script; what follows is its own arguments
		}
	}
	return ""
}

// interpreterCode are the flags of interpreters that run inline code or a
// module by name (python -c, -m; node -e, -p, -r; perl and ruby -e).
var interpreterCode = lazyset.Of("-c", "-e", "--eval", "-p", "--print", "-m", "-r", "--require", "--import", "--loader", "-E")

// afterEnv skips env's own options and NAME=VALUE words.
func afterEnv(args []string) []string {
	for i, a := range args {
		if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue
		}
		return args[i:]
	}
	return nil
}

// shebang returns the program a script's first line names (through env).
func shebang(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	if !strings.HasPrefix(line, "#!") {
		return "", false
	}
	words := strings.Fields(line[2:])
	if len(words) == 0 {
		return "", false
	}
	if filepath.Base(words[0]) == "env" {
		rest := afterEnv(words[1:])
		if len(rest) == 0 {
			return "", false
		}
		return rest[0], true
	}
	return words[0], true
}

// resolve finds a program as exec would, and refuses what is not a
// regular file (reading a FIFO would block).
func resolve(name string) (string, error) {
	p := name
	if !strings.Contains(name, "/") {
		var err error
		if p, err = exec.LookPath(name); err != nil {
			return "", errors.New("not found on PATH")
		}
	}
	info, err := os.Stat(p)
	if err != nil {
		return "", errors.New("not found")
	}
	if !info.Mode().IsRegular() {
		return "", errors.New("not a regular file")
	}
	return p, nil
}

// fileDigest hashes a regular file's content.
func fileDigest(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, MaxIdentityBytes+1)); err != nil {
		return "", err
	}
	return scenarios.HashPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// skippedDirs are never part of a directory's identity: a repository's
// history and Python's byte-code cache change without what runs changing
// (a cache is rebuilt from the sources, which are hashed).
var skippedDirs = lazyset.Of(".git", "__pycache__")

// DirectoryDigest hashes a directory deterministically: every regular file
// under it, by its slash-separated path relative to the directory, sorted,
// with its content's hash, and every symbolic link with its target (links
// are not followed). Other files (FIFOs, devices, sockets) are refused.
// More than MaxIdentityFiles files or MaxIdentityBytes bytes is an error.
func DirectoryDigest(dir string) (string, error) {
	type entry struct {
		Path string `json:"path"`
		Hash string `json:"hash,omitempty"`
		Link string `json:"link,omitempty"`
	}
	var (
		entries []entry
		total   int64
	)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch t := d.Type(); {
		case d.IsDir():
			if p != dir && skippedDirs()[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			entries = append(entries, entry{Path: rel, Link: target})
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			if total += info.Size(); total > MaxIdentityBytes {
				return fmt.Errorf("more than %d MiB to hash", MaxIdentityBytes>>20)
			}
			h, err := fileDigest(p)
			if err != nil {
				return err
			}
			entries = append(entries, entry{Path: rel, Hash: h})
		default:
			return fmt.Errorf("%s is not a regular file, a directory or a link", rel)
		}
		if len(entries) > MaxIdentityFiles {
			return fmt.Errorf("more than %d files to hash", MaxIdentityFiles)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	data, err := jcs.Marshal(entries)
	if err != nil {
		return "", err
	}
	return Digest(data), nil
}
