/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Base-2 logarithm and exponential in fixed point, for design rules that
 * multiply, divide and take powers of quantities spanning many decades
 * (PI's autotuned gains): in the log domain products are sums and powers
 * are products, and 64 bits of Q32 hold every exponent they meet.
 *
 * log2: the integer part from the most significant bit, the fraction one
 * bit per squaring of the Q62 mantissa. 2^y: the integer part as a shift,
 * the fraction as a product of 2^(2^-i) over its set bits. Both are exact
 * to a few units of 2^-30 relative, which is more than the rules' inputs
 * carry. Not for the packet path: a call costs some 32 multiplies.
 */
#ifndef AQM_CORE_FIXED_LOG2_H
#define AQM_CORE_FIXED_LOG2_H

#include "aqm_types.h"

/* A log2 value in Q32: 1.0 = AQM_LOG2_ONE */
#define AQM_LOG2_SHIFT		32
#define AQM_LOG2_ONE		BIT_ULL(AQM_LOG2_SHIFT)

/* 2^(2^-i), i = 1..32, Q62 */
static const u64 aqm_exp2_frac_q62[32] = {
	0x5a827999fcef3242ULL, 0x4c1bf828c6dc54b8ULL, 0x45cae0f1f545eb73ULL,
	0x42d561b3e6243d8aULL, 0x4166c34c5615d0ecULL, 0x40b268f9de0183baULL,
	0x4058f6a7ecccd5b6ULL, 0x402c6be96af2fb58ULL, 0x4016321b687027a8ULL,
	0x400b18178ba33b14ULL, 0x40058bce410147e8ULL, 0x4002c5d7bff71dafULL,
	0x400162e807ee7e5bULL, 0x4000b1730df6a524ULL, 0x400058b9497b8152ULL,
	0x40002c5c955dd701ULL, 0x4000162e46d6f26cULL, 0x40000b1722757b1bULL,
	0x4000058b90fd3e0cULL, 0x400002c5c86f3f26ULL, 0x40000162e433c79bULL,
	0x400000b17218edd0ULL, 0x40000058b90c3968ULL, 0x4000002c5c860d54ULL,
	0x400000162e4302d2ULL, 0x4000000b17218073ULL, 0x400000058b90bffcULL,
	0x40000002c5c85fefULL, 0x4000000162e42ff3ULL, 0x40000000b17217f9ULL,
	0x4000000058b90bfcULL, 0x400000002c5c85feULL,
};

/**
 * aqm_log2_q32() - log2 of a fixed-point number
 * @x:		the number times 2^@frac_bits, not 0
 * @frac_bits:	fraction bits of @x
 *
 * Return: log2(@x / 2^@frac_bits) in Q32.
 */
static inline s64 aqm_log2_q32(u64 x, unsigned int frac_bits)
{
	int msb = aqm_fls64(x) - 1;
	s64 result = ((s64)msb - (s64)frac_bits) * (s64)AQM_LOG2_ONE;
	u64 m = msb > 62 ? x >> 1 : x << (62 - msb);	/* Q62, in [1, 2) */
	int bit;

	for (bit = AQM_LOG2_SHIFT - 1; bit >= 0; bit--) {
		m = aqm_mul_u64_shr(m, m, 62);		/* in [1, 4) */
		if (m >= BIT_ULL(63)) {
			m >>= 1;
			result += (s64)BIT_ULL(bit);
		}
	}
	return result;
}

/**
 * aqm_exp2_q32() - 2 to a fixed-point power
 * @y:		the exponent in Q32
 * @out_bits:	fraction bits of the result
 *
 * Return: 2^(@y / 2^32) times 2^@out_bits, U64_MAX when that does not fit,
 * truncated (so 0 far below 1).
 */
static inline u64 aqm_exp2_q32(s64 y, unsigned int out_bits)
{
	s64 whole = y >> AQM_LOG2_SHIFT;	/* floor, also for y < 0 */
	u32 frac = (u32)y;
	u64 m = BIT_ULL(62);			/* Q62, in [1, 2) */
	s64 shift;
	int i;

	for (i = 0; i < AQM_LOG2_SHIFT; i++)
		if (frac & BIT_ULL(AQM_LOG2_SHIFT - 1 - i))
			m = aqm_mul_u64_shr(m, aqm_exp2_frac_q62[i], 62);

	shift = whole + out_bits - 62;		/* result = m * 2^shift */
	if (shift >= 64 || (shift > 0 && m >> (64 - shift)))
		return U64_MAX;
	if (shift >= 0)
		return m << shift;
	if (shift <= -64)
		return 0;
	return m >> -shift;
}

#endif /* AQM_CORE_FIXED_LOG2_H */
