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
#include <strings.h>

#include "utils.h"
#include "tc_util.h"
#include <linux/pkt_sched_aqm.h>

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

/*
 * A time in [min_us, max_us] microseconds, written as tc's get_time() reads
 * it (a number with an optional s, ms or us suffix; no suffix means us),
 * but range-checked before the conversion: get_time() converts any double
 * to unsigned, so "freeze 1e12" or "-1s" would wrap silently.
 */
static inline int aqm_get_time_us(__u32 *us, const char *arg,
				  __u32 min_us, __u32 max_us)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {
		{ "", 1 }, { "us", 1 }, { "usec", 1 }, { "usecs", 1 },
		{ "ms", 1e3 }, { "msec", 1e3 }, { "msecs", 1e3 },
		{ "s", 1e6 }, { "sec", 1e6 }, { "secs", 1e6 },
	};
	unsigned int i;
	char *end;
	double t;

	if (!arg || !*arg)
		return -1;
	errno = 0;
	t = strtod(arg, &end);
	if (end == arg || errno == ERANGE || !isfinite(t))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(end, units[i].suffix) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		return -1;
	t = nearbyint(t * units[i].scale);
	if (t < min_us || t > max_us)
		return -1;
	*us = (__u32)t;
	return 0;
}

/*
 * NEXT_ARG() for a keyword that takes a value: tc's own macro reports a
 * missing value without naming the keyword.
 */
#define AQM_NEXT_ARG(kind)						\
	do {								\
		if (argc <= 1)						\
			return aqm_illegal(kind, *argv, "needs a value");	\
		argc--;							\
		argv++;							\
	} while (0)

/*
 * A rate as tc writes it (a number with a bit or Bps suffix, SI or IEC
 * prefix; no suffix means bit/s) converted to bytes/s, range-checked before
 * the conversion: get_rate64() casts any double, so "-1mbit" or "1e30bit"
 * would wrap silently. The result is in [1, 2^64 - 1] bytes/s.
 */
static inline int aqm_get_rate_bps(__u64 *bytes_per_sec, const char *arg)
{
	static const struct {
		const char *suffix;
		double bits;
	} units[] = {
		{ "", 1 }, { "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 },
		{ "gbit", 1e9 }, { "tbit", 1e12 }, { "kibit", 0x1p10 },
		{ "mibit", 0x1p20 }, { "gibit", 0x1p30 }, { "tibit", 0x1p40 },
		{ "bps", 8 }, { "kbps", 8e3 }, { "mbps", 8e6 }, { "gbps", 8e9 },
		{ "tbps", 8e12 }, { "kibps", 0x1p13 }, { "mibps", 0x1p23 },
		{ "gibps", 0x1p33 }, { "tibps", 0x1p43 },
	};
	unsigned int i;
	char *end;
	double r;

	if (!arg || !*arg)
		return -1;
	errno = 0;
	r = strtod(arg, &end);
	if (end == arg || errno == ERANGE || !isfinite(r))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(end, units[i].suffix) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		return -1;
	r = nearbyint(r * units[i].bits / 8);
	if (!(r >= 1 && r < 0x1p64))
		return -1;
	*bytes_per_sec = (__u64)r;
	return 0;
}

/* an attribute that is there and long enough for its type */
static inline bool aqm_has(struct rtattr *tb[], int type, size_t len)
{
	return tb[type] && RTA_PAYLOAD(tb[type]) >= len;
}

/* "bandwidth RATE" or "bandwidth auto": auto is 0, measure it */
#define AQM_BANDWIDTH_HELP	"must be auto or a rate of at least 8bit (1Bps)"

static inline int aqm_get_bandwidth(__u64 *bytes_per_sec, const char *arg)
{
	if (arg && strcmp(arg, "auto") == 0) {
		*bytes_per_sec = 0;
		return 0;
	}
	return aqm_get_rate_bps(bytes_per_sec, arg);
}

/* as tc shows it: a rate, or auto for 0; bytes/s in JSON */
static inline void aqm_print_bandwidth(__u64 bytes_per_sec)
{
	print_u64(PRINT_JSON, "bandwidth", NULL, bytes_per_sec);
	if (bytes_per_sec)
		tc_print_rate(PRINT_FP, NULL, "bandwidth %s ", bytes_per_sec);
	else
		print_string(PRINT_FP, NULL, "%s", "bandwidth auto ");
}

#endif /* TC_AQM_UTIL_H */
