#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 240
# ew-kernels: 6.12
#
# eastwest's metrics through a real scraper: Debian's prometheus-node-exporter
# with its textfile collector, on loopback, reading the directory where
# eastwest-metrics.service writes (Debian's default,
# /var/lib/prometheus/node-exporter; a tmpfs here, the host root being
# read-only). The file is written by the unit's own ExecStart line.
#
# - node_exporter serves eastwest_up 1 and the node's and jobs' series, and
#   reports no textfile error (it parsed the whole file).
# - A denied connect (peer not allowed) in job metrics-a: after the next
#   write, the scraped eastwest_job_denied_total{reason="peer"} of that job
#   and its eastwest_job_decisions_total{verdict="denied"} are one higher,
#   and so is the node's eastwest_denied_total{reason="peer"}.
# - A denied connect of a process in no job raises the node's no-job count
#   and no job's.
# - Once the job is deleted, its series are gone from the scrape.
# - Module unloaded: the scrape shows eastwest_up 0 and no job series.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
LOOP=127.0.0.1
UNIT=$EW_TOP/packaging/systemd/eastwest-metrics.service
DIR=/var/lib/prometheus/node-exporter
ADDR=127.0.0.1:19100
JOB=metrics-a
CGJ=/ewmetrics

ew_require_root
ew_require_cmd prometheus-node-exporter curl rdma
ew_require_built ctl verbs
[ -d "$DIR" ] || ew_skip "no $DIR (prometheus-node-exporter not installed?)"

ew_tmp_dir
ew_defer "rmdir $EW_CG$CGJ"
ew_defer "umount $DIR"
ew_defer "ew_rmmod"
ew_defer "rdma link delete $DEV"
ew_defer "ew_reap_all"

ew_plan 22

# write: what eastwest-metrics.service runs (its ExecStart, with this
# tree's eastwestctl); exit 4 (module not loaded) is the unit's success.
write() {
	_cmd=$(sed -n 's|^ExecStart=/usr/local/sbin/eastwestctl ||p' "$UNIT")
	# shellcheck disable=SC2086 # the unit's words
	"$CTL" $_cmd
	_rc=$?
	[ "$_rc" -eq 0 ] || [ "$_rc" -eq 4 ]
}

# scrape: node_exporter's /metrics into $EW_TMP/scrape.
scrape() {
	curl -sf -o "$EW_TMP/scrape" "http://$ADDR/metrics"
}

# val NAME LABEL...: the value of the scraped sample NAME carrying every
# label LABEL (k="v"), whatever the label order; fails if there is none.
val() {
	_n=$1
	shift
	awk -v n="$_n" -v want="$*" '
	index($0, n "{") == 1 || $0 ~ "^" n " " {
		split(want, w, " ")
		for (i in w)
			if (index($0, w[i]) == 0)
				next
		print $NF
		found = 1
		exit
	}
	END { exit !found }' "$EW_TMP/scrape"
}

# job_val NAME LABEL...: val for job $JOB.
job_val() {
	val "$@" "job_name=\"$JOB\""
}

ew_load_rxe_lo

mount -t tmpfs -o mode=0755 tmpfs "$DIR" || ew_bail "cannot mount tmpfs on $DIR"
grep -q "out $DIR/eastwest.prom\$" "$UNIT" || ew_bail "the unit does not write into $DIR"
mkdir -p "$EW_CG$CGJ"
ew_check "job $JOB (peer 198.51.100.9 only)" "$CTL" job add "$JOB" cgroup "$CGJ" peer 198.51.100.9
ew_check "the unit's command writes $DIR/eastwest.prom" write

ew_start_bg "$EW_TMP/node_exporter.log" / prometheus-node-exporter \
	--web.listen-address="$ADDR" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$DIR"
ew_check "node_exporter serves /metrics on $ADDR" ew_wait_for 90 scrape ||
	{ cat "$EW_TMP/node_exporter.log"; ew_bail "no node_exporter"; }
ew_check "it read eastwest.prom without error" sh -c "
	grep -qx 'node_textfile_scrape_error 0' '$EW_TMP/scrape' &&
	grep -q '^node_textfile_mtime_seconds{file=\"$DIR/eastwest.prom\"}' '$EW_TMP/scrape'"
ew_check "it serves eastwest_up 1 and job $JOB's series" sh -c "
	grep -qx 'eastwest_up 1' '$EW_TMP/scrape' &&
	grep -q '^eastwest_job_info{.*job_name=\"$JOB\"' '$EW_TMP/scrape'"

peer0=$(job_val eastwest_job_denied_total 'reason="peer"')
den0=$(job_val eastwest_job_decisions_total 'verdict="denied"')
node0=$(val eastwest_denied_total 'reason="peer"')
ew_diag "before: job peer $peer0, job denied $den0, node peer $node0"

ew_expect_rc 13 "a process of job $JOB connecting to $LOOP (not its peer) is refused" \
	ew_in_cg "$CGJ" "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
ew_check "the unit's command writes again" write
ew_check "scrape" scrape
peer1=$(job_val eastwest_job_denied_total 'reason="peer"')
den1=$(job_val eastwest_job_decisions_total 'verdict="denied"')
node1=$(val eastwest_denied_total 'reason="peer"')
ew_diag "after: job peer $peer1, job denied $den1, node peer $node1"
ew_diag "scraped: $(grep "^eastwest_job_denied_total{.*reason=\"peer\"" "$EW_TMP/scrape")"
ew_check "the scraped job counter eastwest_job_denied_total{reason=\"peer\"} rose by one" \
	test "$peer1" = $((peer0 + 1))
ew_check "and its eastwest_job_decisions_total{verdict=\"denied\"}" test "$den1" = $((den0 + 1))
ew_check "and the node's eastwest_denied_total{reason=\"peer\"}" test "$node1" = $((node0 + 1))

nojob0=$(val eastwest_denied_total 'reason="no-job"')
ew_expect_rc 13 "a process in no job is refused" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
write && scrape
ew_check "the scraped node counter eastwest_denied_total{reason=\"no-job\"} rose by one" \
	test "$(val eastwest_denied_total 'reason="no-job"')" = $((nojob0 + 1))
ew_check "job $JOB's counters did not move" \
	test "$(job_val eastwest_job_decisions_total 'verdict="denied"')" = "$den1"

ew_check "job $JOB deleted" "$CTL" job del "$JOB"
write && scrape
ew_check "its series are gone from the scrape" sh -c "! grep -q 'job_name=\"$JOB\"' '$EW_TMP/scrape'"

ew_rxe_del "$DEV" >/dev/null 2>&1
ew_check "eastwest unloads" ew_unload
# The family lookup would load an installed (DKMS) module: not this time.
old_modprobe=$(cat /proc/sys/kernel/modprobe)
ew_defer "echo '$old_modprobe' >/proc/sys/kernel/modprobe"
echo /bin/false >/proc/sys/kernel/modprobe
ew_check "the unit's command still writes (exit 4, its success)" write
echo "$old_modprobe" >/proc/sys/kernel/modprobe
ew_check "the scrape then shows eastwest_up 0 and no eastwest counters" sh -c "
	curl -sf 'http://$ADDR/metrics' >'$EW_TMP/scrape' &&
	grep -qx 'eastwest_up 0' '$EW_TMP/scrape' &&
	! grep -q '^eastwest_decisions_total' '$EW_TMP/scrape' &&
	grep -qx 'node_textfile_scrape_error 0' '$EW_TMP/scrape'"

ew_done
