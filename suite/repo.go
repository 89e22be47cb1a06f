package suite

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is the module the amr repository's go.mod declares.
const ModulePath = "github.com/amr-bench/amr"

// RepoRoot is the amr repository holding dir: the nearest directory at or
// above it whose go.mod declares ModulePath. The baseline and the published
// scenarios live there, whatever directory a command runs in.
func RepoRoot(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for d := abs; ; {
		if declaresModule(filepath.Join(d, "go.mod")) {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

func declaresModule(gomod string) bool {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == ModulePath
		}
	}
	return false
}

// CommittedBaseline is the baseline file of the repository holding dir, so
// that regress reads and --update writes the same file from any folder of
// it; outside the repository it is an error saying how to name one.
func CommittedBaseline(dir string) (string, error) {
	root, ok := RepoRoot(dir)
	if !ok {
		return "", fmt.Errorf("%s is not inside the amr repository (no go.mod of %s at or above it), so there is no committed baseline: run amr regress in the repository, or name a baseline with --baseline FILE",
			dir, ModulePath)
	}
	return filepath.Join(root, DefaultBaseline), nil
}

// WithScenario is the baseline with the rows of scenario replaced by rows:
// no other row changes.
func (b Baseline) WithScenario(scenario string, rows []BaselineResult) Baseline {
	kept := make([]BaselineResult, 0, len(b.Results)+len(rows))
	for _, r := range b.Results {
		if r.Scenario != scenario {
			kept = append(kept, r)
		}
	}
	kept = append(kept, rows...)
	SortResults(kept)
	return Baseline{Format: BaselineFormat, Runs: b.Runs, Results: kept}
}
