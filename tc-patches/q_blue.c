// SPDX-License-Identifier: GPL-2.0
/*
 * q_blue.c	tc parser for the BLUE AQM qdisc (Feng, Kandlur, Saha, Shin)
 */

#include "aqm_util.h"

#define BLUE_FREEZE_MIN_US	1
#define BLUE_FREEZE_MAX_US	60000000	/* 60 s */

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... blue [ limit PACKETS ] [ threshold PACKETS ]\n"
		"                [ increment D1 ] [ decrement D2 ] [ freeze TIME ]\n"
		"                [ ecn | noecn ]\n"
		"  D1, D2: steps of the marking probability, in (0, 1]\n"
		"          (defaults 0.0025, 0.00025)\n"
		"  TIME: least time between two changes, in [1us, 60s] (default 100ms)\n"
		"  threshold: an arrival finding this many packets raises pm; at most limit\n"
		"             (default: limit, so only losses raise pm)\n");
}

/* a step of the probability in (0, 1], as a __u64 with 1.0 = TC_AQM_PROB_ONE */
static int blue_get_step(__u64 *step, const char *arg)
{
	double d;

	if (aqm_get_double(&d, arg) || d <= 0 || d > 1)
		return -1;
	d = nearbyint(ldexp(d, TC_AQM_PROB_SHIFT));
	if (d < 1)
		return -1;	/* below the resolution, 2^-62 */
	*step = (__u64)d;
	return 0;
}

static int blue_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	bool has_limit = false, has_threshold = false, has_increment = false;
	bool has_decrement = false, has_freeze = false;
	__u32 limit = 0, threshold = 0, freeze_us = 0;
	__u64 increment = 0, decrement = 0;
	int ecn = -1;
	struct rtattr *tail;

	while (argc > 0) {
		if (strcmp(*argv, "limit") == 0) {
			AQM_NEXT_ARG("blue");
			if (get_u32(&limit, *argv, 0) || limit == 0)
				return aqm_illegal("blue", "limit",
						   "must be a packet count in [1, 4294967295]");
			has_limit = true;
		} else if (strcmp(*argv, "threshold") == 0) {
			AQM_NEXT_ARG("blue");
			if (get_u32(&threshold, *argv, 0) || threshold == 0)
				return aqm_illegal("blue", "threshold",
						   "must be a packet count in [1, 4294967295]");
			has_threshold = true;
		} else if (strcmp(*argv, "increment") == 0) {
			AQM_NEXT_ARG("blue");
			if (blue_get_step(&increment, *argv))
				return aqm_illegal("blue", "increment",
						   "must be a number in (0, 1]");
			has_increment = true;
		} else if (strcmp(*argv, "decrement") == 0) {
			AQM_NEXT_ARG("blue");
			if (blue_get_step(&decrement, *argv))
				return aqm_illegal("blue", "decrement",
						   "must be a number in (0, 1]");
			has_decrement = true;
		} else if (strcmp(*argv, "freeze") == 0) {
			AQM_NEXT_ARG("blue");
			if (aqm_get_time_us(&freeze_us, *argv, BLUE_FREEZE_MIN_US,
					    BLUE_FREEZE_MAX_US))
				return aqm_illegal("blue", "freeze",
						   "must be a time in [1us, 60s]");
			has_freeze = true;
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

	/* with one of the two missing, the kernel judges against its value */
	if (has_limit && has_threshold && threshold > limit)
		return aqm_illegal("blue", "threshold", "must not exceed limit");

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	if (has_limit)
		addattr32(n, 1024, TCA_BLUE_LIMIT, limit);
	if (has_threshold)
		addattr32(n, 1024, TCA_BLUE_THRESHOLD, threshold);
	if (has_increment)
		addattr64(n, 1024, TCA_BLUE_INCREMENT, increment);
	if (has_decrement)
		addattr64(n, 1024, TCA_BLUE_DECREMENT, decrement);
	if (has_freeze)
		addattr32(n, 1024, TCA_BLUE_FREEZE, freeze_us);
	if (ecn != -1)
		addattr32(n, 1024, TCA_BLUE_ECN, ecn);
	addattr_nest_end(n, tail);
	return 0;
}

static int blue_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_BLUE_MAX + 1];
	SPRINT_BUF(b1);

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_BLUE_MAX, opt);

	if (aqm_has(tb, TCA_BLUE_LIMIT, sizeof(__u32)))
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_BLUE_LIMIT]));
	if (aqm_has(tb, TCA_BLUE_THRESHOLD, sizeof(__u32)))
		print_uint(PRINT_ANY, "threshold", "threshold %up ",
			   rta_getattr_u32(tb[TCA_BLUE_THRESHOLD]));
	if (aqm_has(tb, TCA_BLUE_INCREMENT, sizeof(__u64)))
		print_float(PRINT_ANY, "increment", "increment %g ",
			    aqm_prob_to_double(rta_getattr_u64(tb[TCA_BLUE_INCREMENT])));
	if (aqm_has(tb, TCA_BLUE_DECREMENT, sizeof(__u64)))
		print_float(PRINT_ANY, "decrement", "decrement %g ",
			    aqm_prob_to_double(rta_getattr_u64(tb[TCA_BLUE_DECREMENT])));
	if (aqm_has(tb, TCA_BLUE_FREEZE, sizeof(__u32))) {
		__u32 freeze_us = rta_getattr_u32(tb[TCA_BLUE_FREEZE]);

		print_uint(PRINT_JSON, "freeze", NULL, freeze_us);
		print_string(PRINT_FP, NULL, "freeze %s ", sprint_time(freeze_us, b1));
	}
	if (aqm_has(tb, TCA_BLUE_ECN, sizeof(__u32)) &&
	    rta_getattr_u32(tb[TCA_BLUE_ECN]))
		print_bool(PRINT_ANY, "ecn", "ecn ", true);
	else
		print_bool(PRINT_JSON, "ecn", NULL, false);
	return 0;
}

static int blue_print_xstats(struct qdisc_util *qu, FILE *f,
			     struct rtattr *xstats)
{
	struct tc_blue_xstats *st;

	if (!xstats)
		return 0;
	if (RTA_PAYLOAD(xstats) < sizeof(*st))
		return -1;
	st = RTA_DATA(xstats);

	print_float(PRINT_ANY, "prob", "  prob %g", aqm_prob_to_double(st->prob));
	print_uint(PRINT_ANY, "max_qlen", " max_qlen %up", st->max_qlen);
	print_uint(PRINT_ANY, "increments", " increments %u", st->increments);
	print_uint(PRINT_ANY, "decrements", " decrements %u", st->decrements);
	print_nl();
	print_uint(PRINT_ANY, "early_drops", "  early_drops %u", st->early_drops);
	print_uint(PRINT_ANY, "tail_drops", " tail_drops %u", st->tail_drops);
	print_uint(PRINT_ANY, "ecn_marks", " ecn_marks %u", st->ecn_marks);
	return 0;
}

struct qdisc_util blue_qdisc_util = {
	.id		= "blue",
	.parse_qopt	= blue_parse_opt,
	.print_qopt	= blue_print_opt,
	.print_xstats	= blue_print_xstats,
};
