package play

import (
	"fmt"

	"github.com/amr-bench/amr/internal/safefile"

	"github.com/amr-bench/amr/sim/sandbox"
)

// ReadSandbox reads every sandbox file of a directory, as a kept run or
// another harness left it, to be judged with Judge. No file may be larger
// than safefile.DefaultLimit.
func ReadSandbox(dir string) (map[string][]byte, error) { return ReadSandboxUpTo(dir, 0) }

// ReadSandboxUpTo is ReadSandbox with its own bound on a file's size
// (safefile.DefaultLimit when limit <= 0): a run of 10^5 messages writes an
// audit log past the default, and a sandbox from elsewhere may be anything.
func ReadSandboxUpTo(dir string, limit int64) (map[string][]byte, error) {
	if err := safefile.CheckDir(dir); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	d := &sandbox.Dir{Root: dir, MaxFileBytes: limit}
	files := map[string][]byte{}
	names, err := d.List()
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", dir, err)
	}
	for _, name := range names {
		data, err := d.Read(name)
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	return files, nil
}
