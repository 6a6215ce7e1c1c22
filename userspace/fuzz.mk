# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer runs, for userspace/Makefile and userspace/attest/Makefile. The
# including Makefile sets, before including this:
#
#   FUZZERS       the targets, fuzz/NAME.c each, seeded from
#                 fuzz/corpus/NAME-without-fuzz_
#   FUZZ_MAX_LEN  the longest input libFuzzer may try
#   FUZZ_SECONDS  how long each one runs
#
# and the rule $(FUZZ_DIR)/%, which starts with $(FUZZ_NEED_CLANG) and
# compiles with $(CLANG) $(FUZZ_CFLAGS) plus its own include paths.

FUZZ_DIR := fuzz/build
FUZZ_CFLAGS := -g -O1 -std=c11 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -D_GNU_SOURCE

define FUZZ_NEED_CLANG
@command -v $(CLANG) >/dev/null || { echo "fuzz: $(CLANG) not found" >&2; exit 1; }
@mkdir -p $(FUZZ_DIR)
endef

fuzz-build: $(addprefix $(FUZZ_DIR)/,$(FUZZERS))

# Each target on a fresh corpus beside the seeds; on a failure, the end of
# its log and a non-zero exit.
fuzz: fuzz-build
	@set -e; for f in $(FUZZERS); do \
		name=$${f#fuzz_}; corpus=$(FUZZ_DIR)/corpus-$$name; \
		rm -rf $$corpus; mkdir -p $$corpus; \
		echo "== $$f ($(FUZZ_SECONDS) s)"; \
		if ! $(FUZZ_DIR)/$$f -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) \
			-artifact_prefix=$(FUZZ_DIR)/$$f- $$corpus fuzz/corpus/$$name \
			>$(FUZZ_DIR)/$$f.log 2>&1; then \
			tail -n 40 $(FUZZ_DIR)/$$f.log; \
			echo "fuzz: $$f failed (log: $(FUZZ_DIR)/$$f.log)" >&2; exit 1; \
		fi; \
		grep -E '^(#[0-9]+[[:space:]]+DONE|Done)' $(FUZZ_DIR)/$$f.log | tail -n 2; \
	done
