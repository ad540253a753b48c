/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portable base of the AQM algorithm cores.
 *
 * The cores (pi.h, rem.h, blue.h, ared.h) are pure functions of their
 * parameters, their state, the queue length, the time and a random number.
 * They include only this header, so the same code builds into the kernel
 * modules and into the userspace unit tests and benchmarks.
 */
#ifndef AQM_TYPES_H
#define AQM_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/limits.h>
#include <linux/bits.h>
#include <linux/bitops.h>
#include <linux/compiler.h>

/* a * b >> shift, the product taken in 128 bits */
static inline u64 aqm_mul_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return mul_u64_u64_shr(a, b, shift);
}

/* position of the most significant set bit, 1-based; x != 0 */
static inline unsigned int aqm_fls64(u64 x)
{
	return fls64(x);
}

/* bits set */
static inline unsigned int aqm_hweight64(u64 x)
{
	return hweight64(x);
}
#else
#include <stdbool.h>
#include <stdint.h>

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;

#ifndef U32_MAX
#define U32_MAX		UINT32_MAX
#endif
#ifndef U64_MAX
#define U64_MAX		UINT64_MAX
#endif
#ifndef S64_MAX
#define S64_MAX		INT64_MAX
#endif
#ifndef BIT_ULL
#define BIT_ULL(nr)	(1ULL << (nr))
#endif

/* the kernel's lockless-access annotations; the tests are single-threaded */
#ifndef READ_ONCE
#define READ_ONCE(x)		(x)
#define WRITE_ONCE(x, val)	((x) = (val))
#endif

#ifdef AQM_DIV64_OUT_OF_LINE
/*
 * tests/unit/div64_check.c: external, so that any 64-bit division left in
 * its 32-bit object (a __udivdi3 call) is one of the cores' own
 */
u64 div_u64(u64 dividend, u32 divisor);
u64 div64_u64(u64 dividend, u64 divisor);
#else
static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}
#endif

static inline unsigned int aqm_fls64(u64 x)
{
	return 64 - __builtin_clzll(x);
}

static inline unsigned int aqm_hweight64(u64 x)
{
	return __builtin_popcountll(x);
}
#endif /* __KERNEL__ */

/*
 * a * b as a 128-bit product in two words, schoolbook on 32-bit halves:
 * for every word size (the kernel has no 64x64->128 helper)
 */
static inline void aqm_mul_u64_u64(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 lo_lo = (a & U32_MAX) * (b & U32_MAX);
	u64 lo_hi = (a & U32_MAX) * (b >> 32);
	u64 hi_lo = (a >> 32) * (b & U32_MAX);
	u64 mid = (lo_lo >> 32) + (lo_hi & U32_MAX) + (hi_lo & U32_MAX);

	*lo = (mid << 32) | (lo_lo & U32_MAX);
	*hi = (a >> 32) * (b >> 32) + (lo_hi >> 32) + (hi_lo >> 32) + (mid >> 32);
}

#ifndef __KERNEL__
#ifdef __SIZEOF_INT128__
/* the kernel's mul_u64_u64_shr(): a * b >> shift, shift < 128 */
static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((__uint128_t)a * b) >> shift);
}

/* the kernel's mul_u64_u64_div_u64(): a * b / c, the quotient below 2^64 */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((__uint128_t)a * b / c);
}
#else
static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	u64 hi, lo;

	aqm_mul_u64_u64(a, b, &hi, &lo);
	if (!shift)
		return lo;
	if (shift >= 64)
		return hi >> (shift - 64);
	return (lo >> shift) | (hi << (64 - shift));
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	u64 hi, lo, q = 0;
	int i;

	aqm_mul_u64_u64(a, b, &hi, &lo);
	if (!hi)
		return div64_u64(lo, c);
	/* long division a bit at a time; hi < c as the quotient fits */
	for (i = 63; i >= 0; i--) {
		bool carry = hi >> 63;

		hi = (hi << 1) | (lo >> 63);
		lo <<= 1;
		if (carry || hi >= c) {
			hi -= c;
			q |= 1ULL << i;
		}
	}
	return q;
}
#endif

static inline u64 aqm_mul_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return mul_u64_u64_shr(a, b, shift);
}
#endif /* !__KERNEL__ */

#define AQM_NSEC_PER_USEC	1000ULL
#define AQM_NSEC_PER_SEC	1000000000ULL

/*
 * A signed 128-bit value in two's complement, for products of a 64-bit
 * fraction and a 32-bit count that must not lose a bit (PI's gains differ
 * by 6e-10; rounding them away would change the controller).
 */
struct aqm_s128 {
	u64 hi;
	u64 lo;
};

static inline struct aqm_s128 aqm_s128_from_u64(u64 v)
{
	struct aqm_s128 r = { .hi = 0, .lo = v };

	return r;
}

static inline struct aqm_s128 aqm_s128_add(struct aqm_s128 x, struct aqm_s128 y)
{
	struct aqm_s128 r;

	r.lo = x.lo + y.lo;
	r.hi = x.hi + y.hi + (r.lo < x.lo);
	return r;
}

static inline struct aqm_s128 aqm_s128_neg(struct aqm_s128 x)
{
	struct aqm_s128 r;

	r.lo = ~x.lo + 1;
	r.hi = ~x.hi + (r.lo == 0);
	return r;
}

static inline bool aqm_s128_is_neg(struct aqm_s128 x)
{
	return x.hi >> 63;
}

/* frac * n >> shift, where frac is a fraction of 2^64 and n a signed count */
static inline struct aqm_s128 aqm_s128_mul_frac(u64 frac, s64 n, unsigned int shift)
{
	u64 mag = n < 0 ? (u64)-(n + 1) + 1 : (u64)n;
	struct aqm_s128 r;

	aqm_mul_u64_u64(frac, mag, &r.hi, &r.lo);

	if (shift) {
		r.lo = (r.lo >> shift) | (r.hi << (64 - shift));
		r.hi >>= shift;
	}
	return n < 0 ? aqm_s128_neg(r) : r;
}

/* whether x lies in [0, max], max below 2^63 */
static inline bool aqm_s128_within(struct aqm_s128 x, u64 max)
{
	return !aqm_s128_is_neg(x) && !x.hi && x.lo <= max;
}

/* x clamped to [0, max], max below 2^63 */
static inline u64 aqm_s128_clamp(struct aqm_s128 x, u64 max)
{
	if (aqm_s128_within(x, max))
		return x.lo;
	return aqm_s128_is_neg(x) ? 0 : max;
}

#endif /* AQM_TYPES_H */
