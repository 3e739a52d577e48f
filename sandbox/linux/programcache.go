//go:build linux

package linux

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/gatedexec/gatedexec/internal/cachefile"
	"github.com/gatedexec/gatedexec/sandbox"
)

// A one-shot run compiled its seccomp program on every start (0.1 ms of
// a sandboxed /bin/true, most of it a cold process's first touch of the
// compiler): a program depends only on its rules and on the compiler, so
// it is kept in the profile's BuildCache, keyed on both, and read back
// (cachefile: private to the user, framed by its key and a checksum) by
// the next start. The kernel checks a program it loads; an entry that is
// no whole program is not read.

// programCacheMagic starts every entry; a change of the format changes it.
const programCacheMagic = "gatedexec-seccomp-1\n"

// programEntry returns the name and key of the entry of the program of
// the rules whose digest is rules (rulesKey), built by c.Build.
func programEntry(c sandbox.BuildCache, rules [sha256.Size]byte) (string, [cachefile.KeySize]byte) {
	h := sha256.New()
	h.Write([]byte(programCacheMagic))
	h.Write([]byte(c.Build))
	h.Write([]byte{0})
	h.Write(rules[:])
	var key [cachefile.KeySize]byte
	copy(key[:], h.Sum(nil))
	return "seccomp-" + hex.EncodeToString(key[:16]), key
}

// loadProgram returns the program kept in c for rules, or nil.
func loadProgram(c sandbox.BuildCache, rules [sha256.Size]byte) []byte {
	if c.Dir == "" || c.Build == "" {
		return nil
	}
	name, key := programEntry(c, rules)
	entry, ok := cachefile.Read(c.Dir, name, maxProgramEntry)
	if !ok {
		return nil
	}
	prog, err := cachefile.Open(programCacheMagic, key, entry)
	if err != nil || !wholeProgram(len(prog)) {
		return nil
	}
	return prog
}

// storeProgram keeps prog, the program of rules, in c.
func storeProgram(c sandbox.BuildCache, rules [sha256.Size]byte, prog []byte) {
	if c.Dir == "" || c.Build == "" {
		return
	}
	name, key := programEntry(c, rules)
	entry := cachefile.Header(programCacheMagic, key)
	cachefile.Write(c.Dir, name, cachefile.Seal(append(entry, prog...)), maxProgramEntry)
}

// maxProgramEntry bounds an entry: the largest program and its frame.
const maxProgramEntry = bpfMaxInsns*bpfInsnSize + 256
