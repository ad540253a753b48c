// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the PI core (kmod/core/pi.h) against a double-precision
 * reference of the same control law.
 */
#include <math.h>
#include <stdlib.h>

#include "aqm_test.h"
#include "pi.h"

#define STUDY_A		1.822e-7
#define STUDY_B		1.816e-7

static uint64_t to_frac(double g)
{
	return (uint64_t)nearbyint(ldexp(g, 64));
}

static double prob_of(const struct pi_vars *vars)
{
	return ldexp((double)vars->prob, -PI_PROB_SHIFT);
}

/* the law in doubles, with the gains exactly as a user writes them */
struct ref_pi {
	double a, b, p;
	double target, qold;
};

static void ref_update(struct ref_pi *r, double q)
{
	r->p += r->a * (q - r->target) - r->b * (r->qold - r->target);
	r->p = fmin(fmax(r->p, 0), 1);
	r->qold = q;
}

/*
 * A queue trace that spends time on both sides of the target and at the
 * limits: an oscillation plus a random walk, clipped to [0, limit].
 */
static unsigned int trace_qlen(uint64_t *rng, double *walk, long step,
			       unsigned int limit)
{
	double q;

	*walk += (test_uniform(rng) - 0.5) * 40;
	*walk = fmin(fmax(*walk, -1500), 1500);
	q = limit / 2.0 + *walk + 900 * sin(step / 3000.0);
	return (unsigned int)fmin(fmax(q, 0), limit);
}

static void test_trace(const char *name, double a, double b,
		       unsigned int target, unsigned int limit, long steps)
{
	struct pi_params params;
	struct pi_vars vars;
	struct ref_pi ref = { .a = a, .b = b, .target = target };
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	double walk = 0, max_err = 0, p_min = 1, p_max = 0;
	long i;

	pi_params_init(&params);
	params.target_pkts = target;
	params.limit_pkts = limit;
	params.a_frac = to_frac(a);
	params.b_frac = to_frac(b);
	pi_vars_init(&vars);

	for (i = 0; i < steps; i++) {
		unsigned int q = trace_qlen(&rng, &walk, i, limit);

		pi_update(&params, &vars, q);
		ref_update(&ref, q);
		max_err = fmax(max_err, fabs(prob_of(&vars) - ref.p));
		p_min = fmin(p_min, ref.p);
		p_max = fmax(p_max, ref.p);
	}
	check(max_err <= 1e-6,
	      "%s: %ld updates, max |p - p_ref| = %.3g (bound 1e-6), p spans [%.3g, %.3g]",
	      name, steps, max_err, p_min, p_max);
	check(p_max - p_min > 0.01, "%s: the trace exercises the controller", name);
}

static void test_defaults(void)
{
	struct pi_params params;

	pi_params_init(&params);
	check(fabs(ldexp((double)params.a_frac, -64) - 1.822e-5) < 1e-18 &&
	      fabs(ldexp((double)params.b_frac, -64) - 1.816e-5) < 1e-18,
	      "defaults: a = 1.822e-5, b = 1.816e-5 (ns-2)");
	check(params.target_pkts == 50 && params.limit_pkts == 1000 &&
	      params.freq_mhz == 170000 && !params.ecn,
	      "defaults: target 50, limit 1000, freq 170 Hz, noecn");
	check(pi_update_period_ns(&params) == 5882352,
	      "update period at 170 Hz is 5882352 ns");
}

static void test_mul_frac(void)
{
	uint64_t rng = 42;
	int i, bad = 0;

	for (i = 0; i < 1000000; i++) {
		uint64_t frac = test_rand64(&rng);
		int64_t n = (int64_t)(test_rand64(&rng) >> (test_rand64(&rng) & 63));
		unsigned int shift = test_rand64(&rng) & 63;
		__int128 want, got;
		struct aqm_s128 r;

		if (i & 1)
			n = -n;
		r = aqm_s128_mul_frac(frac, n, shift);
		want = (__int128)((unsigned __int128)frac * (unsigned __int128)(n < 0 ? -(unsigned __int128)n : (unsigned __int128)n) >> shift);
		if (n < 0)
			want = -want;
		got = (__int128)(((unsigned __int128)r.hi << 64) | r.lo);
		bad += got != want;
	}
	check(bad == 0, "128-bit fraction multiply matches __int128 on 10^6 random cases (%d wrong)", bad);
}

static void test_clamp_and_extremes(void)
{
	struct pi_params params;
	struct pi_vars vars;

	pi_params_init(&params);
	params.a_frac = UINT64_MAX;	/* a just below 1 */
	params.b_frac = 0;
	params.target_pkts = 0;
	pi_vars_init(&vars);
	pi_update(&params, &vars, UINT32_MAX);
	check(vars.prob == PI_PROB_ONE, "a huge error saturates p at 1 without overflow");
	params.target_pkts = UINT32_MAX - 1;
	pi_update(&params, &vars, 0);
	check(vars.prob == 0, "a huge negative error clamps p at 0");

	/* b > a is allowed: with an empty queue p creeps up and the timer stays busy */
	pi_params_init(&params);
	params.a_frac = to_frac(1e-5);
	params.b_frac = to_frac(2e-5);
	pi_vars_init(&vars);
	check(pi_update(&params, &vars, 0) && vars.prob > 0,
	      "with b > a an idle queue still moves p, so the timer keeps running");
}

static void test_idle(void)
{
	struct pi_params params;
	struct pi_vars vars;
	int steps = 0;

	pi_params_init(&params);
	pi_vars_init(&vars);
	vars.prob = PI_PROB_ONE / 100;
	vars.qold_pkts = 0;
	while (pi_update(&params, &vars, 0) && steps < 100000)
		steps++;
	check(vars.prob == 0 && steps > 0 && steps < 100000,
	      "an idle queue drains p to 0, then the update reports idle (%d steps)", steps);
	check(!pi_update(&params, &vars, 0), "idle and settled: no work to do");
	check(pi_update(&params, &vars, 1), "a packet in the queue wakes the controller");
}

static void test_drop_decision(void)
{
	struct pi_vars vars = { .prob = 0 };
	uint64_t rng = 7;
	long drops = 0, i, n = 1000000;

	check(!pi_should_drop(&vars, 0) && !pi_should_drop(&vars, UINT32_MAX),
	      "p = 0 never drops");
	vars.prob = PI_PROB_ONE;
	check(pi_should_drop(&vars, 0) && pi_should_drop(&vars, UINT32_MAX),
	      "p = 1 always drops");
	vars.prob = PI_PROB_ONE / 10 * 3;
	for (i = 0; i < n; i++)
		drops += pi_should_drop(&vars, (uint32_t)test_rand64(&rng));
	/* binomial: sd = sqrt(n p (1 - p)) = 458; allow 5 sd */
	check(labs(drops - 300000) < 2300, "p = 0.3 drops %ld of %ld (expect 300000 +- 2300)",
	      drops, n);
}

int main(void)
{
	aqm_test_suite = "pi";
	test_defaults();
	test_mul_frac();
	test_trace("study gains (a 1.822e-7, b 1.816e-7, target 1000, limit 2500)",
		   STUDY_A, STUDY_B, 1000, 2500, 1000000);
	test_trace("ns-2 default gains (a 1.822e-5, b 1.816e-5, target 50, limit 1000)",
		   1.822e-5, 1.816e-5, 50, 1000, 1000000);
	test_trace("large gains (a 1e-3, b 9e-4, target 200, limit 500)",
		   1e-3, 9e-4, 200, 500, 1000000);
	test_clamp_and_extremes();
	test_idle();
	test_drop_decision();
	return aqm_test_failures ? 1 : 0;
}
