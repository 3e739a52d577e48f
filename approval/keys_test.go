package approval

import (
	"io"
	"testing"
)

// reads is an io.Reader that returns one element per Read, as a terminal
// returns what arrived together.
type reads []string

func (r *reads) Read(b []byte) (int, error) {
	if len(*r) == 0 {
		return 0, io.EOF
	}
	n := copy(b, (*r)[0])
	*r = (*r)[1:]
	return n, nil
}

// TestKeyReaderTakesOnlyLoneKeys: a key pressed on its own is an answer;
// a terminal's reply (an escape sequence, whole or split over reads, or an
// answerback string), a paste and a Meta key are not, and Ctrl-C denies
// wherever it comes.
func TestKeyReaderTakesOnlyLoneKeys(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reads reads
		keys  []byte // the key of each read, 0 for none
		intr  int    // the read holding an interrupt, -1 for none
	}{
		{"lone keys", reads{"y", "n", "Y"}, []byte{'y', 'n', 'Y'}, -1},
		{"decrqm reply", reads{"\x1b[4;2$y", "y"}, []byte{0, 'y'}, -1},
		{"split reply", reads{"\x1b[4;2$", "y", "y"}, []byte{0, 0, 'y'}, -1},
		{"split after esc", reads{"\x1b", "[", "4", "y", "y"}, []byte{0, 0, 0, 0, 'y'}, -1},
		{"osc title reply, st", reads{"\x1b]ly", "\x1b", "\\", "y"}, []byte{0, 0, 0, 'y'}, -1},
		{"osc, bel", reads{"\x1b]l", "y", "\x07", "y"}, []byte{0, 0, 0, 'y'}, -1},
		{"dcs reply", reads{"\x1bP1$r", "y", "\x1b\\", "a"}, []byte{0, 0, 0, 'a'}, -1},
		{"answerback", reads{"PuTTY", "y"}, []byte{0, 'y'}, -1},
		{"arrow key", reads{"\x1b[A", "y"}, []byte{0, 'y'}, -1},
		{"ss3 key", reads{"\x1bO", "P", "y"}, []byte{0, 0, 'y'}, -1},
		{"meta-y", reads{"\x1b", "y", "y"}, []byte{0, 0, 'y'}, -1},
		{"ctrl-c in a burst", reads{"\x1b[4;2$y\x03"}, []byte{0}, 0},
		{"ctrl-c in a string", reads{"\x1b]l", "\x03"}, []byte{0, 0}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := &keyReader{r: &tt.reads}
			for i, want := range tt.keys {
				in, err := k.next()
				if err != nil {
					t.Fatalf("read %d: %v", i, err)
				}
				if in.key != want {
					t.Errorf("read %d: key %q, want %q", i, in.key, want)
				}
				if in.interrupt != (i == tt.intr) {
					t.Errorf("read %d: interrupt %v", i, in.interrupt)
				}
			}
			if _, err := k.next(); err != io.EOF {
				t.Errorf("after the reads: %v, want EOF", err)
			}
		})
	}
}
