package test

import (
	"debug/elf"
	"debug/gosym"
	"debug/macho"
	"fmt"
	"path/filepath"
	"testing"
)

// TestFuncTabSorted: the function tables of the binaries under test are
// in address order, as the Go runtime's lookups by program counter need.
// The runtime checked it at every start; gatedexec's build, through
// scripts/depatch, leaves that check of a property of the binary to this
// test of the binary.
func TestFuncTabSorted(t *testing.T) {
	for _, name := range []string{"gatedexec", "gatedexec-mcp"} {
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(binDir, name)
			pcln, text, err := funcTabSections(bin)
			if err != nil {
				t.Fatal(err)
			}
			tab, err := gosym.NewTable(nil, gosym.NewLineTable(pcln, text))
			if err != nil {
				t.Fatalf("%s: reading its function table: %v", bin, err)
			}
			if len(tab.Funcs) < 1000 {
				t.Fatalf("%s: %d functions in its table; want a whole table", bin, len(tab.Funcs))
			}
			for i := 1; i < len(tab.Funcs); i++ {
				if prev, f := tab.Funcs[i-1], tab.Funcs[i]; f.Entry < prev.Entry {
					t.Fatalf("%s: function %d, %s at %#x, comes after %s at %#x", bin, i, f.Name, f.Entry, prev.Name, prev.Entry)
				}
			}
		})
	}
}

// funcTabSections returns the contents of bin's pclntab and the address
// of its text, from an ELF or a Mach-O file.
func funcTabSections(bin string) (pcln []byte, text uint64, err error) {
	var tab interface{ Data() ([]byte, error) }
	if f, err := elf.Open(bin); err == nil {
		defer f.Close()
		if p, x := f.Section(".gopclntab"), f.Section(".text"); p != nil && x != nil {
			tab, text = p, x.Addr
		}
	} else if f, err := macho.Open(bin); err == nil {
		defer f.Close()
		if p, x := f.Section("__gopclntab"), f.Section("__text"); p != nil && x != nil {
			tab, text = p, x.Addr
		}
	} else {
		return nil, 0, fmt.Errorf("%s: neither ELF nor Mach-O: %w", bin, err)
	}
	if tab == nil {
		return nil, 0, fmt.Errorf("%s: no Go function table or no text section", bin)
	}
	pcln, err = tab.Data()
	return pcln, text, err
}
