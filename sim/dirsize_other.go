//go:build !(linux && amd64)

package sim

func dirSize(root string, maxBytes int64) (int64, int) { return walkSize(root, maxBytes) }
