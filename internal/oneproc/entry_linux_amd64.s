#include "go_asm.h"
#include "textflag.h"

// Linux system call numbers on amd64.
#define SYS_sched_setaffinity 203
#define SYS_sched_getaffinity 204
#define SYS_getcpu 309

// entry is gatedexec's entry point (the Makefile links with -E), run with
// the stack the kernel made and nothing else yet: for a command that
// supervises a run (its first argument run or sandbox, as SupervisesRun
// says), it keeps the process's CPUs in started (startedLen bytes of
// mask), binds the process to the CPU it runs on (pinned is then 1); and
// it jumps to the Go runtime's entry. Any call that fails leaves the
// process as it was. Its registers are the runtime's to set: the
// runtime's entry reads the stack alone.
TEXT ·entry(SB),NOSPLIT|NOFRAME,$0
	// The stack holds argc, then argv's pointers. A string of the stack's
	// may be read 8 bytes on: the environment's, the auxiliary vector's
	// and the program's name follow argv's strings there.
	MOVQ	0(SP), AX
	CMPQ	AX, $2
	JLT	start
	MOVQ	16(SP), SI
	CMPL	(SI), $0x006e7572 // "run\x00"
	JEQ	pin
	MOVQ	$0x00786f62646e6173, BX // "sandbox\x00"
	CMPQ	(SI), BX
	JNE	start
pin:
	MOVQ	$0, DI
	MOVQ	$const_maskBytes, SI
	LEAQ	·started(SB), DX
	MOVQ	$SYS_sched_getaffinity, AX
	SYSCALL
	CMPQ	AX, $0
	JLE	start
	MOVQ	AX, ·startedLen(SB)
	LEAQ	·cpu(SB), DI
	XORQ	SI, SI
	XORQ	DX, DX
	MOVQ	$SYS_getcpu, AX
	SYSCALL
	CMPQ	AX, $0
	JNE	start
	MOVL	·cpu(SB), CX
	CMPL	CX, $(const_maskBytes*8)
	JAE	start
	// The mask of that CPU alone: bit cpu%64 of word cpu/64.
	MOVL	CX, BX
	SHRL	$6, BX
	ANDL	$63, CX
	MOVQ	$1, R8
	SHLQ	CX, R8
	LEAQ	·alone(SB), R9
	MOVQ	R8, (R9)(BX*8)
	MOVQ	$0, DI
	MOVQ	$const_maskBytes, SI
	LEAQ	·alone(SB), DX
	MOVQ	$SYS_sched_setaffinity, AX
	SYSCALL
	CMPQ	AX, $0
	JNE	start
	MOVQ	$1, ·pinned(SB)
start:
	JMP	_rt0_amd64_linux(SB)
