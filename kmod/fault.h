/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation-failure injection for tests, a delay that widens the window
 * between a modify's decision and its commit, the failure of a step of
 * QPN randomisation (whose fail-safe is otherwise unreachable here), and a
 * chosen number for the next soft-RoCE QP (QPN reuse).
 *
 * Debian kernels have no CONFIG_FAULT_INJECTION, so the module carries its
 * own injection points, compiled in only with "make module-fault" (Kbuild
 * EW_FAULT_INJECT=1, which defines EW_FAULT_INJECT and links fault.o). In
 * every other build ew_should_fail() is a constant false and
 * EW_FAIL_ALLOC() expands to nothing.
 */
#ifndef EW_FAULT_H
#define EW_FAULT_H

#include <linux/types.h>

/* The steps of soft-RoCE QPN randomisation that fault_qpnrand can fail. */
enum ew_fault_qpnrand_step {
	EW_FAULT_QPNRAND_ARM = 1,	/* register_kprobe() */
	EW_FAULT_QPNRAND_SELFTEST,	/* the self-test at load */
};

#ifdef EW_FAULT_INJECT
bool ew_should_fail(void);
void ew_fault_delay(void);
void ew_fault_sweep_delay(void);
void ew_fault_destroy_delay(void);
void ew_fault_rebuild_delay(void);
bool ew_fault_qpnrand(enum ew_fault_qpnrand_step step);
unsigned int ew_fault_qpnrand_cost(void);
u32 ew_fault_qpn_next(void);
#else
static inline bool ew_should_fail(void)
{
	return false;
}

static inline void ew_fault_delay(void)
{
}

static inline void ew_fault_sweep_delay(void)
{
}

static inline void ew_fault_destroy_delay(void)
{
}

static inline void ew_fault_rebuild_delay(void)
{
}

static inline bool ew_fault_qpnrand(enum ew_fault_qpnrand_step step)
{
	return false;
}

static inline unsigned int ew_fault_qpnrand_cost(void)
{
	return 0;
}

static inline u32 ew_fault_qpn_next(void)
{
	return 0;
}
#endif

/*
 * EW_FAIL_ALLOC(ptr, release) - after an allocation, maybe pretend it failed
 * @ptr: the pointer the allocation returned (set to NULL on injection)
 * @release: the statement that frees it (kfree(ptr), kvfree(ptr), ...)
 *
 * Freeing the real allocation and taking the caller's own "out of memory"
 * branch tests exactly the error path a real failure takes.
 */
#ifdef EW_FAULT_INJECT
#define EW_FAIL_ALLOC(ptr, release)			\
	do {						\
		typeof(ptr) *ew_fa_ptr = &(ptr);	\
							\
		if (*ew_fa_ptr && ew_should_fail()) {	\
			release;			\
			*ew_fa_ptr = NULL;		\
		}					\
	} while (0)
#else
#define EW_FAIL_ALLOC(ptr, release) do { } while (0)
#endif

/*
 * EW_FAIL_CALL(call) - a call that returns 0 or -errno, or -ENOMEM instead
 * of making it when this injection point fails
 * @call: the call (rhashtable_init(), xa_reserve(), an init step, ...)
 *
 * For allocations inside a call: such a call that fails with -ENOMEM leaves
 * nothing behind, which is what not making it leaves.
 */
#ifdef EW_FAULT_INJECT
#define EW_FAIL_CALL(call) (ew_should_fail() ? -ENOMEM : (call))
#else
#define EW_FAIL_CALL(call) (call)
#endif

#endif /* EW_FAULT_H */
