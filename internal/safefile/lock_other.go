//go:build !unix

package safefile

// WithDirLock runs f; without flock there is no lock to take.
func WithDirLock(dir string, f func() error) error { return f() }
