package sandbox

import (
	"sync"
	"unsafe"
)

// frozen holds the buffers Freeze was given, for the life of the process:
// held, so that no other allocation can take their place.
var frozen struct {
	sync.Mutex
	bufs [][]byte
}

// Freeze declares that data will never be modified again. The parsers may
// then keep slices of it rather than copies: a record's strings point into
// it, and ParseAudit keeps its lines there instead of in a copy of its own.
// It is for a reader that holds a sandbox's files to its end, as amr check
// does; a buffer that is reused must never be frozen. The returned function
// forgets data, so that later parses of it copy again; what was parsed from
// it still points into it, so it must still not be modified.
func Freeze(data []byte) (release func()) {
	if len(data) == 0 {
		return func() {}
	}
	frozen.Lock()
	defer frozen.Unlock()
	frozen.bufs = append(frozen.bufs, data)
	return func() { forget(data) }
}

func forget(data []byte) {
	frozen.Lock()
	defer frozen.Unlock()
	for i, b := range frozen.bufs {
		if unsafe.SliceData(b) == unsafe.SliceData(data) && len(b) == len(data) {
			frozen.bufs = append(frozen.bufs[:i], frozen.bufs[i+1:]...)
			frozen.bufs = frozen.bufs[:len(frozen.bufs):len(frozen.bufs)]
			return
		}
	}
}

// isFrozen reports whether data lies within a frozen buffer.
func isFrozen(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	end := start + uintptr(len(data))
	frozen.Lock()
	defer frozen.Unlock()
	for _, b := range frozen.bufs {
		s := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if start >= s && end <= s+uintptr(len(b)) {
			return true
		}
	}
	return false
}
