package lazyregexp

import "testing"

func TestGet(t *testing.T) {
	re := &Regexp{Expr: `^a(b+)$`}
	if m := re.Get().FindStringSubmatch("abbb"); len(m) != 2 || m[1] != "bbb" {
		t.Fatalf("match = %q", m)
	}
	if re.Get() != re.Get() {
		t.Error("compiled more than once")
	}
}

// TestInvalidPanicsOnUse: an invalid expression costs nothing until it is
// used, and then panics as regexp.MustCompile does.
func TestInvalidPanicsOnUse(t *testing.T) {
	re := &Regexp{Expr: `(`}
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	re.Get()
}
