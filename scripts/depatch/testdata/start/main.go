// Command start reports what the Go runtime's start left behind, for
// TestRuntimePatches: the threads at main, the CPU cgroup's files the
// runtime holds open, and the same after the runtime sized GOMAXPROCS
// again for the CPUs the process was started with.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	_ "github.com/gatedexec/gatedexec/internal/oneproc"
)

func main() {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("threads", len(tasks))
	fmt.Println("cgroup", cgroupFiles())
	runtime.SetDefaultGOMAXPROCS()
	fmt.Println("cgroup-after", cgroupFiles())
	fmt.Println("gomaxprocs", runtime.GOMAXPROCS(0))
}

// cgroupFiles returns the files under /sys/fs/cgroup the process has
// open, sorted, joined by commas.
func cgroupFiles() string {
	fds, _ := os.ReadDir("/proc/self/fd")
	var files []string
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(to, "/sys/fs/cgroup/") {
			files = append(files, to)
		}
	}
	sort.Strings(files)
	return strings.Join(files, ",")
}
