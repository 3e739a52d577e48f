package sandbox

import (
	"strings"
	"testing"
)

func TestTailBuffer(t *testing.T) {
	for _, tt := range []struct {
		max    int
		writes []string
		want   string
	}{
		{5, []string{"abc"}, "abc"},
		{5, []string{"abc", "def"}, "bcdef"},
		{5, []string{"abcdefgh"}, "defgh"},
		{5, []string{"ab", "cdefghij", "k"}, "ghijk"},
		{0, []string{"abc"}, ""},
	} {
		tb := &TailBuffer{Max: tt.max}
		total := 0
		for _, w := range tt.writes {
			n, err := tb.Write([]byte(w))
			if err != nil || n != len(w) {
				t.Fatalf("Write = %d, %v", n, err)
			}
			total += n
		}
		if got := string(tb.Bytes()); got != tt.want {
			t.Errorf("%d %q: got %q, want %q (wrote %d)", tt.max, strings.Join(tt.writes, "|"), got, tt.want, total)
		}
	}
}
