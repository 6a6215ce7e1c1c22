// SPDX-License-Identifier: GPL-2.0
/*
 * ew_readonce for a 32-bit x86 task: the same stand-in for a setuid-root
 * program that reads one byte of its standard input (deputy.sh), making
 * its system calls through the 32-bit entry (int $0x80), as an i386
 * program on an amd64 kernel does. Built freestanding (no 32-bit libc
 * needed to build or to run it).
 *
 *   ew_readonce32 read        read(0, &c, 1)
 *   ew_readonce32 socketcall  socketcall(SYS_RECVFROM, {0, &c, 1, 0, 0, 0}):
 *                             the socket is the first word of the
 *                             arguments in memory, not a register
 *   ew_readonce32 sendfile    sendfile(pipe, 0, NULL, 1): the socket is the
 *                             second argument
 *
 * Prints "euid N read M" (M the call's return, a negative errno on
 * failure), as ew_readonce does; exit status 0 if the call read a byte.
 */

#define NR_EXIT		1
#define NR_READ		3
#define NR_WRITE	4
#define NR_PIPE		42
#define NR_SOCKETCALL	102
#define NR_SENDFILE	187
#define NR_GETEUID32	201
#define SYS_RECVFROM	12

static long sys(long nr, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory");
	return ret;
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* Appends decimal @v to @p; returns the new end. */
static char *num(char *p, long v)
{
	char tmp[12];
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
	int n = 0;

	if (v < 0)
		*p++ = '-';
	do {
		tmp[n++] = '0' + u % 10;
		u /= 10;
	} while (u);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static __attribute__((used, noreturn)) void ew_main(long *sp)
{
	char **argv = (char **)(sp + 1);
	const char *mode = sp[0] > 1 ? argv[1] : "read";
	char c, line[64], *p = line;
	long n;

	if (same(mode, "socketcall")) {
		unsigned long args[6] = { 0, (unsigned long)&c, 1, 0, 0, 0 };

		n = sys(NR_SOCKETCALL, SYS_RECVFROM, (long)args, 0, 0);
	} else if (same(mode, "sendfile")) {
		int pfd[2];

		n = sys(NR_PIPE, (long)pfd, 0, 0, 0);
		if (!n)
			n = sys(NR_SENDFILE, pfd[1], 0, 0, 1);
	} else if (same(mode, "read")) {
		n = sys(NR_READ, 0, (long)&c, 1, 0);
	} else {
		n = -22;
	}
	p = str(p, "euid ");
	p = num(p, sys(NR_GETEUID32, 0, 0, 0, 0));
	p = str(p, " read ");
	p = num(p, n);
	*p++ = '\n';
	sys(NR_WRITE, 1, (long)line, p - line, 0);
	sys(NR_EXIT, n > 0 ? 0 : 1, 0, 0, 0);
	__builtin_unreachable();
}

/* The entry: the stack holds argc, then argv; aligned for the C code. */
__asm__(".globl _start\n"
	"_start:\n"
	"	xorl %ebp, %ebp\n"
	"	movl %esp, %eax\n"
	"	andl $-16, %esp\n"
	"	subl $12, %esp\n"
	"	pushl %eax\n"
	"	call ew_main\n"
	"	hlt\n");
