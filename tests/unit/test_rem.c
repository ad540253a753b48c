// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the REM core (kmod/core/rem.h) against double and long
 * double references of the same update rule and of 1 - phi^(-price).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aqm_test.h"
#include "rem.h"

#define PKT_BYTES	1500

static uint64_t to_frac(double g)
{
	return (uint64_t)nearbyint(ldexp(g, 64));
}

static double prob_of(uint64_t prob)
{
	return ldexp((double)prob, -REM_PROB_SHIFT);
}

static double price_of(struct aqm_s128 price)
{
	return (double)price.hi + ldexp((double)price.lo, -64);
}

static struct aqm_s128 price_from(long double price)
{
	struct aqm_s128 r;
	long double ip = floorl(price);

	r.hi = (uint64_t)ip;
	r.lo = (uint64_t)ldexpl(price - ip, 64);
	return r;
}

static void setup(struct rem_params *params, double gamma, double phi,
		  double alpha, double inw, unsigned int target,
		  unsigned int interval_us, uint64_t bandwidth_bps)
{
	rem_params_init(params, PKT_BYTES);
	params->gamma_frac = to_frac(gamma);
	params->phi_frac = to_frac(phi - 1);
	params->alpha_frac = to_frac(alpha);
	params->inw_q62 = (uint64_t)nearbyint(ldexp(inw, REM_WEIGHT_SHIFT));
	params->target_pkts = target;
	params->limit_pkts = 100000;
	params->interval_us = interval_us;
	params->bandwidth_bps = bandwidth_bps;
	rem_params_derive(params);
}

static void test_defaults(void)
{
	struct rem_params params;

	rem_params_init(&params, PKT_BYTES);
	check(fabs(ldexp((double)params.gamma_frac, -64) - 0.001) < 1e-18 &&
	      fabs(ldexp((double)params.phi_frac, -64) - 0.001) < 1e-18 &&
	      fabs(ldexp((double)params.alpha_frac, -64) - 0.1) < 1e-18,
	      "defaults: gamma 0.001, phi 1.001, alpha 0.1 (ns-2)");
	check(params.inw_q62 == REM_WEIGHT_ONE && params.interval_us == 2000 &&
	      params.target_pkts == 20 && params.limit_pkts == 1000 &&
	      params.bandwidth_bps == 0 && !params.ecn,
	      "defaults: inw 1, interval 2 ms, target 20, limit 1000, estimated capacity, noecn");
	check(rem_update_period_ns(&params) == 2000000, "update period 2 ms = 2000000 ns");
}

static void test_u128_helpers(void)
{
	uint64_t rng = 99;
	int i, bad = 0;

	for (i = 0; i < 1000000; i++) {
		struct aqm_s128 x = { test_rand64(&rng), test_rand64(&rng) }, r;
		uint32_t d = (uint32_t)test_rand64(&rng) >> (test_rand64(&rng) & 31);
		struct test_u128 want;

		if (!d)
			d = 1;
		want = test_div_128_64((struct test_u128){ x.hi, x.lo }, d);
		r = rem_u128_div_u32(x, d);
		bad += r.hi != want.hi || r.lo != want.lo;
	}
	check(bad == 0, "128/32-bit division matches a bitwise reference on 10^6 random cases (%d wrong)",
	      bad);
}

static void test_log2(void)
{
	static const double phis[] = { 1 + 0x1p-24, 1.0000001, 1.0001, 1.001, 1.01,
				       1.1, 1.5, 1.9999999 };
	double worst = 0;
	unsigned int i;

	for (i = 0; i < sizeof(phis) / sizeof(phis[0]); i++) {
		uint64_t d = to_frac(phis[i] - 1);
		long double exact = log2l(1.0L + ldexpl((long double)d, -64));
		long double got = ldexpl((long double)rem_log2_frac(d), -64);

		worst = fmax(worst, (double)fabsl(got - exact));
	}
	check(worst < 0x1p-54, "log2(phi) within 2^-54 for phi in [1 + 2^-24, 2) (worst %.3g)",
	      worst);
}

/*
 * p against 1 - phi^(-price) in long double, for the very price the core
 * holds, over prices from 0 to where p rounds to 1.
 */
static void test_prob_accuracy(void)
{
	static const double phis[] = { 1 + 0x1p-24, 1.00001, 1.001, 1.01, 1.2, 1.99 };
	uint64_t rng = 5;
	double worst = 0, worst_rel_q = 0;
	long n = 0;
	unsigned int i;

	for (i = 0; i < sizeof(phis) / sizeof(phis[0]); i++) {
		struct rem_params params;
		long double lphi, top;
		int j;

		setup(&params, 0.001, phis[i], 0.1, 1, 20, 2000, 0);
		lphi = log1pl(ldexpl((long double)params.phi_frac, -64));
		top = 70 / (lphi / logl(2));	/* E = 70: p = 1 in Q62 */
		if (top >= REM_PRICE_MAX_INT)
			top = REM_PRICE_MAX_INT;
		for (j = 0; j < 200000; j++) {
			long double price, exact, q_exact;
			struct aqm_s128 pq;
			double got, q_got;

			/* half log-spaced from 1e-9 of the range, half uniform */
			if (j & 1)
				price = top * powl(1e-9L, test_uniform(&rng));
			else
				price = top * test_uniform(&rng);
			if (j == 0)
				price = 0;
			pq = price_from(price);
			price = (long double)pq.hi + ldexpl((long double)pq.lo, -64);
			q_exact = expl(-price * lphi);
			exact = 1 - q_exact;
			got = prob_of(rem_prob_of_price(&params, pq));
			q_got = 1 - got;
			worst = fmax(worst, (double)fabsl(got - exact));
			if (q_exact > 1e-6)
				worst_rel_q = fmax(worst_rel_q,
						   (double)fabsl((q_got - q_exact) / q_exact));
			n++;
		}
	}
	check(worst <= 1e-4, "p within 1e-4 of 1 - phi^-price on %ld prices, 6 phis (worst %.3g)",
	      n, worst);
	check(worst <= 1e-11, "p within 1e-11 absolute (worst %.3g)", worst);
	check(worst_rel_q <= 1e-9, "phi^-price within 1e-9 relative while above 1e-6 (worst %.3g)",
	      worst_rel_q);
}

static void test_prob_points(void)
{
	struct rem_params params;
	struct aqm_s128 zero = { 0, 0 }, big = { REM_PRICE_MAX_INT, 0 };

	rem_params_init(&params, PKT_BYTES);
	check(rem_prob_of_price(&params, zero) == 0, "price 0 gives p = 0");
	check(rem_prob_of_price(&params, big) == REM_PROB_ONE, "the largest price gives p = 1");
	check(fabs(prob_of(rem_prob_of_price(&params, price_from(693.4936))) - 0.5) < 1e-6,
	      "phi 1.001: price 693.49 gives p = 0.5");
}

/* the update rule in doubles, with the parameters as a user writes them */
struct ref_rem {
	double gamma, alpha, inw, target, c;
	double price, x, phi;
};

static void ref_update(struct ref_rem *r, double q, double arrivals)
{
	r->x = (1 - r->inw) * r->x + r->inw * arrivals;
	r->price += r->gamma * (r->alpha * (q - r->target) + r->x - r->c);
	if (r->price < 0)
		r->price = 0;
}

/*
 * Open-loop traces: a queue that swings around the target and an arrival
 * count around c that runs above and below it for long stretches, so the
 * price climbs, falls back to 0 and climbs again.
 */
static void test_trace(const char *name, double gamma, double phi, double alpha,
		       double inw, unsigned int target, uint64_t bandwidth_bps,
		       long steps)
{
	struct rem_params params;
	struct rem_vars vars;
	struct ref_rem ref;
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	double walk = 0, worst_rel = 0, worst_abs = 0, worst_p = 0, top = 0;
	long i, zero_steps = 0;

	setup(&params, gamma, phi, alpha, inw, target, 2000, bandwidth_bps);
	rem_vars_init(&vars);
	ref = (struct ref_rem){ .gamma = gamma, .alpha = alpha, .inw = inw,
				.target = target, .phi = phi,
				.c = bandwidth_bps * 2000e-6 / PKT_BYTES };

	for (i = 0; i < steps; i++) {
		double q, a, got, p_ref;

		walk += (test_uniform(&rng) - 0.5) * 4;
		walk = fmin(fmax(walk, -30), 30);
		q = fmax(0, target + walk + 0.5 * target * sin(i / 7000.0));
		q = floor(q);
		/* 4% over c for half a period, 6% under for the other half */
		a = ref.c * (sin(i / 50000.0) > 0 ? 1.04 : 0.94) +
		    (test_uniform(&rng) - 0.5) * 0.2 * ref.c;
		a = floor(fmax(a, 0) + test_uniform(&rng));

		vars.arrivals_pkts = (uint32_t)a;
		rem_update(&params, &vars, (uint32_t)q, 1);
		ref_update(&ref, q, a);

		got = price_of(vars.price);
		top = fmax(top, ref.price);
		if (ref.price >= 1)
			worst_rel = fmax(worst_rel, fabs(got - ref.price) / ref.price);
		else
			worst_abs = fmax(worst_abs, fabs(got - ref.price));
		zero_steps += ref.price == 0;
		p_ref = 1 - pow(ref.phi, -ref.price);
		worst_p = fmax(worst_p, fabs(prob_of(vars.prob) - p_ref));
	}
	check(worst_rel <= 1e-6 && worst_abs <= 1e-6,
	      "%s: %ld updates, price within 1e-6 relative (worst %.3g; %.3g absolute below 1)",
	      name, steps, worst_rel, worst_abs);
	check(worst_p <= 1e-6, "%s: p within 1e-6 of 1 - phi^-price_ref (worst %.3g)",
	      name, worst_p);
	check(top > 50 && zero_steps > 1000,
	      "%s: the trace exercises the law (price up to %.1f, %ld steps at 0)",
	      name, top, zero_steps);
}

static void test_fixed_capacity(void)
{
	struct rem_params params;
	double c, want = 125e6 * 2000e-6 / 1500;

	setup(&params, 0.001, 1.001, 0.1, 1, 20, 2000, 125000000);
	c = price_of(params.cap_fixed);
	check(fabs(want - c) < 1e-12,
	      "1 Gbit/s, 2 ms, 1500 B: c = %.9f packets per interval (exact %.9f)", c, want);
	setup(&params, 0.001, 1.001, 0.1, 1, 20, 1000000, UINT64_MAX);
	check(params.cap_fixed.hi == REM_CAP_MAX_PKTS && params.cap_fixed.lo == 0,
	      "an absurd bandwidth saturates c");
}

/* dequeues every period_ns while backlogged, with idle gaps of idle_ns */
static double estimate_rate(double pps, uint64_t idle_ns, int burst, long pkts)
{
	struct rem_params params;
	struct rem_vars vars;
	uint64_t now = 1000000000ULL, period = (uint64_t)(1e9 / pps);
	long i;

	rem_params_init(&params, PKT_BYTES);
	rem_vars_init(&vars);
	for (i = 0; i < pkts; i++) {
		int last_of_busy = idle_ns && i % 50 == 49;

		/* a burst: @burst packets leave at once, then a gap of @burst periods */
		if (i % burst == 0)
			now += period * burst;
		rem_dequeued(&params, &vars, 1, last_of_busy ? 0 : 10, now);
		if (last_of_busy) {
			now += idle_ns;		/* empty, then a packet arrives */
			rem_dequeued(&params, &vars, 1, 10, now);	/* not service */
			i++;
		}
	}
	return ldexp((double)vars.dq.rate_q16, -AQM_DQ_RATE_SHIFT);
}

static void test_estimator(void)
{
	double r;

	r = estimate_rate(83333.3, 0, 1, 200000);
	check(fabs(r / 83333.3 - 1) < 1e-3, "backlogged at 1 Gbit/s of 1500 B: estimate %.1f pps", r);
	r = estimate_rate(250, 0, 1, 5000);
	check(fabs(r / 250 - 1) < 1e-3, "backlogged at 3 Mbit/s: estimate %.2f pps", r);
	r = estimate_rate(250, 50000000, 1, 5000);
	check(fabs(r / 250 - 1) < 1e-2, "idle gaps do not dilute the estimate: %.2f pps", r);
	r = estimate_rate(1000, 0, 4, 20000);
	check(fabs(r / 1000 - 1) < 2e-2, "a parent's bursts of 4 average out: %.2f pps", r);
}

static void test_capacity_modes(void)
{
	struct rem_params params;
	struct rem_vars vars;

	setup(&params, 0.001, 1.001, 0.1, 1, 20, 2000, 0);
	rem_vars_init(&vars);
	vars.arrivals_pkts = 1000;
	rem_update(&params, &vars, 20, 1);
	check(vars.price.hi == 0 && vars.price.lo == 0 && vars.cap_q32 == vars.in_q32,
	      "no estimate yet: c = x, a queue at target leaves the price at 0");
	vars.arrivals_pkts = 1000;
	rem_update(&params, &vars, 30, 1);
	check(fabs(price_of(vars.price) - 0.001) < 1e-12,
	      "no estimate yet: the queue term alone moves the price (%.6g)", price_of(vars.price));

	vars.dq.rate_q16 = 500ULL << AQM_DQ_RATE_SHIFT;	/* 500 pps = 1 per 2 ms */
	vars.arrivals_pkts = 3;
	rem_update(&params, &vars, 20, 1);
	check(fabs(ldexp((double)vars.cap_q32, -32) - 1) < 1e-9 &&
	      fabs(price_of(vars.price) - 0.003) < 1e-12,
	      "estimated mode: c from the dequeue rate (c %.6f, price %.6g)",
	      ldexp((double)vars.cap_q32, -32), price_of(vars.price));
}

/* a timer late by n intervals: the same as n on-time updates with the same q */
static void test_late_timer(void)
{
	struct rem_params params;
	struct rem_vars a, b;
	unsigned int n, bad = 0;

	for (n = 2; n <= 64; n++) {
		setup(&params, 0.003, 1.001, 0.1, 1, 20, 2000, 1250000);
		rem_vars_init(&a);
		rem_vars_init(&b);
		a.price = b.price = price_from(3.25);
		a.arrivals_pkts = 7 * n;
		rem_update(&params, &a, 45, n);
		for (unsigned int i = 0; i < n; i++) {
			b.arrivals_pkts = 7;
			rem_update(&params, &b, 45, 1);
		}
		bad += fabs(price_of(a.price) - price_of(b.price)) > 1e-12 ||
		       a.in.hi != b.in.hi || llabs((long long)(a.in.lo - b.in.lo)) > 64;
		/* and down to the clamp at 0 */
		a.arrivals_pkts = 0;
		a.price = price_from(0.01);
		rem_update(&params, &a, 0, n * 1000);
		bad += a.price.hi || a.price.lo;
	}
	check(bad == 0, "a timer late by n intervals equals n on-time updates (n = 2..64)");
	setup(&params, 0.003, 1.001, 0.1, 1, 20, 2000, 1250000);
	rem_vars_init(&a);
	rem_vars_init(&b);
	a.arrivals_pkts = b.arrivals_pkts = 1000;
	rem_update(&params, &a, 1000, 64);
	rem_update(&params, &b, 1000, 100000);
	check(a.price.hi == b.price.hi && a.price.lo == b.price.lo,
	      "a timer late by more than 64 intervals counts as 64");
}

static void test_idle(void)
{
	struct rem_params params;
	struct rem_vars vars;
	int steps = 0;

	setup(&params, 0.001, 1.001, 0.1, 0.5, 20, 2000, 12500000);
	rem_vars_init(&vars);
	vars.price = price_from(50);
	vars.in = aqm_s128_from_u64(0);
	vars.in.hi = 7;
	while (rem_update(&params, &vars, 0, 1) && steps < 1000000)
		steps++;
	check(vars.price.hi == 0 && vars.price.lo == 0 && vars.in.hi == 0 && vars.in.lo == 0 &&
	      vars.prob == 0 &&
	      steps > 0 && steps < 1000000,
	      "an idle queue drains price and x to 0, then reports idle (%d steps)", steps);
	check(!rem_update(&params, &vars, 0, 1), "idle and settled: no work to do");
	vars.arrivals_pkts = 1;
	check(rem_update(&params, &vars, 0, 1), "an arrival wakes the controller");
	check(rem_update(&params, &vars, 1, 1), "a packet in the queue wakes the controller");
}

static void test_extremes(void)
{
	struct rem_params params;
	struct rem_vars vars;
	int i;

	setup(&params, 0.999999, 1.99, 0.999999, 1, 0, 1000000, 0);
	rem_vars_init(&vars);
	for (i = 0; i < 10000; i++) {
		vars.arrivals_pkts = UINT32_MAX;
		vars.dq.rate_q16 = 1;
		rem_update(&params, &vars, UINT32_MAX, 1);
	}
	check(vars.price.hi == REM_PRICE_MAX_INT && vars.prob == REM_PROB_ONE &&
	      vars.price_q32 == REM_PRICE_MAX_INT << 32,
	      "the largest inputs saturate the price at its cap, p = 1, no overflow");
	params.target_pkts = UINT32_MAX;
	vars.dq.rate_q16 = AQM_DQ_RATE_MAX_PPS << AQM_DQ_RATE_SHIFT;
	for (i = 0; i < 10; i++)
		rem_update(&params, &vars, 0, 1);
	check(vars.price.hi == 0 && vars.price.lo == 0 && vars.prob == 0,
	      "the most negative mismatch clamps the price at 0");
	vars.arrivals_pkts = 0;
	for (i = 0; i < 3; i++)
		rem_arrival(&vars);
	vars.arrivals_pkts = UINT32_MAX;
	rem_arrival(&vars);
	check(vars.arrivals_pkts == UINT32_MAX, "the arrival count saturates");
}

static void test_drop_decision(void)
{
	struct rem_vars vars = { .prob = 0 };
	uint64_t rng = 7;
	long drops = 0, i, n = 1000000;

	check(!rem_should_drop(&vars, 0) && !rem_should_drop(&vars, UINT32_MAX),
	      "p = 0 never drops");
	vars.prob = REM_PROB_ONE;
	check(rem_should_drop(&vars, 0) && rem_should_drop(&vars, UINT32_MAX),
	      "p = 1 always drops");
	vars.prob = REM_PROB_ONE / 10 * 3;
	for (i = 0; i < n; i++)
		drops += rem_should_drop(&vars, (uint32_t)test_rand64(&rng));
	check(labs(drops - 300000) < 2300, "p = 0.3 drops %ld of %ld (expect 300000 +- 2300)",
	      drops, n);
}

/*
 * rem_segments_kept() counts and decides a GSO skb's segments as they
 * would be one by one (each counted, then its early decision with the same
 * random numbers) up to the first drop, and no more: the same count kept,
 * the same state after, the same numbers drawn. Random states: p 0 or not,
 * arrival counts near saturation.
 */
static void test_segments_kept(void)
{
	struct rem_vars start, one;
	uint64_t rng = 23;
	struct test_ahead t = { 0 };
	long i;

	rem_vars_init(&start);
	for (i = 0; i < 100000; i++) {
		uint64_t r = test_rand64(&rng);
		uint32_t segs = 2 + r % 63, kept, s;
		long one_draws;

		start.prob = r & (1ULL << 20) ? 0 : test_rand64(&rng) % (REM_PROB_ONE / 50);
		start.arrivals_pkts = r & (1ULL << 21) ? UINT32_MAX - (r >> 24) % 100 :
				      (uint32_t)(r >> 32);
		one = start;
		test_draws_restart(r);
		for (s = 0; s < segs; s++) {
			rem_arrival(&one);
			if (one.prob && rem_should_drop(&one, test_draw()))
				break;
		}
		one_draws = test_draws;
		test_draws_restart(r);
		kept = rem_segments_kept(&start, segs, test_draw);
		test_ahead_tally(&t, segs, s, one_draws, &one, kept, &start, sizeof(start));
	}
	check(t.differ == 0 && t.whole > 10000 && t.cut > 10000,
	      "a GSO skb's arrivals and decisions are its segments' one by one up to the "
	      "first drop (100000 random states: %ld whole, %ld cut, %ld differences)",
	      t.whole, t.cut, t.differ);
}

int main(void)
{
	aqm_test_suite = "rem";
	test_defaults();
	test_u128_helpers();
	test_log2();
	test_prob_points();
	test_prob_accuracy();
	test_trace("ns-2 defaults at 1 Gbit/s (gamma 0.001, phi 1.001, alpha 0.1, inw 1, b 20)",
		   0.001, 1.001, 0.1, 1, 20, 125000000, 1000000);
	test_trace("study target at 1 Gbit/s (b 1000, inw 0.3)",
		   0.001, 1.001, 0.1, 0.3, 1000, 125000000, 1000000);
	test_trace("10 Mbit/s, gamma 0.01, phi 1.01, inw 0.05",
		   0.01, 1.01, 0.1, 0.05, 50, 1250000, 1000000);
	test_fixed_capacity();
	test_estimator();
	test_capacity_modes();
	test_late_timer();
	test_idle();
	test_extremes();
	test_drop_decision();
	test_segments_kept();
	return aqm_test_failures ? 1 : 0;
}
