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

static inline double test_uniform(uint64_t *state)
{
	return (test_rand64(state) >> 11) * 0x1p-53;
}

#endif /* AQM_TEST_H */
