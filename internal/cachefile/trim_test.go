//go:build unix

package cachefile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestExpired(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	// many is n entries, step apart from newest back.
	many := func(n int, newest time.Time, step time.Duration) []usedFile {
		var fs []usedFile
		for i := range n {
			fs = append(fs, usedFile{fmt.Sprintf("e%03d", i), newest.Add(-time.Duration(i) * step)})
		}
		return fs
	}
	for _, tt := range []struct {
		name  string
		files []usedFile
		want  []string
	}{
		{"used lately", []usedFile{{"a", ago(time.Hour)}, {"b", ago(6 * 24 * time.Hour)}}, nil},
		{"unused a week", []usedFile{{"a", ago(maxUnused + time.Second)}, {"b", ago(maxUnused - time.Second)}}, []string{"a"}},
		{"from the future", []usedFile{{"a", now.Add(365 * 24 * time.Hour)}}, nil},
		{"a dead writer's temporary", []usedFile{{".a.tmp-0011", ago(staleTemp + time.Second)}, {".b.tmp-0011", ago(time.Minute)}}, []string{".a.tmp-0011"}},
		{"the marker", []usedFile{{trimMarker, ago(30 * 24 * time.Hour)}}, nil},
		{"at the bound", many(maxEntries, now, time.Minute), nil},
		{"past the bound, least recently used", many(maxEntries+2, ago(2*touchAfter), time.Minute),
			[]string{fmt.Sprintf("e%03d", maxEntries), fmt.Sprintf("e%03d", maxEntries+1)}},
		{"past the bound after the unused go", append(many(maxEntries, now, time.Minute), usedFile{"old", ago(maxUnused + time.Hour)}), []string{"old"}},
		{"past the bound by a burst within the touch time", many(maxEntries+2, now, time.Second), nil},
		{"past the bound, the one used within the touch time kept", append(many(maxEntries, now, time.Second),
			usedFile{"cold", ago(2 * touchAfter)}, usedFile{"hot", ago(touchAfter / 2)}), []string{"cold"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := expired(tt.files, now)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("expired = %q, want %q", got, tt.want)
			}
		})
	}
}

// trim removes what expired selects, only regular files, and at most once
// per trimEvery.
func TestTrim(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	Write(dir, "fresh", []byte("x"), 9)
	now := time.Now()
	old := now.Add(-maxUnused - time.Hour)
	for _, name := range []string{"old", ".old.tmp-ab"} {
		must(t, os.WriteFile(filepath.Join(dir, name), nil, 0o600))
		must(t, os.Chtimes(filepath.Join(dir, name), old, old))
	}
	must(t, os.Mkdir(filepath.Join(dir, "olddir"), 0o700))
	must(t, os.Symlink("fresh", filepath.Join(dir, "oldlink")))
	ts := unix.NsecToTimespec(old.UnixNano())
	for _, name := range []string{"olddir", "oldlink"} {
		must(t, unix.UtimesNanoAt(unix.AT_FDCWD, filepath.Join(dir, name), []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW))
	}
	// Write trimmed the directory a moment ago: nothing goes.
	trim(dir, now)
	assertNames(t, dir, "fresh", "old", ".old.tmp-ab", "olddir", "oldlink", trimMarker)
	trim(dir, now.Add(trimEvery+time.Second))
	assertNames(t, dir, "fresh", "olddir", "oldlink", trimMarker)
	st, err := os.Lstat(filepath.Join(dir, trimMarker))
	if err != nil || st.ModTime().Unix() != now.Add(trimEvery+time.Second).Unix() {
		t.Errorf("marker %v, %v; want it at the trim's time", st, err)
	}
}

// Write trims the directory it writes to.
func TestWriteTrims(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	must(t, os.MkdirAll(dir, 0o700))
	old := time.Now().Add(-maxUnused - time.Hour)
	must(t, os.WriteFile(filepath.Join(dir, "old"), nil, 0o600))
	must(t, os.Chtimes(filepath.Join(dir, "old"), old, old))
	Write(dir, "new", []byte("x"), 9)
	assertNames(t, dir, "new", trimMarker)
}

// trim leaves a directory it cannot trust alone, and never follows a
// link in place of the directory.
func TestTrimUntrustedDirectory(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "c")
	must(t, os.MkdirAll(dir, 0o700))
	old := time.Now().Add(-maxUnused - time.Hour)
	must(t, os.WriteFile(filepath.Join(dir, "old"), nil, 0o600))
	must(t, os.Chtimes(filepath.Join(dir, "old"), old, old))
	link := filepath.Join(base, "link")
	must(t, os.Symlink(dir, link))
	trim(link, time.Now())
	assertNames(t, dir, "old")
	must(t, os.Chmod(dir, 0o770))
	trim(dir, time.Now())
	assertNames(t, dir, "old")
}

// Read moves an entry's modification time on when it is older than
// touchAfter, so that trim keeps what is used.
func TestReadTouches(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	Write(dir, "e", []byte("x"), 9)
	entry := filepath.Join(dir, "e")
	for _, tt := range []struct {
		age     time.Duration
		touched bool
	}{{touchAfter + time.Minute, true}, {touchAfter - time.Minute, false}} {
		then := time.Now().Add(-tt.age).Truncate(time.Second)
		must(t, os.Chtimes(entry, then, then))
		if _, ok := Read(dir, "e", 9); !ok {
			t.Fatal("Read failed")
		}
		st, err := os.Stat(entry)
		must(t, err)
		if touched := !st.ModTime().Equal(then); touched != tt.touched {
			t.Errorf("entry %v old: touched %v, want %v", tt.age, touched, tt.touched)
		}
	}
}

func assertNames(t *testing.T, dir string, want ...string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	must(t, err)
	var got []string
	for _, e := range es {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s holds %q, want %q", dir, got, want)
	}
}
