//go:build linux

package linux

import (
	"encoding/binary"
	"fmt"
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
// The first rule that matches decides, as the table lists them.
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
	bpfJa     = unix.BPF_JMP | unix.BPF_JA
	bpfRetK   = unix.BPF_RET | unix.BPF_K
)

// bpfMaxInsns is the kernel's BPF_MAXINSNS, and bpfInsnSize the size of
// one instruction (struct sock_filter).
const (
	bpfMaxInsns = 4096
	bpfInsnSize = 8
)

// errnoMax bounds the errno a rule may return (SECCOMP_RET_DATA is 16 bits).
const errnoMax = 0xffff

type bpfInsn struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// program accumulates instructions; a jump to a label not yet placed is
// patched when the label is.
type program struct {
	insns []bpfInsn
	// pending jumps by label: the instruction and whether jt (else jf).
	pending map[int][]jumpRef
	labels  int
	err     error
}

type jumpRef struct {
	at int
	jt bool
	// ja marks an unconditional jump, whose offset is 32 bits.
	ja bool
}

func (p *program) emit(code uint16, jt, jf uint8, k uint32) int {
	p.insns = append(p.insns, bpfInsn{code: code, jt: jt, jf: jf, k: k})
	return len(p.insns) - 1
}

func (p *program) newLabel() int {
	p.labels++
	return p.labels
}

// jumpTo makes the jt (or jf) branch of instruction at go to label.
func (p *program) jumpTo(at int, jt bool, label int) {
	p.refer(label, jumpRef{at: at, jt: jt})
}

// jaTo emits an unconditional jump to label, which reaches any distance.
func (p *program) jaTo(label int) {
	p.refer(label, jumpRef{at: p.emit(bpfJa, 0, 0, 0), ja: true})
}

// refer notes a jump to label, set when place puts it.
func (p *program) refer(label int, ref jumpRef) {
	if p.pending == nil {
		p.pending = map[int][]jumpRef{}
	}
	p.pending[label] = append(p.pending[label], ref)
}

// place puts label at the next instruction.
func (p *program) place(label int) {
	here := len(p.insns)
	for _, ref := range p.pending[label] {
		off := here - ref.at - 1
		if ref.ja {
			p.insns[ref.at].k = uint32(off)
			continue
		}
		if off > 255 {
			if p.err == nil {
				p.err = fmt.Errorf("seccomp: a conditional jump of %d instructions is out of range", off)
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
}

// buildBPF compiles rules into a classic BPF program for the native
// architecture (calls from any other architecture, including x32 and i386
// compat, kill the process) and returns its raw sock_filter bytes. A rule
// it cannot compile exactly is an error, never a looser program.
func buildBPF(rules []SyscallRule) ([]byte, error) {
	// The calls in order of first appearance, each with its rules.
	var order []uint32
	byNr := map[uint32][]SyscallRule{}
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
		if _, seen := byNr[nr]; !seen {
			order = append(order, nr)
		}
		byNr[nr] = append(byNr[nr], r)
	}
	p := &program{}
	p.emit(bpfLdWAbs, 0, 0, seccompDataArch)
	p.emit(bpfJeqK, 1, 0, nativeAuditArch)
	p.emit(bpfRetK, 0, 0, unix.SECCOMP_RET_KILL_PROCESS)
	p.emit(bpfLdWAbs, 0, 0, seccompDataNr)
	if x32SyscallBit != 0 {
		// x32 calls come with the native arch and this bit set.
		p.emit(bpfJgeK, 0, 1, x32SyscallBit)
		p.emit(bpfRetK, 0, 0, unix.SECCOMP_RET_KILL_PROCESS)
	}
	slices.Sort(order)
	blocks := make([]int, len(order))
	for i := range blocks {
		blocks[i] = p.newLabel()
	}
	// A call whose first rule has no condition is denied whatever its
	// other rules say: its leaf of the search returns the errno itself
	// (outright), and it has no block.
	outright := map[uint32]uint32{}
	for _, nr := range order {
		if r := byNr[nr][0]; len(r.Conds) == 0 {
			outright[nr] = uint32(r.Errno)
		}
	}
	p.search(order, blocks, outright)
	for i, nr := range order {
		if _, ok := outright[nr]; ok {
			continue
		}
		p.place(blocks[i])
		for _, r := range byNr[nr] {
			nextRule := p.newLabel()
			for _, c := range r.Conds {
				p.cond(c, nextRule)
			}
			p.emit(bpfRetK, 0, 0, unix.SECCOMP_RET_ERRNO|uint32(r.Errno))
			p.place(nextRule)
		}
		p.emit(bpfRetK, 0, 0, unix.SECCOMP_RET_ALLOW)
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
	out := make([]byte, 0, 8*len(p.insns))
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
// number in the accumulator) that jumps to blocks[i] for nrs[i] and
// allows every other call. The far branches are ja, so that no offset
// depends on the size of what lies between.
//
// A call in outright is denied with its errno in its leaf, by a return
// placed right after the leaf: one instruction for the call where a
// jump to a block of its own took four. The kernel converts and compiles
// every instruction of a program it loads, in each sandboxed start's
// path to its command (80 µs for 348 instructions, 6.18).
func (p *program) search(nrs []uint32, blocks []int, outright map[uint32]uint32) {
	if len(nrs) <= searchLeaf {
		denies := map[uint32]int{} // errno → its return's label
		var errnos []uint32
		for i, nr := range nrs {
			if e, ok := outright[nr]; ok {
				l, seen := denies[e]
				if !seen {
					l = p.newLabel()
					denies[e] = l
					errnos = append(errnos, e)
				}
				p.jumpTo(p.emit(bpfJeqK, 0, 0, nr), true, l)
				continue
			}
			p.emit(bpfJeqK, 0, 1, nr)
			p.jaTo(blocks[i])
		}
		p.emit(bpfRetK, 0, 0, unix.SECCOMP_RET_ALLOW)
		for _, e := range errnos {
			p.place(denies[e])
			p.emit(bpfRetK, 0, 0, unix.SECCOMP_RET_ERRNO|e)
		}
		return
	}
	mid := len(nrs) / 2
	upper := p.newLabel()
	p.emit(bpfJgeK, 0, 1, nrs[mid])
	p.jaTo(upper)
	p.search(nrs[:mid], blocks[:mid], outright)
	p.place(upper)
	p.search(nrs[mid:], blocks[mid:], outright)
}

// cond emits the test of c, jumping to fail when it is false and falling
// through when it holds. Both words of the 64-bit argument are compared,
// as the kernel passes it; a mask limits what is compared (an ioctl
// request, which the kernel reads as 32 bits, masks the high word away).
func (p *program) cond(c ArgCond, fail int) {
	lo := uint32(seccompDataArgs + 8*c.Arg)
	hi := lo + 4
	switch c.Op {
	case MaskedEqual:
		for _, w := range []struct {
			off        uint32
			mask, want uint32
		}{{hi, uint32(c.Mask >> 32), uint32(c.Value >> 32)}, {lo, uint32(c.Mask), uint32(c.Value)}} {
			if w.mask == 0 && w.want == 0 {
				continue // always equal
			}
			p.emit(bpfLdWAbs, 0, 0, w.off)
			if w.mask != 0xffffffff {
				p.emit(bpfAndK, 0, 0, w.mask)
			}
			p.jumpTo(p.emit(bpfJeqK, 0, 0, w.want), false, fail)
		}
	case NotEqual:
		// arg != v: the high words differ, or else the low ones do.
		p.emit(bpfLdWAbs, 0, 0, hi)
		p.emit(bpfJeqK, 0, 2, uint32(c.Value>>32))
		p.emit(bpfLdWAbs, 0, 0, lo)
		p.jumpTo(p.emit(bpfJeqK, 0, 0, uint32(c.Value)), true, fail)
	case MaskedNotEqual:
		p.maskedNotEqual(c, lo, hi, fail)
	}
}

// maskedNotEqual emits the test of (arg & Mask) != Value: the masked high
// words differ, or else the masked low ones do. A high word the mask
// clears and the value leaves zero is always equal, and not compared.
func (p *program) maskedNotEqual(c ArgCond, lo, hi uint32, fail int) {
	holds := p.newLabel()
	words := []struct {
		off        uint32
		mask, want uint32
	}{{hi, uint32(c.Mask >> 32), uint32(c.Value >> 32)}, {lo, uint32(c.Mask), uint32(c.Value)}}
	for i, w := range words {
		if i == 0 && w.mask == 0 && w.want == 0 {
			continue
		}
		p.emit(bpfLdWAbs, 0, 0, w.off)
		if w.mask != 0xffffffff {
			p.emit(bpfAndK, 0, 0, w.mask)
		}
		jeq := p.emit(bpfJeqK, 0, 0, w.want)
		if i == 0 {
			p.jumpTo(jeq, false, holds) // the high words differ
		} else {
			p.jumpTo(jeq, true, fail) // both words equal
		}
	}
	p.place(holds)
}
