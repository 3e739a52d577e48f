//go:build !(linux && amd64)

package exitunmap

// hold does nothing: the process's exit unmaps its memory as usual.
func hold() {}
