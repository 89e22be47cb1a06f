//go:build !(linux && amd64)

package sim

// runMeasure measures the run directory at every look where the kernel's
// change reports are not used.
type runMeasure struct {
	workdir  string
	limit    int64
	measures int
}

func newRunMeasure(workdir, _ string, limit int64, _ func(string) (int64, bool)) *runMeasure {
	return &runMeasure{workdir: workdir, limit: limit}
}

func (m *runMeasure) measure() (int64, int) {
	m.measures++
	return dirSize(m.workdir, m.limit)
}

func (m *runMeasure) close() {}
