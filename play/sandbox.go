package play

import (
	"fmt"

	"github.com/amr-bench/amr/internal/safefile"

	"github.com/amr-bench/amr/sim/sandbox"
)

// ReadSandbox reads every sandbox file of a directory, as a kept run or
// another harness left it, to be judged with Judge.
func ReadSandbox(dir string) (map[string][]byte, error) {
	if err := safefile.CheckDir(dir); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	d := &sandbox.Dir{Root: dir}
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
