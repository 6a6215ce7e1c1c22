// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for a setuid-root program that reads its standard input, as a
 * password prompt does (sudo -S reads one character at a time): one read
 * of one byte. With "sendfile", the byte is moved into a pipe by
 * sendfile(2) instead, as a program that copies its standard input to a
 * pipe does (a socket is read by sendfile() only into a pipe): the input is
 * then the call's second argument, not its first. With "sendfile-out FILE",
 * FILE is copied to standard output by sendfile(2), as a program that
 * copies a file to its standard output does: the output is the call's
 * first argument; the report goes to standard error.
 * deputy.sh installs a copy setuid root. Prints its effective uid and what
 * the read returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
	ssize_t n;
	char c;

	if (argc > 2 && !strcmp(argv[1], "sendfile-out")) {
		int in = open(argv[2], O_RDONLY);
		struct stat st;

		n = in < 0 || fstat(in, &st) ? -1 :
		    sendfile(1, in, NULL, (size_t)st.st_size);
		fprintf(stderr, "euid %d read %zd%s%s\n", (int)geteuid(), n,
			n < 0 ? " " : "", n < 0 ? strerror(errno) : "");
		return n < 0;
	}
	if (argc > 1 && !strcmp(argv[1], "sendfile")) {
		int pfd[2];

		n = pipe(pfd) ? -1 : sendfile(pfd[1], 0, NULL, 1);
	} else {
		n = read(0, &c, 1);
	}
	printf("euid %d read %zd%s%s\n", (int)geteuid(), n, n < 0 ? " " : "",
	       n < 0 ? strerror(errno) : "");
	return n < 0;
}
