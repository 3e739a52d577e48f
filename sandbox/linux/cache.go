//go:build linux

package linux

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

// maxCachedPrograms bounds the seccomp programs a Runner keeps: a
// profile's program depends on a few of its switches only, so a handful
// covers every profile; past the bound the cache starts over.
const maxCachedPrograms = 64

// runnerCache is what a Runner (one per engine) works out once instead
// of on every run: a Gate serving many requests neither probes the host
// nor compiles the same seccomp program again.
type runnerCache struct {
	hostOnce sync.Once
	caps     Capabilities

	mu       sync.Mutex
	programs map[[sha256.Size]byte][]byte

	cgroupOnce sync.Once
	cgroups    *cgroupHost
	// sweepOnce sweeps stale cgroups (sweepStale) at a LongLived
	// Runner's first run.
	sweepOnce sync.Once

	// helper is the sealed memfd of the helper program, made at the
	// first run that needs it and kept for the Runner's life.
	helperOnce sync.Once
	helper     *os.File
	helperErr  error
	// helperCopy is the helper program's copy in a cache directory
	// (cachedHelper), opened at the first run that asks for one and kept
	// likewise; nil when there is none. copyFailed is set once a helper
	// failed to start from it: the memfd serves from then on.
	copyOnce   sync.Once
	helperCopy *os.File
	copyPath   string
	copyFailed atomic.Bool

	// kept are the placeholder directories of LongLived; background is
	// the cgroup work under way off the runs' paths (making ahead, the
	// sweep, a LongLived Runner's removals), which Close waits for.
	kept       keptHolders
	background sync.WaitGroup
	// pool is a LongLived Runner's helper started ahead (prestart.go).
	pool prestartPool
}

// cgroupHost returns this process's cgroups, read at the first run that
// sets a cgroup limit.
func (r *Runner) cgroupHost() *cgroupHost {
	c := &r.cache
	c.cgroupOnce.Do(func() { c.cgroups = readCgroupHost() })
	return c.cgroups
}

// helperExe returns the path the helper is executed by and the file the
// child must hold at selfFD for it (nil for none): r.Exe when set, else
// the helper built into this binary, by its copy in the build cache bc when
// one is given (and the first such run's directory serves every later
// run of r), else by its sealed memfd. copied says the copy it is.
func (r *Runner) helperExe(bc sandbox.BuildCache) (exe string, self *os.File, copied bool, err error) {
	if r.Exe != "" {
		return r.Exe, nil, false, nil
	}
	c := &r.cache
	if bc.Dir != "" && bc.Build != "" && !c.copyFailed.Load() {
		c.copyOnce.Do(func() { c.helperCopy, c.copyPath = cachedHelper(bc) })
		if c.helperCopy != nil {
			return selfPath, c.helperCopy, true, nil
		}
	}
	c.helperOnce.Do(func() { c.helper, c.helperErr = sealedHelper() })
	if c.helperErr != nil {
		return "", nil, false, c.helperErr
	}
	return selfPath, c.helper, false, nil
}

// dropHelperCopy is called once a helper failed to start from the copy
// helperExe gave: r's later runs take the memfd, and the copy is removed
// (when its name still leads to it), so that the next gatedexec writes it
// afresh rather than fail on the same damaged one.
func (r *Runner) dropHelperCopy() {
	c := &r.cache
	c.copyFailed.Store(true)
	var opened, named unix.Stat_t
	if unix.Fstat(int(c.helperCopy.Fd()), &opened) == nil && unix.Lstat(c.copyPath, &named) == nil &&
		opened.Dev == named.Dev && opened.Ino == named.Ino {
		os.Remove(c.copyPath)
	}
}

// host returns the host's facts for planning a run, read once. The
// namespaces are found out by trying when a run needs them (probing
// them costs a clone); a host without them falls back or refuses then.
func (r *Runner) host() Capabilities {
	c := &r.cache
	c.hostOnce.Do(func() {
		c.caps = Capabilities{
			LandlockABI: landlockABI(),
			Seccomp:     seccompAvailable(),
			UserNS:      true, MountNS: true, NetNS: true, PIDNS: true,
			Root: os.Geteuid() == 0,
		}
	})
	return c.caps
}

// seccompProgram returns the BPF program of p's seccomp table, built once
// per table and Runner, and kept between processes in p's BuildCache: the
// key is the table's content, so two profiles that deny the same calls
// share one program, and any change to what is denied is a different key,
// which it returns too (rulesKey).
func (r *Runner) seccompProgram(p *sandbox.Profile) ([]byte, [sha256.Size]byte, error) {
	rules := seccompRules(p)
	key := rulesKey(rules)
	if prog := r.cache.program(key); prog != nil {
		return prog, key, nil
	}
	// Then from the profile's build cache (programcache.go): another
	// process built it.
	prog := loadProgram(p.BuildCache, key)
	if prog == nil {
		var err error
		if prog, err = buildBPF(rules); err != nil {
			return nil, key, err
		}
		storeProgram(p.BuildCache, key, prog)
	}
	r.cache.keepProgram(key, prog)
	return prog, key, nil
}

// program returns the program kept for the table whose key (rulesKey) is
// key; nil for none.
func (c *runnerCache) program(key [sha256.Size]byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.programs[key]
}

// keepProgram keeps prog as the program of the table whose key is key.
func (c *runnerCache) keepProgram(key [sha256.Size]byte, prog []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.programs == nil || len(c.programs) >= maxCachedPrograms {
		c.programs = map[[sha256.Size]byte][]byte{}
	}
	c.programs[key] = prog
}

// rulesKey is a digest of every field of rules, in order.
func rulesKey(rules []SyscallRule) [sha256.Size]byte {
	h := sha256.New()
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	for _, r := range rules {
		put(uint64(len(r.Syscall)))
		h.Write([]byte(r.Syscall))
		put(uint64(r.Errno))
		put(uint64(len(r.Conds)))
		for _, c := range r.Conds {
			put(uint64(c.Arg))
			put(uint64(c.Op))
			put(c.Mask)
			put(c.Value)
		}
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}
