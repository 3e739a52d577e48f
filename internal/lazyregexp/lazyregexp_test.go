package lazyregexp

import "testing"

func TestNew(t *testing.T) {
	re := New(`^a(b+)$`)
	if m := re().FindStringSubmatch("abbb"); len(m) != 2 || m[1] != "bbb" {
		t.Fatalf("match = %q", m)
	}
	if re() != re() {
		t.Error("compiled more than once")
	}
}
