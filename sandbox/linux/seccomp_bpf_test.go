//go:build linux

package linux

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
)

// seccompData is what the kernel hands a seccomp program.
type seccompData struct {
	nr   uint32
	arch uint32
	args [6]uint64
}

func (d seccompData) word(off uint32) (uint32, error) {
	switch {
	case off == seccompDataNr:
		return d.nr, nil
	case off == seccompDataArch:
		return d.arch, nil
	case off >= seccompDataArgs && off < seccompDataArgs+48 && off%4 == 0:
		a := d.args[(off-seccompDataArgs)/8]
		if (off-seccompDataArgs)%8 == 0 {
			return uint32(a), nil
		}
		return uint32(a >> 32), nil
	}
	return 0, fmt.Errorf("load at offset %d", off)
}

// runBPF interprets the classic BPF instructions buildBPF emits, as the
// kernel does, and fails on anything else or on a jump out of the program.
func runBPF(prog []byte, d seccompData) (uint32, error) {
	ret, _, err := walkBPF(prog, d)
	return ret, err
}

// walkBPF is runBPF that also counts the instructions it ran.
func walkBPF(prog []byte, d seccompData) (ret uint32, steps int, err error) {
	if len(prog)%8 != 0 {
		return 0, 0, fmt.Errorf("program of %d bytes", len(prog))
	}
	n := len(prog) / 8
	var a uint32
	for pc := 0; pc < n; pc++ {
		steps++
		in := prog[8*pc:]
		code := binary.NativeEndian.Uint16(in)
		jt, jf := int(in[2]), int(in[3])
		k := binary.NativeEndian.Uint32(in[4:])
		var err error
		switch code {
		case bpfLdWAbs:
			a, err = d.word(k)
		case bpfAndK:
			a &= k
		case bpfJeqK, bpfJgeK, bpfJsetK:
			var cond bool
			switch code {
			case bpfJeqK:
				cond = a == k
			case bpfJgeK:
				cond = a >= k
			case bpfJsetK:
				cond = a&k != 0
			}
			if cond {
				pc += jt
			} else {
				pc += jf
			}
		case bpfJa:
			pc += int(k)
		case bpfRetK:
			return k, steps, nil
		default:
			err = fmt.Errorf("opcode %#x at %d", code, pc)
		}
		if err != nil {
			return 0, steps, err
		}
		if pc+1 > n {
			return 0, steps, fmt.Errorf("jump past the end at %d", pc)
		}
	}
	return 0, steps, fmt.Errorf("fell off the end")
}

// wantAction is what rules say of d, read straight from the table: the
// first rule of the call whose every condition holds.
func wantAction(rules []SyscallRule, d seccompData) uint32 {
	if d.arch != nativeAuditArch || (x32SyscallBit != 0 && d.nr >= x32SyscallBit) {
		return unix.SECCOMP_RET_KILL_PROCESS
	}
	for _, r := range rules {
		nr, ok := syscallNumbers()[r.Syscall]
		if !ok || nr != d.nr {
			continue
		}
		match := true
		for _, c := range r.Conds {
			v := d.args[c.Arg]
			switch c.Op {
			case MaskedEqual:
				match = match && v&c.Mask == c.Value
			case NotEqual:
				match = match && v != c.Value
			case MaskedNotEqual:
				match = match && v&c.Mask != c.Value
			}
		}
		if match {
			return unix.SECCOMP_RET_ERRNO | uint32(r.Errno)
		}
	}
	return unix.SECCOMP_RET_ALLOW
}

// seccompProfiles are profiles whose tables differ in every switch the
// table reads.
var seccompProfiles = []sandbox.Profile{
	{Network: sandbox.NetworkOff, UnixSockets: true},
	{Network: sandbox.NetworkOff},
	{Network: sandbox.NetworkOn, UnixSockets: true},
	{Network: sandbox.NetworkOn},
	{Network: sandbox.NetworkIsolated, UnixSockets: true},
	{Network: sandbox.NetworkProxy, SharePIDs: true},
	{Network: sandbox.NetworkOn, Unrestricted: true},
}

// argValues are the arguments worth trying against rules: every value and
// mask a condition names, with its high word set or flipped, and edges.
func argValues(rules []SyscallRule) []uint64 {
	vals := []uint64{0, 1, 0xffffffff, 1 << 32, ^uint64(0)}
	for _, r := range rules {
		for _, c := range r.Conds {
			for _, v := range []uint64{c.Value, c.Mask, c.Value | c.Mask} {
				vals = append(vals, v, v|1<<40, v^0xffffffff00000000, v+1, v-1)
			}
		}
	}
	return vals
}

// layouts are the layouts buildBPF compiles in: shared first, the other
// where shared would not fit.
var layouts = []layout{{shared: true}, {}}

// compileIn compiles rules in layout l.
func compileIn(t testing.TB, rules []SyscallRule, l layout) []byte {
	t.Helper()
	tab, err := newSeccompTable(rules)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := tab.compile(l)
	if err != nil {
		t.Fatalf("shared=%v: %v", l.shared, err)
	}
	return prog
}

// builtProgram is one of seccompProfiles, its table and the program
// buildBPF makes of it.
type builtProgram struct {
	p     *sandbox.Profile
	rules []SyscallRule
	prog  []byte
}

// builtPrograms builds the program of each of seccompProfiles.
func builtPrograms(t testing.TB) []builtProgram {
	t.Helper()
	out := make([]builtProgram, len(seccompProfiles))
	for i := range seccompProfiles {
		b := &out[i]
		b.p = &seccompProfiles[i]
		b.rules = seccompRules(b.p)
		var err error
		if b.prog, err = buildBPF(b.rules); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// insns decodes prog's instructions.
func insns(prog []byte) []bpfInsn {
	var out []bpfInsn
	for b := prog; len(b) >= bpfInsnSize; b = b[bpfInsnSize:] {
		out = append(out, bpfInsn{code: binary.NativeEndian.Uint16(b), jt: b[2], jf: b[3], k: binary.NativeEndian.Uint32(b[4:])})
	}
	return out
}

// TestBuildBPFMatchesTable: the compiled program decides every call as
// the table reads, for each profile's table, on every argument value the
// table names (with the high word set too) and random ones, and kills a
// call from another architecture or ABI.
func TestBuildBPFMatchesTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range seccompProfiles {
		p := &seccompProfiles[i]
		for _, l := range layouts {
			t.Run(fmt.Sprintf("network=%s,unix=%v,sharepids=%v,unrestricted=%v,shared=%v", p.Network, p.UnixSockets, p.SharePIDs, p.Unrestricted, l.shared), func(t *testing.T) {
				rules := seccompRules(p)
				prog := compileIn(t, rules, l)
				vals := argValues(rules)
				var nrs []uint32
				for _, nr := range syscallNumbers() {
					nrs = append(nrs, nr)
				}
				// Calls the table does not name.
				nrs = append(nrs, unix.SYS_READ, unix.SYS_WRITE, unix.SYS_EXECVE, 999, x32SyscallBit|unix.SYS_PTRACE)
				denied := 0
				for _, nr := range nrs {
					for _, arch := range []uint32{nativeAuditArch, unix.AUDIT_ARCH_I386, 0} {
						for try := 0; try < 200; try++ {
							d := seccompData{nr: nr, arch: arch}
							for a := range d.args {
								if rng.IntN(4) == 0 {
									d.args[a] = rng.Uint64()
								} else {
									d.args[a] = vals[rng.IntN(len(vals))]
								}
							}
							got, err := runBPF(prog, d)
							if err != nil {
								t.Fatalf("%+v: %v", d, err)
							}
							if want := wantAction(rules, d); got != want {
								t.Fatalf("%+v: program returns %#x, the table says %#x", d, got, want)
							}
							if got&unix.SECCOMP_RET_ACTION_FULL == unix.SECCOMP_RET_ERRNO {
								denied++
							}
						}
					}
				}
				if denied == 0 {
					t.Fatal("no call was denied: the comparison proves nothing")
				}
			})
		}
	}
}

// TestBuildBPFShared: every built-in table compiles in the shared layout,
// with one return of each value (two of the kill: the architecture's
// and x32's), the namespace flags of clone tested at once, and the ioctl
// request loaded once for all its rules; smaller than the other layout.
func TestBuildBPFShared(t *testing.T) {
	var nsFlags uint32
	for _, f := range namespaceCloneFlags {
		nsFlags |= uint32(f)
	}
	for _, b := range builtPrograms(t) {
		p, rules, prog := b.p, b.rules, b.prog
		if want := compileIn(t, rules, layout{shared: true}); !bytes.Equal(prog, want) {
			t.Errorf("network=%s: buildBPF did not take the shared layout", p.Network)
		}
		if local := compileIn(t, rules, layout{}); len(prog) >= len(local) {
			t.Errorf("network=%s: shared layout of %d instructions, the other %d", p.Network, len(prog)/bpfInsnSize, len(local)/bpfInsnSize)
		}
		rets := map[uint32]int{}
		jsets := 0
		for _, in := range insns(prog) {
			switch {
			case in.code == bpfRetK:
				rets[in.k]++
			case in.code == bpfJsetK && in.k == nsFlags:
				jsets++
			}
		}
		ioctlLoads := 0
		for _, in := range insns(compileIn(t, findRules(rules, "ioctl"), layout{shared: true})) {
			if in.code == bpfLdWAbs && in.k == seccompDataArgs+8*1 {
				ioctlLoads++
			}
		}
		for v, n := range rets {
			if want := map[bool]int{true: 2, false: 1}[v == unix.SECCOMP_RET_KILL_PROCESS && x32SyscallBit != 0]; n != want {
				t.Errorf("network=%s: %d returns of %#x, want %d", p.Network, n, v, want)
			}
		}
		if jsets != 1 {
			t.Errorf("network=%s: %d tests of all namespace flags, want 1", p.Network, jsets)
		}
		if ioctlLoads != 1 {
			t.Errorf("network=%s: ioctl's request loaded %d times, want 1", p.Network, ioctlLoads)
		}
	}
}

// TestBuildBPFAccumulatorMerge: a rule that fails at its second argument
// leaves that argument in the accumulator, the next rule's first must
// be loaded again; one that fails at its first leaves it there, and the
// next rule reads it without a load.
func TestBuildBPFAccumulatorMerge(t *testing.T) {
	const v1 = 0x5401
	rules := []SyscallRule{
		{Syscall: "ioctl", Errno: unix.EPERM, Conds: []ArgCond{
			{Arg: 1, Op: MaskedEqual, Mask: 0xffffffff, Value: v1}, {Arg: 2, Op: NotEqual, Value: 0}}},
		{Syscall: "ioctl", Errno: unix.EACCES, Conds: []ArgCond{{Arg: 1, Op: MaskedEqual, Mask: 0xffffffff, Value: 0}}},
		{Syscall: "ioctl", Errno: unix.EBUSY, Conds: []ArgCond{{Arg: 1, Op: MaskedEqual, Mask: 0xff, Value: 2}}},
		{Syscall: "ioctl", Errno: unix.EBUSY, Conds: []ArgCond{{Arg: 1, Op: MaskedEqual, Mask: 0xffffffff, Value: 3}}},
	}
	vals := []uint64{0, 1, 2, 3, v1, 0x102, 1 << 32, 1<<32 | v1, 0xff02}
	for _, l := range layouts {
		prog := compileIn(t, rules, l)
		for _, a1 := range vals {
			for _, a2 := range vals {
				d := seccompData{nr: syscallNumbers()["ioctl"], arch: nativeAuditArch, args: [6]uint64{0, a1, a2}}
				got, err := runBPF(prog, d)
				if err != nil {
					t.Fatal(err)
				}
				if want := wantAction(rules, d); got != want {
					t.Errorf("shared=%v, ioctl(_, %#x, %#x): %#x, the table says %#x", l.shared, a1, a2, got, want)
				}
			}
		}
	}
}

// TestBuildBPFShortWalks: a call the table does not name, or names with
// no condition, is decided in a few instructions whatever its number.
// The kernel walks the program for every call number when it loads it
// (seccomp's action cache) and again for each call the cache cannot
// answer: a line of comparisons made the load alone cost 170 µs.
func TestBuildBPFShortWalks(t *testing.T) {
	for _, b := range builtPrograms(t) {
		p, rules, prog := b.p, b.rules, b.prog
		named := map[uint32]bool{}
		for _, r := range rules {
			if len(r.Conds) > 0 {
				named[syscallNumbers()[r.Syscall]] = true
			}
		}
		longest := 0
		for nr := uint32(0); nr < 1024; nr++ {
			if named[nr] {
				continue
			}
			_, steps, err := walkBPF(prog, seccompData{nr: nr, arch: nativeAuditArch})
			if err != nil {
				t.Fatal(err)
			}
			longest = max(longest, steps)
		}
		// The arch and number checks, a search of depth log2(calls)
		// two instructions a level at most, a leaf, the return.
		if limit := 6 + 2*bits.Len(uint(len(rules))) + 2*searchLeaf + 2; longest > limit {
			t.Errorf("network=%s sharepids=%v: a call walks %d instructions, want at most %d", p.Network, p.SharePIDs, longest, limit)
		}
	}
}

// TestBuildBPFConditions pins single conditions whose 64-bit handling is
// easy to get wrong.
func TestBuildBPFConditions(t *testing.T) {
	tests := []struct {
		name string
		cond ArgCond
		arg  uint64
		deny bool
	}{
		{"not equal, equal", ArgCond{Arg: 0, Op: NotEqual, Value: unix.AF_UNIX}, unix.AF_UNIX, false},
		{"not equal, low word differs", ArgCond{Arg: 0, Op: NotEqual, Value: unix.AF_UNIX}, unix.AF_INET, true},
		{"not equal, only the high word differs", ArgCond{Arg: 0, Op: NotEqual, Value: unix.AF_UNIX}, 1<<32 | unix.AF_UNIX, true},
		{"masked, 32-bit request with junk above", ArgCond{Arg: 1, Op: MaskedEqual, Mask: 0xffffffff, Value: unix.TIOCSTI}, 0xdead<<32 | unix.TIOCSTI, true},
		{"masked, other request", ArgCond{Arg: 1, Op: MaskedEqual, Mask: 0xffffffff, Value: unix.TIOCSTI}, unix.TIOCGWINSZ, false},
		{"masked flag set", ArgCond{Arg: 0, Op: MaskedEqual, Mask: unix.CLONE_NEWUSER, Value: unix.CLONE_NEWUSER}, unix.CLONE_NEWUSER | 17, true},
		{"masked flag clear", ArgCond{Arg: 0, Op: MaskedEqual, Mask: unix.CLONE_NEWUSER, Value: unix.CLONE_NEWUSER}, 17, false},
		{"masked high word", ArgCond{Arg: 5, Op: MaskedEqual, Mask: 0xf << 32, Value: 0x3 << 32}, 0x3<<32 | 7, true},
		{"masked high word differs", ArgCond{Arg: 5, Op: MaskedEqual, Mask: 0xf << 32, Value: 0x3 << 32}, 0x2<<32 | 7, false},
		{"masked not equal, equal", ArgCond{Arg: 0, Op: MaskedNotEqual, Mask: 0xffffffff, Value: unix.AF_INET}, unix.AF_INET, false},
		{"masked not equal, junk above an equal int", ArgCond{Arg: 0, Op: MaskedNotEqual, Mask: 0xffffffff, Value: unix.AF_INET}, 0xdead<<32 | unix.AF_INET, false},
		{"masked not equal, other int", ArgCond{Arg: 0, Op: MaskedNotEqual, Mask: 0xffffffff, Value: unix.AF_INET}, unix.AF_VSOCK, true},
		{"masked not equal, type bits", ArgCond{Arg: 1, Op: MaskedNotEqual, Mask: 0xf, Value: unix.SOCK_STREAM}, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, false},
		{"masked not equal, other type", ArgCond{Arg: 1, Op: MaskedNotEqual, Mask: 0xf, Value: unix.SOCK_STREAM}, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC, true},
		{"masked not equal, only the high word differs", ArgCond{Arg: 2, Op: MaskedNotEqual, Mask: ^uint64(0), Value: 6}, 1<<32 | 6, true},
		{"masked not equal, high word equal", ArgCond{Arg: 2, Op: MaskedNotEqual, Mask: ^uint64(0), Value: 1<<32 | 6}, 1<<32 | 6, false},
		{"masked not equal, high word only, equal", ArgCond{Arg: 3, Op: MaskedNotEqual, Mask: 0xf << 32, Value: 0x3 << 32}, 0x3<<32 | 7, false},
		{"masked not equal, high word only, differs", ArgCond{Arg: 3, Op: MaskedNotEqual, Mask: 0xf << 32, Value: 0x3 << 32}, 0x2<<32 | 7, true},
	}
	for _, tt := range tests {
		prog, err := buildBPF([]SyscallRule{{Syscall: "clone", Errno: unix.EPERM, Conds: []ArgCond{tt.cond}}})
		if err != nil {
			t.Fatal(err)
		}
		d := seccompData{nr: syscallNumbers()["clone"], arch: nativeAuditArch}
		d.args[tt.cond.Arg] = tt.arg
		got, err := runBPF(prog, d)
		if err != nil {
			t.Fatal(err)
		}
		if deny := got == unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM); deny != tt.deny {
			t.Errorf("%s: returns %#x, want denied %v", tt.name, got, tt.deny)
		}
	}
}

// TestBuildBPFLongBlock: a call with more rules than a conditional jump
// reaches over still compiles, and the calls after it are still judged.
func TestBuildBPFLongBlock(t *testing.T) {
	var rules []SyscallRule
	for i := 0; i < 300; i++ {
		rules = append(rules, SyscallRule{Syscall: "ioctl", Errno: unix.EPERM,
			Conds: []ArgCond{{Arg: 1, Op: MaskedEqual, Mask: 0xffffffff, Value: uint64(1000 + i)}}})
	}
	rules = append(rules, SyscallRule{Syscall: "ptrace", Errno: unix.EPERM})
	prog, err := buildBPF(rules)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := newSeccompTable(rules)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.compile(layout{shared: true}); !errors.Is(err, errJumpRange) {
		t.Fatalf("shared layout: %v, want a jump out of range", err)
	}
	if !bytes.Equal(prog, compileIn(t, rules, layout{})) {
		t.Fatal("buildBPF did not fall back to the other layout")
	}
	for _, d := range []seccompData{
		{nr: syscallNumbers()["ptrace"], arch: nativeAuditArch},
		{nr: syscallNumbers()["ioctl"], arch: nativeAuditArch, args: [6]uint64{0, 1299}},
		{nr: syscallNumbers()["ioctl"], arch: nativeAuditArch, args: [6]uint64{0, 1300}},
	} {
		got, err := runBPF(prog, d)
		if err != nil {
			t.Fatal(err)
		}
		if want := wantAction(rules, d); got != want {
			t.Errorf("%+v: %#x, want %#x", d, got, want)
		}
	}
}

// FuzzBuildBPF: for any call and arguments, the program of each profile
// decides as its table says.
func FuzzBuildBPF(f *testing.F) {
	built := builtPrograms(f)
	f.Add(uint8(0), uint32(unix.SYS_SOCKET), uint64(unix.AF_UNIX), uint64(0), uint64(0), true)
	f.Add(uint8(3), uint32(unix.SYS_IOCTL), uint64(0), uint64(unix.TIOCSTI), uint64(0), true)
	f.Fuzz(func(t *testing.T, which uint8, nr uint32, a0, a1, a2 uint64, native bool) {
		b := built[int(which)%len(built)]
		d := seccompData{nr: nr, arch: nativeAuditArch, args: [6]uint64{a0, a1, a2}}
		if !native {
			d.arch = unix.AUDIT_ARCH_I386
		}
		got, err := runBPF(b.prog, d)
		if err != nil {
			t.Fatal(err)
		}
		if want := wantAction(b.rules, d); got != want {
			t.Fatalf("%+v: %#x, want %#x", d, got, want)
		}
	})
}

// FuzzBuildBPFTable: any small table of rules compiles, in both layouts,
// to a program that decides as the table says. The bytes pick calls,
// errnos, operators, arguments, masks and values from sets that collide
// often (the same word compared by rules in a row, single flags), then
// the call's arguments.
func FuzzBuildBPFTable(f *testing.F) {
	f.Add([]byte{0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87, 0x98, 0xa9, 0xba, 0xcb}, uint64(0x5401), uint64(0))
	f.Add([]byte{0x00, 0x08, 0x00, 0x09, 0x00, 0x0a, 0x03, 0x30, 0x11, 0x22}, uint64(unix.CLONE_NEWUSER), uint64(1))
	calls := []string{"ioctl", "clone", "socket", "ptrace"}
	vals := []uint64{0, 1, 2, 0x5401, unix.CLONE_NEWUSER, unix.CLONE_NEWNS, 0xffffffff, 1 << 32, 0xff, ^uint64(0)}
	f.Fuzz(func(t *testing.T, b []byte, x, y uint64) {
		var rules []SyscallRule
		for len(b) >= 2 && len(rules) < 12 {
			r := SyscallRule{Syscall: calls[b[0]&3], Errno: []unix.Errno{unix.EPERM, unix.EACCES}[b[0]>>2&1]}
			conds := int(b[0] >> 3 & 3)
			b = b[1:]
			for range conds {
				if len(b) < 2 {
					break
				}
				c := ArgCond{Arg: uint(b[0] & 3), Op: CondOp(1 + int(b[0]>>2)%3), Mask: vals[int(b[0]>>4)%len(vals)], Value: vals[int(b[1])%len(vals)]}
				if b[1]&0x80 != 0 {
					c.Value = c.Mask // a flag
				}
				r.Conds = append(r.Conds, c)
				b = b[2:]
			}
			rules = append(rules, r)
		}
		if len(rules) == 0 {
			return
		}
		args := []uint64{x, y, x ^ y, x & 0xffffffff}
		for _, l := range layouts {
			prog := compileIn(t, rules, l)
			for _, call := range calls {
				for i := range 4 {
					d := seccompData{nr: syscallNumbers()[call], arch: nativeAuditArch,
						args: [6]uint64{args[i], args[(i+1)%4], args[(i+2)%4], args[(i+3)%4]}}
					got, err := runBPF(prog, d)
					if err != nil {
						t.Fatal(err)
					}
					if want := wantAction(rules, d); got != want {
						t.Fatalf("shared=%v, %s%x: %#x, the table %+v says %#x", l.shared, call, d.args[:4], got, rules, want)
					}
				}
			}
		}
	})
}

func BenchmarkBuildBPF(b *testing.B) {
	rules := seccompRules(&sandbox.Profile{Network: sandbox.NetworkOff, UnixSockets: true})
	for b.Loop() {
		if _, err := buildBPF(rules); err != nil {
			b.Fatal(err)
		}
	}
}
