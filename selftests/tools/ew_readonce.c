// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for a setuid-root program that reads its standard input, as a
 * password prompt does (sudo -S reads one character at a time): one read
 * of one byte. deputy.sh installs a copy setuid root. Prints its effective
 * uid and what the read returned.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	char c;
	ssize_t n = read(0, &c, 1);

	printf("euid %d read %zd\n", (int)geteuid(), n);
	return n < 0;
}
