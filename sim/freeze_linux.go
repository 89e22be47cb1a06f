package sim

import (
	"sync"
	"sync/atomic"
	"syscall"
)

// A freezer stops a process group the moment it changes the sandbox, while
// a crash after k writes is armed. A look at the sandbox every few
// milliseconds lets a process write several lines between two looks, so a
// cut between two writes made in one burst was almost never landed; the
// kernel reports each write as it happens (inotify), and a SIGSTOP sent at
// once usually holds the process before its next one. The driver then
// looks, lands the crash if it is due, and lets the process go on. It is
// still a race, only a much shorter one.
type freezer struct {
	ino, ep int
	dir     string
	// wd is the watch on dir, -1 while nothing is held: the kernel then
	// reports nothing, and the loop's thread never wakes.
	wd   int
	quit [2]int // a pipe: writing to quit[1] ends the loop
	// C gets a value after every batch of changes, once the group, if one
	// is held, has been sent SIGSTOP.
	C    chan struct{}
	pgid atomic.Int64 // the group to stop; 0: none
	mu   sync.Mutex   // serialises stopping and resuming
	once sync.Once
	done chan struct{}
}

// freezeEvents are the changes that count: what a write, a rewrite by
// rename, a new or a removed file does to the sandbox directory.
const freezeEvents = syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE | syscall.IN_CREATE | syscall.IN_MOVED_TO | syscall.IN_DELETE

// newFreezer watches dir; it returns nil when the kernel will not, and the
// driver then relies on its looks alone.
func newFreezer(dir string) *freezer {
	f := &freezer{ino: -1, ep: -1, wd: -1, dir: dir, quit: [2]int{-1, -1}, C: make(chan struct{}, 1), done: make(chan struct{})}
	if !f.open(dir) {
		f.closeFDs()
		return nil
	}
	go f.loop()
	return f
}

func (f *freezer) open(dir string) bool {
	var err error
	if f.ino, err = syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK); err != nil {
		return false
	}
	// The watch is added when a group is first held; a directory the
	// kernel will not watch is found now.
	wd, err := syscall.InotifyAddWatch(f.ino, dir, freezeEvents)
	if err != nil {
		return false
	}
	_, _ = syscall.InotifyRmWatch(f.ino, uint32(wd))
	if err = syscall.Pipe2(f.quit[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return false
	}
	if f.ep, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err != nil {
		return false
	}
	for _, fd := range []int{f.ino, f.quit[0]} {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
		if err = syscall.EpollCtl(f.ep, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return false
		}
	}
	return true
}

func (f *freezer) closeFDs() {
	for _, fd := range []int{f.ino, f.ep, f.quit[0], f.quit[1]} {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
}

// loop waits in epoll on its own thread, so a write wakes it without going
// through the runtime's network poller.
func (f *freezer) loop() {
	defer close(f.done)
	defer f.closeFDs()
	buf := make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))
	events := make([]syscall.EpollEvent, 2)
	for {
		n, err := syscall.EpollWait(f.ep, events, -1)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return
		}
		changed := false
		for _, ev := range events[:n] {
			if int(ev.Fd) == f.quit[0] {
				return
			}
			for {
				m, err := syscall.Read(f.ino, buf)
				if m <= 0 || err != nil {
					break
				}
				changed = true
			}
		}
		if changed {
			f.stop()
		}
	}
}

// stop sends SIGSTOP to the held group and wakes the driver. With no group
// held nothing is armed, and a wake would only make the driver look at a
// sandbox it has no cut to land in: the harness's own writes of every tick
// would cost a walk of the sandbox each.
func (f *freezer) stop() {
	// The stop and the wake happen under the lock release takes, so a
	// release never comes between them: a group released is never stopped
	// again, and no wake is left pending for a driver that holds nothing.
	f.mu.Lock()
	defer f.mu.Unlock()
	pg := f.pgid.Load()
	if pg == 0 {
		return
	}
	_ = syscall.Kill(-int(pg), syscall.SIGSTOP)
	select {
	case f.C <- struct{}{}:
	default: // a wake is pending already; its look resumes the group
	}
}

// hold makes the next change stop the group pgid; 0 holds nothing.
func (f *freezer) hold(pgid int) {
	if f == nil {
		return
	}
	if pgid != 0 {
		f.watch(true)
	}
	f.pgid.Store(int64(pgid))
}

// watch adds or removes the watch on the sandbox directory. Changes made
// while nothing is held are not reported at all: each report woke the
// loop's thread, at every write of every tick.
func (f *freezer) watch(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case on && f.wd < 0:
		if wd, err := syscall.InotifyAddWatch(f.ino, f.dir, freezeEvents); err == nil {
			f.wd = wd
		}
	case !on && f.wd >= 0:
		_, _ = syscall.InotifyRmWatch(f.ino, uint32(f.wd))
		f.wd = -1
	}
}

// resume lets the held group go on after a look. SIGCONT to a group that
// was not stopped does nothing.
func (f *freezer) resume() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if pg := f.pgid.Load(); pg != 0 {
		_ = syscall.Kill(-int(pg), syscall.SIGCONT)
	}
}

// release stops holding, and lets the group go on. A wake still pending
// is dropped: it was for the group just let go.
func (f *freezer) release() {
	if f == nil {
		return
	}
	f.mu.Lock()
	if pg := f.pgid.Load(); pg != 0 {
		_ = syscall.Kill(-int(pg), syscall.SIGCONT)
	}
	f.pgid.Store(0)
	select {
	case <-f.C:
	default:
	}
	f.mu.Unlock()
	f.watch(false)
}

// wake is the channel a driver selects on; nil (never ready) without a
// freezer.
func (f *freezer) wake() <-chan struct{} {
	if f == nil {
		return nil
	}
	return f.C
}

// close ends the watch and lets the group go on.
func (f *freezer) close() {
	if f == nil {
		return
	}
	f.once.Do(func() {
		f.release()
		_, _ = syscall.Write(f.quit[1], []byte{0})
		<-f.done
	})
}
