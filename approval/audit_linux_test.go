package approval

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAuditFullDisk fills a 64 KiB tmpfs until a record does not fit:
// the failed write must leave nothing of itself, and after space is freed
// the next record is whole (issue 11 item 2). Mounting needs root; CI
// runs as root, so there it never skips.
func TestAuditFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("TestAuditFullDisk must run as root when CI is set")
		}
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatalf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	path := filepath.Join(dir, "audit.jsonl")
	l, err := OpenLog(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	filler := filepath.Join(dir, "filler")
	// Fill what a page-granular tmpfs leaves, bar one partial page.
	fill, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	fill.Write(make([]byte, 64<<10-6000))
	fill.Close()
	big := strings.Repeat("x", 3000)
	var werr error
	n := 0
	for ; n < 100 && werr == nil; n++ {
		werr = l.Write(Record{Session: strconv.Itoa(n), Argv: []string{"echo", big}})
	}
	if werr == nil {
		t.Fatal("the disk never filled")
	}
	before := checkLines(t, path)
	if len(before) != n-1 {
		t.Fatalf("%d whole records after %d writes, one failed", len(before), n)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(Record{Session: "after", Argv: []string{"echo", big}}); err != nil {
		t.Fatal(err)
	}
	after := checkLines(t, path)
	if len(after) != len(before)+1 || after[len(after)-1] != "after" {
		t.Fatalf("records after freeing space: %v", after)
	}
}
