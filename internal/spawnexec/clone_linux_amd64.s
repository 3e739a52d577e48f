#include "textflag.h"

// allSignals is a signal mask holding every signal.
DATA ·allSignals+0(SB)/8, $-1
GLOBL ·allSignals(SB), RODATA, $8

// func clone(plan, stack uintptr, flags uint64) int64
//
// The child shares this process's memory while Go goes on using it until
// its execve: it reads the plan (spawnexec_linux.go says its layout),
// writes nothing but the plan's status word, and calls nothing. Every
// signal stays blocked in it, through the execve: the program it runs
// sets its own mask (the helper's main), and a signal taken before would
// run Go's handler on this thread's g.
TEXT ·clone(SB), NOSPLIT, $16-32
	MOVQ	plan+0(FP), BX
	MOVQ	stack+8(FP), R13
	MOVQ	flags+16(FP), R15

	// rt_sigprocmask(SIG_SETMASK, &allSignals, &old, 8)
	MOVQ	$2, DI
	LEAQ	·allSignals(SB), SI
	LEAQ	0(SP), DX
	MOVQ	$8, R10
	MOVQ	$14, AX
	SYSCALL

	// clone(flags, stack, NULL, NULL, 0)
	MOVQ	R15, DI
	MOVQ	R13, SI
	XORQ	DX, DX
	XORQ	R10, R10
	XORQ	R8, R8
	MOVQ	$56, AX
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	MOVQ	AX, R14

	// rt_sigprocmask(SIG_SETMASK, &old, NULL, 8)
	MOVQ	$2, DI
	LEAQ	0(SP), SI
	XORQ	DX, DX
	MOVQ	$8, R10
	MOVQ	$14, AX
	SYSCALL
	MOVQ	R14, ret+24(FP)
	RET

child:
	// sched_setaffinity(0, size, mask), when the plan has a mask: the
	// execve then happens where the program is to run.
	MOVQ	56(BX), SI
	CMPQ	SI, $0
	JEQ	session
	XORQ	DI, DI
	MOVQ	64(BX), DX
	MOVQ	$203, AX
	SYSCALL

session:
	// setsid(), when asked.
	MOVQ	80(BX), AX
	CMPQ	AX, $0
	JEQ	deathsig
	MOVQ	$112, AX
	SYSCALL
	CMPQ	AX, $0
	JL	fail

deathsig:
	// prctl(PR_SET_PDEATHSIG, SIGKILL), then getppid(): a parent that
	// died before the prctl sends no signal, so the child ends itself.
	MOVQ	$1, DI
	MOVQ	$9, SI
	XORQ	DX, DX
	XORQ	R10, R10
	XORQ	R8, R8
	MOVQ	$157, AX
	SYSCALL
	CMPQ	AX, $0
	JL	fail
	MOVQ	72(BX), R12
	CMPQ	R12, $0
	JEQ	status
	MOVQ	$110, AX
	SYSCALL
	CMPQ	AX, R12
	JEQ	status
	MOVQ	$-3, AX // ESRCH: its parent is gone
	JMP	fail

status:
	// The status pipe above every target: fcntl(fd, F_DUPFD_CLOEXEC, n).
	MOVQ	48(BX), DI
	MOVQ	$1030, SI
	MOVQ	24(BX), DX
	MOVQ	$72, AX
	SYSCALL
	CMPQ	AX, $0
	JL	exit
	MOVQ	AX, 48(BX)

	// First each source above every target (close-on-exec), so that no
	// dup3 below replaces a source not yet placed.
	MOVQ	24(BX), R14
	MOVQ	32(BX), R12
	MOVQ	40(BX), R13
	XORQ	R15, R15
above:
	CMPQ	R15, R14
	JGE	place
	MOVQ	(R12)(R15*8), DI
	CMPQ	DI, $0
	JL	above_next
	MOVQ	$1030, SI
	MOVQ	R14, DX
	MOVQ	$72, AX
	SYSCALL
	CMPQ	AX, $0
	JL	fail
	MOVQ	AX, (R13)(R15*8)
above_next:
	INCQ	R15
	JMP	above

place:
	// Then dup3(tmp, i, 0) for each target i, or close(i) for none.
	XORQ	R15, R15
place_loop:
	CMPQ	R15, R14
	JGE	exec
	MOVQ	(R12)(R15*8), DI
	CMPQ	DI, $0
	JL	place_close
	MOVQ	(R13)(R15*8), DI
	MOVQ	R15, SI
	XORQ	DX, DX
	MOVQ	$292, AX
	SYSCALL
	CMPQ	AX, $0
	JL	fail
	JMP	place_next
place_close:
	MOVQ	R15, DI
	MOVQ	$3, AX
	SYSCALL
place_next:
	INCQ	R15
	JMP	place_loop

exec:
	// execve(path, argv, envp)
	MOVQ	0(BX), DI
	MOVQ	8(BX), SI
	MOVQ	16(BX), DX
	MOVQ	$59, AX
	SYSCALL

fail:
	// The errno (AX is its negation) to the status pipe, 4 bytes.
	NEGQ	AX
	MOVL	AX, 88(BX)
	MOVQ	48(BX), DI
	LEAQ	88(BX), SI
	MOVQ	$4, DX
	MOVQ	$1, AX
	SYSCALL

exit:
	// exit_group(127)
	MOVQ	$127, DI
	MOVQ	$231, AX
	SYSCALL
	JMP	exit
