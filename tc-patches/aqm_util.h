/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Argument parsing and printing shared by the tc parsers of the classic AQM
 * qdiscs (q_pi.c, q_rem.c, q_blue.c, q_ared.c). Everything here is static:
 * each plugin is a standalone q_<kind>.so loaded by tc.
 */
#ifndef TC_AQM_UTIL_H
#define TC_AQM_UTIL_H

#include <errno.h>
#include <float.h>
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

/*
 * The same in long double, for the values the kernel takes as 64-bit fixed
 * point: its 64-bit mantissa (x86) holds any of them, so that one sent
 * without tc still reads back from what tc shows.
 */
static inline int aqm_get_ldouble(long double *val, const char *arg)
{
	long double d;
	char *end;

	if (!arg || !*arg)
		return -1;
	errno = 0;
	d = strtold(arg, &end);
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
	long double d;

	if (aqm_get_ldouble(&d, arg) || d < 0 || d >= 1)
		return -1;
	d = nearbyintl(ldexpl(d, 64));
	*frac = d >= 0x1p64L ? UINT64_MAX : (__u64)d;
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
 * A __u32 count written as tc shows it: digits, optionally followed by
 * @unit ("p" for packets, "b" for bytes), so that a printed "limit 1000p"
 * reads back. Bases as get_u32() takes them.
 */
static inline int aqm_get_u32_unit(__u32 *val, const char *arg,
				   const char *unit)
{
	size_t len = arg ? strlen(arg) : 0, ulen = strlen(unit);
	char buf[32];

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, arg, len + 1);
	if (len > ulen && strcmp(buf + len - ulen, unit) == 0)
		buf[len - ulen] = '\0';
	return get_u32(val, buf, 0);
}

/* a packet count, "1000" or "1000p" */
static inline int aqm_get_pkts(__u32 *pkts, const char *arg)
{
	return aqm_get_u32_unit(pkts, arg, "p");
}

/*
 * A probability in (0, 1] as the kernel's __u64 with 1.0 = TC_AQM_PROB_ONE,
 * rounded, not rounding to 0 (below the resolution, 2^-62).
 */
static inline int aqm_get_prob(__u64 *prob, const char *arg)
{
	long double d;

	if (aqm_get_ldouble(&d, arg) || d <= 0 || d > 1)
		return -1;
	d = nearbyintl(ldexpl(d, TC_AQM_PROB_SHIFT));
	if (d < 1)
		return -1;
	*prob = (__u64)d;
	return 0;
}

/* "ecn_ceiling PROB": above this probability ECN-capable packets are dropped */
#define AQM_ECN_CEILING_HELP	"must be a probability in (0, 1]"

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

/*
 * Printing. What `tc qdisc show` prints must read back: given to
 * `tc qdisc replace`, it sets the very same fixed-point values. tc's own
 * printers round (sprint_time() to 3 digits, print_rate() drops the
 * remainder of its unit, "%g" keeps 6 digits), so these print exactly.
 */

/* reads one keyword's value into the __u64 the kernel gets */
typedef int (*aqm_parse_fn)(__u64 *val, const char *arg);

/*
 * The shortest decimal form of x that @parse reads back as @val; x is @val
 * in the argument's unit. Written as %g writes it (0.0025, 1.822e-05, 170),
 * in exponent form only where %g's 6 digits would be (not 1.7e+02). A
 * value that no string reads back as (one sent without tc) gets every
 * digit there is.
 */
static inline const char *aqm_sprint_exact(char *buf, size_t len,
					   long double x, __u64 val,
					   aqm_parse_fn parse)
{
	bool exp_form;
	__u64 back;
	int prec;

	snprintf(buf, len, "%.6Lg", x);
	exp_form = strchr(buf, 'e');
	for (prec = 1; prec <= DECIMAL_DIG; prec++) {
		snprintf(buf, len, "%.*Lg", prec, x);
		if ((prec >= 6 || !strchr(buf, 'e') == !exp_form) &&
		    parse(&back, buf) == 0 && back == val)
			break;
	}
	return buf;
}

/* a fixed-point value: exact in text (fmt takes a %s), a float in JSON */
static inline void aqm_print_exact(const char *key, const char *fmt,
				   long double x, __u64 val, aqm_parse_fn parse)
{
	char buf[64];

	print_float(PRINT_JSON, key, NULL, (double)x);
	print_string(PRINT_FP, NULL, fmt,
		     aqm_sprint_exact(buf, sizeof(buf), x, val, parse));
}

/* a probability in TC_AQM_PROB_ONE units, as aqm_get_prob() reads it */
static inline void aqm_print_prob(const char *key, const char *fmt, __u64 prob)
{
	aqm_print_exact(key, fmt, ldexpl((long double)prob, -TC_AQM_PROB_SHIFT),
			prob, aqm_get_prob);
}

/* a fraction of 2^64, as aqm_get_frac64() reads it */
static inline void aqm_print_frac64(const char *key, const char *fmt,
				    __u64 frac)
{
	aqm_print_exact(key, fmt, ldexpl((long double)frac, -64), frac,
			aqm_get_frac64);
}

/*
 * A time in microseconds, exactly, in the largest unit it reaches:
 * 250us, 1.234ms, 200ms, 1.5s (sprint_time() would show 1234us as 1.23ms).
 */
static inline const char *aqm_sprint_time_us(char *buf, size_t len, __u32 us)
{
	const char *unit = us >= 1000000 ? "s" : "ms";
	size_t n;

	if (us < 1000) {
		snprintf(buf, len, "%uus", us);
		return buf;
	}
	if (us >= 1000000)
		snprintf(buf, len, "%u.%06u", us / 1000000, us % 1000000);
	else
		snprintf(buf, len, "%u.%03u", us / 1000, us % 1000);
	n = strlen(buf);
	while (buf[n - 1] == '0')
		n--;
	if (buf[n - 1] == '.')
		n--;
	snprintf(buf + n, len - n, "%s", unit);
	return buf;
}

/* a time: microseconds in JSON, exact text (fmt takes a %s) */
static inline void aqm_print_time_us(const char *key, const char *fmt, __u32 us)
{
	char buf[32];

	print_uint(PRINT_JSON, key, NULL, us);
	print_string(PRINT_FP, NULL, fmt, aqm_sprint_time_us(buf, sizeof(buf), us));
}

/*
 * A rate in bytes/s as bits/s with the largest SI prefix that keeps it
 * exact: 1Gbit, 45Mbit, 1234568bit (print_rate() would show 1234Kbit).
 */
static inline const char *aqm_sprint_rate(char *buf, size_t len,
					  __u64 bytes_per_sec)
{
	static const char * const prefix[] = { "", "K", "M", "G", "T" };
	unsigned int i = 0;
	__u64 bits;

	if (bytes_per_sec > UINT64_MAX / 8) {
		snprintf(buf, len, "%lluBps", (unsigned long long)bytes_per_sec);
		return buf;
	}
	bits = bytes_per_sec * 8;
	while (i < 4 && bits % 1000 == 0) {
		bits /= 1000;
		i++;
	}
	snprintf(buf, len, "%llu%sbit", (unsigned long long)bits, prefix[i]);
	return buf;
}

/* as tc shows it: a rate, or auto for 0; bytes/s in JSON */
static inline void aqm_print_bandwidth(__u64 bytes_per_sec)
{
	char buf[32];

	print_u64(PRINT_JSON, "bandwidth", NULL, bytes_per_sec);
	if (bytes_per_sec)
		print_string(PRINT_FP, NULL, "bandwidth %s ",
			     aqm_sprint_rate(buf, sizeof(buf), bytes_per_sec));
	else
		print_string(PRINT_FP, NULL, "%s", "bandwidth auto ");
}

/* "ecn_ceiling 0.1", whenever the kernel reports one */
static inline void aqm_print_ecn_ceiling(struct rtattr *tb[], int type)
{
	if (aqm_has(tb, type, sizeof(__u64)))
		aqm_print_prob("ecn_ceiling", "ecn_ceiling %s ",
			       rta_getattr_u64(tb[type]));
}

#endif /* TC_AQM_UTIL_H */
