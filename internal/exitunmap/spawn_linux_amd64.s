#include "textflag.h"

// allSignals is a signal mask holding every signal.
DATA ·allSignals+0(SB)/8, $-1
GLOBL ·allSignals(SB), RODATA, $8

// func spawn(pidfd int32, stack, removals uintptr) int64
//
// The child shares this process's memory while Go goes on using it: it
// writes nothing but its own stack, holds pidfd in R12, the stack's top
// in R13 and the removals (a count, then that many pointers to paths, all
// in its own mapping) in BX, and calls nothing.
TEXT ·spawn(SB), NOSPLIT, $16-32
	MOVL	pidfd+0(FP), R12
	MOVQ	stack+8(FP), R13
	MOVQ	removals+16(FP), BX

	// rt_sigprocmask(SIG_SETMASK, &allSignals, &old, 8): the child
	// starts with this thread's mask and TLS, so a signal it took
	// before its mask is set would run Go's handler on this thread's g.
	MOVQ	$2, DI
	LEAQ	·allSignals(SB), SI
	LEAQ	0(SP), DX
	MOVQ	$8, R10
	MOVQ	$14, AX
	SYSCALL

	// clone(CLONE_VM|SIGCHLD, stack, NULL, NULL, 0)
	MOVQ	$0x111, DI
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
	// close_range(0, 2, 0): whoever reads this process's output gets
	// its end when the process exits, not when the child does.
	XORQ	DI, DI
	MOVQ	$2, SI
	XORQ	DX, DX
	MOVQ	$436, AX
	SYSCALL

	// struct pollfd {fd: pidfd, events: POLLIN} at the stack's top.
	MOVL	R12, -16(R13)
	MOVL	$1, -12(R13)

wait:
	// ppoll(&pollfd, 1, NULL, NULL, 8): a pidfd is readable once its
	// whole thread group has exited. Only a stray EINTR is retried;
	// any other result ends the wait.
	LEAQ	-16(R13), DI
	MOVQ	$1, SI
	XORQ	DX, DX
	XORQ	R10, R10
	MOVQ	$8, R8
	MOVQ	$271, AX
	SYSCALL
	CMPQ	AX, $-4
	JEQ	wait

	// With removals, close_range(3, ~0, 0) first: what the process left
	// open goes now, a run's mount namespace with it, so that no
	// directory removed below is still a mount point there (removing one
	// would detach it, waiting out an RCU grace period with its parent
	// directory locked against the next run's placeholders).
	MOVQ	0(BX), R14
	ADDQ	$8, BX
	CMPQ	R14, $0
	JLE	exit
	MOVQ	$3, DI
	MOVL	$-1, SI
	XORQ	DX, DX
	MOVQ	$436, AX
	SYSCALL

remove:
	// unlinkat(AT_FDCWD, path, AT_REMOVEDIR) for each: only an empty
	// directory goes, and a failure leaves it.
	CMPQ	R14, $0
	JLE	exit
	MOVQ	$-100, DI
	MOVQ	0(BX), SI
	MOVQ	$0x200, DX
	MOVQ	$263, AX
	SYSCALL
	ADDQ	$8, BX
	DECQ	R14
	JMP	remove

exit:
	// exit(0): the memory goes with the last task that holds it.
	XORQ	DI, DI
	MOVQ	$60, AX
	SYSCALL
	JMP	exit
