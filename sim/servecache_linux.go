//go:build linux

package sim

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// readCache keeps the sandbox files an implementation process read, so a
// step that reads every file reads from disk only those that changed since.
// The kernel reports every change to the sandbox directory (inotify), and it
// queues the report in the very system call that made the change: whatever
// the harness wrote before it sent "tick N" is reported before that line can
// be read, so a file is never served stale. Only the sandbox's own entries
// are kept; files in its subdirectories are read every time.
type readCache struct {
	ino   int // the inotify descriptor; -1 once the cache is off
	files map[string][]byte
	buf   []byte
	loads int // reads that went to disk, for tests
	// settled is set while nothing but this process changes the sandbox:
	// the reports were drained once, and a read need not look again.
	settled bool
}

// cacheEvents are every change to an entry of the directory, and the
// directory itself going away.
const cacheEvents = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE | syscall.IN_CREATE |
	syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF

// newReadCache watches root; without a watch it caches nothing.
func newReadCache(root string) *readCache {
	c := &readCache{ino: -1, files: map[string][]byte{}}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return c
	}
	if _, err := syscall.InotifyAddWatch(fd, root, cacheEvents); err != nil {
		syscall.Close(fd)
		return c
	}
	c.ino, c.buf = fd, make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))
	return c
}

// read returns name's content, from the cache when it has not changed since
// it was last loaded, else from load. Errors are never kept.
func (c *readCache) read(root, name string, limit int64, load func() ([]byte, error)) ([]byte, error) {
	if c.ino < 0 || strings.Contains(name, "/") {
		c.loads++
		return load()
	}
	if !c.settled {
		c.drain()
	}
	if data, ok := c.files[name]; ok && c.ino >= 0 {
		return cloneFile(data), nil
	}
	c.loads++
	if data, ok := loadRegular(filepath.Join(root, name), limit); ok {
		c.files[name] = cloneFile(data)
		return data, nil
	}
	data, err := load()
	if err != nil || c.ino < 0 {
		return data, err
	}
	// A link's target changes where no watch sees it: never kept.
	if info, lerr := os.Lstat(filepath.Join(root, name)); lerr == nil && !info.Mode().IsRegular() {
		return data, nil
	}
	c.files[name] = cloneFile(data)
	return data, nil
}

// loadRegular reads path when it is a regular file itself, no link, of at
// most limit bytes, in plain system calls: an open that follows no link, a
// stat, reads to the end and a close. That is what the store's Read returns
// for such a file, and what the cache may keep without a look for a link.
// Anything else (absent, a link, a FIFO, a directory, too large, an error)
// reports false, and the caller reads through the store, whose answer and
// errors stay its own.
func loadRegular(path string, limit int64) ([]byte, bool) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > limit {
		return nil, false
	}
	// One byte more than the size, so a file that grew is read to its end
	// and one at its size needs only the read that finds the end.
	buf := make([]byte, 0, st.Size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, false
		}
	}
	return buf, true
}

// cloneFile copies data, keeping nil (an absent file) apart from empty.
func cloneFile(data []byte) []byte {
	if data == nil {
		return nil
	}
	return append(make([]byte, 0, len(data)), data...)
}

// settle takes in every change reported so far, and lets the reads until
// unsettle trust the cache without looking again: for a round of work in
// the step and one-shot regimes, where the harness writes the sandbox only
// before the round starts (D225).
func (c *readCache) settle() {
	c.drain()
	c.settled = true
}

func (c *readCache) unsettle() { c.settled = false }

// forget drops name, which this process is about to write.
func (c *readCache) forget(name string) { delete(c.files, name) }

// wrote keeps data as name's content after this process replaced the file
// with it, in a settled round only: nothing else changes the sandbox then
// (D225), so the file holds what was written until the next round's drain,
// which drops it on the write's own report. The next step's read of it,
// the round's usual way of seeing its own work, then costs no system call
// (D286). A content larger than limit, which a read refuses, is not kept.
func (c *readCache) wrote(name string, data []byte, limit int64) {
	if !c.keeps(name, int64(len(data)), limit) {
		return
	}
	// Never nil, which is kept for an absent file: the file is there,
	// empty or not.
	c.files[name] = append(make([]byte, 0, len(data)), data...)
}

// appended extends a kept name by the line this process just appended, as
// the store writes it: the line and a newline. A name not kept stays so.
func (c *readCache) appended(name string, line []byte, limit int64) {
	old, ok := c.files[name]
	delete(c.files, name)
	if !ok || old == nil {
		// Not kept, or kept as absent: what the append created is
		// read from disk.
		return
	}
	if !c.keeps(name, int64(len(old)+len(line)+1), limit) {
		return
	}
	// The cache's bytes are its own (a read is handed a copy), so the
	// line is added in place.
	c.files[name] = append(append(old, line...), '\n')
}

func (c *readCache) keeps(name string, size, limit int64) bool {
	return c.settled && c.ino >= 0 && !strings.Contains(name, "/") && size <= limit
}

// drain reads every change reported so far and drops what it names. A lost
// report (the queue overflowed) drops everything; the directory gone turns
// the cache off.
func (c *readCache) drain() {
	for c.ino >= 0 {
		n, err := syscall.Read(c.ino, c.buf)
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			return
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&c.buf[off]))
			nameBytes := c.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF|syscall.IN_IGNORED) != 0:
				c.off()
				return
			case ev.Mask&syscall.IN_Q_OVERFLOW != 0:
				clear(c.files)
			default:
				delete(c.files, strings.TrimRight(string(nameBytes), "\x00"))
			}
		}
	}
}

func (c *readCache) off() {
	clear(c.files)
	if c.ino >= 0 {
		syscall.Close(c.ino)
		c.ino = -1
	}
}
