/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Argument parsing and printing shared by the tc parsers of the classic AQM
 * qdiscs (q_pi.c, q_rem.c, q_blue.c, q_ared.c). Everything here is static:
 * each plugin is a standalone q_<kind>.so loaded by tc.
 */
#ifndef TC_AQM_UTIL_H
#define TC_AQM_UTIL_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"
#include "tc_util.h"
#include "pkt_sched_aqm.h"

/* a finite number, with nothing after it */
static inline int aqm_get_double(double *val, const char *arg)
{
	char *end;
	double d;

	if (!arg || !*arg)
		return -1;
	errno = 0;
	d = strtod(arg, &end);
	if (*end || end == arg || errno == ERANGE || !isfinite(d))
		return -1;
	*val = d;
	return 0;
}

/* a number in [min, max] */
static inline int aqm_get_double_range(double *val, const char *arg,
				       double min, double max)
{
	double d;

	if (aqm_get_double(&d, arg) || d < min || d > max)
		return -1;
	*val = d;
	return 0;
}

/* a fraction in [0, 1) as the kernel's __u64 (value / 2^64), rounded */
static inline int aqm_get_frac64(__u64 *frac, const char *arg)
{
	double d;

	if (aqm_get_double(&d, arg) || d < 0 || d >= 1)
		return -1;
	d = nearbyint(ldexp(d, 64));
	*frac = d >= 0x1p64 ? UINT64_MAX : (__u64)d;
	return 0;
}

static inline double aqm_frac64_to_double(__u64 frac)
{
	return ldexp((double)frac, -64);
}

static inline double aqm_prob_to_double(__u64 prob)
{
	return ldexp((double)prob, -TC_AQM_PROB_SHIFT);
}

/* the error tc prints for a bad value: names the argument and the rule */
static inline int aqm_illegal(const char *kind, const char *arg,
			      const char *rule)
{
	fprintf(stderr, "%s: Illegal \"%s\": %s\n", kind, arg, rule);
	return -1;
}

#endif /* TC_AQM_UTIL_H */
