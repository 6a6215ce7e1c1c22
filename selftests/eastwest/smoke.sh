#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 180
#
# Smoke test: eastwest.ko loads and unloads cleanly and its ib_client follows
# RDMA devices as they come and go, including devices that exist before the
# module loads and devices still present when it unloads.
#
# The device is a soft-RoCE (rxe) device on lo: rxe accepts lo on Debian's
# 6.1 and 6.12 kernels (and RC traffic between two QPs on it works). If a
# kernel ever refuses lo, a dummy netdev with a TEST-NET-2 address is used.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
DUMMY=ewsmoke0

ew_require_root
ew_require_cmd rdma ip insmod rmmod
[ -e /sys/module/rdma_rxe ] || modprobe rdma_rxe 2>/dev/null ||
	ew_skip "rdma_rxe is not available"
[ ! -e /sys/module/eastwest ] || ew_bail "eastwest is already loaded"
[ ! -e "/sys/class/infiniband/$DEV" ] || ew_bail "$DEV already exists"

# Whatever happens, leave no device and no module behind.
ew_defer "ew_netdev_del $DUMMY"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"

# Creates $DEV on lo, or on a dummy netdev where rxe refuses lo.
rxe_add() {
	if [ -z "${NETDEV:-}" ]; then
		if ew_rxe_add "$DEV" lo 2>/dev/null; then
			NETDEV=lo
			return 0
		fi
		ew_diag "rxe refuses lo here; using a dummy netdev"
		ew_dummy_add "$DUMMY" 198.51.100.1/24 || return 1
		NETDEV=$DUMMY
	fi
	ew_rxe_add "$DEV" "$NETDEV"
}

# Checks that the module is gone and logged its goodbye.
unloaded() {
	ew_unload && ew_dmesg_wait 'eastwest: unloaded'
}

ew_plan 17

# 1. Load with no RDMA device present.
ew_dmesg_mark
ew_check "eastwest.ko loads" ew_load
ew_check "/sys/module/eastwest exists" test -d /sys/module/eastwest
ew_check "load is logged" ew_dmesg_wait 'eastwest: version [^ ]+ loaded'

# 2. A device appears and goes away while the module is loaded.
ew_dmesg_mark
ew_check "$DEV is created" rxe_add
ew_diag "$DEV sits on ${NETDEV:-?}"
ew_check "$DEV is registered" ew_dmesg_wait "eastwest: $DEV: registered"
ew_dmesg_mark
ew_check "$DEV is deleted" ew_rxe_del "$DEV"
ew_check "$DEV is unregistered" ew_dmesg_wait "eastwest: $DEV: unregistered"

# 3. The module unloads while a device is present.
ew_dmesg_mark
ew_check "$DEV is created again" rxe_add
ew_check "$DEV is registered again" ew_dmesg_wait "eastwest: $DEV: registered"
ew_dmesg_mark
ew_check "eastwest unloads with $DEV present" unloaded
ew_check "$DEV is unregistered on unload" ew_dmesg_since_mark "eastwest: $DEV: unregistered"
ew_check "$DEV survives the unload" test -e "/sys/class/infiniband/$DEV"

# 4. The module loads while a device is present: add() runs for it.
ew_dmesg_mark
ew_check "eastwest.ko loads again" ew_load
ew_check "existing $DEV is registered on load" ew_dmesg_wait "eastwest: $DEV: registered"
ew_dmesg_mark
ew_check "$DEV is deleted again" ew_rxe_del "$DEV"
ew_check "$DEV is unregistered again" ew_dmesg_wait "eastwest: $DEV: unregistered"
ew_check "eastwest unloads with no device" unloaded

ew_done
