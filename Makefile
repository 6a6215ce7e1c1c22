# SPDX-License-Identifier: GPL-2.0
#
# Wrapper around Kbuild (module) and userspace/ (tools). Kbuild itself reads
# ./Kbuild, never this file.
#
#   make                     module for KDIR + userspace tools
#   make KDIR=/path/to/build module for another kernel
#   make matrix              module for every installed header set
#   make check               W=1 + sparse (C=1) + checkpatch --strict
#   make kunit               KUnit suites on UML (linux-source-6.1)
#   make kunit-debug         the same under lockdep and KASAN (what CI runs)
#   make test                the whole suite (README's test command)

EW_VERSION := 0.1.0
export EW_VERSION

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# Default KDIR: the running kernel's build dir, else the newest Debian headers.
KDIR ?= $(shell d=/lib/modules/$$(uname -r)/build; \
	if [ -d $$d ]; then echo $$d; else \
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1; fi)
# The release the module will load into (vermagic), e.g. 6.1.0-57-amd64.
KREL = $(shell sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

# Each kernel gets its own object tree (build/<release>) of symlinks to the
# sources, so that builds for several kernels never share objects.
OUT = $(TOP)/build/$(KREL)$(if $(filter 1,$(EW_FAULT_INJECT)),-fault)
KMOD_SRCS := $(wildcard $(TOP)/kmod/*.c $(TOP)/kmod/*.h)

CHECKPATCH ?= /usr/src/linux-source-6.1/scripts/checkpatch.pl

.PHONY: all module module-fault netdevsim siw userspace tools clean matrix check checkpatch kunit kunit-debug test \
	demo bench install uninstall dkms-source dkms-install dkms-remove deb

all: module userspace

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "no kernel build dir; set KDIR= or run scripts/install-deps" >&2; exit 1; }
	@mkdir -p $(OUT)/kmod
	@ln -sfn $(TOP)/uapi $(OUT)/uapi
	@ln -sf $(TOP)/Kbuild $(OUT)/Kbuild
	@for f in $(KMOD_SRCS); do ln -sf $$f $(OUT)/kmod/; done
	@# Sources removed from kmod/ leave dangling links (and stale objects).
	@find $(OUT)/kmod -xtype l -delete
	@# One build per tree at a time: concurrent runs (tests, demo) share it.
	flock $(OUT)/.build.lock $(MAKE) -C $(KDIR) M=$(OUT) modules \
		$(if $(W),W=$(W)) $(if $(C),C=$(C))
	@echo "built $(OUT)/eastwest.ko"

# The test variant with allocation-failure injection points (kmod/fault.h),
# in build/<release>-fault/; never installed or packaged.
module-fault:
	$(MAKE) --no-print-directory module EW_FAULT_INJECT=1

# netdevsim (drivers/net/netdevsim: simulated MACsec and ESP crypto offload),
# which Debian's kernels do not ship, built out of tree from the sources of
# the same series (linux-source-X.Y.tar.xz) into build/<release>/netdevsim/
# for the VM test nsim-offload.sh. CONFIG_NETDEVSIM is off in Debian's
# config, so the line sets it; its Makefile adds ipsec.o and macsec.o from
# the config's CONFIG_XFRM_OFFLOAD and CONFIG_MACSEC. Only the 6.12 sources
# build against their headers (6.1's netdevsim has no macsec.c).
KSRC_SERIES = $(shell echo $(KREL) | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
KSRC_TAR = /usr/src/linux-source-$(KSRC_SERIES).tar.xz
NSIM_OUT = $(TOP)/build/$(KREL)/netdevsim

netdevsim:
	@test -n "$(KREL)" || { echo "no kernel build dir; set KDIR=" >&2; exit 1; }
	@test -f $(KSRC_TAR) || { echo "$(KSRC_TAR) missing (apt-get install linux-source-$(KSRC_SERIES))" >&2; exit 1; }
	@mkdir -p $(NSIM_OUT)
	@if [ ! -f $(NSIM_OUT)/macsec.c ] || [ $(KSRC_TAR) -nt $(NSIM_OUT)/macsec.c ]; then \
		tar -xJf $(KSRC_TAR) -C $(NSIM_OUT) --strip-components=4 --touch \
			--wildcards 'linux-source-$(KSRC_SERIES)/drivers/net/netdevsim/*' && \
		test -f $(NSIM_OUT)/macsec.c || \
		{ echo "linux-source-$(KSRC_SERIES): its netdevsim has no macsec.c" >&2; exit 1; }; \
	fi
	flock $(NSIM_OUT)/.build.lock $(MAKE) -C $(KDIR) M=$(NSIM_OUT) CONFIG_NETDEVSIM=m modules
	@echo "built $(NSIM_OUT)/netdevsim.ko"

# siw (drivers/infiniband/sw/siw: soft-iWARP), which Debian's kernels do not
# ship either (CONFIG_RDMA_SIW is off), built the same way into
# build/<release>/siw/ for the VM test iwarp.sh: an iWARP device, whose
# connections the core's iWARP CM makes past the verbs modify path.
SIW_OUT = $(TOP)/build/$(KREL)/siw

siw:
	@test -n "$(KREL)" || { echo "no kernel build dir; set KDIR=" >&2; exit 1; }
	@test -f $(KSRC_TAR) || { echo "$(KSRC_TAR) missing (apt-get install linux-source-$(KSRC_SERIES))" >&2; exit 1; }
	@mkdir -p $(SIW_OUT)
	@if [ ! -f $(SIW_OUT)/siw_main.c ] || [ $(KSRC_TAR) -nt $(SIW_OUT)/siw_main.c ]; then \
		tar -xJf $(KSRC_TAR) -C $(SIW_OUT) --strip-components=5 --touch \
			--wildcards 'linux-source-$(KSRC_SERIES)/drivers/infiniband/sw/siw/*'; \
	fi
	flock $(SIW_OUT)/.build.lock $(MAKE) -C $(KDIR) M=$(SIW_OUT) CONFIG_RDMA_SIW=m modules
	@echo "built $(SIW_OUT)/siw.ko"

userspace:
	$(MAKE) -C $(TOP)/userspace
	@set -e; for m in $(wildcard $(TOP)/integrations/*/Makefile); do \
		$(MAKE) -C $$(dirname $$m); done

# Helpers the VM tests run (verbs calls with exact outcomes).
tools:
	$(MAKE) -C $(TOP)/selftests/tools

# Every installed Debian header set (the generic amd64 flavour).
HEADER_DIRS = $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V)

matrix:
	@test -n "$(HEADER_DIRS)" || { echo "no kernel headers installed" >&2; exit 1; }
	@set -e; for k in $(HEADER_DIRS); do \
		echo "== $$k"; \
		$(MAKE) --no-print-directory module KDIR=$$k W=1 C=2 2>&1 | \
			tee $(TOP)/build/.matrix.log; \
		if grep -E 'warning:|error:' $(TOP)/build/.matrix.log; then \
			echo "matrix: $$k: warnings" >&2; exit 1; fi; \
	done

checkpatch:
	@test -x $(CHECKPATCH) || { echo "checkpatch.pl not found: run scripts/install-deps" >&2; exit 1; }
	$(CHECKPATCH) --strict --no-tree --terse --show-types --no-summary \
		-f $(filter-out %/netlink-gen.c %/netlink-gen.h %/compat.c %/compat.h,$(KMOD_SRCS)) \
		$(wildcard $(TOP)/kmod/tests/*.c)
	@# Version tests are compat.[ch]'s whole purpose.
	$(CHECKPATCH) --strict --no-tree --terse --show-types --no-summary \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f $(TOP)/kmod/compat.c $(TOP)/kmod/compat.h

check: matrix checkpatch

kunit:
	$(TOP)/scripts/kunit-run

# Under lockdep, PROVE_RCU and KASAN (what CI runs); see Documentation/hardening.md.
kunit-debug:
	$(TOP)/scripts/kunit-run --debug

test:
	$(TOP)/scripts/run-tests

demo:
	$(TOP)/scripts/demo

# Benchmarks in the VM (ratios side by side, never pass/fail).
bench:
	$(TOP)/bench/run

# ----------------------------------------------------------------------------
# Installation. Integrations (Slurm, OCI) install when they exist.

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib/eastwest
DOCDIR ?= $(PREFIX)/share/doc/eastwest
# Units and udev rules go where systemd looks for packaged ones.
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,/etc/systemd/system)
SYSCONFDIR ?= /etc
INSTALL ?= install
INTEGRATIONS := $(wildcard $(TOP)/integrations/*/Makefile)
UNITS := $(patsubst %.in,%,$(notdir $(wildcard $(TOP)/packaging/systemd/*.in))) \
	$(notdir $(filter-out %.in,$(wildcard $(TOP)/packaging/systemd/*)))
SUBST = sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@DOCDIR@|$(DOCDIR)|g' -e 's|/usr/local/sbin/|$(SBINDIR)/|g'

install: userspace
	$(MAKE) -C $(TOP)/userspace install PREFIX=$(PREFIX) SBINDIR=$(SBINDIR)
	$(MAKE) -C $(TOP)/userspace/attest install PREFIX=$(PREFIX)
	@set -e; for m in $(INTEGRATIONS); do \
		$(MAKE) -C $$(dirname $$m) install PREFIX=$(PREFIX); done
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(SYSCONFDIR)/eastwest $(DESTDIR)$(SYSCONFDIR)/default
	$(INSTALL) -m 0755 $(TOP)/packaging/eastwest-service $(DESTDIR)$(LIBDIR)/eastwest-service
	@set -e; for f in $(wildcard $(TOP)/packaging/systemd/*); do \
		u=$$(basename $$f .in); \
		echo "  UNIT $(DESTDIR)$(UNITDIR)/$$u"; \
		$(SUBST) $$f >$(DESTDIR)$(UNITDIR)/$$u; chmod 0644 $(DESTDIR)$(UNITDIR)/$$u; \
	done
	$(INSTALL) -m 0644 $(TOP)/Documentation/*.md $(DESTDIR)$(DOCDIR)/
	@# Configuration: never overwrite what the operator wrote.
	@set -e; inst() { [ -e "$$2" ] || $(INSTALL) -m $$3 "$$1" "$$2"; }; \
		inst $(TOP)/packaging/default/eastwest $(DESTDIR)$(SYSCONFDIR)/default/eastwest 0644; \
		inst $(TOP)/packaging/policy.json $(DESTDIR)$(SYSCONFDIR)/eastwest/policy.json 0644; \
		inst $(TOP)/packaging/attest.conf $(DESTDIR)$(SYSCONFDIR)/eastwest/attest.conf.example 0644

uninstall:
	-$(MAKE) -C $(TOP)/userspace uninstall PREFIX=$(PREFIX) SBINDIR=$(SBINDIR)
	-$(MAKE) -C $(TOP)/userspace/attest uninstall PREFIX=$(PREFIX)
	-@for m in $(INTEGRATIONS); do $(MAKE) -C $$(dirname $$m) uninstall PREFIX=$(PREFIX); done
	rm -f $(DESTDIR)$(LIBDIR)/eastwest-service $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS))
	-rmdir $(DESTDIR)$(LIBDIR)
	rm -rf $(DESTDIR)$(DOCDIR)

# DKMS: the module's sources (Kbuild, kmod/, uapi/, dkms.conf) in
# /usr/src/eastwest-VERSION, the tree dkms builds from.
DKMS_SRC = $(DESTDIR)/usr/src/eastwest-$(EW_VERSION)
DKMS_FILES := dkms.conf Kbuild $(wildcard kmod/*.c kmod/*.h) uapi/linux/eastwest.h
dkms-source:
	$(INSTALL) -d $(DKMS_SRC)/kmod $(DKMS_SRC)/uapi/linux
	@set -e; cd $(TOP); for f in $(DKMS_FILES); do \
		$(INSTALL) -m 0644 $$f $(DKMS_SRC)/$$f; done
	@sed -i 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(EW_VERSION)"/' $(DKMS_SRC)/dkms.conf

# Builds and installs for every kernel with headers (dkms autoinstall only
# covers the running one, which on a build host may not be a Debian kernel).
dkms-install: dkms-remove dkms-source
	dkms add eastwest/$(EW_VERSION)
	@set -e; for k in $(HEADER_DIRS); do \
		rel=$${k#/usr/src/linux-headers-}; \
		dkms build eastwest/$(EW_VERSION) -k $$rel; \
		dkms install eastwest/$(EW_VERSION) -k $$rel --force; \
	done
	dkms status eastwest

dkms-remove:
	-@dkms status eastwest/$(EW_VERSION) 2>/dev/null | grep -q . && \
		dkms remove eastwest/$(EW_VERSION) --all; true
	rm -rf /usr/src/eastwest-$(EW_VERSION)

deb:
	$(TOP)/packaging/make-deb

clean:
	rm -rf $(TOP)/build
	-$(MAKE) -C $(TOP)/userspace clean
	-$(MAKE) -C $(TOP)/selftests/tools clean
	-@for m in $(wildcard $(TOP)/integrations/*/Makefile); do \
		$(MAKE) -C $$(dirname $$m) clean; done
