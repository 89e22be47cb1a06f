//go:build !linux

package sim

// readCache caches nothing where the kernel cannot report changes.
type readCache struct{ loads int }

func newReadCache(string) *readCache { return &readCache{} }

func (c *readCache) read(_, _ string, _ int64, load func() ([]byte, error)) ([]byte, error) {
	c.loads++
	return load()
}

func (c *readCache) forget(string) {}

func (c *readCache) wrote(string, []byte, int64)    {}
func (c *readCache) appended(string, []byte, int64) {}

func (c *readCache) settle()   {}
func (c *readCache) unsettle() {}
