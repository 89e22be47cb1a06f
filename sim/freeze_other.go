//go:build !linux

package sim

// Without inotify there is no freezer: the driver relies on its looks.
type freezer struct{}

func newFreezer(string) *freezer         { return nil }
func (f *freezer) hold(int)              {}
func (f *freezer) resume()               {}
func (f *freezer) release()              {}
func (f *freezer) wake() <-chan struct{} { return nil }
func (f *freezer) close()                {}
