// SPDX-License-Identifier: GPL-2.0
/*
 * q_pi.c	tc parser for the PI AQM qdisc (Hollot et al., INFOCOM 2001)
 */

#include <ctype.h>

#include "aqm_util.h"

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... pi [ limit PACKETS ] [ target PACKETS | target TIME ]\n"
		"              [ a A ] [ b B ] [ freq HZ ] [ ecn | noecn ]\n"
		"              [ ecn_ceiling PROB ]\n"
		"              [ autotune [ rtt TIME ] [ flows N | flows auto ]\n"
		"                [ bandwidth RATE | bandwidth auto ]\n"
		"                [ response cubic | response reno | response highspeed ]\n"
		"                [ cubic_c C ] [ margin DEGREES | margin auto ]\n"
		"              | noautotune ]\n"
		"              [ spacing random | spacing even ]\n"
		"  target: the queue to hold, in packets (default 50), or as a delay\n"
		"  in [1us, 10s] at the link's rate (bandwidth, or the measured one)\n"
		"  A, B: gains in [0, 1) (defaults 1.822e-5, 1.816e-5)\n"
		"  HZ: update frequency in [0.01, 1000] (default 170)\n"
		"  PROB: with ecn, ECN-capable packets are marked while p is at most\n"
		"  PROB and dropped above it, in (0, 1] (default 0.1; 1: always marked)\n"
		"  autotune: derive A and B from the PI paper's rules for a link of\n"
		"  RATE (default auto: the measured dequeue rate), at least N flows\n"
		"  (default 1; auto: as many as the probability in use implies)\n"
		"  and round-trip times at most TIME in [1us, 10s]\n"
		"  (default 200ms) without this queue, for CUBIC senders (default)\n"
		"  or the response given; C: the CUBIC senders' C in [0.000001, 100]\n"
		"  (default 0.4, RFC 9438's); margin: the phase margin that places the\n"
		"  crossover, in [0, 89] degrees (default 0: the paper's wg = z); auto:\n"
		"  the fastest loop in which one loss takes at most p (60 degrees or more)\n"
		"  spacing even: drop every 1/p-th packet, not each with probability p\n");
}

/* an update frequency in Hz, "170" or "170Hz" as shown, into mHz */
static int pi_get_freq_mhz(__u64 *mhz, const char *arg)
{
	size_t len = arg ? strlen(arg) : 0;
	char buf[64];
	double hz;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, arg, len + 1);
	if (len > 2 && strcasecmp(buf + len - 2, "hz") == 0)
		buf[len - 2] = '\0';
	if (aqm_get_double_range(&hz, buf, 0.01, 1000))
		return -1;
	*mhz = lround(hz * 1000);
	return 0;
}

/* CUBIC's C in [10^-6, 100], as the kernel's __u32 in 10^-6 units */
static int pi_get_cubic_c(__u64 *micro, const char *arg)
{
	long double c;

	if (aqm_get_ldouble(&c, arg))
		return -1;
	c = nearbyintl(c * 1000000);
	if (c < 1 || c > 100000000)
		return -1;
	*micro = (__u64)c;
	return 0;
}

/* a time has a unit after its number ("20ms"), a packet count none or "p" */
static bool pi_is_time(const char *arg)
{
	size_t len = strlen(arg);

	return len && !isdigit((unsigned char)arg[len - 1]) &&
	       arg[len - 1] != 'p' && arg[len - 1] != '.';
}

static int pi_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			struct nlmsghdr *n, const char *dev)
{
	bool has_limit = false, has_target = false, has_a = false;
	bool has_b = false, has_freq = false, has_rtt = false;
	bool has_flows = false, has_bandwidth = false, has_ceiling = false;
	__u32 limit = 0, target = 0, target_delay_us = 0, rtt_us = 0, flows = 0;
	__u32 margin = 0;
	bool has_margin = false;
	__u64 cubic_c = 0;
	__u64 a = 0, b = 0, bandwidth = 0, freq_mhz = 0, ceiling = 0;
	int ecn = -1, autotune = -1, response = -1, spacing = -1;
	struct rtattr *tail;

	while (argc > 0) {
		if (strcmp(*argv, "limit") == 0) {
			AQM_NEXT_ARG("pi");
			if (aqm_get_pkts(&limit, *argv) || limit == 0)
				return aqm_illegal("pi", "limit",
						   "must be a packet count in [1, 4294967295]");
			has_limit = true;
		} else if (strcmp(*argv, "target") == 0) {
			AQM_NEXT_ARG("pi");
			/* a number is packets; a number with a time unit, a delay */
			target_delay_us = 0;
			if (aqm_get_pkts(&target, *argv) &&
			    (!pi_is_time(*argv) ||
			     aqm_get_time_us(&target_delay_us, *argv, 1, 10000000)))
				return aqm_illegal("pi", "target",
						   "must be a packet count in [0, 4294967295] or a delay in [1us, 10s]");
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
			AQM_NEXT_ARG("pi");
			if (pi_get_freq_mhz(&freq_mhz, *argv))
				return aqm_illegal("pi", "freq",
						   "must be a frequency in Hz in [0.01, 1000]");
			has_freq = true;
		} else if (strcmp(*argv, "ecn") == 0) {
			ecn = 1;
		} else if (strcmp(*argv, "noecn") == 0) {
			ecn = 0;
		} else if (strcmp(*argv, "ecn_ceiling") == 0) {
			AQM_NEXT_ARG("pi");
			if (aqm_get_prob(&ceiling, *argv))
				return aqm_illegal("pi", "ecn_ceiling", AQM_ECN_CEILING_HELP);
			has_ceiling = true;
		} else if (strcmp(*argv, "autotune") == 0) {
			autotune = 1;
		} else if (strcmp(*argv, "noautotune") == 0) {
			autotune = 0;
		} else if (strcmp(*argv, "rtt") == 0) {
			AQM_NEXT_ARG("pi");
			if (aqm_get_time_us(&rtt_us, *argv, 1, 10000000))
				return aqm_illegal("pi", "rtt", "must be a time in [1us, 10s]");
			has_rtt = true;
		} else if (strcmp(*argv, "flows") == 0) {
			AQM_NEXT_ARG("pi");
			/* the kernel's 0 is "auto": estimated, not zero flows */
			if (strcmp(*argv, "auto") == 0)
				flows = 0;
			else if (get_u32(&flows, *argv, 0) || flows == 0)
				return aqm_illegal("pi", "flows",
						   "must be a flow count in [1, 4294967295] or auto");
			has_flows = true;
		} else if (strcmp(*argv, "bandwidth") == 0) {
			AQM_NEXT_ARG("pi");
			if (aqm_get_bandwidth(&bandwidth, *argv))
				return aqm_illegal("pi", "bandwidth", AQM_BANDWIDTH_HELP);
			has_bandwidth = true;
		} else if (strcmp(*argv, "response") == 0) {
			AQM_NEXT_ARG("pi");
			if (strcmp(*argv, "cubic") == 0)
				response = TC_PI_RESPONSE_CUBIC;
			else if (strcmp(*argv, "reno") == 0)
				response = TC_PI_RESPONSE_RENO;
			else if (strcmp(*argv, "highspeed") == 0)
				response = TC_PI_RESPONSE_HIGHSPEED;
			else
				return aqm_illegal("pi", "response",
						   "must be cubic, reno or highspeed");
		} else if (strcmp(*argv, "cubic_c") == 0) {
			AQM_NEXT_ARG("pi");
			if (pi_get_cubic_c(&cubic_c, *argv))
				return aqm_illegal("pi", "cubic_c",
						   "must be a number in [0.000001, 100]");
		} else if (strcmp(*argv, "margin") == 0) {
			AQM_NEXT_ARG("pi");
			if (strcmp(*argv, "auto") == 0)
				margin = TC_PI_MARGIN_AUTO;
			else if (get_u32(&margin, *argv, 10) || margin > 89)
				return aqm_illegal("pi", "margin",
						   "must be a phase margin in [0, 89] degrees, or auto");
			has_margin = true;
		} else if (strcmp(*argv, "spacing") == 0) {
			AQM_NEXT_ARG("pi");
			if (strcmp(*argv, "random") == 0)
				spacing = TC_PI_SPACING_RANDOM;
			else if (strcmp(*argv, "even") == 0)
				spacing = TC_PI_SPACING_EVEN;
			else
				return aqm_illegal("pi", "spacing", "must be random or even");
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

	if (has_limit && has_target && !target_delay_us && target >= limit)
		return aqm_illegal("pi", "target", "must be below limit");
	if (autotune == 1 && (has_a || has_b))
		return aqm_illegal("pi", has_a ? "a" : "b",
				   "cannot be set with autotune, which derives it");

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	if (has_limit)
		addattr32(n, 1024, TCA_PI_LIMIT, limit);
	/* one target replaces the other: a delay, or packets and no delay */
	if (has_target && !target_delay_us)
		addattr32(n, 1024, TCA_PI_TARGET, target);
	if (has_target)
		addattr32(n, 1024, TCA_PI_TARGET_DELAY, target_delay_us);
	if (has_a)
		addattr64(n, 1024, TCA_PI_A, a);
	if (has_b)
		addattr64(n, 1024, TCA_PI_B, b);
	if (has_freq)
		addattr32(n, 1024, TCA_PI_FREQ, (__u32)freq_mhz);
	if (ecn != -1)
		addattr32(n, 1024, TCA_PI_ECN, ecn);
	if (has_ceiling)
		addattr64(n, 1024, TCA_PI_ECN_CEILING, ceiling);
	if (autotune != -1)
		addattr32(n, 1024, TCA_PI_AUTOTUNE, autotune);
	if (has_rtt)
		addattr32(n, 1024, TCA_PI_RTT, rtt_us);
	if (has_flows)
		addattr32(n, 1024, TCA_PI_FLOWS, flows);
	if (has_bandwidth)
		addattr64(n, 1024, TCA_PI_BANDWIDTH, bandwidth);
	if (response != -1)
		addattr32(n, 1024, TCA_PI_RESPONSE, response);
	if (cubic_c)
		addattr32(n, 1024, TCA_PI_CUBIC_C, (__u32)cubic_c);
	if (spacing != -1)
		addattr32(n, 1024, TCA_PI_SPACING, spacing);
	if (has_margin)
		addattr32(n, 1024, TCA_PI_MARGIN, margin);
	addattr_nest_end(n, tail);
	return 0;
}

static const char *pi_response_name(__u32 response)
{
	switch (response) {
	case TC_PI_RESPONSE_RENO:
		return "reno";
	case TC_PI_RESPONSE_HIGHSPEED:
		return "highspeed";
	case TC_PI_RESPONSE_CUBIC:
		return "cubic";
	default:
		return "unknown";
	}
}

static void pi_print_autotune(struct rtattr *tb[])
{
	print_bool(PRINT_ANY, "autotune", "autotune ", true);
	if (aqm_has(tb, TCA_PI_RTT, sizeof(__u32)))
		aqm_print_time_us("rtt", "rtt %s ", rta_getattr_u32(tb[TCA_PI_RTT]));
	if (aqm_has(tb, TCA_PI_FLOWS, sizeof(__u32))) {
		__u32 flows = rta_getattr_u32(tb[TCA_PI_FLOWS]);

		/* as bandwidth: JSON's 0 is auto */
		print_uint(PRINT_JSON, "flows", NULL, flows);
		if (flows)
			print_uint(PRINT_FP, NULL, "flows %u ", flows);
		else
			print_string(PRINT_FP, NULL, "%s", "flows auto ");
	}
	if (aqm_has(tb, TCA_PI_BANDWIDTH, sizeof(__u64)))
		aqm_print_bandwidth(rta_getattr_u64(tb[TCA_PI_BANDWIDTH]));
	if (aqm_has(tb, TCA_PI_RESPONSE, sizeof(__u32)))
		print_string(PRINT_ANY, "response", "response %s ",
			     pi_response_name(rta_getattr_u32(tb[TCA_PI_RESPONSE])));
	/* RFC 9438's 0.4, the default, is shown in JSON only */
	if (aqm_has(tb, TCA_PI_CUBIC_C, sizeof(__u32))) {
		__u32 micro = rta_getattr_u32(tb[TCA_PI_CUBIC_C]);

		print_float(PRINT_JSON, "cubic_c", NULL, micro / 1e6);
		if (micro != 400000) {
			char buf[64];

			print_string(PRINT_FP, NULL, "cubic_c %s ",
				     aqm_sprint_exact(buf, sizeof(buf), micro / 1e6L,
						      micro, pi_get_cubic_c));
		}
	}
	/*
	 * 0, the paper's crossover, is the default: shown in JSON only; as
	 * flows, JSON shows auto as its number
	 */
	if (aqm_has(tb, TCA_PI_MARGIN, sizeof(__u32))) {
		__u32 margin = rta_getattr_u32(tb[TCA_PI_MARGIN]);

		print_uint(PRINT_JSON, "margin", NULL, margin);
		if (margin == TC_PI_MARGIN_AUTO)
			print_string(PRINT_FP, NULL, "%s", "margin auto ");
		else if (margin)
			print_uint(PRINT_FP, NULL, "margin %u ", margin);
	}
}

static int pi_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_PI_MAX + 1];
	bool autotune, delay_target;

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_PI_MAX, opt);
	autotune = aqm_has(tb, TCA_PI_AUTOTUNE, sizeof(__u32)) &&
		   rta_getattr_u32(tb[TCA_PI_AUTOTUNE]);
	delay_target = aqm_has(tb, TCA_PI_TARGET_DELAY, sizeof(__u32)) &&
		       rta_getattr_u32(tb[TCA_PI_TARGET_DELAY]);

	if (aqm_has(tb, TCA_PI_LIMIT, sizeof(__u32)))
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_PI_LIMIT]));
	if (delay_target)
		aqm_print_time_us("target_delay", "target %s ",
				  rta_getattr_u32(tb[TCA_PI_TARGET_DELAY]));
	else if (aqm_has(tb, TCA_PI_TARGET, sizeof(__u32)))
		print_uint(PRINT_ANY, "target", "target %up ",
			   rta_getattr_u32(tb[TCA_PI_TARGET]));
	/* with autotune the configured gains are not the ones in use */
	if (autotune)
		pi_print_autotune(tb);
	else if (delay_target && aqm_has(tb, TCA_PI_BANDWIDTH, sizeof(__u64)))
		aqm_print_bandwidth(rta_getattr_u64(tb[TCA_PI_BANDWIDTH]));
	if (!autotune && aqm_has(tb, TCA_PI_A, sizeof(__u64)))
		aqm_print_frac64("a", "a %s ", rta_getattr_u64(tb[TCA_PI_A]));
	if (!autotune && aqm_has(tb, TCA_PI_B, sizeof(__u64)))
		aqm_print_frac64("b", "b %s ", rta_getattr_u64(tb[TCA_PI_B]));
	if (aqm_has(tb, TCA_PI_FREQ, sizeof(__u32))) {
		__u32 mhz = rta_getattr_u32(tb[TCA_PI_FREQ]);

		aqm_print_exact("freq", "freq %sHz ", mhz / 1000.0L, mhz,
				pi_get_freq_mhz);
	}
	if (aqm_has(tb, TCA_PI_ECN, sizeof(__u32)) &&
	    rta_getattr_u32(tb[TCA_PI_ECN]))
		print_bool(PRINT_ANY, "ecn", "ecn ", true);
	else
		print_bool(PRINT_JSON, "ecn", NULL, false);
	aqm_print_ecn_ceiling(tb, TCA_PI_ECN_CEILING);
	if (aqm_has(tb, TCA_PI_SPACING, sizeof(__u32))) {
		bool even = rta_getattr_u32(tb[TCA_PI_SPACING]) == TC_PI_SPACING_EVEN;

		print_string(PRINT_JSON, "spacing", NULL, even ? "even" : "random");
		if (even)
			print_string(PRINT_FP, NULL, "%s", "spacing even ");
	}
	return 0;
}

static const char *pi_gains_source(__u32 source)
{
	switch (source) {
	case TC_PI_GAINS_MANUAL:
		return "manual";
	case TC_PI_GAINS_BANDWIDTH:
		return "autotune-bandwidth";
	case TC_PI_GAINS_ESTIMATE:
		return "autotune-estimate";
	case TC_PI_GAINS_PENDING:
		return "autotune-pending";
	default:
		return "unknown";
	}
}

static int pi_print_xstats(struct qdisc_util *qu, FILE *f,
			   struct rtattr *xstats)
{
	struct tc_pi_xstats *st;

	if (!xstats)
		return 0;
	if (RTA_PAYLOAD(xstats) < offsetof(struct tc_pi_xstats, tuned_flows))
		return -1;
	st = RTA_DATA(xstats);

	print_float(PRINT_ANY, "gain_a", "  gains a %g", aqm_frac64_to_double(st->gain_a));
	print_float(PRINT_ANY, "gain_b", " b %g", aqm_frac64_to_double(st->gain_b));
	print_string(PRINT_ANY, "gains_source", " (%s", pi_gains_source(st->gains_source));
	if (st->gains_source == TC_PI_GAINS_BANDWIDTH ||
	    st->gains_source == TC_PI_GAINS_ESTIMATE) {
		print_float(PRINT_ANY, "tuned_capacity", " at %gpps",
			    ldexp((double)st->tuned_capacity, -16));
		/* a module older than the field sends a shorter struct */
		if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_pi_xstats, wire_qlen))
			print_float(PRINT_ANY, "tuned_flows", " for %g flows",
				    ldexp((double)st->tuned_flows, -16));
		/* flows auto; older modules send 0 (padding) here */
		if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_pi_xstats, tuned_margin) &&
		    st->counted_flows)
			print_uint(PRINT_ANY, "counted_flows", ", %u counted",
				   st->counted_flows);
		if (RTA_PAYLOAD(xstats) >= sizeof(*st))
			print_uint(PRINT_ANY, "tuned_margin", ", margin %u",
				   st->tuned_margin);
	}
	print_string(PRINT_FP, NULL, "%s", ")");
	if (st->rate_estimate)
		print_float(PRINT_ANY, "rate_estimate", " rate_estimate %gpps",
			    ldexp((double)st->rate_estimate, -16));
	print_nl();

	print_float(PRINT_ANY, "prob", "  prob %g", aqm_prob_to_double(st->prob));
	/* neither is known while the link's rate is not */
	if (st->qdelay_us != TC_PI_UNKNOWN)
		aqm_print_time_us("qdelay", " qdelay %s", st->qdelay_us);
	if (st->target_pkts != TC_PI_UNKNOWN)
		print_uint(PRINT_ANY, "target_in_use", " target_in_use %up",
			   st->target_pkts);
	if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_pi_xstats, tuned_margin))
		print_uint(PRINT_ANY, "wire_qlen", " wire_qlen %up", st->wire_qlen);
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
