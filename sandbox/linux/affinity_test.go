//go:build linux

package linux

import (
	"bytes"
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

// TestMoveAside: a helper just started leaves the CPU the runner is on,
// and keeps the others.
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
	want := mine.Count() - 1
	if mine.Count() < 2 {
		want = mine.Count() // nowhere to go
	}
	if got.Count() != want {
		t.Errorf("moved to %d CPUs, want %d (of %d)", got.Count(), want, mine.Count())
	}
	for c := range 1024 {
		if got.IsSet(c) && !mine.IsSet(c) {
			t.Errorf("moved to CPU %d, which the runner may not use", c)
		}
	}
}
