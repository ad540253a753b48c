// SPDX-License-Identifier: GPL-2.0
/*
 * pi-replay: a recorded queue trace through the PI law (kmod/core/pi.h),
 * in userspace and open loop, to see what the law computes from a queue a
 * real run made: p, its integral, the gains and the design's N.
 *
 *   pi-replay --bandwidth BITS_PER_S [options] < trace > replay.csv
 *
 * stdin: one sample a line, "t_s qlen_pkts drops", whitespace separated:
 * the time in (nominal) seconds, non-decreasing, the queue in packets and
 * the qdisc's cumulative drop counter; blank lines and lines from '#' on
 * are skipped. At every update instant, one update period apart from the
 * first sample's time, the law takes the queue of the last sample at or
 * before it. The increase of the drop counter since the previous update
 * counts as the limit's drops (flows auto reads them) only if a sample in
 * between held the queue within --limit-slack packets of --limit; any
 * other increase is the law's own early drops, which it knows as p, and
 * is ignored.
 *
 * Open loop: the queue is what the real closed loop made; what the law
 * computes here does not act on it. The law is the same code as the
 * module's, and its state starts as a fresh qdisc's; only its inputs
 * differ: C is the configured bandwidth, not the dequeue rate a run with
 * "bandwidth auto" measured, the update instants are a fixed grid (the
 * module's timer sleeps on an idle queue and restarts at an arrival), and
 * with flows auto the flow counter sees a fixed number of flows.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pi.h"

/* the module's default: a veth's MTU plus its link header */
#define REPLAY_PKT_BYTES	1514
#define REPLAY_LIMIT_SLACK	4

static const char *prog = "pi-replay";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s --bandwidth BITS_PER_S [options] < TRACE\n"
		"  TRACE: lines \"t_s qlen_pkts drops\" (seconds, packets, the\n"
		"  qdisc's cumulative drop counter); an update every 1/freq from\n"
		"  the first sample's time takes the last sample at or before it\n"
		"options (the qdisc's, as tc sets them; defaults the module's):\n"
		"  --bandwidth BPS       link rate in bit/s: C (required)\n"
		"  --target PKTS         reference queue in packets (default 50)\n"
		"  --target-delay US     reference queueing delay in [1, 10^7] us\n"
		"  --limit PKTS          queue capacity (default 1000)\n"
		"  --freq MHZ            update frequency, millihertz, [10, 10^6]\n"
		"                        (default 170000)\n"
		"  --a GAIN, --b GAIN    gains in [0, 1), without --autotune\n"
		"  --autotune            derive the gains from the design rules\n"
		"  --rtt US              autotune: round trip without the queue,\n"
		"                        [1, 10^7] us (default 200000)\n"
		"  --flows N|auto        autotune: fewest flows (default 1), or\n"
		"                        estimated\n"
		"  --counted N           flows auto: the flows the counter sees\n"
		"                        each window (required with flows auto;\n"
		"                        0: none)\n"
		"  --margin DEG|auto     autotune: phase margin, [0, 89] (default 0:\n"
		"                        the paper's wg = z)\n"
		"  --response cubic|reno|highspeed  autotune: the senders (default\n"
		"                        cubic)\n"
		"  --cubic-c MICRO       autotune: CUBIC's C, 10^-6 s^-3, [1, 10^8]\n"
		"  --pkt-bytes BYTES     wire packet, turns the rate into packets\n"
		"                        (default %d)\n"
		"  --limit-slack PKTS    a drop counter's rise counts as the limit's\n"
		"                        if the queue came this close to --limit\n"
		"                        (default %d); others are ignored\n"
		"output: CSV, a line per update: t_s (the update instant),\n"
		"qlen_pkts and ref_pkts (packets), prob and integral (probability),\n"
		"gain_a and gain_b (probability per packet), tuned_flows (the\n"
		"design's N), counted_flows, mean_loss (probability), margin_deg\n"
		"(degrees), limit_drops (packets counted as the limit's)\n",
		prog, REPLAY_PKT_BYTES, REPLAY_LIMIT_SLACK);
}

static void __attribute__((noreturn, format(printf, 2, 3)))
bad_arg(const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", prog, name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see --help)\n");
	exit(2);
}

/* a whole decimal number in [min, max] */
static bool parse_u64(const char *arg, u64 min, u64 max, u64 *v)
{
	unsigned long long x;
	char *end;

	/* strtoull takes "-1" as a huge number: no sign allowed */
	if (!*arg || *arg == '-' || *arg == '+')
		return false;
	errno = 0;
	x = strtoull(arg, &end, 10);
	if (*end || errno || x < min || x > max)
		return false;
	*v = x;
	return true;
}

/* an option's whole number in [min, max], else exit naming the option */
static u64 get_u64(const char *name, const char *arg, u64 min, u64 max)
{
	u64 v;

	if (!parse_u64(arg, min, max, &v))
		bad_arg(name, "'%s' is not a whole number in [%llu, %llu]", arg,
			(unsigned long long)min, (unsigned long long)max);
	return v;
}

/* a gain in [0, 1) as the kernel holds it, a fraction of 2^64 */
static u64 get_gain(const char *name, const char *arg)
{
	long double g;
	char *end;

	errno = 0;
	g = strtold(arg, &end);
	if (!*arg || *end || errno || !(g >= 0 && g < 1))
		bad_arg(name, "'%s' is not a number in [0, 1)", arg);
	g = nearbyintl(ldexpl(g, 64));
	return g >= ldexpl(1, 64) ? U64_MAX : (u64)g;
}

enum {
	OPT_BANDWIDTH = 256, OPT_TARGET, OPT_TARGET_DELAY, OPT_LIMIT, OPT_FREQ,
	OPT_A, OPT_B, OPT_AUTOTUNE, OPT_RTT, OPT_FLOWS, OPT_COUNTED, OPT_MARGIN,
	OPT_RESPONSE, OPT_CUBIC_C, OPT_PKT_BYTES, OPT_LIMIT_SLACK, OPT_HELP,
};

static const struct option options[] = {
	{ "bandwidth", required_argument, NULL, OPT_BANDWIDTH },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "target-delay", required_argument, NULL, OPT_TARGET_DELAY },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "freq", required_argument, NULL, OPT_FREQ },
	{ "a", required_argument, NULL, OPT_A },
	{ "b", required_argument, NULL, OPT_B },
	{ "autotune", no_argument, NULL, OPT_AUTOTUNE },
	{ "rtt", required_argument, NULL, OPT_RTT },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "counted", required_argument, NULL, OPT_COUNTED },
	{ "margin", required_argument, NULL, OPT_MARGIN },
	{ "response", required_argument, NULL, OPT_RESPONSE },
	{ "cubic-c", required_argument, NULL, OPT_CUBIC_C },
	{ "pkt-bytes", required_argument, NULL, OPT_PKT_BYTES },
	{ "limit-slack", required_argument, NULL, OPT_LIMIT_SLACK },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct replay {
	struct pi_params params;
	struct pi_vars vars;
	long counted;		/* flows auto: flows fed to the counter; -1 unset */
	u32 limit_slack;
	u32 count_hashes[PI_COUNT_BITS];
	unsigned int count_n;	/* of them in use */
};

/* parse the options into @r's params the way tc and pi_change() do */
static void parse_options(struct replay *r, int argc, char **argv)
{
	bool has_a = false, has_b = false, has_target = false;
	bool has_tune_opt = false, has_limit = false;
	u64 bits = 0;
	int opt;

	pi_params_init(&r->params, REPLAY_PKT_BYTES);
	r->counted = -1;
	r->limit_slack = REPLAY_LIMIT_SLACK;
	/* '+': stop at the first non-option, which is then refused */
	while ((opt = getopt_long(argc, argv, "+", options, NULL)) != -1) {
		switch (opt) {
		case OPT_BANDWIDTH:
			bits = get_u64("--bandwidth", optarg, 8, U64_MAX);
			break;
		case OPT_TARGET:
			r->params.target_pkts = get_u64("--target", optarg, 0, U32_MAX);
			r->params.target_delay_us = 0;
			has_target = true;
			break;
		case OPT_TARGET_DELAY:
			r->params.target_delay_us = get_u64("--target-delay", optarg, 1,
							    PI_TARGET_DELAY_MAX_US);
			has_target = false;
			break;
		case OPT_LIMIT:
			r->params.limit_pkts = get_u64("--limit", optarg, 1, U32_MAX);
			has_limit = true;
			break;
		case OPT_FREQ:
			r->params.freq_mhz = get_u64("--freq", optarg, PI_FREQ_MIN_MHZ,
						     PI_FREQ_MAX_MHZ);
			break;
		case OPT_A:
			r->params.a_frac = get_gain("--a", optarg);
			has_a = true;
			break;
		case OPT_B:
			r->params.b_frac = get_gain("--b", optarg);
			has_b = true;
			break;
		case OPT_AUTOTUNE:
			r->params.autotune = true;
			break;
		case OPT_RTT:
			r->params.rtt_us = get_u64("--rtt", optarg, 1, PI_RTT_MAX_US);
			has_tune_opt = true;
			break;
		case OPT_FLOWS:
			/* the kernel's 0 is auto: estimated, not zero flows */
			r->params.flows = strcmp(optarg, "auto") ? get_u64("--flows", optarg, 1, U32_MAX) :
				PI_FLOWS_AUTO;
			has_tune_opt = true;
			break;
		case OPT_COUNTED:
			r->counted = get_u64("--counted", optarg, 0, 100000);
			break;
		case OPT_MARGIN:
			r->params.margin_deg = strcmp(optarg, "auto") ?
				get_u64("--margin", optarg, 0, PI_MARGIN_MAX_DEG) : PI_MARGIN_AUTO;
			has_tune_opt = true;
			break;
		case OPT_RESPONSE:
			if (!strcmp(optarg, "cubic"))
				r->params.response = PI_RESPONSE_CUBIC;
			else if (!strcmp(optarg, "reno"))
				r->params.response = PI_RESPONSE_RENO;
			else if (!strcmp(optarg, "highspeed"))
				r->params.response = PI_RESPONSE_HIGHSPEED;
			else
				bad_arg("--response", "'%s' is not cubic, reno or highspeed", optarg);
			has_tune_opt = true;
			break;
		case OPT_CUBIC_C:
			r->params.cubic_c_micro = get_u64("--cubic-c", optarg, PI_CUBIC_C_MIN_MICRO,
							  PI_CUBIC_C_MAX_MICRO);
			has_tune_opt = true;
			break;
		case OPT_PKT_BYTES:
			r->params.pkt_bytes = get_u64("--pkt-bytes", optarg, 1, 65535);
			break;
		case OPT_LIMIT_SLACK:
			r->limit_slack = get_u64("--limit-slack", optarg, 0, U32_MAX);
			break;
		case OPT_HELP:
			usage(stdout);
			exit(0);
		default:
			/* getopt_long has named the option */
			fprintf(stderr, "%s: see --help\n", prog);
			exit(2);
		}
	}
	if (optind < argc)
		bad_arg(argv[optind], "not an option: the trace is read from stdin");
	if (!bits)
		bad_arg("--bandwidth", "required: the link's rate gives C");
	/* the module's rate is in bytes per second, tc's in bits */
	r->params.bandwidth_bps = bits / 8;

	/* pi_change()'s checks */
	if (!r->params.target_delay_us && r->params.target_pkts >= r->params.limit_pkts)
		bad_arg(has_target || !has_limit ? "--target" : "--limit",
			"target %u packets must be below limit %u",
			r->params.target_pkts, r->params.limit_pkts);
	if (r->params.autotune && (has_a || has_b))
		bad_arg(has_a ? "--a" : "--b", "the gains are derived by --autotune");
	if (!r->params.autotune && r->params.a_frac < r->params.b_frac)
		bad_arg(has_a ? "--a" : "--b", "gain a must not be below gain b");
	/* the module would keep them unused; here they would mislead */
	if (!r->params.autotune && has_tune_opt)
		bad_arg("--autotune", "required by --rtt, --flows, --margin, --response and --cubic-c");
	if (r->params.autotune && r->params.flows == PI_FLOWS_AUTO && r->counted < 0)
		bad_arg("--counted", "required with --flows auto (0: the counter sees none)");
	if (r->counted >= 0 && !(r->params.autotune && r->params.flows == PI_FLOWS_AUTO))
		bad_arg("--counted", "only flows auto counts flows");
}

/*
 * The counter's input: N flows with random hashes set about
 * m (1 - e^(-N/m)) of its m bits, and pi_count_log2_flows() reads z
 * clear bits as m ln(m / z) flows. So the bits set are the number it
 * reads nearest N, spread evenly over the map (all of them: saturated).
 * One hash of each a window, all sampled: the module samples about
 * PI_COUNT_SAMPLES arrivals a window, and a bulk flow is in any of them.
 */
static void count_setup(struct replay *r)
{
	unsigned int i, bits = PI_COUNT_BITS;
	double best = INFINITY;

	if (r->counted <= 0)
		return;
	for (i = 1; i < PI_COUNT_BITS; i++) {
		double off = fabs(PI_COUNT_BITS * log((double)PI_COUNT_BITS /
						      (PI_COUNT_BITS - i)) - r->counted);

		if (off < best) {
			best = off;
			bits = i;
		}
	}
	/* past the last clear bit's reading, the map saturates */
	if (r->counted > PI_COUNT_BITS * log(PI_COUNT_BITS))
		bits = PI_COUNT_BITS;
	for (i = 0; i < bits; i++)
		r->count_hashes[i] = (u32)(((u64)i * PI_COUNT_BITS / bits) <<
					   (32 - PI_COUNT_LOG2_BITS));
	r->count_n = bits;
}

static void count_feed(struct replay *r)
{
	unsigned int i;

	for (i = 0; i < r->count_n; i++)
		pi_count_flow(&r->vars, r->count_hashes[i], 0);
}

static double q62(u64 x)
{
	return ldexp((double)x, -PI_PROB_SHIFT);
}

/* one update at @t_ns with the queue @qlen, @limit_drops the limit's since the last */
static void update(struct replay *r, s64 t_ns, u32 qlen, u64 limit_drops)
{
	struct pi_vars *v = &r->vars;
	u64 abs_ns = t_ns < 0 ? -(u64)t_ns : (u64)t_ns;

	count_feed(r);
	v->limit_drops += limit_drops;
	pi_update(&r->params, v, qlen);
	/* the instant to the nanosecond, as it was computed */
	printf("%s%llu.%09llu,%u,%u,%.6e,%.6e,%.6e,%.6e,%.4f,%u,%.6e,%u,%llu\n",
	       t_ns < 0 ? "-" : "", (unsigned long long)(abs_ns / AQM_NSEC_PER_SEC),
	       (unsigned long long)(abs_ns % AQM_NSEC_PER_SEC), qlen, v->ref_pkts,
	       q62(v->prob), q62(v->integral),
	       ldexp((double)v->a_frac, -PI_GAIN_SHIFT),
	       ldexp((double)v->b_frac, -PI_GAIN_SHIFT),
	       ldexp((double)v->tuned_flows_q16, -PI_FLOWS_SHIFT), v->counted_flows,
	       q62(v->mean_loss), v->tuned_margin_deg, (unsigned long long)limit_drops);
}

/* where the trace stands: the last sample read and what the updates took */
struct trace {
	s64 next_ns;		/* the next update instant */
	s64 t_ns;		/* the last sample's time, queue and drop counter */
	u32 qlen;
	u64 drops;
	u64 drops_done;		/* the counter at the last update */
	u32 qlen_max;		/* the largest queue sampled since then */
};

/*
 * The updates at the instants before @until_ns (at or before, @inclusive),
 * each with the last sample's queue; the drop counter's rise goes to the
 * limit only if the queue came within the slack of it since the last
 * update (a limit drops only while full; the 10 ms samples may miss the
 * moment).
 */
static void updates_until(struct replay *r, struct trace *tr, s64 until_ns, bool inclusive)
{
	while (tr->next_ns < until_ns || (inclusive && tr->next_ns == until_ns)) {
		u64 rise = tr->drops > tr->drops_done ? tr->drops - tr->drops_done : 0;
		bool full = (u64)tr->qlen_max + r->limit_slack >= r->params.limit_pkts;

		update(r, tr->next_ns, tr->qlen, full ? rise : 0);
		/* a counter that went back (a reset) counts from where it is */
		tr->drops_done = tr->drops;
		tr->qlen_max = tr->qlen;
		tr->next_ns += pi_update_period_ns(&r->params);
	}
}

/* one sample: false at the end of the input; exits on a malformed line */
static bool read_sample(long *line, s64 *t_ns, u32 *qlen, u64 *drops)
{
	char buf[512], *p, *end, *fields[3];
	u64 q;
	double t;
	int n;

	while (fgets(buf, sizeof(buf), stdin)) {
		++*line;
		if (!strchr(buf, '\n') && !feof(stdin)) {
			fprintf(stderr, "%s: stdin line %ld: longer than %zu characters\n",
				prog, *line, sizeof(buf) - 2);
			exit(1);
		}
		p = strchr(buf, '#');
		if (p)
			*p = '\0';
		n = 0;
		for (p = strtok(buf, " \t\r\n"); p; p = strtok(NULL, " \t\r\n"))
			if (n++ < 3)
				fields[n - 1] = p;
		if (!n)
			continue;
		if (n != 3) {
			fprintf(stderr, "%s: stdin line %ld: %d fields, want \"t_s qlen_pkts drops\"\n",
				prog, *line, n);
			exit(1);
		}
		errno = 0;
		t = strtod(fields[0], &end);
		/* within 10^9 s, so that nanoseconds fit an s64 */
		if (*end || errno || !(fabs(t) <= 1e9)) {
			fprintf(stderr, "%s: stdin line %ld: t_s '%s' is not a time in seconds\n",
				prog, *line, fields[0]);
			exit(1);
		}
		if (!parse_u64(fields[1], 0, U32_MAX, &q) ||
		    !parse_u64(fields[2], 0, U64_MAX, drops)) {
			fprintf(stderr, "%s: stdin line %ld: qlen_pkts '%s' or drops '%s' is not a whole number\n",
				prog, *line, fields[1], fields[2]);
			exit(1);
		}
		*t_ns = llround(t * 1e9);
		*qlen = q;
		return true;
	}
	if (ferror(stdin)) {
		fprintf(stderr, "%s: reading stdin: %s\n", prog, strerror(errno));
		exit(1);
	}
	return false;
}

int main(int argc, char **argv)
{
	struct replay r;
	struct trace tr;
	s64 t_ns;
	u64 drops;
	u32 qlen;
	long line = 0;

	parse_options(&r, argc, argv);
	count_setup(&r);
	/* as pi_init() and pi_change() leave a new qdisc */
	pi_vars_init(&r.vars);
	pi_retune(&r.params, &r.vars, true);

	if (!read_sample(&line, &t_ns, &qlen, &drops)) {
		fprintf(stderr, "%s: no samples on stdin\n", prog);
		return 1;
	}
	/* the first instant is the first sample's; its counter is the base */
	tr = (struct trace){ .next_ns = t_ns, .t_ns = t_ns, .qlen = qlen,
			     .drops = drops, .drops_done = drops, .qlen_max = qlen };
	printf("t_s,qlen_pkts,ref_pkts,prob,integral,gain_a,gain_b,tuned_flows,"
	       "counted_flows,mean_loss,margin_deg,limit_drops\n");
	while (read_sample(&line, &t_ns, &qlen, &drops)) {
		if (t_ns < tr.t_ns) {
			fprintf(stderr, "%s: stdin line %ld: t_s goes back\n", prog, line);
			return 1;
		}
		/* the instants before this sample take the one before it */
		updates_until(&r, &tr, t_ns, false);
		tr.t_ns = t_ns;
		tr.qlen = qlen;
		tr.drops = drops;
		if (qlen > tr.qlen_max)
			tr.qlen_max = qlen;
	}
	updates_until(&r, &tr, tr.t_ns, true);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: writing stdout failed\n", prog);
		return 1;
	}
	return 0;
}
