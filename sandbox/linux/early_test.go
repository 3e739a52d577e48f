//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

// TestEarlyHintCodec: a hint decodes to what was encoded, and a body that
// is not one (flags it does not know, no namespaces, a hint to join a
// kept network namespace for a runner that keeps none, a seccomp program
// that is not whole or not for an init's target, anything left over) is
// refused.
func TestEarlyHintCodec(t *testing.T) {
	r := &Runner{KeptNetNS: "/run/x"}
	ns := uint32(unix.CLONE_NEWNS | unix.CLONE_NEWPID)
	for _, h := range []earlyHint{
		{},
		{ok: true, key: prestartKey{unshare: ns}, limits: limitsOf(64, 0)},
		{ok: true, key: prestartKey{unshare: ns, keptNet: true}, limits: limitsOf(8192, 1<<34)},
		{ok: true, key: prestartKey{unshare: ns, bpf: strings.Repeat("12345678", 3)}, limits: limitsOf(64, 0), rules: [32]byte{1, 2, 3}},
	} {
		if h.ok {
			h.key.limits = limitsKey(h.limits)
		}
		got, ok := decodeEarlyHint(r, h.encode())
		if !ok || !got.same(h) || got.ok && limitsKey(got.limits) != limitsKey(h.limits) || got.rules != h.rules {
			t.Errorf("%+v: decoded %+v, %v", h, got, ok)
		}
	}
	kept := earlyHint{ok: true, key: prestartKey{unshare: ns, keptNet: true}, limits: limitsOf(1, 1)}.encode()
	withProgram := earlyHint{ok: true, key: prestartKey{unshare: ns, bpf: "12345678"}}.encode()
	for name, body := range map[string][]byte{
		"empty":                      nil,
		"unknown flag":               {4},
		"kept net, not ok":           {2},
		"no namespaces":              {1, 0, 1, 1},
		"too many":                   {1, 0x80, 0x80, 0x80, 0x80, 0x10, 1, 1},
		"left over":                  append(earlyHint{}.encode(), 0),
		"cut short":                  {1, 5},
		"partial program":            earlyHint{ok: true, key: prestartKey{unshare: ns, bpf: "1234567"}}.encode(),
		"program, no init":           earlyHint{ok: true, key: prestartKey{unshare: unix.CLONE_NEWNS, bpf: "12345678"}}.encode(),
		"program, its key cut short": withProgram[:len(withProgram)-1],
	} {
		if h, ok := decodeEarlyHint(r, body); ok {
			t.Errorf("%s: decoded %+v", name, h)
		}
	}
	if h, ok := decodeEarlyHint(&Runner{}, kept); ok {
		t.Errorf("a kept network namespace for a runner that keeps none: decoded %+v", h)
	}
}

// TestLendProgram: the seccomp program a hint was kept with is the run's
// when the run's table is the one it was kept for, without the program
// cache (the profile has none here); another table's run builds its own.
func TestLendProgram(t *testing.T) {
	p := &sandbox.Profile{Network: sandbox.NetworkOff, UnixSockets: true}
	const lent = "12345678" // not the table's program: only the hint has it
	r := &Runner{}
	e := &early{had: true, hint: earlyHint{ok: true, key: prestartKey{unshare: unix.CLONE_NEWNS | unix.CLONE_NEWPID, bpf: lent},
		rules: rulesKey(seccompRules(p))}}
	e.lendProgram(&r.cache)
	if got, _, err := r.seccompProgram(p); err != nil || string(got) != lent {
		t.Errorf("the run's program: %x, %v; want the hint's %x", got, err, lent)
	}
	other := &sandbox.Profile{Network: sandbox.NetworkOn}
	want, err := buildBPF(seccompRules(other))
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := r.seccompProgram(other); err != nil || !bytes.Equal(got, want) {
		t.Errorf("another table's program: %d bytes, %v; want its own %d", len(got), err, len(want))
	}
}

// FuzzDecodeEarlyHint: no body panics the decoder, and what it decodes
// encodes back to a hint that decodes the same.
func FuzzDecodeEarlyHint(f *testing.F) {
	f.Add([]byte{0})
	f.Add(earlyHint{ok: true, key: prestartKey{unshare: unix.CLONE_NEWNS}, limits: limitsOf(64, 0)}.encode())
	r := &Runner{KeptNetNS: "/run/x"}
	f.Fuzz(func(t *testing.T, body []byte) {
		h, ok := decodeEarlyHint(r, body)
		if !ok {
			return
		}
		again, ok := decodeEarlyHint(r, h.encode())
		if !ok || !again.same(h) {
			t.Fatalf("%x decoded %+v, which encodes to %+v", body, h, again)
		}
	})
}

// TestStartEarly: a one-shot Runner told the profile of its next run
// before the profile is read (StartEarly) keeps what the run needed of
// its helper; the next run's helper is started from it before that run,
// which takes it. A helper started for other needs (another profile since)
// is ended, the run starts its own and its needs are kept instead; and
// EndEarly ends a helper no run took. Every run is sandboxed all the same.
func TestStartEarly(t *testing.T) {
	requireLandlock(t)
	ws := t.TempDir()
	bc := sandbox.BuildCache{Dir: t.TempDir(), Build: "test-build"}
	p := &sandbox.Profile{Name: "off", Enforcement: sandbox.Strict, ReadAll: true, Write: []string{ws},
		Network: sandbox.NetworkOff, UnixSockets: true, Limits: sandbox.Limits{NProc: 64}, BuildCache: bc}
	const id = "off\x00ws"
	var out, errb bytes.Buffer
	command := func() *Command {
		out.Reset()
		errb.Reset()
		return &Command{Argv: []string{"sh", "-c", `echo $$; grep '^CapEff' /proc/self/status | tr -d '\t'; exit 7`},
			Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out, Stderr: &errb}
	}
	run := func(r *Runner, c *Command) {
		t.Helper()
		c.Profile = p
		res, err := r.Run(context.Background(), c)
		if err != nil {
			t.Fatalf("%v (stderr %q)", err, errb.String())
		}
		if res.ExitCode != 7 || out.String() != "2\nCapEff:0000000000000000\n" {
			t.Errorf("exit %d, output %q; want 7, pid 2 and no capability", res.ExitCode, out.String())
		}
	}
	// started returns the helper StartEarly started for r's next run.
	started := func(r *Runner) *prestarted {
		if r.early == nil {
			return nil
		}
		return r.early.pre
	}

	r := &Runner{}
	c := command()
	r.StartEarly(c, id, bc)
	if pre := started(r); pre != nil {
		t.Fatal("a helper started with nothing kept for the profile")
	}
	run(r, c)
	need, ok := loadEarlyHint(r, bc, id)
	if !ok || !need.ok {
		t.Fatalf("kept after the first run: %+v, %v; want the run's helper", need, ok)
	}
	if need.key.bpf != "" && need.rules != rulesKey(seccompRules(p)) {
		t.Errorf("the program kept with the hint is under the key %x, want its table's", need.rules)
	}

	r = &Runner{}
	c = command()
	r.StartEarly(c, id, bc)
	pre := started(r)
	if pre == nil {
		t.Fatal("no helper started from what was kept")
	}
	run(r, c)
	if !pre.taken {
		t.Error("the run did not take the helper started for it")
	}

	storeEarlyHint(bc, id, earlyHint{ok: true, key: prestartKey{unshare: need.key.unshare, limits: limitsKey(limitsOf(32, 0))}, limits: limitsOf(32, 0)})
	r = &Runner{}
	c = command()
	r.StartEarly(c, id, bc)
	if pre = started(r); pre == nil {
		t.Fatal("no helper started from what was kept")
	}
	run(r, c)
	if pre.taken || !gone(pre.proc.pid) {
		t.Errorf("the helper started for other limits: taken %v, gone %v; want ended", pre.taken, gone(pre.proc.pid))
	}
	if h, ok := loadEarlyHint(r, bc, id); !ok || !h.same(need) {
		t.Errorf("kept after that run: %+v, %v; want %+v", h, ok, need)
	}

	r = &Runner{}
	r.StartEarly(command(), id, bc)
	if pre = started(r); pre == nil {
		t.Fatal("no helper started from what was kept")
	}
	r.EndEarly()
	if r.early != nil || !gone(pre.proc.pid) {
		t.Error("EndEarly left the helper started early")
	}
}

// TestStartEarlyNotForATerminal: standard descriptors no prestarted
// helper can be given (a command's own stdin that is no file) start
// nothing early.
func TestStartEarlyNotForATerminal(t *testing.T) {
	bc := sandbox.BuildCache{Dir: t.TempDir(), Build: "test-build"}
	storeEarlyHint(bc, "id", earlyHint{ok: true, key: prestartKey{unshare: unix.CLONE_NEWNS}, limits: limitsOf(0, 0)})
	r := &Runner{}
	r.StartEarly(&Command{Argv: []string{"true"}, Stdin: strings.NewReader("")}, "id", bc)
	if r.early != nil {
		t.Errorf("started early for a stdin that is no file: %+v", r.early)
	}
}

// gone reports whether the process pid has ended and been reaped.
func gone(pid int) bool {
	return errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}

// TestStartEarlyNotWithoutCache: without a profile cache (no directory,
// or no build to key it by) there is no hint to read or keep, and
// nothing starts early; the run starts its helper as before.
func TestStartEarlyNotWithoutCache(t *testing.T) {
	for _, bc := range []sandbox.BuildCache{{}, {Dir: t.TempDir()}, {Build: "test-build"}} {
		r := &Runner{}
		r.StartEarly(&Command{Argv: []string{"true"}}, "id", bc)
		if r.early != nil {
			t.Errorf("cache %+v: started early: %+v", bc, r.early)
		}
	}
}
