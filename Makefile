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
OUT = $(TOP)/build/$(KREL)
KMOD_SRCS := $(wildcard $(TOP)/kmod/*.c $(TOP)/kmod/*.h)

CHECKPATCH ?= /usr/src/linux-source-6.1/scripts/checkpatch.pl

.PHONY: all module userspace tools clean matrix check checkpatch kunit test \
	demo bench

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

userspace:
	$(MAKE) -C $(TOP)/userspace

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

test:
	$(TOP)/scripts/run-tests

demo:
	$(TOP)/scripts/demo

# Benchmarks in the VM (ratios side by side, never pass/fail).
bench:
	$(TOP)/bench/run

clean:
	rm -rf $(TOP)/build
	-$(MAKE) -C $(TOP)/userspace clean
	-$(MAKE) -C $(TOP)/selftests/tools clean
