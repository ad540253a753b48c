// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the BLUE core (kmod/core/blue.h): the event rules, the
 * freeze time, the clamping of pm, and traces against a double-precision
 * reference of the same law.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aqm_test.h"
#include "blue.h"

#define MS	1000000ULL	/* ns */

static uint64_t to_q62(double x)
{
	return (uint64_t)nearbyint(ldexp(x, BLUE_PROB_SHIFT));
}

static double prob_of(const struct blue_vars *vars)
{
	return ldexp((double)vars->prob, -BLUE_PROB_SHIFT);
}

static void setup(struct blue_params *params, struct blue_vars *vars)
{
	blue_params_init(params);
	blue_vars_init(vars);
}

static void test_defaults(void)
{
	struct blue_params params;
	struct blue_vars vars;

	setup(&params, &vars);
	check(fabs(prob_of(&(struct blue_vars){ .prob = params.increment }) - 0.0025) < 1e-18 &&
	      fabs(prob_of(&(struct blue_vars){ .prob = params.decrement }) - 0.00025) < 1e-18,
	      "defaults: increment 0.0025, decrement 0.00025 (paper, ns)");
	check(params.freeze_us == 100000 && params.limit_pkts == 1000 && !params.ecn,
	      "defaults: freeze 100 ms, limit 1000, noecn");
	check(blue_threshold_pkts(&params) == 1000,
	      "default threshold is the limit");
	params.limit_pkts = 40;
	check(blue_threshold_pkts(&params) == 40,
	      "an unset threshold follows a changed limit");
	params.threshold_pkts = 25;
	check(blue_threshold_pkts(&params) == 25, "a set threshold is used");
	check(vars.prob == 0 && !vars.changed, "pm starts at 0, never changed");
}

static void test_arrival_events(void)
{
	struct blue_params params;
	struct blue_vars vars;

	setup(&params, &vars);
	params.limit_pkts = 100;
	check(blue_arrival_event(&params, &vars, 100) == BLUE_EVENT_CONGESTION,
	      "an arrival at a full queue is a loss: congestion");
	check(blue_arrival_event(&params, &vars, 500) == BLUE_EVENT_CONGESTION,
	      "an arrival above the limit (after a lowered limit) is congestion");
	check(blue_arrival_event(&params, &vars, 99) == BLUE_EVENT_NONE,
	      "with threshold = limit, an arrival that fits signals nothing");
	check(blue_arrival_event(&params, &vars, 1) == BLUE_EVENT_NONE,
	      "an arrival at a short queue signals nothing");
	check(blue_arrival_event(&params, &vars, 0) == BLUE_EVENT_IDLE,
	      "an arrival at an empty queue signals idle");

	params.threshold_pkts = 10;
	check(blue_arrival_event(&params, &vars, 9) == BLUE_EVENT_NONE,
	      "threshold 10: an arrival finding 9 queued signals nothing");
	check(blue_arrival_event(&params, &vars, 10) == BLUE_EVENT_CONGESTION,
	      "threshold 10: an arrival finding 10 queued (queue goes above L) is congestion");

	params.threshold_pkts = 1;
	check(blue_arrival_event(&params, &vars, 0) == BLUE_EVENT_IDLE &&
	      blue_arrival_event(&params, &vars, 1) == BLUE_EVENT_CONGESTION,
	      "threshold 1: empty is idle, one queued is congestion");

	/* the dequeue side reports the idle period: the next arrival only ends it */
	params.threshold_pkts = 0;
	check(blue_link_idle(&vars) == BLUE_EVENT_IDLE && vars.idle_signalled,
	      "a dequeue finding the queue empty signals idle");
	check(blue_arrival_event(&params, &vars, 0) == BLUE_EVENT_NONE && !vars.idle_signalled,
	      "the arrival after a dequeue-side idle does not count the same idle period twice");
	check(blue_arrival_event(&params, &vars, 0) == BLUE_EVENT_IDLE,
	      "a later arrival at a still empty queue signals idle again");
	blue_link_idle(&vars);
	check(blue_arrival_event(&params, &vars, 100) == BLUE_EVENT_CONGESTION,
	      "a pending idle mark never hides a loss");
}

static void test_freeze(void)
{
	struct blue_params params;
	struct blue_vars vars;
	uint64_t t0 = 5000 * MS, freeze = 100 * MS;
	uint64_t p1;

	setup(&params, &vars);
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, 0) == 1 &&
	      vars.prob == params.increment,
	      "the first event is never frozen, even at time 0");

	setup(&params, &vars);
	check(blue_apply_event(&params, &vars, BLUE_EVENT_NONE, t0) == 0 && vars.prob == 0 &&
	      !vars.changed, "no event, no change");
	blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0);
	p1 = vars.prob;
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0 + freeze - 1) == 0 &&
	      vars.prob == p1, "a loss 1 ns before freeze_time is ignored");
	check(blue_apply_event(&params, &vars, BLUE_EVENT_IDLE, t0 + freeze / 2) == 0 &&
	      vars.prob == p1, "one freeze covers both directions: idle right after a rise is ignored");
	check(vars.last_change_ns == t0, "ignored events do not restart the freeze");
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0 + freeze) == 1 &&
	      vars.prob == 2 * p1, "a loss exactly freeze_time later raises pm");
	check(blue_apply_event(&params, &vars, BLUE_EVENT_IDLE, t0 + 2 * freeze) == -1 &&
	      vars.prob == 2 * p1 - params.decrement, "idle freeze_time after a rise lowers pm");
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0 + freeze) == 0,
	      "a clock seen going back is treated as frozen");

	/* an event that cannot move pm is no change and starts no freeze */
	setup(&params, &vars);
	check(blue_apply_event(&params, &vars, BLUE_EVENT_IDLE, t0) == 0 && !vars.changed,
	      "idle with pm = 0 changes nothing");
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0 + 1) == 1,
	      "so a loss right after it still raises pm");
	vars.prob = BLUE_PROB_ONE;
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0 + 2 * freeze) == 0 &&
	      vars.last_change_ns == t0 + 1, "a loss with pm = 1 changes nothing, keeps the freeze");

	vars.prob = 0;
	check(!blue_event_may_move(&vars, BLUE_EVENT_IDLE) &&
	      blue_event_may_move(&vars, BLUE_EVENT_CONGESTION) &&
	      !blue_event_may_move(&vars, BLUE_EVENT_NONE),
	      "at pm = 0 only congestion may move pm (the glue skips the clock otherwise)");
	vars.prob = BLUE_PROB_ONE;
	check(blue_event_may_move(&vars, BLUE_EVENT_IDLE) &&
	      !blue_event_may_move(&vars, BLUE_EVENT_CONGESTION),
	      "at pm = 1 only idle may move pm");

	/* longest freeze: 60 s and the u32 maximum, no overflow in ns */
	setup(&params, &vars);
	params.freeze_us = BLUE_FREEZE_MAX_US;
	blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0);
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0 + 59999 * MS) == 0 &&
	      blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0 + 60000 * MS) == 1,
	      "freeze 60 s: frozen at 59.999 s, free at 60 s");
	params.freeze_us = UINT32_MAX;
	check(blue_frozen(&params, &vars, t0 + 60000 * MS + 4294967294ULL * 1000) &&
	      !blue_frozen(&params, &vars, t0 + 60000 * MS + 4294967295ULL * 1000),
	      "freeze 2^32-1 us is computed in 64 bits");
	check(!blue_frozen(&params, &vars, UINT64_MAX), "time near 2^64 ns does not wrap");

	params.freeze_us = 1;
	setup(&params, &vars);
	params.freeze_us = 1;
	blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t0);
	check(blue_frozen(&params, &vars, t0 + 999) && !blue_frozen(&params, &vars, t0 + 1000),
	      "freeze 1 us = 1000 ns");
}

static void test_clamp(void)
{
	struct blue_params params;
	struct blue_vars vars;
	uint64_t t = 0, freeze = 100 * MS;
	int steps = 0;

	setup(&params, &vars);
	while (vars.prob < BLUE_PROB_ONE && steps < 1000) {
		blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t);
		t += freeze;
		steps++;
	}
	check(vars.prob == BLUE_PROB_ONE && steps == 400,
	      "400 rises of 0.0025 reach pm = 1 exactly (took %d)", steps);
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, t + freeze) == 0 &&
	      vars.prob == BLUE_PROB_ONE, "pm stays at 1");

	steps = 0;
	while (vars.prob > 0 && steps < 10000) {
		blue_apply_event(&params, &vars, BLUE_EVENT_IDLE, t);
		t += freeze;
		steps++;
	}
	check(vars.prob == 0 && steps == 4000,
	      "4000 falls of 0.00025 reach pm = 0 exactly (took %d)", steps);

	setup(&params, &vars);
	params.increment = BLUE_PROB_ONE;
	params.decrement = BLUE_PROB_ONE;
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, 0) == 1 &&
	      vars.prob == BLUE_PROB_ONE, "increment 1 takes pm to 1 in one step");
	check(blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, freeze) == 0 &&
	      vars.prob == BLUE_PROB_ONE, "pm = 1 plus increment 1 saturates without overflow");
	check(blue_apply_event(&params, &vars, BLUE_EVENT_IDLE, 2 * freeze) == -1 &&
	      vars.prob == 0, "decrement 1 takes pm to 0 in one step");

	setup(&params, &vars);
	params.increment = 3;		/* below every decimal a user can write */
	params.decrement = 5;
	blue_apply_event(&params, &vars, BLUE_EVENT_CONGESTION, 0);
	check(blue_apply_event(&params, &vars, BLUE_EVENT_IDLE, freeze) == -1 && vars.prob == 0,
	      "a decrement larger than pm clamps at 0");
}

/* the law in doubles, the freeze in integer ns as the kernel clock gives it */
struct ref_blue {
	double d1, d2, p;
	uint64_t freeze_ns, last_ns;
	int changed;
	long rises, falls;
};

static void ref_event(struct ref_blue *r, int congestion, uint64_t now, double snap)
{
	double p;

	if (r->changed && now - r->last_ns < r->freeze_ns)
		return;
	p = congestion ? fmin(r->p + r->d1, 1) : fmax(r->p - r->d2, 0);
	if (p < snap)		/* decimal steps do not cancel exactly in binary */
		p = 0;
	if (p > 1 - snap)
		p = 1;
	if (p == r->p)
		return;
	r->p = p;
	r->last_ns = now;
	r->changed = 1;
	if (congestion)
		r->rises++;
	else
		r->falls++;
}

/*
 * Random events at random gaps below freeze_time, in spells of congestion
 * and of idleness, so pm travels the whole of [0, 1] and sits at both ends.
 */
static void test_trace(const char *name, double d1, double d2, uint32_t freeze_us,
		       double tol, double snap)
{
	struct blue_params params;
	struct blue_vars vars;
	struct ref_blue ref = { .d1 = d1, .d2 = d2, .freeze_ns = freeze_us * 1000ULL };
	uint64_t rng = 0x9e3779b97f4a7c15ULL, now = 1;
	long i, n = 2000000, rises = 0, falls = 0;
	double max_err = 0, p_max = 0;
	int congested = 1, at_one = 0, at_zero = 0;

	setup(&params, &vars);
	params.increment = to_q62(d1);
	params.decrement = to_q62(d2);
	params.freeze_us = freeze_us;

	for (i = 0; i < n; i++) {
		int moved;

		/* idle spells last longer in proportion to d1 / d2 */
		if (test_uniform(&rng) < (congested ? 0.0005 : 0.00025 * d2 / d1))
			congested = !congested;
		now += (uint64_t)(test_uniform(&rng) * 0.3 * ref.freeze_ns);
		moved = blue_apply_event(&params, &vars, congested ?
					 BLUE_EVENT_CONGESTION : BLUE_EVENT_IDLE, now);
		ref_event(&ref, congested, now, snap);
		rises += moved > 0;
		falls += moved < 0;
		max_err = fmax(max_err, fabs(prob_of(&vars) - ref.p));
		p_max = fmax(p_max, ref.p);
		at_one += vars.prob == BLUE_PROB_ONE;
		at_zero += vars.prob == 0 && i > 0;
	}
	check(max_err <= tol && rises == ref.rises && falls == ref.falls,
	      "%s: %ld events, max |pm - pm_ref| = %.3g (bound %.0e), rises %ld/%ld, falls %ld/%ld",
	      name, n, max_err, tol, rises, ref.rises, falls, ref.falls);
	check(at_one > 0 && at_zero > 0 && rises > 100 && falls > 100,
	      "%s: the trace reaches both bounds (%d events at 1, %d at 0)", name, at_one, at_zero);
}

/*
 * A single FIFO served at a fixed rate, fed above that rate, then lightly:
 * the glue's event rules (losses at arrival, empty queue at dequeue) as
 * sch_blue applies them. pm must rise while the buffer overflows, be flat
 * between changes for at least freeze_time, and fall once the load stops.
 */
static void test_overload(void)
{
	struct blue_params params;
	struct blue_vars vars;
	uint64_t rng = 11, now, next_arrival = 0, next_service = 0;
	uint64_t service_ns = MS, last_change = 0, min_gap = UINT64_MAX;
	uint64_t end_load = 5000 * MS, end = 25000 * MS;
	uint32_t qlen = 0;
	double p_end_load = 0, p_mid_load = 0;
	long losses = 0, early = 0, rises = 0, falls = 0;
	uint64_t prev = 0;

	setup(&params, &vars);
	params.limit_pkts = 50;

	for (now = 0; now < end; now += 10000) {	/* 10 us steps */
		int moved = 0;

		if (now >= next_arrival) {
			enum blue_event ev = blue_arrival_event(&params, &vars, qlen);

			moved += blue_apply_event(&params, &vars, ev, now);
			if (qlen >= params.limit_pkts)
				losses++;
			else if (blue_should_drop(&vars, (uint32_t)test_rand64(&rng)))
				early++;
			else
				qlen++;
			/* 2000 pkt/s during the load, 100 pkt/s after */
			next_arrival = now + (now < end_load ? MS / 2 : 10 * MS);
		}
		if (now >= next_service) {
			if (qlen)
				qlen--;
			else
				moved += blue_apply_event(&params, &vars,
							  blue_link_idle(&vars), now);
			next_service = now + service_ns;
		}
		if (moved) {
			if (vars.prob != prev && last_change && now - last_change < min_gap)
				min_gap = now - last_change;
			last_change = now;
			prev = vars.prob;
		}
		rises += moved > 0;
		falls += moved < 0;
		if (now == end_load / 2)
			p_mid_load = prob_of(&vars);
		if (now == end_load)
			p_end_load = prob_of(&vars);
	}
	check(losses > 0 && p_mid_load > 0.01 && p_end_load >= p_mid_load,
	      "overload: the buffer overflows (%ld losses) and pm rises (%.4f at 2.5 s, %.4f at 5 s)",
	      losses, p_mid_load, p_end_load);
	check(early > 0, "overload: pm drops packets early (%ld)", early);
	check(min_gap >= 100 * MS, "pm never changes twice within freeze_time (least gap %.1f ms)",
	      min_gap / 1e6);
	check(prob_of(&vars) < p_end_load && falls > 0,
	      "after the load pm falls: %.4f -> %.4f (%ld falls)", p_end_load, prob_of(&vars),
	      falls);
}

static void test_drop_decision(void)
{
	struct blue_vars vars = { .prob = 0 };
	uint64_t rng = 7;
	long drops = 0, i, n = 1000000;

	check(!blue_should_drop(&vars, 0) && !blue_should_drop(&vars, UINT32_MAX),
	      "pm = 0 never drops");
	vars.prob = BLUE_PROB_ONE;
	check(blue_should_drop(&vars, 0) && blue_should_drop(&vars, UINT32_MAX),
	      "pm = 1 always drops");
	vars.prob = to_q62(0.3);
	for (i = 0; i < n; i++)
		drops += blue_should_drop(&vars, (uint32_t)test_rand64(&rng));
	/* binomial: sd = sqrt(n p (1 - p)) = 458; allow 5 sd */
	check(labs(drops - 300000) < 2300, "pm = 0.3 drops %ld of %ld (expect 300000 +- 2300)",
	      drops, n);
	vars.prob = to_q62(0.0025);
	drops = 0;
	for (i = 0; i < n; i++)
		drops += blue_should_drop(&vars, (uint32_t)test_rand64(&rng));
	/* sd = 50 */
	check(labs(drops - 2500) < 250, "pm = 0.0025 drops %ld of %ld (expect 2500 +- 250)",
	      drops, n);
}

/* an arrival's event applied as sch_blue's blue_note_event() applies it */
static void arrival_event(const struct blue_params *params, struct blue_vars *vars,
			  uint32_t qlen, uint64_t now)
{
	enum blue_event event = blue_arrival_event(params, vars, qlen);

	if (blue_event_may_move(vars, event))
		blue_apply_event(params, vars, event, now);
}

/*
 * sch_blue's blue_take_whole() below the threshold (the first segment's
 * event, then blue_segments_kept()) leaves the state as the segments one
 * by one do (each an event applied, then the tail and early decisions with
 * the same random numbers) up to the first drop, and keeps as many: the
 * same state after, the same numbers drawn. Random states: pm 0 or not,
 * queues near the threshold and the limit, the idle signal set or not, pm
 * frozen or not.
 */
static void test_segments_kept(void)
{
	struct blue_params params;
	struct blue_vars start, one;
	uint64_t rng = 29;
	struct test_ahead t = { 0 };
	long i, refused = 0;

	setup(&params, &start);
	params.limit_pkts = 200;
	for (i = 0; i < 100000; i++) {
		uint64_t r = test_rand64(&rng), now = 1000000000 + (r >> 40);
		uint32_t segs = 2 + r % 63, qlen = r & (1ULL << 25) ? 0 : (r >> 8) % 220;
		uint32_t s, kept;
		long one_draws;

		params.threshold_pkts = r & (1ULL << 20) ? 0 : 1 + (r >> 24) % 200;
		start.prob = r & (1ULL << 21) ? 0 : test_rand64(&rng) % (BLUE_PROB_ONE / 20);
		start.idle_signalled = r & (1ULL << 22);
		start.changed = r & (1ULL << 23);
		start.last_change_ns = now - (r >> 44);
		if ((uint64_t)qlen + segs > blue_threshold_pkts(&params)) {
			refused++;	/* cut with nothing done */
			continue;
		}
		one = start;
		test_draws_restart(r);
		for (s = 0; s < segs; s++) {
			arrival_event(&params, &one, qlen + s, now);
			if (qlen + s >= params.limit_pkts)
				break;	/* not reached below the threshold */
			if (one.prob && blue_should_drop(&one, test_draw()))
				break;
		}
		one_draws = test_draws;
		test_draws_restart(r);
		arrival_event(&params, &start, qlen, now);
		kept = blue_segments_kept(&start, segs, test_draw);
		test_ahead_tally(&t, segs, s, one_draws, &one, kept, &start, sizeof(start));
	}
	check(t.differ == 0 && t.whole > 10000 && t.cut > 10000 && refused > 10000,
	      "a GSO skb's events and decisions are its segments' one by one up to the first "
	      "drop (100000 random states: %ld whole, %ld cut, %ld at the threshold; "
	      "%ld differences)", t.whole, t.cut, refused, t.differ);
}

int main(void)
{
	aqm_test_suite = "blue";
	test_defaults();
	test_arrival_events();
	test_freeze();
	test_clamp();
	test_trace("binary steps (d1 2^-6, d2 2^-9, freeze 10 ms)",
		   0x1p-6, 0x1p-9, 10000, 0, 0);
	test_trace("paper steps (d1 0.0025, d2 0.00025, freeze 100 ms)",
		   0.0025, 0.00025, 100000, 1e-12, 1e-12);
	test_trace("large steps (d1 0.5, d2 0.3, freeze 1 us)",
		   0.5, 0.3, 1, 1e-15, 1e-15);
	test_overload();
	test_drop_decision();
	test_segments_kept();
	return aqm_test_failures ? 1 : 0;
}
