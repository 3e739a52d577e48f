//go:build linux

package linux

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/gatedexec/gatedexec/sandbox"
)

func TestSeccompProgramCache(t *testing.T) {
	r := &Runner{}
	off := &sandbox.Profile{Name: "a", Network: sandbox.NetworkOff}
	sameRules := &sandbox.Profile{Name: "b", Network: sandbox.NetworkOff, Write: []string{"/w"}}
	on := &sandbox.Profile{Name: "c", Network: sandbox.NetworkOn}
	p1, _, err := r.seccompProgram(off)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		p      *sandbox.Profile
		shared bool
	}{
		{"the same profile again", off, true},
		{"another profile with the same seccomp table", sameRules, true},
		{"a profile that denies other calls", on, false},
	} {
		p2, _, err := r.seccompProgram(tt.p)
		if err != nil {
			t.Fatal(err)
		}
		if shared := &p1[0] == &p2[0]; shared != tt.shared {
			t.Errorf("%s: program shared %v, want %v", tt.name, shared, tt.shared)
		}
		want, err := buildBPF(seccompRules(tt.p))
		if err != nil {
			t.Fatal(err)
		}
		if string(p2) != string(want) {
			t.Errorf("%s: cached program differs from a fresh build", tt.name)
		}
	}
	// Another Runner (another engine) builds its own.
	p3, _, err := (&Runner{}).seccompProgram(off)
	if err != nil {
		t.Fatal(err)
	}
	if &p3[0] == &p1[0] {
		t.Error("two Runners share one cache")
	}
}

// A program kept in a profile's BuildCache is what another process's
// Runner takes: the one kept for its rules and build, a whole program,
// else a fresh build, which it keeps.
func TestSeccompProgramBuildCache(t *testing.T) {
	cache := sandbox.BuildCache{Dir: filepath.Join(t.TempDir(), "profiles"), Build: "build 1"}
	off := &sandbox.Profile{Name: "a", Network: sandbox.NetworkOff, BuildCache: cache}
	fresh, err := buildBPF(seccompRules(off))
	if err != nil {
		t.Fatal(err)
	}
	key := rulesKey(seccompRules(off))
	name, _ := programEntry(cache, key)
	entry := filepath.Join(cache.Dir, name)
	if got, _, err := (&Runner{}).seccompProgram(off); err != nil || string(got) != string(fresh) {
		t.Fatalf("first build: %v", err)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no entry kept: %v", err)
	}
	// A whole program kept for these rules is taken as it is: another
	// (here: one instruction shorter) proves it was read.
	kept := fresh[:len(fresh)-bpfInsnSize]
	storeProgram(cache, key, kept)
	if got, _, _ := (&Runner{}).seccompProgram(off); string(got) != string(kept) {
		t.Error("the kept program was not taken")
	}
	for _, tt := range []struct {
		name  string
		spoil func(t *testing.T)
		p     *sandbox.Profile
	}{
		{"another build", func(*testing.T) {}, &sandbox.Profile{Name: "a", Network: sandbox.NetworkOff,
			BuildCache: sandbox.BuildCache{Dir: cache.Dir, Build: "build 2"}}},
		{"no cache", func(*testing.T) {}, &sandbox.Profile{Name: "a", Network: sandbox.NetworkOff}},
		{"a flipped byte", func(t *testing.T) {
			b, err := os.ReadFile(entry)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 1
			if err := os.WriteFile(entry, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, off},
		{"not a whole program", func(*testing.T) { storeProgram(cache, key, kept[:len(kept)-1]) }, off},
		{"an empty program", func(*testing.T) { storeProgram(cache, key, nil) }, off},
	} {
		storeProgram(cache, key, kept)
		tt.spoil(t)
		got, _, err := (&Runner{}).seccompProgram(tt.p)
		if err != nil || string(got) != string(fresh) {
			t.Errorf("%s: %v; want a fresh build", tt.name, err)
		}
	}
	// A fresh build is kept in place of the spoilt entry.
	if got, _, _ := (&Runner{}).seccompProgram(off); string(got) != string(fresh) {
		t.Error("the fresh build was not kept")
	}
}

func TestRulesKey(t *testing.T) {
	base := []SyscallRule{{Syscall: "ioctl", Errno: 1, Conds: []ArgCond{{Arg: 1, Op: MaskedEqual, Mask: 0xff, Value: 2}}}}
	k := rulesKey(base)
	for _, change := range []func(r *SyscallRule){
		func(r *SyscallRule) { r.Syscall = "ioctm" },
		func(r *SyscallRule) { r.Errno = 2 },
		func(r *SyscallRule) { r.Conds[0].Arg = 2 },
		func(r *SyscallRule) { r.Conds[0].Op = NotEqual },
		func(r *SyscallRule) { r.Conds[0].Mask = 0xfe },
		func(r *SyscallRule) { r.Conds[0].Value = 3 },
		func(r *SyscallRule) { r.Conds = nil },
	} {
		r := base[0]
		r.Conds = append([]ArgCond(nil), base[0].Conds...)
		change(&r)
		if rulesKey([]SyscallRule{r}) == k {
			t.Errorf("rule %+v has the key of %+v", r, base[0])
		}
	}
	if rulesKey(append(base, base...)) == k {
		t.Error("a repeated rule has the key of one")
	}
}

func TestLandlockByABI(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	writable := &sandbox.Profile{ReadAll: true, Write: []string{dir}, Network: sandbox.NetworkOff}
	readOnly := &sandbox.Profile{Read: []string{"/usr"}, Write: []string{file}, Network: sandbox.NetworkOff}
	for abi := 1; abi <= MaxLandlockABI+2; abi++ {
		cfg := landlockConfig(writable, abi)
		known := landlockConfigs[min(abi, MaxLandlockABI)].HandledAccessFS
		if cfg.HandledAccessFS != known {
			t.Errorf("ABI %d: handles %v, want every right it knows (%v)", abi, cfg.HandledAccessFS, known)
		}
		if got := fsRights(abi, llsyscall.AccessFSTruncate) != 0; got != (abi >= 3) {
			t.Errorf("ABI %d: truncate known %v", abi, got)
		}
		// ABI 1 cannot grant refer: a writable directory is refused,
		// never granted less silently; a writable file needs no refer.
		_, err := landlockPathRules(writable, abi)
		if tooOld := errors.Is(err, errLandlockTooOld); tooOld != (abi == 1) {
			t.Errorf("ABI %d: writable directory: %v", abi, err)
		}
		if _, err := landlockPathRules(readOnly, abi); err != nil {
			t.Errorf("ABI %d: read-only tree and a writable file: %v", abi, err)
		}
	}
	if abi := landlockABI(); abi > 0 {
		fd, _, err := newRulesetFD(writable, abi)
		if err != nil || fd < 0 {
			t.Fatalf("kernel ABI %d: ruleset %d, %v", abi, fd, err)
		}
		os.NewFile(uintptr(fd), "ruleset").Close()
	}
}

func TestHostProbedOnce(t *testing.T) {
	r := &Runner{}
	a, b := r.host(), r.host()
	if a != b || a.LandlockABI != landlockABI() || a.Seccomp != seccompAvailable() {
		t.Errorf("host facts %+v then %+v; kernel ABI %d, seccomp %v", a, b, landlockABI(), seccompAvailable())
	}
}
