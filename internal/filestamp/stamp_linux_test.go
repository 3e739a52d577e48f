package filestamp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// later is a moment by which every file a test writes has settled.
func later() time.Time { return time.Now().Add(time.Hour) }

// stampOfPath opens name and returns its stamp as of now.
func stampOfPath(t *testing.T, name string, now time.Time) Stamp {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return Of(f, fi, now)
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestStampVouchesOnlyOnceSettled(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	writeFile(t, name, "abc")
	if s := stampOfPath(t, name, time.Now()); !s.IsZero() {
		t.Fatalf("a file written just now has stamp %+v", s)
	}
	s := stampOfPath(t, name, later())
	if s.IsZero() || s.Size != 3 {
		t.Fatalf("stamp %+v, want one of 3 bytes", s)
	}
	if !Holds(name, s) {
		t.Fatal("an unchanged file does not hold its stamp")
	}
	if Holds(name, Stamp{}) {
		t.Fatal("the zero stamp holds")
	}
	link := filepath.Join(filepath.Dir(name), "link")
	if err := os.Symlink(name, link); err != nil {
		t.Fatal(err)
	}
	if !Holds(link, s) {
		t.Fatal("a link to the file does not hold its stamp")
	}
}

// TestStampBreaks changes a stamped file in every way that can change
// its bytes, or what its name leads to, and checks the stamp no longer
// holds.
func TestStampBreaks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, name string)
	}{
		{"same bytes written again", func(t *testing.T, name string) { writeFile(t, name, "abc") }},
		{"one byte, same length and times", func(t *testing.T, name string) {
			st, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, name, "abd")
			if err := os.Chtimes(name, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated", func(t *testing.T, name string) {
			if err := os.Truncate(name, 1); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by a rename", func(t *testing.T, name string) {
			other := name + ".new"
			writeFile(t, other, "abc")
			if err := os.Rename(other, name); err != nil {
				t.Fatal(err)
			}
		}},
		{"mode changed", func(t *testing.T, name string) {
			if err := os.Chmod(name, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"removed", func(t *testing.T, name string) {
			if err := os.Remove(name); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory in its place", func(t *testing.T, name string) {
			if err := os.Remove(name); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(name, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "f")
			writeFile(t, name, "abc")
			s := stampOfPath(t, name, later())
			if s.IsZero() {
				t.Fatal("no stamp")
			}
			// The stamp stands for a file settled long before; the
			// change comes a tick of a coarse clock later, as any change
			// after a settled file was read does.
			time.Sleep(20 * time.Millisecond)
			tc.change(t, name)
			if Holds(name, s) {
				t.Fatalf("stamp %+v still holds", s)
			}
		})
	}
}

func TestNoStampOutsideLocalFiles(t *testing.T) {
	dir := t.TempDir()
	// procfs is not a file system whose times say anything of content.
	if s := stampOfPath(t, "/proc/self/status", later()); !s.IsZero() {
		t.Errorf("/proc/self/status has stamp %+v", s)
	}
	if s := stampOfPath(t, dir, later()); !s.IsZero() {
		t.Errorf("a directory has stamp %+v", s)
	}
}

func TestSettled(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, tc := range []struct {
		ctime int64
		want  bool
	}{
		{0, false},
		{now.UnixNano(), false},
		{now.Add(-Settle).UnixNano(), false},
		{now.Add(-Settle).UnixNano() - 1, true},
		{now.Add(time.Hour).UnixNano(), false},
	} {
		if got := settled(tc.ctime, now); got != tc.want {
			t.Errorf("settled(%d, %d) = %v, want %v", tc.ctime, now.UnixNano(), got, tc.want)
		}
	}
}
