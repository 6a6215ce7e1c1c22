#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-kernels: 6.12
# ew-boot: systemd
# ew-timeout: 240
#
# The installed packages at boot, under a real systemd (PID 1): the
# eastwestctl .deb's eastwest.service, enabled by its postinst, loads the
# DKMS-built module and applies /etc/eastwest/policy.json; in enforce mode
# (EW_ADMISSION=attest) no job connects until the node is admitted;
# "systemctl reload" re-reads the policy and keeps run-time jobs, and a
# reload from audit to enforce requires admission again; the management
# ACL comes back when nftables.service restarts or reloads (both flush
# the ruleset);
# "systemctl restart" with EW_UNLOAD_ON_STOP=yes reloads the module and
# restores every job. Needs the .debs installed on the host
# (scripts/test-packaging install, which scripts/run-tests runs as root).
#
# selftests/vm/guest-init first calls "boot.sh --prepare ROOT" to seed the
# overlay root systemd boots: the policy, /etc/default/eastwest, and a slice
# for the static job that exists before eastwest.service starts.

if [ "${1:-}" = --prepare ]; then
	root=$2
	mkdir -p "$root/etc/eastwest" "$root/etc/systemd/system/multi-user.target.wants"
	cat >"$root/etc/eastwest/policy.json" <<-EOF
	{ "config": { "mode": "enforce", "default_action": "deny" },
	  "jobs": [ { "name": "boot-static", "cgroups": ["/ewboot.slice"],
	              "peers": ["127.0.0.0/8"] } ] }
	EOF
	printf 'EW_ADMISSION=attest\nEW_UNLOAD_ON_STOP=yes\n' >"$root/etc/default/eastwest"
	# A workload slice, as an operator's service would have: it exists
	# (its cgroup too) before eastwest.service applies the policy.
	cat >"$root/etc/systemd/system/ewboot.slice" <<-EOF
	[Unit]
	Description=eastwest boot test workload
	Before=eastwest.service
	[Install]
	WantedBy=multi-user.target
	EOF
	ln -sf ../ewboot.slice "$root/etc/systemd/system/multi-user.target.wants/ewboot.slice"
	# The management ACL and the metrics timer, enabled as an operator would
	# (systemctl enable), with their inputs.
	cat >"$root/etc/eastwest/mgmt.json" <<-EOF
	{ "admin_networks": ["192.0.2.0/24"], "services": { "ssh": {} } }
	EOF
	ln -sf /lib/systemd/system/eastwest-mgmt.service \
		"$root/etc/systemd/system/multi-user.target.wants/eastwest-mgmt.service"
	mkdir -p "$root/etc/systemd/system/timers.target.wants" "$root/var/lib/prometheus/node-exporter"
	ln -sf /lib/systemd/system/eastwest-metrics.timer \
		"$root/etc/systemd/system/timers.target.wants/eastwest-metrics.timer"
	exit 0
fi

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
CTL=/usr/sbin/eastwestctl
LOOP=127.0.0.1

ew_require_root
ew_require_cmd rdma jq systemctl
[ "$(cat /proc/1/comm)" = systemd ] || ew_skip "not booted with systemd (ew-boot: systemd)"
[ -f /lib/systemd/system/eastwest.service ] && [ -x "$CTL" ] ||
	ew_skip "the .debs are not installed (scripts/test-packaging install)"
ew_require_built verbs

ew_defer "rdma link delete $DEV"
ew_defer "rmdir $CG/ewboot-dyn"

jobs_are() {
	got=$("$CTL" -j job show | jq -r '[.[].name] | sort | join(" ")')
	[ "$got" = "$1" ] || { echo "jobs: '$got', expected '$1'" >&2; return 1; }
}
config_field() { "$CTL" -j config show | jq -r ".$1"; }
connect_static() { ew_in_cg /ewboot.slice "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self; }

ew_plan 30

ew_check "eastwest.service is enabled" systemctl is-enabled --quiet eastwest.service
ew_check "eastwest.service is active after boot" systemctl is-active --quiet eastwest.service
ew_check "the module was loaded by the service, from DKMS" sh -c \
	"test -e /sys/module/eastwest && modinfo -n eastwest | grep -q /updates/dkms/"
ew_check "the boot policy is applied (job boot-static)" jobs_are boot-static
ew_check "the fabric is closed: admission required" test "$(config_field admission_required)" = true
ew_check "the journal has the service's report" sh -c \
	"journalctl -b -u eastwest.service --no-pager | grep -q 'fabric closed until this node is admitted'"
ew_check "eastwest-mgmt.service applied the management ACL at boot" sh -c \
	"systemctl is-active --quiet eastwest-mgmt.service && nft list table inet eastwest_mgmt | grep -q 192.0.2.0/24"
# nftables.service's start and reload run /etc/nftables.conf, which begins
# with "flush ruleset"; the ACL's unit follows them.
mgmt_acl() { nft list table inet eastwest_mgmt | grep -q 192.0.2.0/24; }
ew_check "systemctl restart nftables (its start flushes the ruleset)" \
	systemctl restart nftables.service
ew_check "the management ACL is applied again" ew_wait_for 20 mgmt_acl
ew_check "systemctl reload nftables (so does its reload)" \
	systemctl reload nftables.service
ew_check "the management ACL is applied again" ew_wait_for 20 mgmt_acl
ew_check "eastwest-metrics.timer wrote the textfile metrics" \
	ew_wait_for 60 grep -q '^eastwest_up 1' /var/lib/prometheus/node-exporter/eastwest.prom
ew_check "the metrics report the boot job" \
	grep -q 'job_name="boot-static"' /var/lib/prometheus/node-exporter/eastwest.prom

ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
ew_expect_rc 13 "not admitted: the static job cannot connect" connect_static
ew_check "admit the node" "$CTL" config set admission admitted
ew_expect_rc 0 "admitted: the static job connects" connect_static

mkdir -p "$CG/ewboot-dyn"
ew_check "a run-time job (as the Slurm prolog makes it)" \
	"$CTL" job add dyn cgroup /ewboot-dyn peer 10.1.0.0/16
jq '.jobs[0].peers += ["192.0.2.0/24"]' /etc/eastwest/policy.json >/tmp/p.json &&
	cp /tmp/p.json /etc/eastwest/policy.json
ew_check "systemctl reload eastwest" systemctl reload eastwest.service
ew_check "reload applied the new peer and kept the run-time job" sh -c "
	'$CTL' -j peer show boot-static | grep -q 192.0.2.0/24 &&
	test \"\$('$CTL' -j job show | jq -r '[.[].name] | sort | join(\" \")')\" = 'boot-static dyn'"

# The audit-then-enforce rollout by reload: the admission gate follows.
# policy_mode MODE: policy.json's mode set to MODE, then systemctl reload.
policy_mode() {
	jq --arg m "$1" '.config.mode = $m' /etc/eastwest/policy.json >/tmp/p.json &&
		cp /tmp/p.json /etc/eastwest/policy.json && systemctl reload eastwest.service
}
required_is() { test "$(config_field admission_required)" = "$1"; }
ew_check "reload to audit mode" policy_mode audit
ew_check "admission is no longer required" required_is false
ew_check "reload to enforce mode (the audit-then-enforce rollout)" policy_mode enforce
ew_check "admission is required again" required_is true
ew_expect_rc 0 "the node, admitted already, stays admitted: the static job connects" connect_static

loads_before=$(dmesg | grep -c 'eastwest: version .* loaded' || :)
ew_check "systemctl restart eastwest (EW_UNLOAD_ON_STOP=yes)" systemctl restart eastwest.service
ew_check "the module was unloaded and loaded again" sh -c \
	"test \$(dmesg | grep -c 'eastwest: version .* loaded') -gt $loads_before"
ew_check "every job was restored" jobs_are "boot-static dyn"
ew_check "and the fabric is closed again until admission" sh -c \
	"test \"\$('$CTL' -j config show | jq -r '.admission_required, .admission' | tr '\n' ' ')\" = 'true unattested '"

ew_done
