/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mark for tests/bench/insn_account.c (the QEMU plugin of
 * `make bench-account`): the plugin writes what ran since the last mark.
 * Outside such a guest, cpuid with this leaf just returns zeros.
 */
#ifndef BENCH_MARK_H
#define BENCH_MARK_H

static inline void insn_account_mark(void)
{
	/* the plugin matches these two instructions, in this order */
	__asm__ volatile("movl $0x41514d31, %%eax\n\tcpuid"
			 : : : "eax", "ebx", "ecx", "edx", "memory");
}

#endif /* BENCH_MARK_H */
