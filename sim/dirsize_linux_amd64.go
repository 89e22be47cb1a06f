//go:build linux && amd64

package sim

import (
	"syscall"
	"unsafe"
)

// dirSize is walkSize measured relative to each directory's descriptor:
// one fstatat per entry, where a walk by path resolves each file's whole
// path again and sorts every directory. It runs at the end of every tick.
func dirSize(root string, maxBytes int64) (size int64, entries int) {
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, 1
	}
	entries = 1
	sizeDir(fd, make([]byte, 8192), maxBytes, &size, &entries)
	return size, entries
}

// sizeDir adds what is under the open directory fd, and closes it. It
// reports whether to go on.
func sizeDir(fd int, buf []byte, maxBytes int64, size *int64, entries *int) bool {
	defer syscall.Close(fd)
	names := dirNames(fd, buf)
	for _, name := range names {
		if *entries++; *entries > maxRunDirEntries {
			return false
		}
		var st syscall.Stat_t
		if lstatAt(fd, name, &st) != nil {
			continue
		}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFREG:
			*size += st.Size
		case syscall.S_IFDIR:
			sub, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
			if err == nil && !sizeDir(sub, buf, maxBytes, size, entries) {
				return false
			}
		}
		if *size > maxBytes {
			return false
		}
	}
	return true
}

// atSymlinkNoFollow makes fstatat describe a link, not its target.
const atSymlinkNoFollow = 0x100

// lstatAt is fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW).
func lstatAt(dirfd int, name string, st *syscall.Stat_t) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(st)), atSymlinkNoFollow, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// dirNames lists the open directory fd's entries, reading with buf; a read
// that fails ends the list where it is.
func dirNames(fd int, buf []byte) []string {
	var names []string
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			return names
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
}
