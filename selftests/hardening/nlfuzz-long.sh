#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 3600
#
# The long netlink fuzzing run (hardening R1; opt-in, not part of CI):
# selftests/eastwest/nlfuzz.sh with 1,000,000 root messages (and a quarter
# of that unprivileged) unless told otherwise:
#
#   selftests/vm/run --kernel 6.12 selftests/hardening/nlfuzz-long.sh
#
# Environment variables do not cross into the guest: put the EW_NLFUZZ_*
# settings (see nlfuzz.sh) in build/hardening.env, which is read here, e.g.
#
#   echo 'EW_NLFUZZ_MESSAGES=5000000 EW_NLFUZZ_SEED=random' >build/hardening.env
#
# Raise the ew-timeout above for runs past ~10M messages (~6000 messages/s
# under TCG on this machine).

top=${EW_TOP:-$(cd "$(dirname "$0")/../.." && pwd -P)}
if [ -f "$top/build/hardening.env" ]; then
	# shellcheck disable=SC1091 # written by the operator
	. "$top/build/hardening.env"
fi
EW_NLFUZZ_MESSAGES=${EW_NLFUZZ_MESSAGES:-1000000}
export EW_NLFUZZ_MESSAGES EW_NLFUZZ_UNPRIV_MESSAGES EW_NLFUZZ_SEED EW_NLFUZZ_LEAK_SLACK
exec "$top/selftests/eastwest/nlfuzz.sh"
