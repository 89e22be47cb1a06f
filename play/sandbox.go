package play

import (
	"fmt"
	"os"

	"github.com/amr-bench/amr/sim/sandbox"
)

// ReadSandbox reads every sandbox file of a directory, as a kept run or
// another harness left it, to be judged with Judge.
func ReadSandbox(dir string) (map[string][]byte, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	d := &sandbox.Dir{Root: dir}
	files := map[string][]byte{}
	for _, name := range d.Names() {
		data, err := d.Read(name)
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	return files, nil
}
