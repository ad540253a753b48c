// SPDX-License-Identifier: GPL-2.0
/*
 * q_ared.c	tc parser for the ARED qdisc: RED, gentle RED and Adaptive RED
 *		in packet mode, with ns-2 2.35's semantics and defaults
 */

#include "aqm_util.h"

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... ared [ limit PACKETS ] [ min PACKETS | min auto ]\n"
		"               [ max PACKETS | max auto ] [ maxp PROB ]\n"
		"               [ weight W | weight auto ] [ gentle | nogentle ]\n"
		"               [ wait | nowait ] [ adaptive | noadaptive ]\n"
		"               [ interval TIME ] [ target-low FRAC ] [ target-high FRAC ]\n"
		"               [ bandwidth RATE | bandwidth auto ] [ avpkt BYTES | avpkt auto ]\n"
		"               [ bytemode | nobytemode ] [ ecn | noecn ] [ harddrop | noharddrop ]\n"
		"  PROB: max_p in (0, 1] (default 0.1); W: queue weight in (0, 1)\n"
		"  auto (the default): min, max, weight as ns-2 sets them from the link rate;\n"
		"        bandwidth estimated from the dequeue rate; avpkt the device's\n"
		"        MTU plus link header\n"
		"  TIME: adaptive interval in [1ms, 60s] (default 500ms)\n"
		"  FRAC: target band as fractions of max - min in (0, 1) (default 0.4, 0.6)\n"
		"  RATE: link rate for the automatic settings (default: estimated)\n");
}

/* a packet count in [1, 2^32 - 1], or "auto" for 0 */
static int ared_get_pkts_or_auto(__u32 *val, const char *arg)
{
	if (strcmp(arg, "auto") == 0) {
		*val = 0;
		return 0;
	}
	return aqm_get_pkts(val, arg) || *val == 0 ? -1 : 0;
}

static int ared_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	bool has_limit = false, has_min = false, has_max = false;
	bool has_maxp = false, has_weight = false, has_bw = false;
	bool has_avpkt = false, has_interval = false;
	bool has_low = false, has_high = false;
	__u32 limit = 0, min = 0, max = 0, avpkt = 0, interval = 0;
	__u64 maxp = 0, weight = 0, bw = 0, low = 0, high = 0;
	int gentle = -1, wait = -1, adaptive = -1, ecn = -1, harddrop = -1;
	int bytemode = -1;
	struct rtattr *tail;

	while (argc > 0) {
		if (strcmp(*argv, "limit") == 0) {
			AQM_NEXT_ARG("ared");
			if (aqm_get_pkts(&limit, *argv) || limit == 0)
				return aqm_illegal("ared", "limit",
						   "must be a packet count in [1, 4294967295]");
			has_limit = true;
		} else if (strcmp(*argv, "min") == 0) {
			AQM_NEXT_ARG("ared");
			if (ared_get_pkts_or_auto(&min, *argv))
				return aqm_illegal("ared", "min",
						   "must be a packet count in [1, 4294967295] or auto");
			has_min = true;
		} else if (strcmp(*argv, "max") == 0) {
			AQM_NEXT_ARG("ared");
			if (ared_get_pkts_or_auto(&max, *argv))
				return aqm_illegal("ared", "max",
						   "must be a packet count in [1, 4294967295] or auto");
			has_max = true;
		} else if (strcmp(*argv, "maxp") == 0) {
			long double p;

			AQM_NEXT_ARG("ared");
			if (aqm_get_ldouble(&p, *argv) || !(p > 0 && p <= 1))
				return aqm_illegal("ared", "maxp", "must be a probability in (0, 1]");
			if (aqm_get_prob(&maxp, *argv))
				return aqm_illegal("ared", "maxp", "is too small (below 2^-62)");
			has_maxp = true;
		} else if (strcmp(*argv, "weight") == 0) {
			AQM_NEXT_ARG("ared");
			if (strcmp(*argv, "auto") == 0) {
				weight = 0;
			} else if (aqm_get_frac64(&weight, *argv) || weight == 0) {
				return aqm_illegal("ared", "weight",
						   "must be a number in (0, 1) or auto");
			}
			has_weight = true;
		} else if (strcmp(*argv, "bandwidth") == 0) {
			AQM_NEXT_ARG("ared");
			if (aqm_get_bandwidth(&bw, *argv))
				return aqm_illegal("ared", "bandwidth", AQM_BANDWIDTH_HELP);
			has_bw = true;
		} else if (strcmp(*argv, "avpkt") == 0) {
			AQM_NEXT_ARG("ared");
			if (strcmp(*argv, "auto") == 0)
				avpkt = 0;
			else if (aqm_get_u32_unit(&avpkt, *argv, "b") || avpkt == 0 ||
				 avpkt > 65536)
				return aqm_illegal("ared", "avpkt",
						   "must be a size in bytes in [1, 65536] or auto");
			has_avpkt = true;
		} else if (strcmp(*argv, "interval") == 0) {
			AQM_NEXT_ARG("ared");
			if (aqm_get_time_us(&interval, *argv, 1000, 60000000))
				return aqm_illegal("ared", "interval",
						   "must be a time in [1ms, 60s]");
			has_interval = true;
		} else if (strcmp(*argv, "target-low") == 0) {
			AQM_NEXT_ARG("ared");
			if (aqm_get_frac64(&low, *argv) || low == 0)
				return aqm_illegal("ared", "target-low",
						   "must be a fraction of max - min in (0, 1)");
			has_low = true;
		} else if (strcmp(*argv, "target-high") == 0) {
			AQM_NEXT_ARG("ared");
			if (aqm_get_frac64(&high, *argv) || high == 0)
				return aqm_illegal("ared", "target-high",
						   "must be a fraction of max - min in (0, 1)");
			has_high = true;
		} else if (strcmp(*argv, "gentle") == 0) {
			gentle = 1;
		} else if (strcmp(*argv, "nogentle") == 0) {
			gentle = 0;
		} else if (strcmp(*argv, "wait") == 0) {
			wait = 1;
		} else if (strcmp(*argv, "nowait") == 0) {
			wait = 0;
		} else if (strcmp(*argv, "adaptive") == 0) {
			adaptive = 1;
		} else if (strcmp(*argv, "noadaptive") == 0) {
			adaptive = 0;
		} else if (strcmp(*argv, "ecn") == 0) {
			ecn = 1;
		} else if (strcmp(*argv, "noecn") == 0) {
			ecn = 0;
		} else if (strcmp(*argv, "harddrop") == 0) {
			harddrop = 1;
		} else if (strcmp(*argv, "noharddrop") == 0) {
			harddrop = 0;
		} else if (strcmp(*argv, "bytemode") == 0) {
			bytemode = 1;
		} else if (strcmp(*argv, "nobytemode") == 0) {
			bytemode = 0;
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

	/* what can be checked here; the kernel checks against its config */
	if (has_min && has_max && min && max && min >= max)
		return aqm_illegal("ared", "min", "must be below max");
	if (has_max && has_limit && max > limit)
		return aqm_illegal("ared", "max", "must not exceed limit");
	if (has_min && !has_max && has_limit && min && 3ULL * min > limit)
		return aqm_illegal("ared", "min",
				   "gives max = 3 min above limit; set max");
	if (has_low && has_high && low >= high)
		return aqm_illegal("ared", "target-low", "must be below target-high");

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	if (has_limit)
		addattr32(n, 1024, TCA_ARED_LIMIT, limit);
	if (has_min)
		addattr32(n, 1024, TCA_ARED_MIN_THRESH, min);
	if (has_max)
		addattr32(n, 1024, TCA_ARED_MAX_THRESH, max);
	if (has_maxp)
		addattr64(n, 1024, TCA_ARED_MAXP, maxp);
	if (has_weight)
		addattr64(n, 1024, TCA_ARED_WEIGHT, weight);
	if (has_bw)
		addattr64(n, 1024, TCA_ARED_BANDWIDTH, bw);
	if (has_avpkt)
		addattr32(n, 1024, TCA_ARED_AVPKT, avpkt);
	if (has_interval)
		addattr32(n, 1024, TCA_ARED_INTERVAL, interval);
	if (has_low)
		addattr64(n, 1024, TCA_ARED_TARGET_LOW, low);
	if (has_high)
		addattr64(n, 1024, TCA_ARED_TARGET_HIGH, high);
	if (gentle != -1)
		addattr32(n, 1024, TCA_ARED_GENTLE, gentle);
	if (wait != -1)
		addattr32(n, 1024, TCA_ARED_WAIT, wait);
	if (adaptive != -1)
		addattr32(n, 1024, TCA_ARED_ADAPTIVE, adaptive);
	if (ecn != -1)
		addattr32(n, 1024, TCA_ARED_ECN, ecn);
	if (harddrop != -1)
		addattr32(n, 1024, TCA_ARED_HARDDROP, harddrop);
	if (bytemode != -1)
		addattr32(n, 1024, TCA_ARED_BYTEMODE, bytemode);
	addattr_nest_end(n, tail);
	return 0;
}

/* a packet count, "auto" in text when 0; the raw value in JSON */
static void ared_print_pkts(struct rtattr **tb, int attr, const char *key,
			    const char *fmt, const char *auto_text)
{
	__u32 v;

	if (!aqm_has(tb, attr, sizeof(__u32)))
		return;
	v = rta_getattr_u32(tb[attr]);
	print_uint(PRINT_JSON, key, NULL, v);
	if (v)
		print_uint(PRINT_FP, NULL, fmt, v);
	else
		print_string(PRINT_FP, NULL, "%s", auto_text);
}

static void ared_print_flag(struct rtattr **tb, int attr, const char *key,
			    const char *off)
{
	bool on;

	if (!aqm_has(tb, attr, sizeof(__u32)))
		return;
	on = rta_getattr_u32(tb[attr]);
	print_bool(PRINT_JSON, key, NULL, on);
	print_string(PRINT_FP, NULL, "%s ", on ? key : off);
}

static int ared_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_ARED_MAX + 1];

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_ARED_MAX, opt);

	if (aqm_has(tb, TCA_ARED_LIMIT, sizeof(__u32)))
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_ARED_LIMIT]));
	ared_print_pkts(tb, TCA_ARED_MIN_THRESH, "min", "min %up ", "min auto ");
	ared_print_pkts(tb, TCA_ARED_MAX_THRESH, "max", "max %up ", "max auto ");
	if (aqm_has(tb, TCA_ARED_MAXP, sizeof(__u64)))
		aqm_print_prob("maxp", "maxp %s ", rta_getattr_u64(tb[TCA_ARED_MAXP]));
	if (aqm_has(tb, TCA_ARED_WEIGHT, sizeof(__u64))) {
		__u64 w = rta_getattr_u64(tb[TCA_ARED_WEIGHT]);

		if (w) {
			aqm_print_frac64("weight", "weight %s ", w);
		} else {
			print_float(PRINT_JSON, "weight", NULL, 0);
			print_string(PRINT_FP, NULL, "%s", "weight auto ");
		}
	}
	ared_print_flag(tb, TCA_ARED_GENTLE, "gentle", "nogentle");
	ared_print_flag(tb, TCA_ARED_WAIT, "wait", "nowait");
	ared_print_flag(tb, TCA_ARED_ADAPTIVE, "adaptive", "noadaptive");
	if (aqm_has(tb, TCA_ARED_INTERVAL, sizeof(__u32)))
		aqm_print_time_us("interval", "interval %s ",
				  rta_getattr_u32(tb[TCA_ARED_INTERVAL]));
	if (aqm_has(tb, TCA_ARED_TARGET_LOW, sizeof(__u64)))
		aqm_print_frac64("target_low", "target-low %s ",
				 rta_getattr_u64(tb[TCA_ARED_TARGET_LOW]));
	if (aqm_has(tb, TCA_ARED_TARGET_HIGH, sizeof(__u64)))
		aqm_print_frac64("target_high", "target-high %s ",
				 rta_getattr_u64(tb[TCA_ARED_TARGET_HIGH]));
	if (aqm_has(tb, TCA_ARED_BANDWIDTH, sizeof(__u64)))
		aqm_print_bandwidth(rta_getattr_u64(tb[TCA_ARED_BANDWIDTH]));
	if (aqm_has(tb, TCA_ARED_AVPKT, sizeof(__u32))) {
		__u32 avpkt = rta_getattr_u32(tb[TCA_ARED_AVPKT]);

		print_uint(PRINT_JSON, "avpkt", NULL, avpkt);
		if (avpkt)
			print_uint(PRINT_FP, NULL, "avpkt %ub ", avpkt);
		else
			print_string(PRINT_FP, NULL, "%s", "avpkt auto ");
	}
	ared_print_flag(tb, TCA_ARED_BYTEMODE, "bytemode", "nobytemode");
	ared_print_flag(tb, TCA_ARED_ECN, "ecn", "noecn");
	ared_print_flag(tb, TCA_ARED_HARDDROP, "harddrop", "noharddrop");
	return 0;
}

static int ared_print_xstats(struct qdisc_util *qu, FILE *f,
			     struct rtattr *xstats)
{
	struct tc_ared_xstats *st;

	if (!xstats)
		return 0;
	/* a module older than wire_qlen sends the struct without it */
	if (RTA_PAYLOAD(xstats) < offsetof(struct tc_ared_xstats, wire_qlen))
		return -1;
	st = RTA_DATA(xstats);

	print_float(PRINT_ANY, "avg", "  avg %.3fp", ldexp((double)st->avg, -32));
	print_float(PRINT_ANY, "cur_maxp", " maxp %g", aqm_prob_to_double(st->cur_maxp));
	print_float(PRINT_ANY, "prob", " prob %g", aqm_prob_to_double(st->prob));
	if (RTA_PAYLOAD(xstats) >= sizeof(*st))
		print_uint(PRINT_ANY, "wire_qlen", " wire_qlen %up", st->wire_qlen);
	print_uint(PRINT_ANY, "max_qlen", " max_qlen %up", st->max_qlen);
	print_nl();
	print_uint(PRINT_ANY, "min", "  min %up", st->min);
	print_uint(PRINT_ANY, "max", " max %up", st->max);
	print_float(PRINT_ANY, "weight", " weight %g", aqm_frac64_to_double(st->weight));
	print_u64(PRINT_JSON, "link_rate", NULL, st->rate);
	tc_print_rate(PRINT_FP, NULL, " link_rate %s", st->rate);
	print_uint(PRINT_ANY, "maxp_updates", " maxp_updates %u", st->maxp_updates);
	print_nl();
	print_uint(PRINT_ANY, "early_drops", "  early_drops %u", st->early_drops);
	print_uint(PRINT_ANY, "forced_drops", " forced_drops %u", st->forced_drops);
	print_uint(PRINT_ANY, "tail_drops", " tail_drops %u", st->tail_drops);
	print_uint(PRINT_ANY, "ecn_marks", " ecn_marks %u", st->ecn_marks);
	return 0;
}

struct qdisc_util ared_qdisc_util = {
	.id		= "ared",
	.parse_qopt	= ared_parse_opt,
	.print_qopt	= ared_print_opt,
	.print_xstats	= ared_print_xstats,
};
