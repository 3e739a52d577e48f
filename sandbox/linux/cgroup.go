//go:build linux

package linux

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LayerPIDsCgroup names the pids cgroup that bounds the processes of a
// root run: the kernel exempts uid 0 from RLIMIT_NPROC, in a user
// namespace too.
const LayerPIDsCgroup = "pids-cgroup"

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// pidsCgroup is a cgroup of one run whose pids.max bounds its tasks.
type pidsCgroup struct{ dir string }

// newPidsCgroup makes a pids cgroup below this process's own, in the
// unified hierarchy or the v1 pids one, whichever has the controller.
func newPidsCgroup(max uint64) (*pidsCgroup, error) {
	parent, err := pidsParent()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(parent, fmt.Sprintf("gatedexec-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	g := &pidsCgroup{dir: dir}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(max, 10)), 0); err != nil {
		g.remove()
		return nil, err
	}
	return g, nil
}

// pidsParent returns the cgroup directory a run's cgroup is made in.
func pidsParent() (string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	defer f.Close()
	v1, v2 := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case slices.Contains(strings.Split(parts[1], ","), "pids"):
			v1 = parts[2]
		}
	}
	if v1 != "" {
		if d := filepath.Join(cgroupRoot, "pids", v1); isDir(d) {
			return d, nil
		}
	}
	if v2 != "" {
		d := filepath.Join(cgroupRoot, v2)
		if b, err := os.ReadFile(filepath.Join(d, "cgroup.subtree_control")); err == nil && slices.Contains(strings.Fields(string(b)), "pids") {
			return d, nil
		}
	}
	return "", errors.New("no pids cgroup controller to make a child in")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// add moves pid, and so everything it forks after, into the cgroup.
func (g *pidsCgroup) add(pid int) error {
	return os.WriteFile(filepath.Join(g.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
}

// remove deletes the cgroup once its last task is gone.
func (g *pidsCgroup) remove() {
	for i := 0; i < 50; i++ {
		if err := os.Remove(g.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
