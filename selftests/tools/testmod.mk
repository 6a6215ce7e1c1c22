# SPDX-License-Identifier: GPL-2.0
#
# The build of a test module for one kernel, included by the Makefile of
# each (fake_counter/, ipmodify_owner/, qp_opener/) after it sets:
#
#   MOD       the module's name, also its directory here
#   MOD_SRCS  the files Kbuild needs, in that directory
#
# It builds in build/REL/MOD/ (a tree of links to the sources, as the
# top-level Makefile does for eastwest.ko), so builds for several kernels
# never share objects and the source directory may be read-only.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
SRC := $(TOP)/selftests/tools/$(MOD)
KDIR ?= /lib/modules/$(shell uname -r)/build
KREL = $(shell sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
OUT ?= $(TOP)/build/$(KREL)/$(MOD)

all:
	@test -n "$(KREL)" || { echo "$(MOD): no kernel headers at $(KDIR)" >&2; exit 1; }
	@mkdir -p $(OUT)
	@ln -sf $(addprefix $(SRC)/,$(MOD_SRCS)) $(OUT)/
	$(MAKE) -C $(KDIR) M=$(OUT) modules

clean:
	rm -rf $(TOP)/build/*/$(MOD)

.PHONY: all clean
