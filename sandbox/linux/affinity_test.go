//go:build linux

package linux

import (
	"bytes"
	"math"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

func TestCPUMask(t *testing.T) {
	long := func(words ...uint64) []byte {
		var b []byte
		for _, w := range words {
			for i := range 8 {
				b = append(b, byte(w>>(8*i)))
			}
		}
		return b
	}
	tests := []struct {
		name string
		cpus []int
		want []byte
	}{
		{"none", nil, []byte{}},
		{"first", []int{0}, long(1)},
		{"two", []int{0, 1}, long(3)},
		{"second long", []int{65}, long(0, 2)},
		{"last", []int{1023}, append(make([]byte, 120), long(1<<63)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var set unix.CPUSet
			for _, c := range tt.cpus {
				set.Set(c)
			}
			if got := cpuMask(&set); !bytes.Equal(got, tt.want) {
				t.Errorf("cpuMask(%v) = %x, want %x", tt.cpus, got, tt.want)
			}
		})
	}
}

func TestAsideCPUs(t *testing.T) {
	set := func(cpus ...int) unix.CPUSet {
		var s unix.CPUSet
		for _, c := range cpus {
			s.Set(c)
		}
		return s
	}
	tests := []struct {
		name          string
		cpus          unix.CPUSet
		cpu, runnable int
		want          unix.CPUSet
		ok            bool
	}{
		{"two idle", set(0, 1), 0, 1, set(1), true},
		{"the helper and the runner", set(0, 1), 1, 2, set(0), true},
		{"one more task", set(0, 1), 0, 3, set(0, 1), false},
		{"one CPU", set(3), 3, 1, set(3), false},
		{"four", set(0, 1, 2, 3), 2, 4, set(0, 1, 3), true},
		{"on a CPU not its own", set(0, 1), 5, 1, set(0, 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := asideCPUs(tt.cpus, tt.cpu, tt.runnable)
			if ok != tt.ok || got != tt.want {
				t.Errorf("asideCPUs = %v %v, want %v %v", cpuList(got), ok, cpuList(tt.want), tt.ok)
			}
		})
	}
}

func cpuList(s unix.CPUSet) []int {
	var l []int
	for c := range 1024 {
		if s.IsSet(c) {
			l = append(l, c)
		}
	}
	return l
}

// TestMoveAside: a helper just started leaves at most the CPU the runner
// is on, and goes nowhere the runner may not.
func TestMoveAside(t *testing.T) {
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	moveAside(cmd.Process.Pid)
	var got unix.CPUSet
	if err := unix.SchedGetaffinity(cmd.Process.Pid, &got); err != nil {
		t.Fatal(err)
	}
	if n := got.Count(); n != mine.Count() && (n != mine.Count()-1 || n == 0) {
		t.Errorf("moved to %v, from %v", cpuList(got), cpuList(mine))
	}
	for _, c := range cpuList(got) {
		if !mine.IsSet(c) {
			t.Errorf("moved to CPU %d, which the runner may not use", c)
		}
	}
}

func TestParseRunnable(t *testing.T) {
	tests := []struct {
		line string
		want int
	}{
		{"0.42 1.10 1.43 1/112 21462\n", 1},
		{"0.00 0.00 0.00 12/3000 7", 12},
		{"0.42 1.10 1.43", math.MaxInt},
		{"0.42 1.10 1.43 112 21462", math.MaxInt},
		{"0.42 1.10 1.43 x/112 21462", math.MaxInt},
		{"0.42 1.10 1.43 -1/112 21462", math.MaxInt},
		{"", math.MaxInt},
	}
	for _, tt := range tests {
		if got := parseRunnable(tt.line); got != tt.want {
			t.Errorf("parseRunnable(%q) = %d, want %d", tt.line, got, tt.want)
		}
	}
	if n := runnableTasks(); n < 1 || n == math.MaxInt {
		t.Errorf("runnableTasks() = %d: this thread at least is runnable", n)
	}
}
