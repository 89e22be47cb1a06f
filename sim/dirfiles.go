package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/amr-bench/amr/sim/sandbox"
)

// maxEntries bounds how many directory entries of a sandbox are looked at,
// so an implementation that makes a million files cannot stall the harness.
const maxEntries = 4096

// dirFiles is a sandbox directory as the harness sees it while a process
// works in it. The harness keeps its own copy of every file it writes: that
// copy is what binds and what is judged, whatever the process does to the
// files on disk. The implementation's files are read from disk, bounded,
// and a log's unterminated last line is not yet written.
type dirFiles struct {
	root   string
	limit  int64
	mu     sync.Mutex
	mirror *sandbox.Memory
	// state is state.json kept open between views: the engine views it at
	// every tick's end, and it is mostly unchanged. closed says the run is
	// over and nothing is kept open any more.
	stateMu sync.Mutex
	state   heldOpen
	closed  bool
}

func newDirFiles(root string, limit int64) *dirFiles {
	return &dirFiles{root: root, limit: limit, mirror: sandbox.NewMemory(), state: newHeldOpen()}
}

// close closes what is kept open; a view after it opens the path.
func (d *dirFiles) close() {
	d.stateMu.Lock()
	defer d.stateMu.Unlock()
	d.state.close()
	d.closed = true
}

// viewState is readBounded of state.json, through the descriptor kept open
// when it still names the file at the path (heldOpen reads what a fresh
// open reads).
func (d *dirFiles) viewState() ([]byte, bool, error) {
	d.stateMu.Lock()
	defer d.stateMu.Unlock()
	path := d.path(sandbox.State)
	if d.closed {
		return readBounded(path, d.limit)
	}
	data, size, err := d.state.read(path, 0, d.limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, nil
	}
	return data, size <= d.limit, err
}

func (d *dirFiles) path(name string) string { return filepath.Join(d.root, filepath.FromSlash(name)) }

// View returns a copy of a harness file, or what the implementation has
// finished writing of one of its files.
func (d *dirFiles) View(name string) []byte {
	if sandbox.IsHarnessFile(name) {
		d.mu.Lock()
		defer d.mu.Unlock()
		return append([]byte(nil), d.mirror.View(name)...)
	}
	var data []byte
	if name == sandbox.State {
		data, _, _ = d.viewState()
	} else {
		data, _, _ = readBounded(d.path(name), d.limit)
	}
	if strings.HasSuffix(name, ".jsonl") {
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	return data
}

func (d *dirFiles) Read(name string) ([]byte, error) {
	if !sandbox.ValidName(name) {
		return nil, fmt.Errorf("%w: %q", sandbox.ErrBadName, name)
	}
	return d.View(name), nil
}

// Names lists the harness's files and the spec files present on disk.
func (d *dirFiles) Names() []string {
	d.mu.Lock()
	names := d.mirror.Names()
	d.mu.Unlock()
	for _, n := range []string{sandbox.Drafts, sandbox.Outbox, sandbox.Audit, sandbox.State} {
		if _, err := os.Lstat(d.path(n)); err == nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Append adds a line to a harness log, in the harness's copy and on disk.
func (d *dirFiles) Append(name string, line []byte) error {
	if !sandbox.IsHarnessFile(name) {
		return fmt.Errorf("sim: the harness appends only to its own files, not %s", name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.mirror.Append(name, line); err != nil {
		return err
	}
	buf := append(append(make([]byte, 0, len(line)+1), line...), '\n')
	f, err := openAppend(d.path(name))
	if errors.Is(err, syscall.ELOOP) {
		// The implementation put a link in the harness file's place: put
		// the file back, with everything the harness wrote to it.
		return d.replace(name, d.mirror.View(name))
	}
	if err != nil {
		return err
	}
	_, err = f.Write(buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Write replaces a harness file atomically: a temporary file, then rename.
func (d *dirFiles) Write(name string, data []byte) error {
	if !sandbox.IsHarnessFile(name) {
		return fmt.Errorf("sim: the harness writes only its own files, not %s", name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.mirror.Write(name, data); err != nil {
		return err
	}
	return d.replace(name, data)
}

func (d *dirFiles) replace(name string, data []byte) error {
	tmp := filepath.Join(d.root, ".amr-"+strings.ReplaceAll(name, "/", "-")+".tmp")
	if err := writeNew(tmp, data); err != nil {
		return err
	}
	if err := renameOver(tmp, d.path(name)); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// expect is the size of the harness's copy of one of its files, and
// whether it wrote that file at all.
func (d *dirFiles) expect(name string) (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	data, ok := d.mirror.Files()[name]
	return int64(len(data)), ok
}

// tampered lists the harness files whose content on disk differs from what
// the harness wrote.
func (d *dirFiles) tampered() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, name := range d.mirror.Names() {
		want := d.mirror.View(name)
		got, _, err := readBounded(d.path(name), int64(len(want))+1)
		if err != nil || !bytes.Equal(got, want) {
			out = append(out, name)
		}
	}
	return out
}

// collect builds the sandbox to judge: the harness's own copy of its files,
// and the implementation's files as they are on disk, each bounded (a log
// cut at the bound keeps its last complete line). It returns the names of
// the files that were cut or left out.
func (d *dirFiles) collect() (*sandbox.Memory, []string) {
	mem := sandbox.NewMemory()
	d.mu.Lock()
	for _, name := range d.mirror.Names() {
		_ = mem.Write(name, d.mirror.View(name))
	}
	d.mu.Unlock()
	var cut []string
	privateBudget := d.limit
	for _, name := range implFiles(d.root) {
		data, full, err := readBounded(d.path(name), d.limit)
		if err != nil {
			continue
		}
		if !full {
			cut = append(cut, name)
			if strings.HasSuffix(name, ".jsonl") {
				data = data[:bytes.LastIndexByte(data, '\n')+1]
			}
		}
		if strings.HasPrefix(name, sandbox.PrivateDir) {
			if int64(len(data)) > privateBudget {
				cut = append(cut, name)
				continue
			}
			privateBudget -= int64(len(data))
		}
		_ = mem.Write(name, data)
	}
	return mem, cut
}

// implFiles lists the regular files of the sandbox that the implementation
// may have written and a Store can name: the spec's files that are not the
// harness's, and everything under private/. Temporary files are left out.
func implFiles(root string) []string {
	var out []string
	seen := 0
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxEntries {
			return filepath.SkipAll
		}
		if !e.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if sandbox.ValidName(rel) && !sandbox.IsHarnessFile(rel) && !isTemp(rel) {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func isTemp(name string) bool {
	return strings.HasSuffix(name, ".tmp") || strings.HasPrefix(filepath.Base(name), ".amr-")
}

// readBounded reads at most limit bytes of a regular file; full is false
// when the file is longer. A missing file reads as nil.
func readBounded(path string, limit int64) (data []byte, full bool, err error) {
	data, size, err := readRegular(path, 0, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, nil
	}
	return data, size <= limit, err
}

// stamp identifies one version of a file.
type stamp struct {
	size  int64
	mtime time.Time
}

// logWatch follows one of the implementation's logs on disk.
type logWatch struct {
	name string
	seen *appendLog
	// size is the file's size when last looked at, a partial last line
	// included: a look that finds the same size reads no further.
	size int64
	// file is the log kept open between looks.
	file heldOpen
}

// watcher observes the implementation's writes by looking at the sandbox:
// each new complete line of drafts, outbox or audit is one write, and so is
// each new version of any other file it writes (state.json, private files)
// when those are followed. Writes that land between two looks coalesce:
// what it counts is what it saw, best effort. A log whose lines seen are no
// longer all in place is reported to rewritten.
type watcher struct {
	root   string
	limit  int64
	logs   []*logWatch
	others map[string]stamp
	writes int // writes seen since the start of the run
	// states is the versions of state.json seen since the start of the
	// run: what a crash with writes_to state.json counts (D157).
	states    int
	oversize  string // the first file seen past the bound
	rewritten func(name string, rw *rewrite, how string)
	// counts says which files other than the logs count as writes; nil
	// counts every one.
	counts func(rel string) bool
}

func newWatcher(root string, limit int64, seen map[string]*appendLog, rewritten func(string, *rewrite, string)) *watcher {
	w := &watcher{root: root, limit: limit, others: map[string]stamp{}, rewritten: rewritten}
	for _, n := range sandbox.ImplLogs {
		w.logs = append(w.logs, &logWatch{name: n, seen: seen[n], file: newHeldOpen()})
	}
	return w
}

// poll looks at the logs, and at every other file of the implementation
// when all is set. It reports whether a log changed at all (a partial line
// included): that is activity for the quiescence regime.
func (w *watcher) poll(all bool) bool {
	active := false
	for _, c := range w.logs {
		if w.pollLog(c) {
			active = true
		}
	}
	if all {
		w.pollOthers(true)
	}
	return active
}

// verify reads every log whole and compares it with the lines seen, which
// a poll takes on trust when the file only grew: a line changed in place
// shows here.
func (w *watcher) verify() {
	for _, c := range w.logs {
		w.lookWhole(c)
	}
}

// verifyLog is verify for one log.
func (w *watcher) verifyLog(name string) {
	for _, c := range w.logs {
		if c.name == name {
			w.lookWhole(c)
		}
	}
}

// rebase records the current version of every other file without counting
// it, so following them starts from now.
func (w *watcher) rebase() { w.pollOthers(false) }

// pollLog reads a log from the start of the last line seen: when that line
// is still there and the file grew, the rest is appended lines; otherwise
// the whole file is compared with what was seen.
func (w *watcher) pollLog(c *logWatch) bool {
	last := c.seen.lastLine()
	data, size, err := c.file.read(filepath.Join(w.root, c.name), int64(c.seen.last), w.limit)
	if err != nil || size < c.size || !bytes.HasPrefix(data, last) {
		return w.lookWhole(c)
	}
	if size == c.size {
		return false
	}
	w.noteSize(c, size)
	w.writes += c.seen.more(data[len(last):])
	return true
}

// lookWhole compares the whole log with the lines seen. A log that is
// missing, unreadable or not a regular file (a symbolic link is never
// followed) reads as empty.
func (w *watcher) lookWhole(c *logWatch) bool {
	data, size, err := c.file.readReusing(filepath.Join(w.root, c.name), 0, w.limit)
	how := ""
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		data, size, how = nil, 0, "removed"
	case errors.Is(err, errNotRegular) || errors.Is(err, syscall.ELOOP):
		data, size, how = nil, 0, "replaced by something that is not a regular file (never followed, read as empty)"
	default:
		data, size, how = nil, 0, "made unreadable ("+err.Error()+"), read as empty"
	}
	var rw *rewrite
	n := 0
	if !c.seen.unchanged(data) {
		// whole keeps what it is given, and data is the read's buffer.
		rw, n = c.seen.whole(bytes.Clone(data), false)
	}
	if rw != nil {
		w.rewritten(c.name, rw, how)
	}
	w.writes += n
	changed := rw != nil || n > 0 || size != c.size
	w.noteSize(c, size)
	return changed
}

func (w *watcher) noteSize(c *logWatch, size int64) {
	c.size = size
	if size > w.limit && w.oversize == "" {
		w.oversize = c.name
	}
}

func (w *watcher) pollOthers(count bool) {
	seen := 0
	_ = filepath.WalkDir(w.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxEntries {
			return filepath.SkipAll
		}
		if !e.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(w.root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if sandbox.IsHarnessFile(rel) || sandbox.IsImplLog(rel) || isTemp(rel) {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		st := stamp{size: info.Size(), mtime: info.ModTime()}
		if old, ok := w.others[rel]; !ok || old.size != st.size || !old.mtime.Equal(st.mtime) {
			w.others[rel] = st
			if count && (w.counts == nil || w.counts(rel)) {
				w.writes++
			}
			if count && rel == sandbox.State {
				w.states++
			}
		}
		if st.size > w.limit && w.oversize == "" {
			w.oversize = rel
		}
		return nil
	})
}

// close closes the logs kept open.
func (w *watcher) close() {
	for _, c := range w.logs {
		c.file.close()
	}
}

// lines returns the lines seen in each log since the run began.
func (w *watcher) lines() map[string]int {
	out := map[string]int{}
	for _, c := range w.logs {
		out[c.name] = c.seen.total
	}
	return out
}

// logLines is the total of log lines seen.
func (w *watcher) logLines() int {
	n := 0
	for _, c := range w.logs {
		n += c.seen.total
	}
	return n
}
