// SPDX-License-Identifier: GPL-2.0
/*
 * q_rem.c	tc parser for the REM AQM qdisc (Athuraliya et al., IEEE
 *		Network 2001)
 */

#include "aqm_util.h"

#define REM_INTERVAL_MIN_US	1000
#define REM_INTERVAL_MAX_US	1000000
#define REM_PHI_MIN		(1 + 0x1p-24)

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... rem [ limit PACKETS ] [ target PACKETS ] [ gamma G ]\n"
		"               [ phi PHI ] [ alpha A ] [ interval TIME ] [ inw W ]\n"
		"               [ bandwidth RATE | bandwidth auto ] [ ecn | noecn ]\n"
		"               [ ecn_ceiling PROB ]\n"
		"  G, A: in (0, 1) (defaults 0.001, 0.1)\n"
		"  PHI: in [1 + 2^-24, 2) (default 1.001)\n"
		"  TIME: price update interval in [1ms, 1s] (default 2ms)\n"
		"  W: arrival smoothing weight in (0, 1] (default 1: none)\n"
		"  RATE: link rate; auto (default) estimates it from the dequeue rate\n"
		"  PROB: with ecn, ECN-capable packets are marked while the probability\n"
		"        is at most PROB and dropped above it, in (0, 1]\n"
		"        (default 0.1; 1: always marked)\n");
}

/* a number in (0, 1) as a fraction of 2^64, not rounding to 0 */
static int rem_get_open_frac(__u64 *frac, const char *arg)
{
	return aqm_get_frac64(frac, arg) || *frac == 0 ? -1 : 0;
}

/* phi in [1 + 2^-24, 2), sent as phi - 1 in 2^-64 units, in long double */
static int rem_get_phi(__u64 *phi_frac, const char *arg)
{
	long double phi, d;
	char *end;

	if (!arg || !*arg)
		return -1;
	errno = 0;
	phi = strtold(arg, &end);
	if (*end || end == arg || errno == ERANGE || !isfinite(phi) ||
	    phi < REM_PHI_MIN || phi >= 2)
		return -1;
	d = nearbyintl(ldexpl(phi - 1, 64));
	*phi_frac = d >= 0x1p64L ? UINT64_MAX : (__u64)d;
	return 0;
}

static int rem_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	bool has_limit = false, has_target = false, has_gamma = false;
	bool has_phi = false, has_alpha = false, has_interval = false;
	bool has_inw = false, has_bandwidth = false, has_ceiling = false;
	__u32 limit = 0, target = 0, interval_us = 0;
	__u64 gamma = 0, phi = 0, alpha = 0, inw = 0, bandwidth = 0, ceiling = 0;
	int ecn = -1;
	struct rtattr *tail;

	while (argc > 0) {
		if (strcmp(*argv, "limit") == 0) {
			AQM_NEXT_ARG("rem");
			if (aqm_get_pkts(&limit, *argv) || limit == 0)
				return aqm_illegal("rem", "limit",
						   "must be a packet count in [1, 4294967295]");
			has_limit = true;
		} else if (strcmp(*argv, "target") == 0) {
			AQM_NEXT_ARG("rem");
			if (aqm_get_pkts(&target, *argv))
				return aqm_illegal("rem", "target",
						   "must be a packet count in [0, 4294967295]");
			has_target = true;
		} else if (strcmp(*argv, "gamma") == 0) {
			AQM_NEXT_ARG("rem");
			if (rem_get_open_frac(&gamma, *argv))
				return aqm_illegal("rem", "gamma", "must be a number in (0, 1)");
			has_gamma = true;
		} else if (strcmp(*argv, "phi") == 0) {
			AQM_NEXT_ARG("rem");
			if (rem_get_phi(&phi, *argv))
				return aqm_illegal("rem", "phi",
						   "must be a number in [1 + 2^-24, 2)");
			has_phi = true;
		} else if (strcmp(*argv, "alpha") == 0) {
			AQM_NEXT_ARG("rem");
			if (rem_get_open_frac(&alpha, *argv))
				return aqm_illegal("rem", "alpha", "must be a number in (0, 1)");
			has_alpha = true;
		} else if (strcmp(*argv, "interval") == 0) {
			AQM_NEXT_ARG("rem");
			if (aqm_get_time_us(&interval_us, *argv, REM_INTERVAL_MIN_US,
					    REM_INTERVAL_MAX_US))
				return aqm_illegal("rem", "interval",
						   "must be a time in [1ms, 1s]");
			has_interval = true;
		} else if (strcmp(*argv, "inw") == 0) {
			AQM_NEXT_ARG("rem");
			/* inw in (0, 1] in Q62, as a probability */
			if (aqm_get_prob(&inw, *argv))
				return aqm_illegal("rem", "inw", "must be a number in (0, 1]");
			has_inw = true;
		} else if (strcmp(*argv, "bandwidth") == 0) {
			AQM_NEXT_ARG("rem");
			if (aqm_get_bandwidth(&bandwidth, *argv))
				return aqm_illegal("rem", "bandwidth", AQM_BANDWIDTH_HELP);
			has_bandwidth = true;
		} else if (strcmp(*argv, "ecn") == 0) {
			ecn = 1;
		} else if (strcmp(*argv, "noecn") == 0) {
			ecn = 0;
		} else if (strcmp(*argv, "ecn_ceiling") == 0) {
			AQM_NEXT_ARG("rem");
			if (aqm_get_prob(&ceiling, *argv))
				return aqm_illegal("rem", "ecn_ceiling", AQM_ECN_CEILING_HELP);
			has_ceiling = true;
		} else if (strcmp(*argv, "help") == 0) {
			explain();
			return -1;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", *argv);
			explain();
			return -1;
		}
		argc--;
		argv++;
	}

	if (has_limit && has_target && target >= limit)
		return aqm_illegal("rem", "target", "must be below limit");

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	if (has_limit)
		addattr32(n, 1024, TCA_REM_LIMIT, limit);
	if (has_target)
		addattr32(n, 1024, TCA_REM_TARGET, target);
	if (has_gamma)
		addattr64(n, 1024, TCA_REM_GAMMA, gamma);
	if (has_phi)
		addattr64(n, 1024, TCA_REM_PHI, phi);
	if (has_alpha)
		addattr64(n, 1024, TCA_REM_ALPHA, alpha);
	if (has_interval)
		addattr32(n, 1024, TCA_REM_INTERVAL, interval_us);
	if (has_inw)
		addattr64(n, 1024, TCA_REM_INW, inw);
	if (has_bandwidth)
		addattr64(n, 1024, TCA_REM_BANDWIDTH, bandwidth);
	if (ecn != -1)
		addattr32(n, 1024, TCA_REM_ECN, ecn);
	if (has_ceiling)
		addattr64(n, 1024, TCA_REM_ECN_CEILING, ceiling);
	addattr_nest_end(n, tail);
	return 0;
}

static int rem_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_REM_MAX + 1];

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_REM_MAX, opt);

	if (aqm_has(tb, TCA_REM_LIMIT, sizeof(__u32)))
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_REM_LIMIT]));
	if (aqm_has(tb, TCA_REM_TARGET, sizeof(__u32)))
		print_uint(PRINT_ANY, "target", "target %up ",
			   rta_getattr_u32(tb[TCA_REM_TARGET]));
	if (aqm_has(tb, TCA_REM_GAMMA, sizeof(__u64))) {
		__u64 gamma = rta_getattr_u64(tb[TCA_REM_GAMMA]);

		aqm_print_exact("gamma", "gamma %s ", ldexpl((long double)gamma, -64),
				gamma, rem_get_open_frac);
	}
	if (aqm_has(tb, TCA_REM_PHI, sizeof(__u64))) {
		__u64 phi = rta_getattr_u64(tb[TCA_REM_PHI]);

		aqm_print_exact("phi", "phi %s ", 1 + ldexpl((long double)phi, -64),
				phi, rem_get_phi);
	}
	if (aqm_has(tb, TCA_REM_ALPHA, sizeof(__u64))) {
		__u64 alpha = rta_getattr_u64(tb[TCA_REM_ALPHA]);

		aqm_print_exact("alpha", "alpha %s ", ldexpl((long double)alpha, -64),
				alpha, rem_get_open_frac);
	}
	if (aqm_has(tb, TCA_REM_INTERVAL, sizeof(__u32)))
		aqm_print_time_us("interval", "interval %s ",
				  rta_getattr_u32(tb[TCA_REM_INTERVAL]));
	if (aqm_has(tb, TCA_REM_INW, sizeof(__u64)))
		aqm_print_prob("inw", "inw %s ", rta_getattr_u64(tb[TCA_REM_INW]));
	if (aqm_has(tb, TCA_REM_BANDWIDTH, sizeof(__u64)))
		aqm_print_bandwidth(rta_getattr_u64(tb[TCA_REM_BANDWIDTH]));
	if (aqm_has(tb, TCA_REM_ECN, sizeof(__u32)) && rta_getattr_u32(tb[TCA_REM_ECN]))
		print_bool(PRINT_ANY, "ecn", "ecn ", true);
	else
		print_bool(PRINT_JSON, "ecn", NULL, false);
	aqm_print_ecn_ceiling(tb, TCA_REM_ECN_CEILING);
	return 0;
}

static const char *rem_capacity_mode(__u32 mode)
{
	switch (mode) {
	case TC_REM_CAPACITY_FIXED:
		return "fixed";
	case TC_REM_CAPACITY_ESTIMATED:
		return "estimated";
	case TC_REM_CAPACITY_PENDING:
		return "pending";
	default:
		return "unknown";
	}
}

static int rem_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_rem_xstats *st;
	SPRINT_BUF(b1);

	if (!xstats)
		return 0;
	if (RTA_PAYLOAD(xstats) < sizeof(*st))
		return -1;
	st = RTA_DATA(xstats);

	print_float(PRINT_ANY, "price", "  price %g", ldexp((double)st->price, -32));
	print_float(PRINT_ANY, "prob", " prob %g", aqm_prob_to_double(st->prob));
	print_nl();
	print_float(PRINT_ANY, "arrivals", "  arrivals %gp", ldexp((double)st->arrivals, -32));
	print_float(PRINT_ANY, "capacity", " capacity %gp", ldexp((double)st->capacity, -32));
	print_string(PRINT_FP, NULL, " per %s", sprint_time(st->interval, b1));
	print_string(PRINT_ANY, "capacity_mode", " (%s)", rem_capacity_mode(st->capacity_mode));
	print_float(PRINT_ANY, "rate_estimate", " rate_estimate %gpps",
		    ldexp((double)st->rate_estimate, -16));
	print_nl();
	print_uint(PRINT_ANY, "wire_qlen", "  wire_qlen %up", st->wire_qlen);
	print_uint(PRINT_ANY, "max_qlen", " max_qlen %up", st->max_qlen);
	print_uint(PRINT_ANY, "updates", " updates %u", st->updates);
	print_uint(PRINT_ANY, "early_drops", " early_drops %u", st->early_drops);
	print_uint(PRINT_ANY, "tail_drops", " tail_drops %u", st->tail_drops);
	print_uint(PRINT_ANY, "ecn_marks", " ecn_marks %u", st->ecn_marks);
	return 0;
}

struct qdisc_util rem_qdisc_util = {
	.id		= "rem",
	.parse_qopt	= rem_parse_opt,
	.print_qopt	= rem_print_opt,
	.print_xstats	= rem_print_xstats,
};
