package buildid

import (
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"
)

// phdr64 is an ELF64 program header (Elf64_Phdr).
type phdr64 struct {
	typ, flags                    uint32
	off, vaddr, paddr, filesz, sz uint64
	align                         uint64
}

const (
	atPhdr  = 3 // AT_PHDR: where the program headers are mapped
	atPhent = 4 // AT_PHENT: the size of one
	atPhnum = 5 // AT_PHNUM: how many there are
	ptNote  = 4
	ptPhdr  = 6
	// maxPhdrs bounds what is read from the auxiliary vector's word.
	maxPhdrs = 256
)

// Running returns the Go build ID of the running executable, or "" when
// it has none (built with -buildid=) or it cannot be found: the kernel
// tells where the program headers are mapped (AT_PHDR), and the one of
// type PT_NOTE where the notes are, which the Go linker maps with the
// text.
func Running() string {
	auxv, err := unix.Auxv()
	if err != nil {
		return ""
	}
	var at [atPhnum + 1]uintptr
	for _, kv := range auxv {
		if kv[0] < uintptr(len(at)) {
			at[kv[0]] = kv[1]
		}
	}
	addr, size, n := at[atPhdr], at[atPhent], at[atPhnum]
	if addr == 0 || size != unsafe.Sizeof(phdr64{}) || n == 0 || n > maxPhdrs {
		return ""
	}
	phdrs := unsafe.Slice((*phdr64)(unsafe.Add(nil, addr)), n)
	// A position-independent executable is mapped away from the
	// addresses its headers give: PT_PHDR says by how much.
	var bias uintptr
	for _, p := range phdrs {
		if p.typ == ptPhdr {
			bias = addr - uintptr(p.vaddr)
		}
	}
	for _, p := range phdrs {
		if p.typ != ptNote || p.sz == 0 || p.filesz != p.sz {
			continue
		}
		notes := unsafe.Slice((*byte)(unsafe.Add(nil, uintptr(p.vaddr)+bias)), p.sz)
		if id := goNote(notes, binary.NativeEndian); id != "" {
			return id
		}
	}
	return ""
}
