#include "textflag.h"

// func lastHandler()
// The signal handler of ArmLast: write(1, out), write(2, err),
// write(fd, rec), exit_group(status). It uses no stack and nothing of the
// Go runtime; a failed write is skipped.
TEXT ·lastHandler(SB),NOSPLIT|NOFRAME,$0-0
	MOVQ	$1, DI
	MOVQ	·lastOut(SB), SI
	MOVQ	·lastOutLen(SB), DX
	MOVQ	$1, AX // SYS_write
	SYSCALL
	MOVQ	$2, DI
	MOVQ	·lastErr(SB), SI
	MOVQ	·lastErrLen(SB), DX
	MOVQ	$1, AX
	SYSCALL
	MOVQ	·lastFd(SB), DI
	MOVQ	·lastRec(SB), SI
	MOVQ	·lastRecLen(SB), DX
	MOVQ	$1, AX
	SYSCALL
	MOVQ	·lastStatus(SB), DI
	MOVQ	$231, AX // SYS_exit_group
	SYSCALL
	INT	$3

// func handlerPC() uintptr
TEXT ·handlerPC(SB),NOSPLIT,$0-8
	LEAQ	·lastHandler(SB), AX
	MOVQ	AX, ret+0(FP)
	RET
