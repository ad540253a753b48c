// SPDX-License-Identifier: GPL-2.0
/*
 * Instruction counts of the AQM algorithm cores (kmod/core/), per
 * operation, under valgrind's callgrind: deterministic, so a change in the
 * cost of a core shows up as a change in the count, not as noise.
 *
 * Each operation is what the qdisc glue (kmod/sch_<kind>.c) runs through
 * the core for one event: the per-packet enqueue decision, the dequeue
 * hook, the timer's control update. It is timed as BENCH_CALLS calls of a
 * noinline wrapper over a precomputed input trace, between
 * CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT("<kind>/<config>/<op>");
 * a wrapper that does nothing, run by the same loop over the same trace,
 * is dumped as "baseline" for tests/bench/core-bench to subtract.
 *
 * Two configurations per kind: the defaults (<kind>_params_init) and the
 * study's (testbed/study.py at its nominal 1 Gbit/s). Before an enqueue is
 * timed, the control law is driven to a probability of 2 % (ARED: the
 * average is put mid-way between min and max), so the decision is not the
 * trivial p = 0 one. Instruction counts of x86-64 code are not cycles: a
 * division counts one.
 *
 * Outside valgrind the client requests are no-ops: the program then just
 * runs the traces, and prints the same lines on stdout.
 *
 * Usage: core_bench [calls]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "pi.h"
#include "rem.h"
#include "blue.h"
#include "ared.h"

#define BENCH_CALLS	100000

/* not inlined, not cloned, not analysed: each call is a real, opaque call */
#if defined(__clang__)
#define BENCH_OPAQUE	__attribute__((noinline))
#else
#define BENCH_OPAQUE	__attribute__((noipa))
#endif

/* the link of the study, nominal: 1 Gbit/s of 1514-byte frames */
#define LINK_BYTES_PS	125000000ULL
#define LINK_PKT_BYTES	1514
#define LINK_PKT_NS	12112		/* 1514 bytes at 1 Gbit/s */

/* the probability the warm-up drives each controller to: 2 %, Q62 */
#define WARM_PROB	(BIT_ULL(62) / 50)
#define WARM_MAX_STEPS	2000000

/* one event's inputs; which fields an operation reads is up to it */
struct bench_in {
	u64 now_ns;
	u32 qlen;
	u32 rnd;
	u32 aux;	/* arrivals per interval, packet bytes or an event */
	u32 periods;	/* timer intervals elapsed: 1, on time */
	u32 idle_ns;	/* how long the queue was empty before the arrival */
};

typedef u32 (*bench_op)(void *state, const struct bench_in *in);

static struct bench_in *trace;
static u32 calls = BENCH_CALLS;
static volatile u64 sink;

/* --- the trace ----------------------------------------------------------- */

static u64 rng_state;
/* one clock across all traces, so that time never runs back for a state */
static u64 clock_ns = 1000000000ULL;

/* xorshift64*, seeded per trace so that each is reproducible on its own */
static u64 rng_next(void)
{
	u64 x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* uniform in [lo, hi] */
static u32 rng_range(u32 lo, u32 hi)
{
	return lo + (u32)((rng_next() >> 32) % ((u64)hi - lo + 1));
}

/*
 * Queue lengths uniform in [qlo, qhi], random numbers, times a packet time
 * apart (+-50 %) from where the last trace ended, and aux in [alo, ahi].
 */
static void trace_fill(u64 seed, u32 qlo, u32 qhi, u32 alo, u32 ahi)
{
	u32 i;

	rng_state = seed;
	for (i = 0; i < calls; i++) {
		clock_ns += rng_range(LINK_PKT_NS / 2, LINK_PKT_NS * 3 / 2);
		trace[i].now_ns = clock_ns;
		trace[i].qlen = rng_range(qlo, qhi);
		trace[i].rnd = (u32)(rng_next() >> 32);
		trace[i].aux = rng_range(alo, ahi);
		trace[i].periods = 1;
		trace[i].idle_ns = 0;
	}
}

/* --- the timed loop ------------------------------------------------------ */

/* the same loop, call and trace for every operation and for the baseline */
static BENCH_OPAQUE u64 bench_loop(bench_op op, void *state,
				   const struct bench_in *in, u32 n)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += op(state, &in[i]);
	return sum;
}

static BENCH_OPAQUE u32 op_baseline(void *state, const struct bench_in *in)
{
	asm volatile("" : : "r" (state), "r" (in) : "memory");
	return 0;
}

/*
 * Time one operation: a few untimed calls first (on a copy of the state)
 * so that nothing lazy, such as a PLT binding, lands in the count. The
 * line printed names the dump and says which core calls it covers.
 *
 * Return: the sum of the wrapper's results (drops, for an enqueue).
 */
static u64 bench(const char *name, const char *what, bench_op op, void *state,
		 size_t size)
{
	char warm[1024];
	u64 sum;

	if (size > sizeof(warm))
		abort();
	memcpy(warm, state, size);
	sink = bench_loop(op, warm, trace, calls < 16 ? calls : 16);

	CALLGRIND_ZERO_STATS;
	sum = bench_loop(op, state, trace, calls);
	CALLGRIND_DUMP_STATS_AT(name);
	sink = sum;

	printf("op %s %s\n", name, what);
	return sum;
}

/* a probability (Q62) of the state, for the table */
static void note_prob(const char *name, const char *key, u64 prob_q62)
{
	printf("note %s %s %.4f\n", name, key, (double)prob_q62 / (double)BIT_ULL(62));
}

/* a control step: the probability it starts from and where it leaves it */
static void bench_step(const char *name, const char *what, bench_op op,
		       void *state, size_t size, const u64 *prob)
{
	note_prob(name, "p", *prob);
	bench(name, what, op, state, size);
	note_prob(name, "p_end", *prob);
}

/* the share of the trace's packets an enqueue dropped or marked */
static void note_drops(const char *name, u64 drops)
{
	printf("note %s dropped %.2f%%\n", name, 100.0 * (double)drops / calls);
}

/* --- PI ------------------------------------------------------------------ */

struct pi_bench {
	struct pi_params params;
	struct pi_vars vars;
};

/* sch_pi.c enqueue: the early decision (the limit check is the glue's) */
static BENCH_OPAQUE u32 op_pi_enqueue(void *state, const struct bench_in *in)
{
	struct pi_bench *b = state;

	return pi_should_drop(&b->params, &b->vars, in->rnd);
}

/* sch_pi.c timer: one step of the control law */
static BENCH_OPAQUE u32 op_pi_update(void *state, const struct bench_in *in)
{
	struct pi_bench *b = state;

	return pi_update(&b->params, &b->vars, in->qlen);
}

static void bench_pi(const char *config, bool study)
{
	struct pi_bench b;
	char name[64];
	u32 t, i;

	pi_params_init(&b.params, 1514);
	if (study) {
		/* limit 2500 target 1000 a 1.822e-7 b 1.816e-7, as tc rounds them */
		b.params.limit_pkts = 2500;
		b.params.target_pkts = 1000;
		b.params.a_frac = 3360996770230ULL;
		b.params.b_frac = 3349928723786ULL;
	}
	pi_vars_init(&b.vars);
	t = b.params.target_pkts;

	/* a queue held above target winds p up */
	trace_fill(0x9e3779b97f4a7c15ULL, t, t + t / 2, 0, 0);
	for (i = 0; b.vars.prob < WARM_PROB && i < WARM_MAX_STEPS; i++)
		pi_update(&b.params, &b.vars, trace[i % calls].qlen);

	trace_fill(0x5851f42d4c957f2dULL, t / 2, t + t / 2, 0, 0);
	snprintf(name, sizeof(name), "pi/%s/enqueue", config);
	note_prob(name, "p", b.vars.prob);
	note_drops(name, bench(name, "pi_should_drop", op_pi_enqueue, &b, sizeof(b)));
	b.params.even_spacing = true;
	snprintf(name, sizeof(name), "pi/%s/enqueue-even", config);
	note_drops(name, bench(name, "pi_should_drop (spacing even)", op_pi_enqueue, &b,
			       sizeof(b)));
	b.params.even_spacing = false;
	snprintf(name, sizeof(name), "pi/%s/update", config);
	bench_step(name, "pi_update", op_pi_update, &b, sizeof(b), &b.vars.prob);
}

/* sch_pi.c dequeue with autotune and no bandwidth: the capacity estimator */
static BENCH_OPAQUE u32 op_pi_dequeue(void *state, const struct bench_in *in)
{
	struct pi_bench *b = state;

	pi_dequeued(&b->params, &b->vars, 1, in->qlen, in->now_ns);
	return 0;
}

/* sch_pi.c change, or an estimate that moved: the design rules, once */
static BENCH_OPAQUE u32 op_pi_derive(void *state, const struct bench_in *in)
{
	struct pi_bench *b = state;

	(void)in;	/* the rules read the configuration only */
	pi_retune(&b->params, &b->vars, true);
	return (u32)b->vars.a_frac;
}

/* autotune for the study: 4 HighSpeed TCP flows, 60 ms, 1 Gbit/s */
static void bench_pi_autotune(void)
{
	struct pi_bench b;

	pi_params_init(&b.params, LINK_PKT_BYTES);
	b.params.limit_pkts = 2500;
	b.params.target_pkts = 1000;
	b.params.autotune = true;
	b.params.flows = 4;
	b.params.rtt_us = 60000;
	b.params.response = PI_RESPONSE_HIGHSPEED;
	pi_vars_init(&b.vars);

	trace_fill(0x2545f4914f6cdd1dULL, 500, 1500, 0, 0);
	bench("pi/autotune/dequeue", "pi_dequeued", op_pi_dequeue, &b, sizeof(b));
	b.params.bandwidth_bps = LINK_BYTES_PS;
	bench("pi/autotune/derive", "pi_retune (pi_design_rules, pi_discretise)",
	      op_pi_derive, &b, sizeof(b));
}

/* --- REM ----------------------------------------------------------------- */

struct rem_bench {
	struct rem_params params;
	struct rem_vars vars;
};

/* sch_rem.c enqueue: count the arrival, then the early decision */
static BENCH_OPAQUE u32 op_rem_enqueue(void *state, const struct bench_in *in)
{
	struct rem_bench *b = state;

	rem_arrival(&b->vars);
	return rem_should_drop(&b->vars, in->rnd);
}

/* sch_rem.c dequeue: the capacity estimator */
static BENCH_OPAQUE u32 op_rem_dequeue(void *state, const struct bench_in *in)
{
	struct rem_bench *b = state;

	rem_dequeued(&b->params, &b->vars, 1, in->qlen, in->now_ns);
	return 0;
}

/*
 * sch_rem.c timer; the arrivals stand for the interval's enqueues, and the
 * periods come from the trace, as from hrtimer_forward_now(), so that the
 * compiler cannot fold the late-timer paths away
 */
static BENCH_OPAQUE u32 op_rem_update(void *state, const struct bench_in *in)
{
	struct rem_bench *b = state;

	b->vars.arrivals_pkts = in->aux;
	return rem_update(&b->params, &b->vars, in->qlen, in->periods);
}

static void bench_rem(const char *config, bool study)
{
	struct rem_bench b;
	char name[64];
	u32 t, c, i;

	/* psched_mtu() of an Ethernet device: 1500 + 14 */
	rem_params_init(&b.params, LINK_PKT_BYTES);
	if (study) {
		/* limit 2500 target 1000 bandwidth 1gbit */
		b.params.limit_pkts = 2500;
		b.params.target_pkts = 1000;
		b.params.bandwidth_bps = LINK_BYTES_PS;
		rem_params_derive(&b.params);
	}
	rem_vars_init(&b.vars);
	t = b.params.target_pkts;

	/* a backlogged 1 Gbit/s link: the default's c comes from the estimate */
	trace_fill(0x2545f4914f6cdd1dULL, t / 2, t + t / 2, 0, 0);
	if (!study) {
		for (i = 0; i < calls; i++)
			rem_dequeued(&b.params, &b.vars, 1, trace[i].qlen, trace[i].now_ns);
	}

	/*
	 * A queue held above target, arrivals +-20 % around c (some 165 at
	 * 1 Gbit/s, as the update sees it) and one packet more on average:
	 * the price rises.
	 */
	c = rem_capacity(&b.params, &b.vars, b.vars.in).hi;
	trace_fill(0x9e3779b97f4a7c15ULL, t, t + t / 2, c - c / 5, c + c / 5 + 2);
	for (i = 0; b.vars.prob < WARM_PROB && i < WARM_MAX_STEPS; i++) {
		b.vars.arrivals_pkts = trace[i % calls].aux;
		rem_update(&b.params, &b.vars, trace[i % calls].qlen, 1);
	}

	trace_fill(0x5851f42d4c957f2dULL, t / 2, t + t / 2, 0, 0);
	snprintf(name, sizeof(name), "rem/%s/enqueue", config);
	note_prob(name, "p", b.vars.prob);
	note_drops(name, bench(name, "rem_arrival + rem_should_drop",
			       op_rem_enqueue, &b, sizeof(b)));
	snprintf(name, sizeof(name), "rem/%s/dequeue", config);
	bench(name, "rem_dequeued", op_rem_dequeue, &b, sizeof(b));

	/* the queue around target now, arrivals as above (the estimate moved) */
	c = rem_capacity(&b.params, &b.vars, b.vars.in).hi;
	trace_fill(0x6a09e667f3bcc909ULL, t / 2, t + t / 2, c - c / 5, c + c / 5 + 2);
	snprintf(name, sizeof(name), "rem/%s/update", config);
	bench_step(name, study ? "rem_update (c fixed)" : "rem_update (c estimated)",
		   op_rem_update, &b, sizeof(b), &b.vars.prob);
}

/* --- BLUE ---------------------------------------------------------------- */

struct blue_bench {
	struct blue_params params;
	struct blue_vars vars;
};

/*
 * sch_blue.c enqueue: the arrival's event (blue_note_event() less the stats
 * and the clock, whose reading the trace stands for), then the decision
 */
static BENCH_OPAQUE u32 op_blue_enqueue(void *state, const struct bench_in *in)
{
	struct blue_bench *b = state;
	enum blue_event event = blue_arrival_event(&b->params, &b->vars, in->qlen);

	if (blue_event_may_move(&b->vars, event))
		blue_apply_event(&b->params, &b->vars, event, in->now_ns);
	return blue_should_drop(&b->vars, in->rnd);
}

/* blue_note_event() for an event past the freeze: pm moves */
static BENCH_OPAQUE u32 op_blue_event(void *state, const struct bench_in *in)
{
	struct blue_bench *b = state;
	enum blue_event event = in->aux;

	if (!blue_event_may_move(&b->vars, event))
		return 0;
	return blue_apply_event(&b->params, &b->vars, event, in->now_ns);
}

static void bench_blue(const char *config, bool study)
{
	struct blue_bench b;
	const char *what;
	u64 freeze_ns;
	char name[64];
	u32 lim, i;

	blue_params_init(&b.params);
	if (study)
		b.params.limit_pkts = 2500;	/* limit 2500 */
	blue_vars_init(&b.vars);
	lim = b.params.limit_pkts;
	freeze_ns = (u64)b.params.freeze_us * AQM_NSEC_PER_USEC;

	/* losses a freeze time apart raise pm */
	for (i = 0; b.vars.prob < WARM_PROB && i < WARM_MAX_STEPS; i++) {
		clock_ns += freeze_ns;
		blue_apply_event(&b.params, &b.vars, BLUE_EVENT_CONGESTION, clock_ns);
	}

	/*
	 * The queue anywhere in [0, limit], full for 1 arrival in 50 (a loss),
	 * empty for 1 in limit (idle); most events fall in the freeze.
	 */
	trace_fill(0x5851f42d4c957f2dULL, 0, lim + lim / 49, 0, 0);
	for (i = 0; i < calls; i++) {
		if (trace[i].qlen > lim)
			trace[i].qlen = lim;
	}
	snprintf(name, sizeof(name), "blue/%s/enqueue", config);
	note_prob(name, "p", b.vars.prob);
	what = "blue_arrival_event + blue_event_may_move + blue_apply_event + blue_should_drop";
	note_drops(name, bench(name, what, op_blue_enqueue, &b, sizeof(b)));

	/*
	 * Events a freeze time apart, one loss to ten idles: d1 = 10 d2, so pm
	 * returns to where it was every eleven events and never sticks at 0.
	 */
	for (i = 0; i < calls; i++) {
		clock_ns += freeze_ns;
		trace[i].now_ns = clock_ns;
		trace[i].aux = i % 11 ? BLUE_EVENT_IDLE : BLUE_EVENT_CONGESTION;
	}
	snprintf(name, sizeof(name), "blue/%s/event", config);
	bench_step(name, "blue_event_may_move + blue_apply_event (pm moves)",
		   op_blue_event, &b, sizeof(b), &b.vars.prob);
}

/* --- ARED ---------------------------------------------------------------- */

struct ared_bench {
	struct ared_params params;
	struct ared_vars vars;
};

/* sch_ared.c enqueue: ared_enqueue_verdict(), ared_draw_verdict() if asked */
static BENCH_OPAQUE u32 op_ared_enqueue(void *state, const struct bench_in *in)
{
	struct ared_bench *b = state;
	enum ared_verdict verdict;

	verdict = ared_enqueue_verdict(&b->params, &b->vars, in->qlen, in->aux,
				       in->now_ns);
	if (verdict == ARED_DRAW)
		verdict = ared_draw_verdict(&b->params, &b->vars, in->rnd);
	/* the glue's switch: anything but ARED_ENQUEUE drops or marks */
	return verdict != ARED_ENQUEUE;
}

/*
 * The first arrival after the queue ran empty, as ared_dequeued() leaves
 * the state: the average first decays for the idle time. The enqueue is
 * op_ared_enqueue() itself, called, so that the compiler does not inline
 * ared_enqueue_verdict() differently in two places; the call adds a few
 * instructions.
 */
static BENCH_OPAQUE u32 op_ared_enqueue_idle(void *state, const struct bench_in *in)
{
	struct ared_bench *b = state;

	b->vars.idle = true;
	b->vars.idle_start_ns = in->now_ns - in->idle_ns;
	return op_ared_enqueue(state, in);
}

/* sch_ared.c dequeue: idle tracking and the rate estimator */
static BENCH_OPAQUE u32 op_ared_dequeue(void *state, const struct bench_in *in)
{
	struct ared_bench *b = state;

	ared_dequeued(&b->vars, in->now_ns, in->aux, in->qlen);
	return 0;
}

/* sch_ared.c timer with adaptive on; the trace sets the average it sees */
static BENCH_OPAQUE u32 op_ared_adapt(void *state, const struct bench_in *in)
{
	struct ared_bench *b = state;

	b->vars.avg_pkts = in->qlen;
	return ared_adapt(&b->params, &b->vars);
}

/*
 * sch_ared.c timer without bandwidth: close an estimation period of 500 ms
 * (the trace sets its bytes) and, if the estimate moved, ared_rederive()
 */
static BENCH_OPAQUE u32 op_ared_estimate(void *state, const struct bench_in *in)
{
	struct ared_bench *b = state;

	b->vars.est_busy_ns = (u64)b->params.interval_us * AQM_NSEC_PER_USEC;
	b->vars.est_bytes = in->aux;
	if (!ared_estimate_rate(&b->vars))
		return 0;
	ared_derive(&b->params, &b->vars, b->vars.est_rate_bps, LINK_PKT_BYTES);
	return 1;
}

/* ared_derive() alone, at a rate from the trace: what a moved estimate costs */
static BENCH_OPAQUE u32 op_ared_derive(void *state, const struct bench_in *in)
{
	struct ared_bench *b = state;

	ared_derive(&b->params, &b->vars, in->aux, LINK_PKT_BYTES);
	return b->vars.min_pkts;
}

static void bench_ared(const char *config, bool study)
{
	u32 lo, hi, avpkt, half_bytes, i;
	struct ared_bench b;
	const char *what;
	u64 rate;
	char name[64];

	ared_params_init(&b.params);
	rate = ARED_FALLBACK_RATE_BPS;
	avpkt = LINK_PKT_BYTES;		/* psched_mtu() of an Ethernet device */
	if (study) {
		/* limit 2500 min 625 max 1875 avpkt 500 bandwidth 1gbit */
		b.params.limit_pkts = 2500;
		b.params.min_pkts = 625;
		b.params.max_pkts = 1875;
		b.params.avpkt_bytes = 500;
		b.params.bandwidth_bps = LINK_BYTES_PS;
		rate = LINK_BYTES_PS;
		avpkt = 500;
	}
	memset(&b.vars, 0, sizeof(b.vars));
	ared_vars_reset(&b.params, &b.vars, clock_ns);
	ared_derive(&b.params, &b.vars, rate, avpkt);
	lo = b.vars.min_pkts;
	hi = b.vars.max_pkts;

	/*
	 * The average mid-way between min and max, as after a long busy period:
	 * from 0 it takes some 1/w packets (250,000 in the study) to get there.
	 */
	b.vars.avg_pkts = (lo + hi) / 2;
	b.vars.idle = false;

	/* queue in [min, max], full-size frames but for 1 in 10 (ACKs) */
	trace_fill(0x5851f42d4c957f2dULL, lo, hi, 0, 9);
	for (i = 0; i < calls; i++)
		trace[i].aux = trace[i].aux ? LINK_PKT_BYTES : 66;
	snprintf(name, sizeof(name), "ared/%s/enqueue", config);
	what = "ared_enqueue_verdict (ared_update_avg, ared_prob, ared_prob_spaced), ared_draw_verdict";
	note_drops(name, bench(name, what, op_ared_enqueue, &b, sizeof(b)));
	note_prob(name, "p_b_end", b.vars.prob);
	snprintf(name, sizeof(name), "ared/%s/dequeue", config);
	bench(name, "ared_dequeued", op_ared_dequeue, &b, sizeof(b));

	/* the average across the whole band around the target, [min, max] */
	snprintf(name, sizeof(name), "ared/%s/adapt", config);
	note_prob(name, "max_p", b.vars.cur_maxp);
	bench(name, "ared_adapt", op_ared_adapt, &b, sizeof(b));
	note_prob(name, "max_p_end", b.vars.cur_maxp);

	/*
	 * Arrivals at an empty queue after 10 us to 10 ms of idle time, from
	 * an average mid-way (they decay it towards 0)
	 */
	trace_fill(0x6a09e667f3bcc909ULL, 0, 0, LINK_PKT_BYTES, LINK_PKT_BYTES);
	for (i = 0; i < calls; i++)
		trace[i].idle_ns = rng_range(10000, 10000000);
	b.vars.avg_pkts = (lo + hi) / 2;
	b.vars.avg_frac = 0;
	snprintf(name, sizeof(name), "ared/%s/enqueue-idle", config);
	bench(name, "ared_enqueue_verdict after idle (ared_decay_factor)",
	      op_ared_enqueue_idle, &b, sizeof(b));
	printf("note %s avg_end %.2f\n", name, (double)ared_avg_q32(&b.vars) / 4294967296.0);

	if (study)
		return;		/* bandwidth given: no estimate, no rederive */

	/*
	 * 500 ms of a 100 Mbit/s link, +-4 %: a sample moves the estimate by
	 * more than 1/32 now and then, and each move rederives.
	 */
	half_bytes = ARED_FALLBACK_RATE_BPS / 2;
	trace_fill(0x2545f4914f6cdd1dULL, 0, 0, half_bytes - half_bytes / 25,
		   half_bytes + half_bytes / 25);
	b.vars.est_rate_bps = ARED_FALLBACK_RATE_BPS;
	snprintf(name, sizeof(name), "ared/%s/estimate", config);
	printf("note %s rederived %.2f%%\n", name,
	       100.0 * (double)bench(name, "ared_estimate_rate [+ ared_derive]",
				     op_ared_estimate, &b, sizeof(b)) / calls);

	/* rates from 10 Mbit/s to 10 Gbit/s */
	trace_fill(0x9e3779b97f4a7c15ULL, 0, 0, 1250000, 1250000000);
	snprintf(name, sizeof(name), "ared/%s/derive", config);
	bench(name, "ared_derive (ared_auto_weight)", op_ared_derive, &b, sizeof(b));
}

int main(int argc, char **argv)
{
	if (argc > 1)
		calls = strtoul(argv[1], NULL, 10);
	if (!calls) {
		fprintf(stderr, "usage: core_bench [calls]\n");
		return 2;
	}
	trace = calloc(calls, sizeof(*trace));
	if (!trace) {
		perror("core_bench");
		return 1;
	}
	printf("calls %u\n", calls);

	/* the empty wrapper over the same loop and trace shape */
	trace_fill(1, 0, 0, 0, 0);
	bench("baseline", "an empty wrapper", op_baseline, trace, 0);

	bench_pi("default", false);
	bench_pi("study", true);
	bench_pi_autotune();
	bench_rem("default", false);
	bench_rem("study", true);
	bench_blue("default", false);
	bench_blue("study", true);
	bench_ared("default", false);
	bench_ared("study", true);

	free(trace);
	return 0;
}
