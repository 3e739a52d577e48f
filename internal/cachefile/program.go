package cachefile

import "os"

// A program entry is a file to execute (the sandbox helper gatedexec
// carries), kept so that a start opens it instead of writing it out
// afresh. It has no frame, since the kernel executes it as it is: what
// is checked is what Read checks of who could have written it, its size
// and that it is executable. Its content is then trusted as every
// entry's is, and for the same reason: only the user, outside any
// sandbox (gatedexec's caches are among the files a sandboxed command
// cannot write), could have changed it, and that user can change what
// an entry of the rules or profile caches says too.

// OpenProgram returns the program entry name in dir open for reading
// (close-on-exec), or false when there is none that can be trusted or
// its size is not size.
func OpenProgram(dir, name string, size int64) (*os.File, bool) {
	f, st, ok := openEntry(dir, name)
	if !ok {
		return nil, false
	}
	if st.Size() != size || st.Mode().Perm()&0o100 == 0 {
		f.Close()
		return nil, false
	}
	used(f, st)
	return f, true
}

// WriteProgram replaces the program entry name in dir with data, which
// only its owner may read and execute, and no one write (mode 0500).
// Like Write it is best effort.
func WriteProgram(dir, name string, data []byte) {
	write(dir, name, data, 0o500)
}
