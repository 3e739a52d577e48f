// Package buildid reads the Go build ID of the running executable from
// its own memory: the toolchain derives it from the executable's content,
// so two executables that differ in anything have different IDs, and
// reading it costs no system call (a stat of /proc/self/exe costs a fresh
// process more than ten microseconds: its /proc entries are new).
package buildid

import "encoding/binary"

// goNoteType is the type of the ELF note the Go linker writes the build
// ID in, under the owner "Go".
const goNoteType = 4

// goNote returns the Go build ID in notes, the bytes of an ELF PT_NOTE
// segment in the byte order order, or "" when it holds none or is
// malformed.
func goNote(notes []byte, order binary.ByteOrder) string {
	for len(notes) >= 12 {
		namesz, descsz, typ := order.Uint32(notes), order.Uint32(notes[4:]), order.Uint32(notes[8:])
		notes = notes[12:]
		name, ok := take(&notes, namesz)
		if !ok {
			return ""
		}
		desc, ok := take(&notes, descsz)
		if !ok {
			return ""
		}
		if typ == goNoteType && string(name) == "Go\x00\x00" {
			return string(desc)
		}
	}
	return ""
}

// take cuts n bytes, padded to a multiple of four, off the front of b.
func take(b *[]byte, n uint32) ([]byte, bool) {
	padded := (uint64(n) + 3) &^ 3
	if padded > uint64(len(*b)) {
		return nil, false
	}
	v := (*b)[:n]
	*b = (*b)[padded:]
	return v, true
}
