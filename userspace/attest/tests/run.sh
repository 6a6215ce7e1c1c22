#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs the attestation tests against a private swtpm:
#   - fixtures from make_fixtures.py (computed in Python, independently of C)
#   - a TPM provisioned by swtpm_setup (RSA EK at 0x81010001, its certificate
#     at NV 0x01c00002) with a local CA private to this run
#   - swtpm on a free port with --flags not-need-init,startup-clear
#   - a second swtpm ("node B", EK from the template) for the tests that a
#     key released to one TPM cannot be unwrapped by another ($EW_TCTI_B)
# then every test program (even after a failure), swtpm stopped by its pid,
# and one line: "attest: N passed, N failed".
#
#   run.sh TEST_PROGRAM...
set -u
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
work=$(mktemp -d /tmp/ew-attest-test.XXXXXX)
pidfile=$work/swtpm.pid
pidfile_b=$work/swtpm-b.pid

teardown() {
	for f in "$pidfile" "$pidfile_b"; do
		if [ -s "$f" ]; then
			kill "$(cat "$f")" 2>/dev/null
		fi
	done
	rm -rf "$work"
}
trap teardown EXIT INT TERM

# Two ports whose neighbours (swtpm's control channels) are free as well.
ports=$("$PYTHON" - <<'PY'
import random, socket
found = []
for _ in range(400):
    p = random.randrange(20000, 60000, 2)
    if p in found:
        continue
    try:
        for q in (p, p + 1):
            s = socket.socket()
            s.bind(("127.0.0.1", q))
            s.close()
        found.append(p)
        if len(found) == 2:
            break
    except OSError:
        pass
print(" ".join(map(str, found)))
PY
)
port=${ports%% *}
port_b=${ports#* }
[ -n "$port" ] && [ -n "$port_b" ] && [ "$port" != "$port_b" ] ||
	{ echo "attest: no free port" >&2; exit 1; }

"$PYTHON" "$here/make_fixtures.py" "$work/fixtures" || { echo "attest: fixtures failed" >&2; exit 1; }

mkdir -p "$work/tpm" "$work/ca"
cat >"$work/localca.conf" <<CONF
statedir = $work/ca
signingkey = $work/ca/signkey.pem
issuercert = $work/ca/issuercert.pem
certserial = $work/ca/certserial
CONF
cat >"$work/setup.conf" <<CONF
create_certs_tool = /usr/bin/swtpm_localca
create_certs_tool_config = $work/localca.conf
create_certs_tool_options = /etc/swtpm-localca.options
active_pcr_banks = sha256
CONF
if swtpm_setup --tpm2 --tpmstate "$work/tpm" --create-ek-cert \
	--config "$work/setup.conf" >"$work/setup.log" 2>&1; then
	export EW_SWTPM_CA="$work/ca/issuercert.pem"
else
	echo "attest: swtpm_setup failed, the EK comes from the template (log below)" >&2
	cat "$work/setup.log" >&2
fi
swtpm socket --tpm2 --tpmstate dir="$work/tpm" \
	--server type=tcp,port="$port",bindaddr=127.0.0.1 \
	--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
	--flags not-need-init,startup-clear --pid file="$pidfile" -d ||
	{ echo "attest: swtpm did not start" >&2; exit 1; }
mkdir -p "$work/tpm-b"
swtpm socket --tpm2 --tpmstate dir="$work/tpm-b" \
	--server type=tcp,port="$port_b",bindaddr=127.0.0.1 \
	--ctrl type=tcp,port=$((port_b + 1)),bindaddr=127.0.0.1 \
	--flags not-need-init,startup-clear --pid file="$pidfile_b" -d ||
	{ echo "attest: the second swtpm did not start" >&2; exit 1; }
i=0
while { [ ! -s "$pidfile" ] || [ ! -s "$pidfile_b" ]; } && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done

export EW_TCTI="swtpm:host=127.0.0.1,port=$port"
export EW_TCTI_B="swtpm:host=127.0.0.1,port=$port_b"
export EW_FIXTURES="$work/fixtures" EW_TEST_WORK="$work"
export EW_VM_FIXTURES="$here/fixtures"
export EW_VERIFIER="$here/../eastwest-verifier"

pass=0 fail=0 rc=0
for t in "$@"; do
	echo "== $t"
	"$t" >"$work/log" 2>&1 || rc=1
	cat "$work/log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$work/log")
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$work/log")
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	if [ -z "$p$f" ]; then fail=$((fail + 1)); rc=1; fi
done
echo "attest: $pass passed, $fail failed"
exit $rc
