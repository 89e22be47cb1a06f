//go:build !unix

package safefile

import "os"

func openNonBlocking(path string, dir bool) (*os.File, error) {
	return os.Open(path)
}
