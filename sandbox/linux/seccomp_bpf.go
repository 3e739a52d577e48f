//go:build linux

package linux

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"golang.org/x/sys/unix"
)

// The seccomp program is compiled here, in Go, rather than by libseccomp:
// linking libseccomp needs cgo, and the cgo runtime's start cost as much
// as everything else `gatedexec version` does. The table is small and its
// shape fixed:
//
//	arch != native            -> kill the process (i386, x32 and any other ABI)
//	a binary search over the table's calls by number:
//	  no call of the table    -> return ALLOW
//	  the call's block:
//	    for each rule of the call, in order:
//	      any condition false -> next rule
//	      return ERRNO(rule.Errno)
//	    return ALLOW
//
// The first rule that matches decides, as the table lists them. Rules in
// a row that each deny one flag of the same argument are one test of all
// the flags (clone's namespaces), a word already in the accumulator is
// not loaded again (ioctl's request, rule after rule), and each return
// is one instruction the decisions jump to (layout): the workspace-write
// table is 122 instructions where it was 220, which loaded in 30-34 µs
// rather than 36-41 (6.18, alone in a process, median of 300).
//
// A search, not a line of comparisons, because the kernel runs the
// program once per system call number when it is loaded (to find the
// calls it always allows, seccomp's action cache) and the command's every
// call it cannot cache walks it again: a line of 60 calls is 120
// instructions a walk, 170 µs of every start on a 6.18 kernel, a search
// about 12.

// Offsets of struct seccomp_data's fields; an argument is 64 bits, its
// low word first on the little-endian architectures gatedexec supports.
const (
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArgs = 16
)

// Classic BPF opcodes the compiler emits (linux/filter.h).
const (
	bpfLdWAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfAndK   = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfJa     = unix.BPF_JMP | unix.BPF_JA
	bpfRetK   = unix.BPF_RET | unix.BPF_K
)

// bpfMaxInsns is the kernel's BPF_MAXINSNS, and bpfInsnSize the size of
// one instruction (struct sock_filter).
const (
	bpfMaxInsns = 4096
	bpfInsnSize = 8
)

// wholeProgram reports whether n bytes can be a program the kernel loads:
// a whole number of instructions, at least one, at most bpfMaxInsns. The
// helper checks the same before it loads one.
func wholeProgram(n int) bool {
	return n > 0 && n%bpfInsnSize == 0 && n/bpfInsnSize <= bpfMaxInsns
}

// errnoMax bounds the errno a rule may return (SECCOMP_RET_DATA is 16 bits).
const errnoMax = 0xffff

type bpfInsn struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// acc is what the accumulator holds at a point of the program: the word
// at offset off of struct seccomp_data ANDed with mask, when known.
type acc struct {
	known     bool
	off, mask uint32
}

// program accumulates instructions; a jump to a label not yet placed is
// patched when the label is.
type program struct {
	insns []bpfInsn
	// pending jumps by label: the instruction and whether jt (else jf).
	pending map[int][]jumpRef
	labels  int
	// a is what the accumulator holds at the next instruction when it is
	// reached from the one before (live); place merges in the jumps'.
	a    acc
	live bool
	err  error
}

type jumpRef struct {
	at int
	jt bool
	// ja marks an unconditional jump, whose offset is 32 bits.
	ja bool
	// a is what the accumulator holds when the jump is taken.
	a acc
}

// errJumpRange is a conditional jump too long for its 8-bit offset.
var errJumpRange = errors.New("seccomp: a conditional jump is out of range")

func (p *program) emit(code uint16, k uint32) {
	p.insns = append(p.insns, bpfInsn{code: code, k: k})
	switch code {
	case bpfLdWAbs:
		p.a, p.live = acc{known: true, off: k, mask: 0xffffffff}, true
	case bpfAndK:
		if p.a.known {
			p.a.mask &= k
		}
	case bpfJa, bpfRetK:
		p.live = false
	}
}

func (p *program) newLabel() int {
	p.labels++
	return p.labels
}

// branch emits the conditional jump code with k, to label t when it
// holds and to label f when not. What follows it counts as reached with
// the accumulator as it is, which only ever makes place's merge more
// cautious.
func (p *program) branch(code uint16, k uint32, t, f int) {
	p.emit(code, k)
	at := len(p.insns) - 1
	p.refer(t, jumpRef{at: at, jt: true, a: p.a})
	p.refer(f, jumpRef{at: at, a: p.a})
}

// jaTo emits an unconditional jump to label, which reaches any distance.
func (p *program) jaTo(label int) {
	a := p.a
	p.emit(bpfJa, 0)
	p.refer(label, jumpRef{at: len(p.insns) - 1, ja: true, a: a})
}

// refer notes a jump to label, set when place puts it.
func (p *program) refer(label int, ref jumpRef) {
	if p.pending == nil {
		p.pending = map[int][]jumpRef{}
	}
	p.pending[label] = append(p.pending[label], ref)
}

// place puts label at the next instruction, where the accumulator is
// known only when every way there agrees on it.
func (p *program) place(label int) {
	here := len(p.insns)
	a, reached := p.a, p.live
	for _, ref := range p.pending[label] {
		if !reached {
			a, reached = ref.a, true
		} else if a != ref.a {
			a = acc{}
		}
		off := here - ref.at - 1
		if ref.ja {
			p.insns[ref.at].k = uint32(off)
			continue
		}
		if off > 255 {
			if p.err == nil {
				p.err = fmt.Errorf("%w: %d instructions", errJumpRange, off)
			}
			continue
		}
		if ref.jt {
			p.insns[ref.at].jt = uint8(off)
		} else {
			p.insns[ref.at].jf = uint8(off)
		}
	}
	delete(p.pending, label)
	p.a, p.live = a, true
}

// load puts word off of struct seccomp_data, ANDed with mask, in the
// accumulator, with what of that is not there already.
func (p *program) load(off, mask uint32) {
	if p.a == (acc{known: true, off: off, mask: mask}) {
		return
	}
	if p.a != (acc{known: true, off: off, mask: 0xffffffff}) {
		p.emit(bpfLdWAbs, off)
	}
	if mask != 0xffffffff {
		p.emit(bpfAndK, mask)
	}
}

// layout is where a program's returns go. With shared, every return of
// a value is one instruction at the program's end, which each decision
// jumps to, and the search jumps straight to the calls' blocks: a third
// fewer instructions for the built-in tables, each converted and
// compiled by the kernel in every sandboxed start, and shorter walks.
// Without, each leaf of the search and each rule has returns of its own
// after it and the search reaches the blocks through unconditional
// jumps, so that no conditional jump spans more than a rule: for tables
// whose shared layout would not fit 8-bit offsets.
type layout struct {
	shared bool
}

// buildBPF compiles rules into a classic BPF program for the native
// architecture (calls from any other architecture, including x32 and i386
// compat, kill the process) and returns its raw sock_filter bytes. A rule
// it cannot compile exactly is an error, never a looser program.
func buildBPF(rules []SyscallRule) ([]byte, error) {
	t, err := newSeccompTable(rules)
	if err != nil {
		return nil, err
	}
	prog, err := t.compile(layout{shared: true})
	if errors.Is(err, errJumpRange) {
		prog, err = t.compile(layout{})
	}
	return prog, err
}

// seccompTable is a table checked and grouped for compiling: the calls in
// order of number, each with its rules in the table's order.
type seccompTable struct {
	nrs  []uint32
	byNr map[uint32][]SyscallRule
	// outright are the calls whose first rule has no condition, denied
	// whatever their other rules say, with its errno: a call's leaf of
	// the search decides it, and it has no block.
	outright map[uint32]uint32
}

// newSeccompTable checks rules and groups them by call.
func newSeccompTable(rules []SyscallRule) (*seccompTable, error) {
	t := &seccompTable{byNr: map[uint32][]SyscallRule{}, outright: map[uint32]uint32{}}
	for _, r := range rules {
		nr, ok := syscallNumbers()[r.Syscall]
		if !ok {
			if slices.Contains(absentSyscalls, r.Syscall) {
				// The kernel has no such call here: nothing to deny.
				continue
			}
			return nil, fmt.Errorf("seccomp: syscall %q: not known on %s", r.Syscall, nativeArchName)
		}
		if r.Errno <= 0 || r.Errno > errnoMax {
			return nil, fmt.Errorf("seccomp: rule for %s: errno %d out of range", r.Syscall, r.Errno)
		}
		for _, c := range r.Conds {
			if c.Arg > 5 {
				return nil, fmt.Errorf("seccomp: %s condition: argument %d: a call has 6", r.Syscall, c.Arg)
			}
			if c.Op != MaskedEqual && c.Op != NotEqual && c.Op != MaskedNotEqual {
				return nil, fmt.Errorf("seccomp: %s condition: argument %d: no comparison operator", r.Syscall, c.Arg)
			}
		}
		if _, seen := t.byNr[nr]; !seen {
			t.nrs = append(t.nrs, nr)
		}
		t.byNr[nr] = append(t.byNr[nr], r)
	}
	slices.Sort(t.nrs)
	for _, nr := range t.nrs {
		if r := t.byNr[nr][0]; len(r.Conds) == 0 {
			t.outright[nr] = uint32(r.Errno)
		}
	}
	return t, nil
}

// returns hands out the labels of a program's shared returns, placed
// together by emit.
type returns struct {
	labels map[uint32]int
	order  []uint32
}

// to returns the label of the return of value, shared by every jump to it.
func (r *returns) to(p *program, value uint32) int {
	if l, ok := r.labels[value]; ok {
		return l
	}
	if r.labels == nil {
		r.labels = map[uint32]int{}
	}
	l := p.newLabel()
	r.labels[value] = l
	r.order = append(r.order, value)
	return l
}

// emit places the returns asked for since the last emit.
func (r *returns) emit(p *program) {
	for _, v := range r.order {
		p.place(r.labels[v])
		p.emit(bpfRetK, v)
	}
	r.labels, r.order = nil, nil
}

// compile returns t's program in layout l.
func (t *seccompTable) compile(l layout) ([]byte, error) {
	p := &program{}
	p.emit(bpfLdWAbs, seccompDataArch)
	nrLabel, kill := p.newLabel(), p.newLabel()
	p.branch(bpfJeqK, nativeAuditArch, nrLabel, kill)
	p.place(kill)
	p.emit(bpfRetK, unix.SECCOMP_RET_KILL_PROCESS)
	p.place(nrLabel)
	p.emit(bpfLdWAbs, seccompDataNr)
	if x32SyscallBit != 0 {
		// x32 calls come with the native arch and this bit set.
		native, kill := p.newLabel(), p.newLabel()
		p.branch(bpfJgeK, x32SyscallBit, kill, native)
		p.place(kill)
		p.emit(bpfRetK, unix.SECCOMP_RET_KILL_PROCESS)
		p.place(native)
	}
	blocks := make([]int, len(t.nrs))
	for i := range blocks {
		blocks[i] = p.newLabel()
	}
	var shared *returns
	if l.shared {
		shared = &returns{}
	}
	p.search(t.nrs, blocks, t.outright, shared)
	for i, nr := range t.nrs {
		if _, ok := t.outright[nr]; ok {
			continue
		}
		p.place(blocks[i])
		p.block(t.byNr[nr], shared)
	}
	if shared != nil {
		shared.emit(p)
	}
	if p.err != nil {
		return nil, p.err
	}
	if len(p.pending) > 0 {
		return nil, fmt.Errorf("seccomp: %d jumps to nowhere", len(p.pending))
	}
	if len(p.insns) > bpfMaxInsns {
		return nil, fmt.Errorf("seccomp: program of %d instructions exceeds the kernel's %d", len(p.insns), bpfMaxInsns)
	}
	out := make([]byte, 0, bpfInsnSize*len(p.insns))
	for _, in := range p.insns {
		out = binary.NativeEndian.AppendUint16(out, in.code)
		out = append(out, in.jt, in.jf)
		out = binary.NativeEndian.AppendUint32(out, in.k)
	}
	return out, nil
}

// searchLeaf is how many calls a leaf of the search compares in a line:
// below it a comparison more costs less than a branch.
const searchLeaf = 6

// search emits the binary search over nrs (sorted, the loaded call
// number in the accumulator) that goes to blocks[i] for nrs[i], denies a
// call in outright with its errno, and allows every other call; shared
// holds the returns of a shared layout, nil for the other, where each
// leaf has its own and the far branches are ja, so that no offset
// depends on the size of what lies between.
//
// A call denied outright is one comparison: a call with a block of its
// own took four. The kernel converts and compiles every instruction of a
// program it loads, in each sandboxed start's path to its command (80 µs
// for 348 instructions, 6.18).
func (p *program) search(nrs []uint32, blocks []int, outright map[uint32]uint32, shared *returns) {
	if len(nrs) <= searchLeaf {
		rets := shared
		if rets == nil {
			rets = &returns{}
		}
		allow := rets.to(p, unix.SECCOMP_RET_ALLOW)
		for i, nr := range nrs {
			miss := allow
			if i < len(nrs)-1 {
				miss = p.newLabel()
			}
			switch e, ok := outright[nr]; {
			case ok:
				p.branch(bpfJeqK, nr, rets.to(p, unix.SECCOMP_RET_ERRNO|e), miss)
			case shared != nil:
				p.branch(bpfJeqK, nr, blocks[i], miss)
			default:
				hit := p.newLabel()
				p.branch(bpfJeqK, nr, hit, miss)
				p.place(hit)
				p.jaTo(blocks[i])
			}
			if miss != allow {
				p.place(miss)
			}
		}
		if shared == nil {
			rets.emit(p)
		}
		return
	}
	mid := len(nrs) / 2
	upper, lower := p.newLabel(), p.newLabel()
	if shared != nil {
		p.branch(bpfJgeK, nrs[mid], upper, lower)
	} else {
		far := p.newLabel()
		p.branch(bpfJgeK, nrs[mid], far, lower)
		p.place(far)
		p.jaTo(upper)
	}
	p.place(lower)
	p.search(nrs[:mid], blocks[:mid], outright, shared)
	p.place(upper)
	p.search(nrs[mid:], blocks[mid:], outright, shared)
}

// block emits the rules of one call, the call number in the accumulator:
// the first whose conditions all hold returns its errno, and a call no
// rule denies is allowed. With shared returns every decision jumps to
// them; without, each rule is followed by its own return and the block by
// its allow, so that no jump spans more than a rule.
func (p *program) block(rules []SyscallRule, shared *returns) {
	allow := p.newLabel()
	if shared != nil {
		allow = shared.to(p, unix.SECCOMP_RET_ALLOW)
	}
	for i := 0; i < len(rules); {
		r := rules[i]
		var deny int
		var local *returns
		if shared != nil {
			deny = shared.to(p, unix.SECCOMP_RET_ERRNO|uint32(r.Errno))
		} else {
			local = &returns{}
			deny = local.to(p, unix.SECCOMP_RET_ERRNO|uint32(r.Errno))
		}
		n := flagRun(rules[i:])
		fail := allow
		if i+max(n, 1) < len(rules) {
			fail = p.newLabel()
		}
		if n > 0 {
			// Single flags of one argument, any of which denies: one
			// test of them all.
			var bits uint32
			for _, f := range rules[i : i+n] {
				bits |= uint32(f.Conds[0].Mask)
			}
			p.load(seccompDataArgs+8*uint32(r.Conds[0].Arg), 0xffffffff)
			p.branch(bpfJsetK, bits, deny, fail)
			i += n
		} else {
			p.rule(r.Conds, deny, fail)
			i++
		}
		if local != nil {
			local.emit(p)
		}
		if fail != allow {
			p.place(fail)
		}
	}
	if shared == nil {
		p.place(allow)
		p.emit(bpfRetK, unix.SECCOMP_RET_ALLOW)
	}
}

// flagRun returns how many rules at the start of rules deny when one
// bit of the low word of the same argument is set, with the same errno:
// (arg & bit) == bit. 0 when the first is not such a rule.
func flagRun(rules []SyscallRule) int {
	flag := func(r SyscallRule) bool {
		if len(r.Conds) != 1 {
			return false
		}
		c := r.Conds[0]
		return c.Op == MaskedEqual && c.Mask == c.Value && c.Mask>>32 == 0 && bits.OnesCount64(c.Mask) == 1
	}
	n := 0
	for n < len(rules) && flag(rules[n]) && rules[n].Errno == rules[0].Errno && rules[n].Conds[0].Arg == rules[0].Conds[0].Arg {
		n++
	}
	return n
}

// rule emits the test of conds, ANDed: all holding jumps to deny, any
// failing to fail; none always denies.
func (p *program) rule(conds []ArgCond, deny, fail int) {
	if len(conds) == 0 {
		p.jaTo(deny)
		return
	}
	for i, c := range conds {
		holds := deny
		if i < len(conds)-1 {
			holds = p.newLabel()
		}
		p.cond(c, holds, fail)
		if holds != deny {
			p.place(holds)
		}
	}
}

// cond emits the test of c, jumping to holds when it holds and to fails
// when not. Both words of the 64-bit argument are compared, as the
// kernel passes it; a mask limits what is compared (an ioctl request,
// which the kernel reads as 32 bits, masks the high word away).
func (p *program) cond(c ArgCond, holds, fails int) {
	lo := uint32(seccompDataArgs + 8*c.Arg)
	hi := lo + 4
	mask := c.Mask
	if c.Op == NotEqual {
		mask = ^uint64(0)
	}
	type word struct{ off, mask, want uint32 }
	words := []word{{hi, uint32(mask >> 32), uint32(c.Value >> 32)}, {lo, uint32(mask), uint32(c.Value)}}
	if words[0].mask == 0 && words[0].want == 0 {
		// Always equal: the low word decides.
		words = words[1:]
	}
	// MaskedEqual holds when every word compared is equal: a word that
	// differs fails it, and the last equal one decides it. The others
	// hold when any word differs, and the last equal one fails them.
	differs, allEqual := fails, holds
	if c.Op != MaskedEqual {
		differs, allEqual = holds, fails
	}
	for i, w := range words {
		equal := allEqual
		if i < len(words)-1 {
			equal = p.newLabel()
		}
		p.load(w.off, w.mask)
		p.branch(bpfJeqK, w.want, equal, differs)
		if equal != allEqual {
			p.place(equal)
		}
	}
}
