package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// fixture builds a tree with every kind of entry a layer can hold and
// returns its root and every path in it, plus some that are not.
func fixture(t *testing.T) (string, []string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "layer")
	write(t, filepath.Join(root, "config.toml"), "profile = \"p\"\n")
	write(t, filepath.Join(root, "rules", "a.rules"), "prefix_rule(pattern=[\"ls\"])\n")
	write(t, filepath.Join(root, "rules", "b.rules"), "")
	write(t, filepath.Join(base, "shared", "s.toml"), "description = \"shared\"\n")
	symlink(t, "../shared", filepath.Join(root, "profiles"))
	symlink(t, "a.rules", filepath.Join(root, "rules", "c.rules"))
	symlink(t, "nowhere", filepath.Join(root, "rules", "d.rules"))
	symlink(t, "../config.toml", filepath.Join(root, "rules", "linked-dir.rules"))
	if err := os.Mkdir(filepath.Join(root, "rules", "sub.rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "rules", "fifo.rules"), 0o644); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, rel := range []string{".", "config.toml", "rules", "rules/a.rules", "rules/b.rules", "rules/c.rules",
		"rules/d.rules", "rules/linked-dir.rules", "rules/sub.rules", "rules/fifo.rules", "profiles", "profiles/s.toml",
		"missing", "rules/missing.rules", "config.toml/under-a-file"} {
		paths = append(paths, filepath.Join(root, rel))
	}
	return root, paths
}

// answers is what an FS says about one path, errors reduced to what the
// loaders look at.
type answers struct {
	statErr, isDir, isRegular bool
	entries                   []string
	entryTypes                []fs.FileMode
	dirErr                    bool
	data                      string
	readErr                   string // "", "notexist", "notregular", "other"
}

func ask(fsys FS, path string) answers {
	var a answers
	if st, err := fsys.Stat(path); err != nil {
		a.statErr = true
	} else {
		a.isDir, a.isRegular = st.IsDir(), st.Mode().IsRegular()
	}
	if ents, err := fsys.ReadDir(path); err != nil {
		a.dirErr = true
	} else {
		for _, e := range ents {
			a.entries = append(a.entries, e.Name())
			a.entryTypes = append(a.entryTypes, e.Type())
		}
	}
	data, err := fsys.ReadFile(path, 1<<20)
	switch {
	case err == nil:
		a.data = string(data)
	case errors.Is(err, fs.ErrNotExist):
		a.readErr = "notexist"
	case errors.Is(err, ErrNotRegular):
		a.readErr = "notregular"
	default:
		a.readErr = "other"
	}
	return a
}

// A snapshot answers exactly as the disk did when it was taken, and keeps
// answering so after the disk changes.
func TestTreeAnswersAsTheDiskDid(t *testing.T) {
	root, paths := fixture(t)
	want := map[string]answers{}
	for _, p := range paths {
		want[p] = ask(Disk{}, p)
	}
	tree, err := Take(root)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, p := range paths {
			if got := ask(tree, p); !reflect.DeepEqual(got, want[p]) {
				t.Errorf("%s: %s: snapshot says %+v, disk said %+v", when, p, got, want[p])
			}
		}
	}
	check("unchanged")

	write(t, filepath.Join(root, "rules", "a.rules"), "prefix_rule(pattern=[\"curl\"], decision=\"allow\")\n")
	write(t, filepath.Join(root, "rules", "new.rules"), "prefix_rule(pattern=[\"sh\"], decision=\"allow\")\n")
	write(t, filepath.Join(root, "profiles", "s.toml"), "description = \"swapped\"\n")
	if err := os.Remove(filepath.Join(root, "config.toml")); err != nil {
		t.Fatal(err)
	}
	check("after the disk changed")
	if again, err := Take(root); err != nil || again.Digest() == tree.Digest() {
		t.Errorf("digest after the change: %v, %v; before: %s", again, err, tree.Digest())
	}
}

func TestTreeOutsideRootReadsDisk(t *testing.T) {
	root, _ := fixture(t)
	tree, err := Take(root)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(root), "later.rules")
	write(t, outside, "written after the snapshot")
	// "layer-2" shares the root's name as a prefix but is not under it.
	sibling := root + "-2"
	write(t, filepath.Join(sibling, "x"), "sibling")
	for path, want := range map[string]string{outside: "written after the snapshot", filepath.Join(sibling, "x"): "sibling"} {
		if got, err := tree.ReadFile(path, 100); err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want the disk's %q", path, got, err, want)
		}
	}
}

func TestTreeReadFileCopies(t *testing.T) {
	root, _ := fixture(t)
	tree, err := Take(root)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(root, "config.toml")
	b, _ := tree.ReadFile(name, 100)
	b[0] = 'X'
	if again, _ := tree.ReadFile(name, 100); again[0] == 'X' {
		t.Fatal("a caller changing what ReadFile returned changed the snapshot")
	}
	if _, err := tree.ReadFile(name, 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over its limit: %v, want ErrTooLarge", err)
	}
}

func TestDigest(t *testing.T) {
	dir := t.TempDir()
	digest := func() string {
		t.Helper()
		tree, err := Take(dir)
		if err != nil {
			t.Fatal(err)
		}
		return tree.Digest()
	}
	missing, err := Take(filepath.Join(dir, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		change func()
	}{
		{"empty", func() {}},
		{"a file", func() { write(t, filepath.Join(dir, "a", "x"), "1") }},
		{"its contents", func() { write(t, filepath.Join(dir, "a", "x"), "2") }},
		{"its name", func() {
			if err := os.Rename(filepath.Join(dir, "a", "x"), filepath.Join(dir, "a", "y")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a link", func() { symlink(t, "a/y", filepath.Join(dir, "l")) }},
		{"its target", func() {
			os.Remove(filepath.Join(dir, "l"))
			symlink(t, "./a/y", filepath.Join(dir, "l"))
		}},
		{"an empty dir", func() { os.Mkdir(filepath.Join(dir, "e"), 0o755) }},
		{"a fifo", func() { syscall.Mkfifo(filepath.Join(dir, "f"), 0o644) }},
	}
	seen := map[string]string{}
	for _, s := range steps {
		s.change()
		d := digest()
		if prev, ok := seen[d]; ok {
			t.Errorf("after %s: digest %s repeats the one after %s", s.name, d, prev)
		}
		seen[d] = s.name
		if again := digest(); again != d {
			t.Errorf("after %s: unstable digest %s then %s", s.name, d, again)
		}
	}
	// An empty directory configures what a missing one does.
	if seen[missing.Digest()] != "empty" {
		t.Errorf("missing dir digest %s is not the empty dir's", missing.Digest())
	}
}

// The digest counts the bytes it hashes. A file whose stat size is not
// what reading it gives (one in /proc says 0; a file may change while
// read) would otherwise let its bytes pass for entries the tree does not
// hold: a link to a process's cmdline reading `"b"\x00dir\x00`, then
// empty beside a directory b, was two trees with one digest.
func TestDigestCountsWhatWasRead(t *testing.T) {
	const target = "/proc/self/cmdline"
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	symlink(t, target, filepath.Join(dir, "a"))
	tree, err := Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Read by the same process, so the same bytes.
	data, err := os.ReadFile(target)
	if err != nil || len(data) == 0 {
		t.Fatalf("%s: %q, %v", target, data, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q\x00link %q\x00file %d\x00", "a", target, len(data))
	h.Write(data)
	if want := hex.EncodeToString(h.Sum(nil)); tree.Digest() != want {
		t.Errorf("digest %s, want %s: the one over the %d bytes read", tree.Digest(), want, len(data))
	}
}

func TestTakeLimits(t *testing.T) {
	t.Run("link loop", func(t *testing.T) {
		// Two links back to their own directory: the tree they make
		// doubles at every level.
		dir := t.TempDir()
		symlink(t, ".", filepath.Join(dir, "loop"))
		symlink(t, ".", filepath.Join(dir, "loop2"))
		if _, err := Take(dir); err == nil {
			t.Fatal("a symlink loop was taken without error")
		}
	})
	t.Run("bytes", func(t *testing.T) {
		dir := t.TempDir()
		f, err := os.Create(filepath.Join(dir, "big"))
		if err != nil {
			t.Fatal(err)
		}
		// Sparse: the size is refused before anything is read.
		if err := f.Truncate(MaxBytes + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, err := Take(dir); err == nil {
			t.Fatal("a tree over MaxBytes was taken without error")
		}
	})
	t.Run("not a directory", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		write(t, file, "x")
		if _, err := Take(file); err == nil {
			t.Fatal("a file was taken as a tree")
		}
	})
}

// readCase is a file Disk reads with a limit, and what it reads.
type readCase struct {
	name  string
	limit int64
	want  string
	err   error
}

// diskReadCases are the files TestDiskReadFile and TestDiskSum read.
func diskReadCases(t *testing.T) []readCase {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "f")
	write(t, file, "12345")
	empty := filepath.Join(dir, "empty")
	write(t, empty, "")
	big := filepath.Join(dir, "big")
	bigData := strings.Repeat("0123456789abcdef", 5000)
	write(t, big, bigData)
	var grows []readCase
	if runtime.GOOS == "linux" {
		// Stat says 0 bytes; what is read past the limit is refused.
		grows = append(grows, readCase{"/proc/self/status", 10, "", ErrTooLarge})
	}
	return append([]readCase{
		// Opened without blocking, a FIFO is refused rather than waited on.
		{fifo, 100, "", ErrNotRegular},
		{"/dev/zero", 100, "", ErrNotRegular},
		{file, 4, "", ErrTooLarge},
		{file, 5, "12345", nil},
		{empty, 5, "", nil},
		{big, int64(len(bigData)), bigData, nil},
		{big, int64(len(bigData)) - 1, "", ErrTooLarge},
		{filepath.Join(dir, "missing"), 100, "", fs.ErrNotExist},
	}, grows...)
}

func TestDiskReadFile(t *testing.T) {
	for _, c := range diskReadCases(t) {
		b, err := (Disk{}).ReadFile(c.name, c.limit)
		if !errors.Is(err, c.err) || c.err == nil && string(b) != c.want {
			t.Errorf("ReadFile(%s, %d) = %d bytes, %v; want %d, %v", c.name, c.limit, len(b), err, len(c.want), c.err)
		}
	}
}

// TestDiskSum: Sum hashes what ReadFile reads, and refuses what it
// refuses.
func TestDiskSum(t *testing.T) {
	for _, c := range diskReadCases(t) {
		sum, size, err := (Disk{}).Sum(c.name, c.limit)
		if !errors.Is(err, c.err) || c.err == nil && (sum != sha256.Sum256([]byte(c.want)) || size != int64(len(c.want))) {
			t.Errorf("Sum(%s, %d) = %x, %d bytes, %v; want the hash of %d bytes, %v", c.name, c.limit, sum[:4], size, err, len(c.want), c.err)
		}
	}
}

// TestSumTruncated: a mapping whose file is cut short under it faults
// past the new end; the hash reports that, and does not crash.
func TestSumTruncated(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	write(t, name, strings.Repeat("x", 3*os.Getpagesize()))
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, 3*os.Getpagesize(), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	if _, ok := sumFaulting(b); !ok {
		t.Fatal("the whole file did not hash")
	}
	if err := os.Truncate(name, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := sumFaulting(b); ok {
		t.Error("a mapping past its file's end hashed")
	}
}

// TestTreeSum: a file of the tree hashes as its snapshot, which a change
// on the disk since does not change; one outside hashes from the disk.
func TestTreeSum(t *testing.T) {
	root, _ := fixture(t)
	tree, err := Take(root)
	if err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(root, "rules", "a.rules")
	want := sha256.Sum256([]byte("prefix_rule(pattern=[\"ls\"])\n"))
	write(t, rules, "changed")
	if sum, _, err := tree.Sum(rules, 100); err != nil || sum != want {
		t.Errorf("Sum of a file in the tree = %x, %v; want its snapshot's hash", sum[:4], err)
	}
	outside := filepath.Join(t.TempDir(), "o")
	write(t, outside, "out")
	if sum, _, err := tree.Sum(outside, 100); err != nil || sum != sha256.Sum256([]byte("out")) {
		t.Errorf("Sum of a file outside the tree = %x, %v", sum[:4], err)
	}
}

func TestEntries(t *testing.T) {
	root, _ := fixture(t)
	tree, err := Take(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tree.Entries() {
		s := e.Path
		if e.Link != "" {
			s += " -> " + e.Link
		}
		switch {
		case e.Dangling:
			s += " dangling"
		case e.Mode.IsDir():
			s += "/"
		case e.Mode.IsRegular():
			s += " " + strconv.FormatInt(e.Size, 10)
		default:
			s += " other"
		}
		got = append(got, s)
	}
	want := []string{
		"config.toml 14",
		"profiles -> ../shared/",
		"profiles/s.toml 23",
		"rules/",
		"rules/a.rules 28",
		"rules/b.rules 0",
		"rules/c.rules -> a.rules 28",
		"rules/d.rules -> nowhere dangling",
		"rules/fifo.rules other",
		"rules/linked-dir.rules -> ../config.toml 14",
		"rules/sub.rules/",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Entries:\n%q\nwant\n%q", got, want)
	}
}
