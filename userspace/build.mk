# SPDX-License-Identifier: GPL-2.0
#
# The build settings every user-space C program of eastwest shares, so that
# all are built alike: the version, the tools, the warnings (as errors) and,
# with SANITIZE=1, ASan + UBSan. Included, once TOP is set, by
# userspace/Makefile (eastwestctl), userspace/attest/Makefile,
# userspace/lib/Makefile (libewbase.a) and integrations/oci/Makefile.

EW_VERSION ?= $(shell sed -n 's/^EW_VERSION := //p' $(TOP)/Makefile 2>/dev/null)
EW_VERSION := $(or $(EW_VERSION),0.0.0)

CC ?= cc
CLANG ?= clang
PKG_CONFIG ?= pkg-config
CPPCHECK ?= cppcheck
INSTALL ?= install

CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Werror -Wshadow -Wformat=2 \
	-Wmissing-prototypes -Wstrict-prototypes -Wpointer-arith -Wvla \
	-fno-strict-aliasing

ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
