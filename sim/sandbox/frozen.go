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
// It is for a reader that holds a sandbox's files until it exits, as amr
// check does; a buffer that is reused must never be frozen.
func Freeze(data []byte) {
	if len(data) == 0 {
		return
	}
	frozen.Lock()
	defer frozen.Unlock()
	frozen.bufs = append(frozen.bufs, data)
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
