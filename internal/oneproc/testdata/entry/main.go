// Command entry reports how the runtime started and the CPUs its threads
// and a child of it may run on, for oneproc's TestEntry, which links it
// with oneproc's entry point.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	_ "github.com/gatedexec/gatedexec/internal/oneproc"
)

func main() {
	fmt.Println("numcpu", runtime.NumCPU())
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/status")
		if err != nil {
			continue // the thread ended
		}
		fmt.Println("thread", allowed(string(b)))
	}
	out, err := exec.Command("cat", "/proc/self/status").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("child", allowed(string(out)))
}

// allowed returns the Cpus_allowed_list of a status file.
func allowed(status string) string {
	for _, l := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
