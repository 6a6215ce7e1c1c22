# SPDX-License-Identifier: GPL-2.0
# The sources of libewbase.a, for lib/Makefile and for the libFuzzer builds
# of userspace/ and userspace/attest/, which compile every source with clang.
EWLIB_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
EWLIB_SRCS := $(addprefix $(EWLIB_DIR)/,msg.c hex.c file.c run.c opts.c jsonkey.c)
EWLIB := $(EWLIB_DIR)/libewbase.a
