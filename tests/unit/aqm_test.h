/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal harness for the userspace unit tests of the algorithm cores.
 * Each check prints one "PASS: suite: name" or "FAIL: suite: name" line;
 * the top-level test summary counts them.
 */
#ifndef AQM_TEST_H
#define AQM_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

static const char *aqm_test_suite = "unit";
static int aqm_test_failures;

static inline void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: %s: ", ok ? "PASS" : "FAIL", aqm_test_suite);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		aqm_test_failures++;
}

/* xorshift64*: a fixed, reproducible stream for traces and random draws */
static inline uint64_t test_rand64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/*
 * A counted source of random numbers for a core that draws through a
 * callback: restart it from the same seed and two paths that must draw
 * alike (a GSO skb's segments decided ahead, and one by one) meet the same
 * numbers; test_draws says how many each took.
 */
static uint64_t test_draws_state;
static long test_draws;

static inline void test_draws_restart(uint64_t seed)
{
	test_draws_state = seed;
	test_draws = 0;
}

static inline uint32_t test_draw(void)
{
	test_draws++;
	return (uint32_t)test_rand64(&test_draws_state);
}

/*
 * A GSO skb's segments decided ahead (by a core's *_segments_kept()), set
 * against the same segments one by one: the arrivals kept before the first
 * drop, the numbers drawn and the state after must all agree.
 */
struct test_ahead {
	long whole, cut, differ;
};

static inline void test_ahead_tally(struct test_ahead *t, uint32_t segs,
				    uint32_t kept_one, long draws_one,
				    const void *state_one, uint32_t kept,
				    const void *state, size_t state_size)
{
	t->differ += kept != kept_one || test_draws != draws_one ||
		     memcmp(state_one, state, state_size) != 0;
	if (kept == segs)
		t->whole++;
	else
		t->cut++;
}

static inline double test_uniform(uint64_t *state)
{
	return (test_rand64(state) >> 11) * 0x1p-53;
}

/*
 * Reference 128-bit arithmetic, one bit a step: slow, plainly right, and
 * unlike the cores' word-wise code; no __int128, which -m32 lacks.
 */
struct test_u128 {
	uint64_t hi;
	uint64_t lo;
};

static inline struct test_u128 test_mul_64x64(uint64_t a, uint64_t b)
{
	struct test_u128 r = { 0, 0 };
	int i;

	for (i = 63; i >= 0; i--) {
		r.hi = (r.hi << 1) | (r.lo >> 63);
		r.lo <<= 1;
		if ((b >> i) & 1) {
			r.lo += a;
			r.hi += r.lo < a;
		}
	}
	return r;
}

static inline struct test_u128 test_shr_128(struct test_u128 x, unsigned int shift)
{
	while (shift--) {
		x.lo = (x.lo >> 1) | (x.hi << 63);
		x.hi >>= 1;
	}
	return x;
}

static inline struct test_u128 test_neg_128(struct test_u128 x)
{
	struct test_u128 r = { ~x.hi, ~x.lo + 1 };

	r.hi += r.lo == 0;
	return r;
}

/* x / d, d != 0 */
static inline struct test_u128 test_div_128_64(struct test_u128 x, uint64_t d)
{
	struct test_u128 q = { 0, 0 };
	uint64_t rem = 0;
	int i;

	for (i = 127; i >= 0; i--) {
		int carry = rem >> 63;
		uint64_t bit = i >= 64 ? x.hi >> (i - 64) & 1 : x.lo >> i & 1;

		rem = (rem << 1) | bit;
		if (carry || rem >= d) {
			rem -= d;
			if (i >= 64)
				q.hi |= 1ULL << (i - 64);
			else
				q.lo |= 1ULL << i;
		}
	}
	return q;
}

#endif /* AQM_TEST_H */
