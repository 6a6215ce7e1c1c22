# SPDX-License-Identifier: GPL-2.0
# TAP for the shell tests that run on the host (integrations, packaging):
# ok NAME; not_ok NAME [DETAIL...], each detail line printed as a "#"
# comment. $n counts the cases, $failed the failures.

n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
	shift
	[ $# -eq 0 ] || printf '%s\n' "$@" | sed 's/^/#   /'
}
