package buildid

import (
	"encoding/binary"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// note encodes one ELF note in little-endian order.
func note(name string, typ uint32, desc string) []byte {
	pad := func(b []byte) []byte {
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(name)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
	b = binary.LittleEndian.AppendUint32(b, typ)
	b = append(pad(append(b, name...)), desc...)
	return pad(b)
}

// TestGoNote: the Go note is found among others, and notes that claim
// more bytes than there are, or another owner or type, yield nothing.
func TestGoNote(t *testing.T) {
	id := "abc/def"
	gnu := note("GNU\x00", 3, "0123456789abcdefghij")
	goOwn := note("Go\x00\x00", goNoteType, id)
	for _, tt := range []struct {
		name  string
		notes []byte
		want  string
	}{
		{"alone", goOwn, id},
		{"after another", append(append([]byte{}, gnu...), goOwn...), id},
		{"before another", append(append([]byte{}, goOwn...), gnu...), id},
		{"empty", nil, ""},
		{"other type", note("Go\x00\x00", 1, id), ""},
		{"other owner", note("GNU\x00", goNoteType, id), ""},
		{"truncated desc", goOwn[:len(goOwn)-4], ""},
		{"truncated header", goOwn[:8], ""},
		{"huge sizes", append(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 4), 1<<32-1), goOwn...), ""},
	} {
		if got := goNote(tt.notes, binary.LittleEndian); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func FuzzGoNote(f *testing.F) {
	f.Add(note("Go\x00\x00", goNoteType, "x/y"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if id := goNote(b, binary.LittleEndian); len(id) > len(b) {
			t.Fatalf("build ID of %d bytes from %d", len(id), len(b))
		}
	})
}

// TestRunning: the ID read from memory is the one `go tool buildid`
// reads from the test binary's file.
func TestRunning(t *testing.T) {
	got := Running()
	if runtime.GOOS != "linux" {
		if got != "" {
			t.Fatalf("Running() = %q off Linux", got)
		}
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Fatalf("go tool buildid %s: %v", exe, err)
	}
	want := strings.TrimSpace(string(out))
	if want == "" || got != want {
		t.Errorf("Running() = %q, go tool buildid says %q", got, want)
	}
}
