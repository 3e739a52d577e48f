#include "textflag.h"

// handler(sig int, info *siginfo, ctx *ucontext), called by the kernel
// with the C calling convention on the thread's alternate signal stack:
// write(writeFD, &byte(sig), 1), in the process that installed it only
// (ownerPID): a child forked between its fork and its exec keeps the
// handler, and a signal to both would be handed on twice. It touches
// nothing of Go's, and the registers it clobbers are restored from the
// signal frame on return. A full pipe drops the signal (the write end
// does not block).
TEXT handler<>(SB), NOSPLIT|NOFRAME, $0
	MOVQ	DI, R8 // the signal; getpid clobbers AX, CX and R11 only
	MOVQ	$39, AX // getpid
	SYSCALL
	CMPL	AX, ·ownerPID(SB)
	JNE	done
	SUBQ	$8, SP
	MOVB	R8, 0(SP)
	MOVL	·writeFD(SB), DI
	MOVQ	SP, SI
	MOVQ	$1, DX
	MOVQ	$1, AX // write
	SYSCALL
	ADDQ	$8, SP
done:
	RET

// restorer returns from the handler to the kernel.
TEXT restorer<>(SB), NOSPLIT|NOFRAME, $0
	MOVQ	$15, AX // rt_sigreturn
	SYSCALL
	INT	$3

// func handlerPC() uintptr
TEXT ·handlerPC(SB), NOSPLIT, $0-8
	LEAQ	handler<>(SB), AX
	MOVQ	AX, ret+0(FP)
	RET

// func restorerPC() uintptr
TEXT ·restorerPC(SB), NOSPLIT, $0-8
	LEAQ	restorer<>(SB), AX
	MOVQ	AX, ret+0(FP)
	RET
