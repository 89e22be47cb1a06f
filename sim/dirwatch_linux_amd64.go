//go:build linux && amd64

package sim

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/amr-bench/amr/sim/sandbox"
)

// runMeasure keeps the run directory's measure (dirSize) between ticks and
// takes it again only when the kernel reported a change that could alter it.
// Every directory of the run directory and every regular file in it has an
// inotify watch; a watch on a file is on its inode, so a write through a
// hard link from outside the run directory is reported as well as one
// through its own name, and a rename over a file, a truncate, a new entry in
// a subdirectory or a change that keeps the mtime are all reports. Any
// report, a lost report (the queue overflowed) or a failed watch means a
// full measure. A shared mapping changes bytes without a report, but not a
// file's size, and the measure is of sizes and entries only.
//
// The harness's own files in the sandbox (and its temporary names) change
// at every tick. Their reports are taken without a measure when what is on
// disk is exactly what the harness wrote: the same file present with the
// size of its copy, or absent, so their part of the measure is known; any
// other state of them, whoever made it, means a full measure.
type runMeasure struct {
	workdir string
	sandbox string
	limit   int64
	// expect says what the harness wrote to one of its files: its size
	// and whether it is there.
	expect func(name string) (int64, bool)
	ino    int // the inotify descriptor, -1 when off (every look measures)
	buf    []byte
	dirty  bool
	size   int64
	count  int
	own    map[string]int64 // the harness's entries in the sandbox at the last measure, by size
	wds    map[int]fileID
	ids    map[fileID]int
	sbxWd  int
	// measures counts full measures, for tests.
	measures int
}

// oPath opens a file only to name it: no read, and no side effect on a FIFO
// or a device.
const oPath = 0x200000

// fileID is an inode.
type fileID struct{ dev, ino uint64 }

// dirEvents are the changes to a directory's entries, and to itself; file
// events are the changes to a file's bytes, size and links.
const (
	dirEvents = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE | syscall.IN_CREATE |
		syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
	fileEvents = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
)

func newRunMeasure(workdir, sandbox string, limit int64, expect func(string) (int64, bool)) *runMeasure {
	m := &runMeasure{workdir: workdir, sandbox: sandbox, limit: limit, expect: expect, ino: -1, dirty: true,
		buf: make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))}
	m.reset()
	return m
}

// reset drops every watch and starts again with a fresh descriptor.
func (m *runMeasure) reset() {
	if m.ino >= 0 {
		syscall.Close(m.ino)
	}
	m.ino, m.dirty, m.sbxWd = -1, true, -1
	m.wds, m.ids = map[int]fileID{}, map[fileID]int{}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err == nil {
		m.ino = fd
	}
}

func (m *runMeasure) close() {
	if m.ino >= 0 {
		syscall.Close(m.ino)
		m.ino = -1
	}
}

// measure is dirSize of the run directory, taken again only when needed.
func (m *runMeasure) measure() (int64, int) {
	m.drain()
	if !m.dirty && m.ino >= 0 {
		return m.size, m.count
	}
	m.measures++
	m.dirty = false
	m.own = map[string]int64{}
	m.size, m.count = 0, 0
	fd, err := syscall.Open(m.workdir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		m.dirty = true
		return 0, 1
	}
	m.count = 1
	m.walk(fd, m.workdir, make([]byte, 8192))
	if m.ino < 0 {
		m.dirty = true
	}
	return m.size, m.count
}

// ownName reports whether name, an entry of the sandbox, is one the harness
// writes: one of its files or the temporary file it renames over one.
func ownName(name string) bool {
	if base, ok := strings.CutPrefix(name, ".amr-"); ok {
		if base, ok = strings.CutSuffix(base, ".tmp"); ok {
			name = base
		}
	}
	return sandbox.IsHarnessFile(name)
}

// walk adds what is under the open directory fd (at path) to the measure,
// watching each directory and each file not yet watched, and closes fd. It
// reports whether to go on (false once a bound is passed).
func (m *runMeasure) walk(fd int, path string, buf []byte) bool {
	defer syscall.Close(fd)
	wd := m.watch(fd, dirEvents|syscall.IN_ONLYDIR)
	if path == m.sandbox {
		m.sbxWd = wd
	}
	names := dirNames(fd, buf)
	for _, name := range names {
		if m.count++; m.count > maxRunDirEntries {
			return false
		}
		var st syscall.Stat_t
		if lstatAt(fd, name, &st) != nil {
			m.dirty = true // it went away or changed while listed: look again
			continue
		}
		own := path == m.sandbox && ownName(name)
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFREG:
			m.size += m.fileSize(fd, own, name, &st)
		case syscall.S_IFDIR:
			own = false // its entries are measured as any others
			sub, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
			if err != nil {
				m.dirty = true
			} else if !m.walk(sub, filepath.Join(path, name), buf) {
				return false
			}
		}
		if own && st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			m.own[name] = 0 // an entry with no bytes of the measure
		}
		if m.size > m.limit {
			return false
		}
	}
	return true
}

// fileSize is the size of a regular file for the measure. A file of the
// harness's in the sandbox is noted with its size; any other is watched
// first, by the inode the stat saw, and its size taken after the watch is
// in place so no later change goes unreported.
func (m *runMeasure) fileSize(dirfd int, own bool, name string, st *syscall.Stat_t) int64 {
	if own {
		m.own[name] = st.Size
		return st.Size
	}
	id := fileID{uint64(st.Dev), st.Ino}
	if _, ok := m.ids[id]; ok || m.ino < 0 {
		return st.Size
	}
	fd, err := syscall.Openat(dirfd, name, oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		m.dirty = true
		return st.Size
	}
	defer syscall.Close(fd)
	var now syscall.Stat_t
	if syscall.Fstat(fd, &now) != nil || now.Mode&syscall.S_IFMT != syscall.S_IFREG {
		m.dirty = true
		return st.Size
	}
	m.watch(fd, fileEvents)
	return now.Size
}

// watch puts a watch on the inode open at fd, through /proc/self/fd so it
// is that inode whatever its names became, and returns the watch, -1 when
// none. A watch that cannot be put (the limit of watches) turns the
// measure's memory off: every look measures from then on.
func (m *runMeasure) watch(fd int, mask uint32) int {
	if m.ino < 0 {
		return -1
	}
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		m.dirty = true
		return -1
	}
	id := fileID{uint64(st.Dev), st.Ino}
	if wd, ok := m.ids[id]; ok {
		return wd
	}
	wd, err := syscall.InotifyAddWatch(m.ino, "/proc/self/fd/"+strconv.Itoa(fd), mask)
	if err != nil {
		m.close()
		return -1
	}
	if old, ok := m.wds[wd]; ok {
		delete(m.ids, old)
	}
	m.wds[wd], m.ids[id] = id, wd
	return wd
}

// drain reads every report so far. A report on one of the harness's own
// entries is kept for a look at that entry; any other report, or an entry
// of the harness's not as the harness wrote it, makes the next measure a
// full one.
func (m *runMeasure) drain() {
	var own []string
	for m.ino >= 0 {
		n, err := syscall.Read(m.ino, m.buf)
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			break
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&m.buf[off]))
			name := strings.TrimRight(string(m.buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&syscall.IN_Q_OVERFLOW != 0:
				m.reset()
				return
			case ev.Mask&syscall.IN_IGNORED != 0:
				if id, ok := m.wds[int(ev.Wd)]; ok {
					delete(m.ids, id)
					delete(m.wds, int(ev.Wd))
				}
				m.dirty = true
			case int(ev.Wd) == m.sbxWd && name != "" && ownName(name) && ev.Mask&syscall.IN_ISDIR == 0:
				own = append(own, name)
			default:
				m.dirty = true
			}
		}
	}
	if !m.dirty {
		m.lookOwn(own)
	}
}

// lookOwn takes the reported harness entries into the measure when each is
// as the harness wrote it, and asks for a full measure otherwise.
func (m *runMeasure) lookOwn(names []string) {
	looked := map[string]bool{}
	for _, name := range names {
		if looked[name] {
			continue
		}
		looked[name] = true
		want, present := int64(0), false
		if !strings.HasPrefix(name, ".amr-") {
			want, present = m.expect(name)
		}
		var st syscall.Stat_t
		err := syscall.Lstat(filepath.Join(m.sandbox, name), &st)
		switch {
		case err == syscall.ENOENT && !present:
			m.account(name, 0, false)
		case err == nil && present && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Size == want:
			m.account(name, st.Size, true)
		default:
			m.dirty = true
			return
		}
	}
}

// account replaces an entry's part of the measure.
func (m *runMeasure) account(name string, size int64, present bool) {
	old, was := m.own[name]
	if was {
		m.size -= old
		m.count--
		delete(m.own, name)
	}
	if present {
		m.size += size
		m.count++
		m.own[name] = size
	}
}
