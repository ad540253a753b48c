// SPDX-License-Identifier: GPL-2.0
/*
 * q_pi.c	tc parser for the PI AQM qdisc (Hollot et al., INFOCOM 2001)
 */

#include "aqm_util.h"

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... pi [ limit PACKETS ] [ target PACKETS ]\n"
		"              [ a A ] [ b B ] [ freq HZ ] [ ecn | noecn ]\n"
		"  A, B: gains in [0, 1) (defaults 1.822e-5, 1.816e-5)\n"
		"  HZ: update frequency in [0.01, 100000] (default 170)\n");
}

static int pi_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			struct nlmsghdr *n, const char *dev)
{
	bool has_limit = false, has_target = false, has_a = false;
	bool has_b = false, has_freq = false;
	__u32 limit = 0, target = 0, freq_mhz = 0;
	__u64 a = 0, b = 0;
	int ecn = -1;
	struct rtattr *tail;

	while (argc > 0) {
		if (strcmp(*argv, "limit") == 0) {
			AQM_NEXT_ARG("pi");
			if (get_u32(&limit, *argv, 0) || limit == 0)
				return aqm_illegal("pi", "limit",
						   "must be a packet count in [1, 4294967295]");
			has_limit = true;
		} else if (strcmp(*argv, "target") == 0) {
			AQM_NEXT_ARG("pi");
			if (get_u32(&target, *argv, 0))
				return aqm_illegal("pi", "target",
						   "must be a packet count in [0, 4294967295]");
			has_target = true;
		} else if (strcmp(*argv, "a") == 0) {
			AQM_NEXT_ARG("pi");
			if (aqm_get_frac64(&a, *argv))
				return aqm_illegal("pi", "a", "must be a number in [0, 1)");
			has_a = true;
		} else if (strcmp(*argv, "b") == 0) {
			AQM_NEXT_ARG("pi");
			if (aqm_get_frac64(&b, *argv))
				return aqm_illegal("pi", "b", "must be a number in [0, 1)");
			has_b = true;
		} else if (strcmp(*argv, "freq") == 0) {
			double hz;

			AQM_NEXT_ARG("pi");
			if (aqm_get_double_range(&hz, *argv, 0.01, 100000))
				return aqm_illegal("pi", "freq",
						   "must be a frequency in Hz in [0.01, 100000]");
			freq_mhz = lround(hz * 1000);
			has_freq = true;
		} else if (strcmp(*argv, "ecn") == 0) {
			ecn = 1;
		} else if (strcmp(*argv, "noecn") == 0) {
			ecn = 0;
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
		return aqm_illegal("pi", "target", "must be below limit");

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	if (has_limit)
		addattr32(n, 1024, TCA_PI_LIMIT, limit);
	if (has_target)
		addattr32(n, 1024, TCA_PI_TARGET, target);
	if (has_a)
		addattr64(n, 1024, TCA_PI_A, a);
	if (has_b)
		addattr64(n, 1024, TCA_PI_B, b);
	if (has_freq)
		addattr32(n, 1024, TCA_PI_FREQ, freq_mhz);
	if (ecn != -1)
		addattr32(n, 1024, TCA_PI_ECN, ecn);
	addattr_nest_end(n, tail);
	return 0;
}

static int pi_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_PI_MAX + 1];

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_PI_MAX, opt);

	if (tb[TCA_PI_LIMIT] && RTA_PAYLOAD(tb[TCA_PI_LIMIT]) >= sizeof(__u32))
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_PI_LIMIT]));
	if (tb[TCA_PI_TARGET] && RTA_PAYLOAD(tb[TCA_PI_TARGET]) >= sizeof(__u32))
		print_uint(PRINT_ANY, "target", "target %up ",
			   rta_getattr_u32(tb[TCA_PI_TARGET]));
	if (tb[TCA_PI_A] && RTA_PAYLOAD(tb[TCA_PI_A]) >= sizeof(__u64))
		print_float(PRINT_ANY, "a", "a %g ",
			    aqm_frac64_to_double(rta_getattr_u64(tb[TCA_PI_A])));
	if (tb[TCA_PI_B] && RTA_PAYLOAD(tb[TCA_PI_B]) >= sizeof(__u64))
		print_float(PRINT_ANY, "b", "b %g ",
			    aqm_frac64_to_double(rta_getattr_u64(tb[TCA_PI_B])));
	if (tb[TCA_PI_FREQ] && RTA_PAYLOAD(tb[TCA_PI_FREQ]) >= sizeof(__u32))
		print_float(PRINT_ANY, "freq", "freq %gHz ",
			    rta_getattr_u32(tb[TCA_PI_FREQ]) / 1000.0);
	if (tb[TCA_PI_ECN] && RTA_PAYLOAD(tb[TCA_PI_ECN]) >= sizeof(__u32) &&
	    rta_getattr_u32(tb[TCA_PI_ECN]))
		print_bool(PRINT_ANY, "ecn", "ecn ", true);
	else
		print_bool(PRINT_JSON, "ecn", NULL, false);
	return 0;
}

static int pi_print_xstats(struct qdisc_util *qu, FILE *f,
			   struct rtattr *xstats)
{
	struct tc_pi_xstats *st;

	if (!xstats)
		return 0;
	if (RTA_PAYLOAD(xstats) < sizeof(*st))
		return -1;
	st = RTA_DATA(xstats);

	print_float(PRINT_ANY, "prob", "  prob %g", aqm_prob_to_double(st->prob));
	print_uint(PRINT_ANY, "max_qlen", " max_qlen %up", st->max_qlen);
	print_uint(PRINT_ANY, "updates", " updates %u", st->updates);
	print_nl();
	print_uint(PRINT_ANY, "early_drops", "  early_drops %u", st->early_drops);
	print_uint(PRINT_ANY, "tail_drops", " tail_drops %u", st->tail_drops);
	print_uint(PRINT_ANY, "ecn_marks", " ecn_marks %u", st->ecn_marks);
	return 0;
}

struct qdisc_util pi_qdisc_util = {
	.id		= "pi",
	.parse_qopt	= pi_parse_opt,
	.print_qopt	= pi_print_opt,
	.print_xstats	= pi_print_xstats,
};
