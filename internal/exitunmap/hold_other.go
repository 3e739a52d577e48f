//go:build !(linux && amd64)

package exitunmap

// canHold says whether hold can leave anything to a child.
const canHold = false

// holder is the child this platform never starts.
type holder struct{}

// startSelf starts nothing: the process's exit unmaps its memory as usual.
func startSelf() *holder { return nil }

// leave gives nothing to the child there is not.
func (*holder) leave([]string) bool { return false }

// closeStdio has nothing to close ahead of an exit that leaves nothing.
func closeStdio() {}
