// SPDX-License-Identifier: GPL-2.0
/*
 * q_blue.c	tc parser for the BLUE AQM qdisc (Feng, Kandlur, Saha, Shin)
 */

#include <stddef.h>

#include "aqm_util.h"

#define BLUE_FREEZE_MIN_US	1
#define BLUE_FREEZE_MAX_US	60000000	/* 60 s */

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... blue [ limit PACKETS ] [ threshold PACKETS | threshold limit ]\n"
		"                [ increment D1 ] [ decrement D2 ] [ freeze TIME ]\n"
		"                [ ecn | noecn ] [ ecn_ceiling PROB ]\n"
		"  D1, D2: steps of the marking probability, in (0, 1]\n"
		"          (defaults 0.0025, 0.00025)\n"
		"  TIME: least time between two changes, in [1us, 60s] (default 100ms)\n"
		"  threshold: an arrival finding this many packets raises pm; at most limit;\n"
		"             limit (or 0, the default): follow limit, so only losses raise pm\n"
		"  PROB: with ecn, ECN-capable packets are marked while pm is at most PROB\n"
		"        and dropped above it, in (0, 1] (default 0.1; 1: always marked)\n");
}

/* a packet count, or "limit" for 0: follow the limit */
static int blue_get_threshold(__u32 *threshold, const char *arg)
{
	if (strcmp(arg, "limit") == 0) {
		*threshold = 0;
		return 0;
	}
	return aqm_get_pkts(threshold, arg);
}

static int blue_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	bool has_limit = false, has_threshold = false, has_increment = false;
	bool has_decrement = false, has_freeze = false, has_ceiling = false;
	__u32 limit = 0, threshold = 0, freeze_us = 0;
	__u64 increment = 0, decrement = 0, ceiling = 0;
	int ecn = -1;
	struct rtattr *tail;

	while (argc > 0) {
		if (strcmp(*argv, "limit") == 0) {
			AQM_NEXT_ARG("blue");
			if (aqm_get_pkts(&limit, *argv) || limit == 0)
				return aqm_illegal("blue", "limit",
						   "must be a packet count in [1, 4294967295]");
			has_limit = true;
		} else if (strcmp(*argv, "threshold") == 0) {
			AQM_NEXT_ARG("blue");
			if (blue_get_threshold(&threshold, *argv))
				return aqm_illegal("blue", "threshold",
						   "must be a packet count in [0, 4294967295] or limit");
			has_threshold = true;
		} else if (strcmp(*argv, "increment") == 0) {
			AQM_NEXT_ARG("blue");
			if (aqm_get_prob(&increment, *argv))
				return aqm_illegal("blue", "increment",
						   "must be a number in (0, 1]");
			has_increment = true;
		} else if (strcmp(*argv, "decrement") == 0) {
			AQM_NEXT_ARG("blue");
			if (aqm_get_prob(&decrement, *argv))
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
		} else if (strcmp(*argv, "ecn_ceiling") == 0) {
			AQM_NEXT_ARG("blue");
			if (aqm_get_prob(&ceiling, *argv))
				return aqm_illegal("blue", "ecn_ceiling", AQM_ECN_CEILING_HELP);
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
	if (has_ceiling)
		addattr64(n, 1024, TCA_BLUE_ECN_CEILING, ceiling);
	addattr_nest_end(n, tail);
	return 0;
}

static int blue_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_BLUE_MAX + 1];

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_BLUE_MAX, opt);

	if (aqm_has(tb, TCA_BLUE_LIMIT, sizeof(__u32)))
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_BLUE_LIMIT]));
	/* 0 follows the limit: the one in force is in the statistics */
	if (aqm_has(tb, TCA_BLUE_THRESHOLD, sizeof(__u32))) {
		__u32 threshold = rta_getattr_u32(tb[TCA_BLUE_THRESHOLD]);

		print_uint(PRINT_JSON, "threshold", NULL, threshold);
		if (threshold)
			print_uint(PRINT_FP, NULL, "threshold %up ", threshold);
		else
			print_string(PRINT_FP, NULL, "%s", "threshold limit ");
	}
	if (aqm_has(tb, TCA_BLUE_INCREMENT, sizeof(__u64)))
		aqm_print_prob("increment", "increment %s ",
			       rta_getattr_u64(tb[TCA_BLUE_INCREMENT]));
	if (aqm_has(tb, TCA_BLUE_DECREMENT, sizeof(__u64)))
		aqm_print_prob("decrement", "decrement %s ",
			       rta_getattr_u64(tb[TCA_BLUE_DECREMENT]));
	if (aqm_has(tb, TCA_BLUE_FREEZE, sizeof(__u32)))
		aqm_print_time_us("freeze", "freeze %s ",
				  rta_getattr_u32(tb[TCA_BLUE_FREEZE]));
	if (aqm_has(tb, TCA_BLUE_ECN, sizeof(__u32)) &&
	    rta_getattr_u32(tb[TCA_BLUE_ECN]))
		print_bool(PRINT_ANY, "ecn", "ecn ", true);
	else
		print_bool(PRINT_JSON, "ecn", NULL, false);
	aqm_print_ecn_ceiling(tb, TCA_BLUE_ECN_CEILING);
	return 0;
}

static int blue_print_xstats(struct qdisc_util *qu, FILE *f,
			     struct rtattr *xstats)
{
	struct tc_blue_xstats *st;

	if (!xstats)
		return 0;
	/* kernels before the threshold field send the struct without it */
	if (RTA_PAYLOAD(xstats) < offsetof(struct tc_blue_xstats, threshold))
		return -1;
	st = RTA_DATA(xstats);

	print_float(PRINT_ANY, "prob", "  prob %g", aqm_prob_to_double(st->prob));
	if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_blue_xstats, wire_qlen)) {
		print_uint(PRINT_ANY, "threshold", " threshold %up", st->threshold);
		print_uint(PRINT_ANY, "wire_qlen", " wire_qlen %up", st->wire_qlen);
	}
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
