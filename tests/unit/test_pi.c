// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the PI core (kmod/core/pi.h) against a double-precision
 * reference of the same control law.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

	pi_params_init(&params, 1514);
	params.target_pkts = target;
	params.limit_pkts = limit;
	params.a_frac = to_frac(a);
	params.b_frac = to_frac(b);
	pi_vars_init(&vars);
	pi_retune(&params, &vars, true);	/* as pi_change() does */

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

	pi_params_init(&params, 1514);
	check(fabs(ldexp((double)params.a_frac, -64) - 1.822e-5) < 1e-18 &&
	      fabs(ldexp((double)params.b_frac, -64) - 1.816e-5) < 1e-18,
	      "defaults: a = 1.822e-5, b = 1.816e-5 (ns-2)");
	check(params.target_pkts == 50 && params.limit_pkts == 1000 &&
	      params.freq_mhz == 170000 && !params.ecn,
	      "defaults: target 50, limit 1000, freq 170 Hz, noecn");
	check(params.target_delay_us == 0 && params.response == PI_RESPONSE_CUBIC,
	      "defaults: a packet target; autotune designs for CUBIC senders");
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
		struct test_u128 want;
		struct aqm_s128 r;

		if (i & 1)
			n = -n;
		r = aqm_s128_mul_frac(frac, n, shift);
		want = test_shr_128(test_mul_64x64(frac, n < 0 ? -(uint64_t)n : (uint64_t)n),
				    shift);
		if (n < 0)
			want = test_neg_128(want);
		bad += r.hi != want.hi || r.lo != want.lo;
	}
	check(bad == 0, "128-bit fraction multiply matches a bitwise reference on 10^6 random cases (%d wrong)",
	      bad);
}

static void test_clamp_and_extremes(void)
{
	struct pi_params params;
	struct pi_vars vars;

	pi_params_init(&params, 1514);
	params.a_frac = UINT64_MAX;	/* a just below 1 */
	params.b_frac = 0;
	params.target_pkts = 0;
	pi_vars_init(&vars);
	pi_retune(&params, &vars, true);
	pi_update(&params, &vars, UINT32_MAX);
	check(vars.prob == PI_PROB_ONE, "a huge error saturates p at 1 without overflow");
	params.target_pkts = UINT32_MAX - 1;
	pi_update(&params, &vars, 0);
	check(vars.prob == 0, "a huge negative error clamps p at 0");

	/* b > a is allowed: with an empty queue p creeps up and the timer stays busy */
	pi_params_init(&params, 1514);
	params.a_frac = to_frac(1e-5);
	params.b_frac = to_frac(2e-5);
	pi_vars_init(&vars);
	pi_retune(&params, &vars, true);
	check(pi_update(&params, &vars, 0) && vars.prob > 0,
	      "with b > a an idle queue still moves p, so the timer keeps running");
}

static void test_idle(void)
{
	struct pi_params params;
	struct pi_vars vars;
	int steps = 0;

	pi_params_init(&params, 1514);
	pi_vars_init(&vars);
	pi_retune(&params, &vars, true);
	vars.prob = PI_PROB_ONE / 100;
	vars.qold_pkts = 0;
	while (pi_update(&params, &vars, 0) && steps < 100000)
		steps++;
	check(vars.prob == 0 && steps > 0 && steps < 100000,
	      "an idle queue drains p to 0, then the update reports idle (%d steps)", steps);
	check(!pi_update(&params, &vars, 0), "idle and settled: no work to do");
	check(pi_update(&params, &vars, 1), "a packet in the queue wakes the controller");
}

static void test_log2_exp2(void)
{
	uint64_t rng = 99;
	double worst_log = 0, worst_exp = 0;
	int i;

	for (i = 0; i < 100000; i++) {
		uint64_t x = test_rand64(&rng) >> (test_rand64(&rng) & 63);
		unsigned int bits = test_rand64(&rng) & 63;
		double want, got;
		int64_t y;

		if (!x)
			continue;
		want = log2((double)x) - bits;
		got = ldexp((double)aqm_log2_q32(x, bits), -32);
		worst_log = fmax(worst_log, fabs(got - want));

		/* results near 2^40, so that truncation is not what is measured */
		y = (int64_t)(test_rand64(&rng) % (80ULL << 32)) - (40LL << 32);
		bits = (unsigned int)(40 - (y >> 32));
		want = exp2(ldexp((double)y, -32));
		got = ldexp((double)aqm_exp2_q32(y, bits), -(int)bits);
		worst_exp = fmax(worst_exp, fabs(got / want - 1));
	}
	check(worst_log < 4e-9, "log2 in Q32 within 4e-9 of libm (worst %.3g)", worst_log);
	check(worst_exp < 4e-9, "2^y within 4e-9 relative of libm (worst %.3g)", worst_exp);
	check(aqm_exp2_q32(64LL << 32, 0) == UINT64_MAX && aqm_exp2_q32(-(70LL << 32), 64) == 0 &&
	      aqm_exp2_q32(0, 0) == 1 && aqm_exp2_q32(-(1LL << 32), 64) == 1ULL << 63,
	      "2^y saturates above 2^64, truncates to 0 far below 1, is exact at integers");
}

/* The design rules in doubles, written from the formulas of pi.h */
struct ref_design {
	double z, k, a, b;
	double pole, gain;	/* p_TCP and G of the plant */
	double loss, wgr;	/* p at the operating point; wg R */
	double decrease;	/* D, packets a loss takes from one window */
};

/* wg R for a phase margin of @pm degrees: atan(x) + x = 90 - pm, bisected */
static double ref_margin_wgr(double pm)
{
	double lo = 0, hi = 10, want = M_PI / 2 - pm * M_PI / 180;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (atan(mid) + mid < want)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* RFC 9438's C, s^-3, and the kernel's default */
#define RFC_CUBIC_C 0.4

/*
 * CUBIC's response function (RFC 9438, beta = 0.7) with its C @cubic_c:
 * the loss rate at window @w and round trip @r, and its elasticity
 * -d ln p / d ln W.
 */
static double ref_cubic_p(double w, double r, double cubic_c, double *elasticity)
{
	double beta = 0.7, alpha = 3 * (1 - beta) / (1 + beta);
	/* W = (C (3 + b) / (4 (1 - b)))^(1/4) R^(3/4) / p^(3/4) */
	double p_cubic = pow(pow(cubic_c * (3 + beta) / (4 * (1 - beta)), 0.25) *
			     pow(r, 0.75) / w, 4.0 / 3);
	/* the Reno-friendly AIMD: W = sqrt(alpha (1 + b) / (2 (1 - b) p)) */
	double p_friendly = alpha * (1 + beta) / (2 * (1 - beta) * w * w);

	*elasticity = p_cubic >= p_friendly ? 4.0 / 3 : 2;
	return fmax(p_cubic, p_friendly);
}

/* x solving x sqrt(1 + x^2) = @nu, bisected */
static double ref_auto_wgr(double nu)
{
	double lo = 0, hi = 10;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (mid * sqrt(1 + mid * mid) < nu)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static struct ref_design ref_rules(double c, double n, double r, double t,
				   unsigned int response, double cubic_c,
				   unsigned int margin)
{
	double w = r * c / n, pole, gain, wg, p;
	struct ref_design d;

	if (response == PI_RESPONSE_CUBIC) {
		double e;

		p = ref_cubic_p(w, r, cubic_c, &e);
		d.decrease = 0.3 * w;
		pole = e * 0.3 * w * p / r;
		gain = n * 0.3 * w * w / (r * r);
	} else if (response == PI_RESPONSE_HIGHSPEED && w > 38) {
		double dec = 0.5 - 0.4 * (log(fmin(w, 83000)) - log(38)) / (log(83000) - log(38));

		p = pow(0.12 / w, 1 / 0.835);
		d.decrease = dec * w;
		pole = dec * w * p / (0.835 * r);
		gain = n * dec * w * w / (r * r);
	} else {
		p = 2 / (w * w);
		d.decrease = w / 2;
		pole = 2 * n / (r * r * c);
		gain = c * c / (2 * n);
	}
	d.z = pole;
	d.pole = pole;
	d.gain = gain;
	d.loss = p;
	if (margin == PI_MARGIN_AUTO)
		/* nu = p C R loss events per round trip, within [z R, 60 degrees] */
		wg = fmax(fmin(ref_auto_wgr(p * c * r), ref_margin_wgr(60)), pole * r) / r;
	else
		wg = margin ? ref_margin_wgr(margin) / r : pole;
	d.wgr = wg * r;
	d.k = pole * wg * sqrt(1 + wg * r * wg * r) / (gain * r);
	d.a = d.k * (1 / d.z + t / 2);
	d.b = d.k * (1 / d.z - t / 2);
	return d;
}

static double frac_to_double(uint64_t frac)
{
	return ldexp((double)frac, -64);
}

static void test_rules_paper(void)
{
	struct pi_design d;
	uint64_t a, b;

	/* C = 3750 packets/s, N = 60, R = 0.246 s: the PI paper's example */
	pi_design_rules(3750ULL << 16, 60ULL << PI_FLOWS_SHIFT, 246000, PI_RESPONSE_RENO,
			PI_CUBIC_C_MICRO, 0, 0, &d);
	check(fabs(exp2(ldexp((double)d.log2_z, -32)) - 0.529) < 0.0005 &&
	      fabs(exp2(ldexp((double)d.log2_k, -32)) - 9.78e-6) < 0.005e-6,
	      "Reno rules for the paper's link: z = %.4f (0.529), K = %.4g (9.78e-6)",
	      exp2(ldexp((double)d.log2_z, -32)), exp2(ldexp((double)d.log2_k, -32)));

	/* the paper's rounded z = 0.53, K = 9.64e-6 at T = 1/160 s are ns-2's gains */
	d.log2_z = aqm_log2_q32((uint64_t)nearbyint(ldexp(0.53, 40)), 40);
	d.log2_k = aqm_log2_q32((uint64_t)nearbyint(ldexp(9.64e-6, 60)), 60);
	pi_discretise(&d, 6250000, &a, &b);
	check(fabs(frac_to_double(a) - 1.822e-5) < 0.0005e-5 &&
	      fabs(frac_to_double(b) - 1.816e-5) < 0.0005e-5,
	      "z = 0.53, K = 9.64e-6, T = 1/160 s discretise to a = %.4g, b = %.4g (ns-2: 1.822e-5, 1.816e-5)",
	      frac_to_double(a), frac_to_double(b));
}

static void test_rules_match_reference(void)
{
	static const double rates_mbit[] = { 10, 200, 400, 600, 800, 1000, 10000 };
	static const unsigned int margins[] = { 0, 30, 60, 89, PI_MARGIN_AUTO };
	double worst_a = 0, worst_kt = 0;
	unsigned int i, m, resp;

	for (resp = 0; resp <= PI_RESPONSE_CUBIC; resp++) {
		for (i = 0; i < sizeof(rates_mbit) / sizeof(rates_mbit[0]); i++) {
		for (m = 0; m < sizeof(margins) / sizeof(margins[0]); m++) {
			double c = rates_mbit[i] * 1e6 / 8 / 1514, t = 1 / 170.0;
			struct ref_design want = ref_rules(c, 4, 0.06, t, resp, RFC_CUBIC_C,
							   margins[m]);
			struct pi_design d;
			uint64_t a, b;

			pi_design_rules((uint64_t)nearbyint(ldexp(c, 16)), 4ULL << PI_FLOWS_SHIFT,
					60000, resp, PI_CUBIC_C_MICRO,
					margins[m], 0, &d);
			pi_discretise(&d, 5882352, &a, &b);
			worst_a = fmax(worst_a, fabs(frac_to_double(a) / want.a - 1));
			/* a - b is a few units of 2^-64 at 10 Gbit/s (Reno) */
			worst_kt = fmax(worst_kt, (fabs(frac_to_double(a - b) - (want.a - want.b)) -
						   ldexp(2, -64)) / (want.a - want.b));
		}
		}
	}
	check(worst_a < 1e-6 && worst_kt < 1e-4,
	      "Reno, HighSpeed and CUBIC rules, 10 Mbit/s to 10 Gbit/s, margin 0/30/60/89/auto: a within %.2g, a - b within %.2g (+ 2^-63) of doubles",
	      worst_a, worst_kt);
}

static void test_margin_table(void)
{
	double worst = 0;
	unsigned int pm;

	for (pm = 1; pm <= PI_MARGIN_MAX_DEG; pm++)
		worst = fmax(worst, fabs(ldexp(pi_margin_wgr_q32[pm - 1], -32) -
					 ref_margin_wgr(pm)));
	check(worst < 1e-9, "margin table: wg R for 1..89 degrees within %.2g of atan(x) + x = 90 - PM",
	      worst);
}

/*
 * The loop the design closes, L(s) = C(s) P(s) with the kernel's z and K
 * and the reference plant P(s) = G e^-sR / ((s + p_TCP)(s + 1/R)),
 * evaluated in doubles at the crossover asked for: |L| = 1 and the phase
 * margin as asked (HighSpeed senders at 1 Gbit/s, R = 60 ms).
 */
static void test_margin_loop(void)
{
	double c = 1e9 / 8 / 1514, r = 0.06, worst_gain = 0, worst_pm = 0;
	unsigned int pm;

	for (pm = 10; pm <= 80; pm += 10) {
		struct ref_design ref = ref_rules(c, 4, r, 0, PI_RESPONSE_HIGHSPEED,
						  RFC_CUBIC_C, pm);
		double complex s = I * ref_margin_wgr(pm) / r, l;
		double z, k;
		struct pi_design d;

		pi_design_rules((uint64_t)nearbyint(ldexp(c, 16)), 4ULL << PI_FLOWS_SHIFT,
				60000, PI_RESPONSE_HIGHSPEED, PI_CUBIC_C_MICRO, pm, 0, &d);
		z = exp2(ldexp((double)d.log2_z, -32));
		k = exp2(ldexp((double)d.log2_k, -32));
		l = k * (s / z + 1) / s * ref.gain * cexp(-s * r) /
		    ((s + ref.pole) * (s + 1 / r));
		worst_gain = fmax(worst_gain, fabs(cabs(l) - 1));
		worst_pm = fmax(worst_pm, fabs(180 + carg(l) * 180 / M_PI - pm));
	}
	check(worst_gain < 1e-6 && worst_pm < 1e-4,
	      "margin 10..80 degrees: |L(j wg)| = 1 within %.2g, phase margin within %.2g degrees",
	      worst_gain, worst_pm);
}

/*
 * margin auto: the crossover follows the senders' loss events per round
 * trip, nu = p C R, as x sqrt(1 + x^2) = nu; so the fall of p a single cut
 * of D packets makes, b D, is p where neither bound holds, less at the
 * bounds. Over CUBIC, Reno and HighSpeed senders, 10 Mbit/s to 10 Gbit/s,
 * 1 to 256 flows, R = 68 ms; and the margin the statistics show.
 */
static void test_margin_auto(void)
{
	static const double rates_mbit[] = { 10, 100, 400, 1000, 10000 };
	static const unsigned int flows[] = { 1, 4, 16, 64, 256 };
	double r = 0.068, worst_x = 0, worst_cut = 0, most_cut = 0;
	unsigned int i, j, pm, resp, inside = 0, bounded = 0, wrong_margin = 0, shown_wrong = 0;

	for (resp = 0; resp <= PI_RESPONSE_CUBIC; resp++) {
		for (i = 0; i < sizeof(rates_mbit) / sizeof(rates_mbit[0]); i++) {
		for (j = 0; j < sizeof(flows) / sizeof(flows[0]); j++) {
			double c = rates_mbit[i] * 1e6 / 8 / 1514, n = flows[j];
			struct ref_design want = ref_rules(c, n, r, 1 / 170.0, resp,
							   RFC_CUBIC_C, PI_MARGIN_AUTO);
			double x, cut;
			struct pi_design d;
			uint64_t a, b;

			pi_design_rules((uint64_t)nearbyint(ldexp(c, 16)),
					(uint64_t)flows[j] << PI_FLOWS_SHIFT, 68000, resp,
					PI_CUBIC_C_MICRO, PI_MARGIN_AUTO, 0, &d);
			pi_discretise(&d, 5882352, &a, &b);
			x = exp2(ldexp((double)d.log2_wgr, -32));
			worst_x = fmax(worst_x, fabs(x / want.wgr - 1));
			pm = pi_margin_of(d.log2_wgr);
			/* rounded down: x(pm + 1) < x <= x(pm), 0 above x(1) */
			if (pm ? x > ref_margin_wgr(pm) * (1 + 1e-6) ||
				 (pm < PI_MARGIN_MAX_DEG &&
				  x < ref_margin_wgr(pm + 1) * (1 - 1e-6)) :
				 x < ref_margin_wgr(1) * (1 - 1e-6))
				wrong_margin++;
			cut = frac_to_double(b) * want.decrease / want.loss;
			if (want.wgr > want.pole * r * 1.001 && want.wgr < ref_margin_wgr(60) * 0.999) {
				inside++;
				worst_cut = fmax(worst_cut, fabs(cut - 1));
			} else {
				bounded++;
				most_cut = fmax(most_cut, cut);
			}
		}
		}
	}
	check(worst_x < 1e-6 && inside > 20 && bounded > 10 && worst_cut < 0.02 &&
	      most_cut < 1.02 && !wrong_margin,
	      "margin auto: wg R within %.2g of doubles; one cut takes p (within %.2g) in %u designs, at most %.3g p in %u at a bound; %u shown margins wrong",
	      worst_x, worst_cut, inside, most_cut, bounded, wrong_margin);

	/* a margin configured is shown as it is */
	for (pm = 1; pm <= PI_MARGIN_MAX_DEG; pm++) {
		for (i = 0; i < sizeof(rates_mbit) / sizeof(rates_mbit[0]); i++) {
			struct pi_design d;

			pi_design_rules((uint64_t)nearbyint(ldexp(rates_mbit[i] * 1e6 / 8 / 1514, 16)),
					4ULL << PI_FLOWS_SHIFT, 68000, PI_RESPONSE_CUBIC,
					PI_CUBIC_C_MICRO, pm, 0, &d);
			if (pi_margin_of(d.log2_wgr) != pm)
				shown_wrong++;
		}
	}
	check(!shown_wrong, "margins 1..89 configured: the statistics show each as it is (%u not)",
	      shown_wrong);
}

/* n dequeues at @pps with the queue backlogged, from *now_ns on */
static void feed_rate(const struct pi_params *params, struct pi_vars *vars,
		      double pps, int n, uint64_t *now_ns)
{
	int i;

	for (i = 0; i < n; i++) {
		*now_ns += (uint64_t)nearbyint(1e9 / pps);
		pi_dequeued(params, vars, 1, 100, *now_ns);
	}
}

/*
 * Busy stretches of @stretch_pkts at @pps, each opened by a parent shaper's
 * burst of @burst packets at one instant (tokens it saved while the queue
 * was empty), @idle_ns of empty queue between them; pi's timer at 17 Hz
 * (the testbed's 170 Hz at k = 10). The estimate as the controller reads
 * it, at the end of each stretch: mean over the stretches after the first
 * ten, and the largest.
 */
static void estimate_after_shaper_bursts(double pps, int stretch_pkts, int burst,
					 uint64_t idle_ns, int stretches,
					 double *mean, double *max)
{
	struct pi_params params;
	struct pi_vars vars;
	uint64_t now = 1000000000ULL, period = (uint64_t)(1e9 / pps);
	double r, sum = 0;
	int s, i;

	pi_params_init(&params, 1514);
	params.freq_mhz = 17000;
	pi_vars_init(&vars);
	*max = 0;
	for (s = 0; s < stretches; s++) {
		for (i = 0; i < burst; i++)
			pi_dequeued(&params, &vars, 1, 10, now);
		for (i = 1; i <= stretch_pkts; i++) {
			now += period;
			pi_dequeued(&params, &vars, 1, i == stretch_pkts ? 0 : 10, now);
		}
		now += idle_ns;
		r = ldexp((double)vars.dq.rate_q16, -AQM_DQ_RATE_SHIFT);
		if (s >= 10) {
			sum += r;
			*max = fmax(*max, r);
		}
	}
	*mean = stretches > 10 ? sum / (stretches - 10) : 0;
}

static void test_shaper_bursts(void)
{
	double mean, max;

	/* htb's 10 ms burst at 8256 packets/s (83 packets) after every
	 * empty queue, stretches of 200 ms with 20 ms empty between them
	 */
	estimate_after_shaper_bursts(8256, 1651, 83, 20000000, 110, &mean, &max);
	check(fabs(mean / 8256 - 1) < 5e-3 && fabs(max / 8256 - 1) < 1e-2,
	      "a parent shaper's burst after each empty queue is not service: estimate "
	      "%.1f pps on average, at most %.1f (link 8256)", mean, max);
	estimate_after_shaper_bursts(8256, 400, 83, 20000000, 110, &mean, &max);
	check(max == 0,
	      "service in busy stretches shorter than the minimum time is not counted (%.1f)",
	      max);
}

/*
 * Skipping the dequeues aqm_dq_rate_wants() declines (and their clock
 * reads) leaves the estimate as feeding every one: a random mix of empty
 * and backlogged dequeues, gaps of 0-2 ms, compared after each dequeue.
 */
static void test_skipped_dequeues(void)
{
	struct aqm_dq_rate every, wanted;
	uint64_t rng = 42, now = 1000000000ULL;
	long i, skipped = 0, differ = 0, samples = 0;

	aqm_dq_rate_init(&every);
	aqm_dq_rate_init(&wanted);
	for (i = 0; i < 200000; i++) {
		/* runs of empty queues between backlogged stretches */
		uint32_t qlen = test_rand64(&rng) % 4 ? 0 : test_rand64(&rng) % 50;

		now += test_rand64(&rng) % 2000000;
		samples += aqm_dq_rate_dequeued(&every, 1, qlen, now, 1000000);
		if (aqm_dq_rate_wants(&wanted, qlen))
			aqm_dq_rate_dequeued(&wanted, 1, qlen, now, 1000000);
		else
			skipped++;
		differ += every.rate_q16 != wanted.rate_q16 ||
			  every.backlogged != wanted.backlogged;
	}
	check(differ == 0 && skipped > 50000 && samples > 100,
	      "dequeues the estimator declines change nothing (%ld skipped, %ld samples, "
	      "%ld differences)", skipped, samples, differ);
}

/*
 * A GSO skb queued whole leaves in one dequeue with all its wire packets,
 * and the link takes their time before the next dequeue: a link of
 * 100,000 packets/s (10 us a packet) serving skbs of 1 to 44 packets at
 * random, each dequeue one skb's time after the last, is estimated at
 * 100,000 packets/s as when it serves one packet every 10 us (counting
 * each dequeue's own packets with the gap before it reads 1.2% low).
 */
static void test_gso_dequeues(void)
{
	struct aqm_dq_rate single, gso;
	uint64_t now = 1000000000ULL, rng = 7;
	double single_pps, gso_pps;
	long i;

	aqm_dq_rate_init(&single);
	for (i = 0; i < 1000000; i++) {
		now += 10000;
		aqm_dq_rate_dequeued(&single, 1, 100, now, 1000000);
	}
	aqm_dq_rate_init(&gso);
	now = 1000000000ULL;
	for (i = 0; i < 40000; i++) {
		uint32_t pkts = 1 + test_rand64(&rng) % 44;

		aqm_dq_rate_dequeued(&gso, pkts, 1000, now, 1000000);
		now += 10000ULL * pkts;
	}
	single_pps = ldexp((double)single.rate_q16, -16);
	gso_pps = ldexp((double)gso.rate_q16, -16);
	check(fabs(gso_pps / 100000 - 1) < 0.002 && fabs(single_pps / 100000 - 1) < 1e-6,
	      "GSO skbs dequeued whole count their wire packets: %.0f packets/s (one "
	      "packet a dequeue: %.1f) for 100000", gso_pps, single_pps);
}

static void test_autotune(void)
{
	struct pi_params params;
	struct pi_vars vars;
	struct ref_design want;
	uint64_t now = 1000000000ULL, a_before;
	double c;

	pi_params_init(&params, 1500);
	params.autotune = true;
	params.flows = 4;
	params.rtt_us = 60000;
	params.response = PI_RESPONSE_HIGHSPEED;
	params.target_pkts = 1000;
	params.limit_pkts = 2500;
	pi_vars_init(&vars);

	vars.prob = 0;
	pi_update(&params, &vars, 2000);
	check(vars.source == PI_GAINS_PENDING && vars.a_frac == 0 && vars.prob == 0,
	      "autotune without an estimate: gains 0, p stays 0, source pending");

	feed_rate(&params, &vars, 8333.3, 20000, &now);
	c = ldexp((double)vars.dq.rate_q16, -16);
	check(fabs(c / 8333.3 - 1) < 0.001,
	      "the estimator converges on a 8333.3 packets/s dequeue rate (%.1f)", c);
	pi_update(&params, &vars, 1000);
	/* R = Tp + q_ref / C, the paper's */
	want = ref_rules(c, 4, 0.06 + 1000 / c, 1 / 170.0, PI_RESPONSE_HIGHSPEED,
			 RFC_CUBIC_C, 0);
	check(vars.source == PI_GAINS_ESTIMATE &&
	      fabs(frac_to_double(vars.a_frac) / want.a - 1) < 1e-6,
	      "gains derive from the estimate: a = %.4g (%.4g)", frac_to_double(vars.a_frac),
	      want.a);

	a_before = vars.a_frac;
	feed_rate(&params, &vars, 8333.3 * 1.05, 20000, &now);
	pi_update(&params, &vars, 1000);
	check(vars.a_frac == a_before, "a 5%% rate change keeps the gains");

	feed_rate(&params, &vars, 8333.3 * 2, 40000, &now);
	pi_update(&params, &vars, 1000);
	c = ldexp((double)vars.tuned_q16, -16);
	want = ref_rules(c, 4, 0.06 + 1000 / c, 1 / 170.0, PI_RESPONSE_HIGHSPEED,
			 RFC_CUBIC_C, 0);
	check(fabs(c / (8333.3 * 2) - 1) < 0.01 && vars.a_frac != a_before &&
	      fabs(frac_to_double(vars.a_frac) / want.a - 1) < 1e-6,
	      "the rate doubles: gains re-derived at %.1f packets/s, a = %.4g", c,
	      frac_to_double(vars.a_frac));

	params.bandwidth_bps = 125000000;	/* 1 Gbit/s of 1500-byte packets */
	pi_retune(&params, &vars, true);
	c = ldexp((double)vars.tuned_q16, -16);
	want = ref_rules(125e6 / 1500, 4, 0.06 + 1000 / (125e6 / 1500), 1 / 170.0,
			 PI_RESPONSE_HIGHSPEED, RFC_CUBIC_C, 0);
	check(vars.source == PI_GAINS_BANDWIDTH && fabs(c - 125e6 / 1500) < 0.001 &&
	      fabs(frac_to_double(vars.a_frac) / want.a - 1) < 1e-6,
	      "a configured bandwidth gives C = %.3f packets/s and its gains", c);

	params.autotune = false;
	pi_update(&params, &vars, 1000);
	check(vars.source == PI_GAINS_MANUAL && vars.a_frac == params.a_frac &&
	      vars.b_frac == params.b_frac, "autotune off: the configured gains are in use");

	/* back to pending (a fresh estimator after a toggle) with p > 0 */
	vars.prob = PI_PROB_ONE / 100;
	vars.accu = PI_PROB_ONE / 2;
	params.autotune = true;
	params.bandwidth_bps = 0;
	aqm_dq_rate_init(&vars.dq);
	pi_retune(&params, &vars, true);
	check(vars.source == PI_GAINS_PENDING && vars.prob == 0 && vars.accu == 0,
	      "entering the pending state clears p and the spacing accumulator (p was 0.01)");
}

static void test_backlog_floor(void)
{
	struct pi_params params;
	struct pi_vars vars;

	pi_params_init(&params, 1514);
	pi_vars_init(&vars);
	check(!pi_backlog_allows_drop(&params, 0) && !pi_backlog_allows_drop(&params, 3027) &&
	      pi_backlog_allows_drop(&params, 3028),
	      "no early drop below two packets of backlog (3027 bytes no, 3028 yes at 1514)");

	/* a = b holds p on an empty queue: the floor is what spares arrivals */
	params.a_frac = params.b_frac = 1ULL << 50;
	pi_retune(&params, &vars, true);
	vars.prob = PI_PROB_ONE / 10;
	vars.integral = vars.mean_loss = vars.mean_prob = vars.prob;	/* as a law left it */
	check(!pi_update(&params, &vars, 0) && !pi_update(&params, &vars, 0) &&
	      vars.prob == PI_PROB_ONE / 10,
	      "with a = b, p = 0.1 stays on an empty queue and the timer may sleep");
}

static void test_drop_decision(void)
{
	struct pi_params params;
	struct pi_vars vars = { .prob = 0 };
	uint64_t rng = 7;
	long drops = 0, i, n = 1000000;

	pi_params_init(&params, 1514);
	check(!pi_should_drop(&params, &vars, 0) && !pi_should_drop(&params, &vars, UINT32_MAX),
	      "p = 0 never drops");
	vars.prob = PI_PROB_ONE;
	check(pi_should_drop(&params, &vars, 0) && pi_should_drop(&params, &vars, UINT32_MAX),
	      "p = 1 always drops");
	vars.prob = PI_PROB_ONE / 10 * 3;
	for (i = 0; i < n; i++)
		drops += pi_should_drop(&params, &vars, (uint32_t)test_rand64(&rng));
	/* binomial: sd = sqrt(n p (1 - p)) = 458; allow 5 sd */
	check(labs(drops - 300000) < 2300, "p = 0.3 drops %ld of %ld (expect 300000 +- 2300)",
	      drops, n);
}

/* even spacing: the same rate as p, every gap 1/p rounded down or up */
static void test_even_spacing(double p, long n)
{
	struct pi_params params;
	struct pi_vars vars;
	long drops = 0, last = -1, gap_min = n, gap_max = 0, i;

	pi_params_init(&params, 1514);
	params.even_spacing = true;
	pi_vars_init(&vars);
	vars.prob = (uint64_t)nearbyint(ldexp(p, PI_PROB_SHIFT));
	for (i = 0; i < n; i++) {
		if (!pi_should_drop(&params, &vars, 0))	/* rnd is ignored */
			continue;
		if (last >= 0) {
			gap_min = i - last < gap_min ? i - last : gap_min;
			gap_max = i - last > gap_max ? i - last : gap_max;
		}
		last = i;
		drops++;
	}
	check(fabs(drops - p * n) <= 1 && gap_min >= (long)floor(1 / p) &&
	      gap_max <= (long)ceil(1 / p),
	      "even spacing at p = %g: %ld drops in %ld packets, gaps %ld to %ld", p, drops, n,
	      gap_min, gap_max);
}

/* the phase of L(jw) in degrees: the PI zero, the plant's two poles, the delay */
static double loop_phase_deg(double w, double z, double pole, double r)
{
	return (-M_PI / 2 + atan(w / z) - atan(w / pole) - atan(w * r) - w * r) *
	       180 / M_PI;
}

/* a margin as tc writes it */
static const char *margin_name(unsigned int margin)
{
	static char buf[16];

	if (margin == PI_MARGIN_AUTO)
		return "auto";
	snprintf(buf, sizeof(buf), "%u", margin);
	return buf;
}

/*
 * The phase margin of a design for @design senders when @actual ones are
 * there: the kernel's z and K, the reference plant of @actual, its
 * crossover found by bisection (|L| falls monotonically), in degrees.
 */
static double mismatched_margin(double c, unsigned int n, double r,
				unsigned int design, unsigned int actual,
				unsigned int margin)
{
	struct ref_design plant = ref_rules(c, n, r, 0, actual, RFC_CUBIC_C, 0);
	double lo = 1e-9, hi = 1e9, z, k;
	struct pi_design d;
	int i;

	pi_design_rules((uint64_t)nearbyint(ldexp(c, 16)), (uint64_t)n << PI_FLOWS_SHIFT,
			(uint64_t)nearbyint(r * 1e6),
			design, PI_CUBIC_C_MICRO, margin, 0, &d);
	z = exp2(ldexp((double)d.log2_z, -32));
	k = exp2(ldexp((double)d.log2_k, -32));
	for (i = 0; i < 200; i++) {
		double w = sqrt(lo * hi);
		double mag = k * sqrt(1 + w * w / (z * z)) / w * plant.gain /
			     (sqrt(w * w + plant.pole * plant.pole) * sqrt(w * w + 1 / (r * r)));

		if (mag > 1)
			lo = w;
		else
			hi = w;
	}
	return 180 + loop_phase_deg(lo, z, plant.pole, r);
}

/*
 * Which design serves senders nobody told the qdisc about: for each
 * response a design can assume, its smallest phase margin over links from
 * 10 Mbit/s to 10 Gbit/s, 1 to 100 flows, 5 to 300 ms (windows of 4 to
 * 10^5 packets) and every kind of sender. The default (CUBIC) must keep
 * the most.
 */
/* the drop probability senders of @response meet at window @w and RTT @r */
static double ref_response_p(unsigned int response, double w, double r)
{
	double e;

	if (response == PI_RESPONSE_CUBIC)
		return ref_cubic_p(w, r, RFC_CUBIC_C, &e);
	if (response == PI_RESPONSE_HIGHSPEED && w > 38)
		return pow(0.12 / w, 1 / 0.835);
	return 2 / (w * w);
}

/* autotune with flows auto on 100 Mbit/s, a 20 ms target, 48 ms round trips */
static void flows_auto_link(struct pi_params *params, struct pi_vars *vars)
{
	pi_params_init(params, 1514);
	params->autotune = true;
	params->flows = PI_FLOWS_AUTO;
	params->bandwidth_bps = 100000000 / 8;
	params->target_delay_us = 20000;
	params->rtt_us = 48000;
	pi_vars_init(vars);
}

/* the N flows auto designs for, before the retune band */
static double design_flows(const struct pi_params *params, const struct pi_vars *vars)
{
	uint64_t cap_q16 = pi_capacity_q16(params, vars);

	return ldexp((double)pi_design_flows_q16(params, vars, cap_q16,
						 pi_design_rtt_us(params, cap_q16)), -16);
}

/* the means where p has held at mean_loss, the limit dropping nothing */
static void flows_settled(struct pi_vars *vars)
{
	vars->mean_prob = vars->mean_loss;
	vars->mean_share = 0;
}

/*
 * flows auto: N = R C / W(p) inverts each response function at the p that
 * N flows of window R C / N meet, 1 to 1000 flows, 10 Mbit/s to 10 Gbit/s,
 * 20 to 300 ms; the gains follow it, past the retune band only.
 */
static void test_flows_estimate(void)
{
	static const double rates_mbit[] = { 10, 100, 1000, 10000 };
	static const double flows[] = { 1, 4, 16, 100, 1000 };
	static const double rtts[] = { 0.02, 0.1, 0.3 };
	double worst = 0;
	unsigned int resp, i, j, l, points = 0;
	struct pi_params params;
	struct pi_vars vars, fixed;
	uint64_t cap_q16;

	for (resp = 0; resp <= PI_RESPONSE_CUBIC; resp++)
		for (i = 0; i < sizeof(rates_mbit) / sizeof(rates_mbit[0]); i++)
			for (j = 0; j < sizeof(flows) / sizeof(flows[0]); j++)
				for (l = 0; l < sizeof(rtts) / sizeof(rtts[0]); l++) {
					double c = rates_mbit[i] * 1e6 / 8 / 1514;
					double p = ref_response_p(resp, rtts[l] * c / flows[j],
								  rtts[l]);

					if (p >= 1 || rtts[l] * c / flows[j] < 2)
						continue;
					pi_params_init(&params, 1514);
					params.flows = PI_FLOWS_AUTO;
					params.response = resp;
					pi_vars_init(&vars);
					cap_q16 = (uint64_t)nearbyint(ldexp(c, 16));
					worst = fmax(worst, fabs(exp2(ldexp((double)pi_loss_log2_flows(
						&params, (uint64_t)ldexp(p, PI_PROB_SHIFT), cap_q16,
						(uint64_t)nearbyint(rtts[l] * 1e6)), -32)) /
						flows[j] - 1));
					points++;
				}
	check(worst < 1e-5,
	      "flows auto: R C / W(p) gives back N within %.2g at %u points (Reno, HighSpeed, CUBIC; 1-1000 flows, 10 Mbit/s-10 Gbit/s, 20-300 ms)",
	      worst, points);

	/* at p = 0 the design is for one flow; at 16 flows' p, for 16 (N reads the
	 * operating point, p's mean) */
	flows_auto_link(&params, &vars);
	pi_retune(&params, &vars, true);
	check(vars.tuned_flows_q16 == 1 << PI_FLOWS_SHIFT,
	      "flows auto: p = 0 designs for one flow (%.3f)",
	      ldexp((double)vars.tuned_flows_q16, -16));

	{
		double c = ldexp((double)pi_bandwidth_q16(&params), -16);
		double w = 0.068 * c / 16;
		uint64_t a_16, moved;

		vars.mean_loss = (uint64_t)ldexp(ref_response_p(PI_RESPONSE_CUBIC, w, 0.068),
						PI_PROB_SHIFT);
		flows_settled(&vars);
		pi_retune(&params, &vars, false);
		fixed = vars;
		params.flows = 16;
		pi_retune(&params, &fixed, true);
		params.flows = PI_FLOWS_AUTO;
		check(fabs(ldexp((double)vars.tuned_flows_q16, -16) - 16) < 1e-3 &&
		      fabs((double)vars.a_frac / fixed.a_frac - 1) < 1e-5,
		      "flows auto at 16 flows' p: designed for %.4f flows, a %.6g (flows 16: %.6g)",
		      ldexp((double)vars.tuned_flows_q16, -16), frac_to_double(vars.a_frac),
		      frac_to_double(fixed.a_frac));

		/* 10% more p is ~7.4% more flows for CUBIC: inside the band */
		a_16 = vars.a_frac;
		vars.mean_loss += vars.mean_loss / 10;
		flows_settled(&vars);
		pi_retune(&params, &vars, false);
		moved = vars.a_frac;
		check(moved == a_16, "flows auto: a 10%% rise of p keeps the gains (within the 12.5%% band)");
		vars.mean_loss += vars.mean_loss / 2;
		flows_settled(&vars);
		pi_retune(&params, &vars, false);
		check(vars.a_frac > a_16 && vars.tuned_flows_q16 > 18 << PI_FLOWS_SHIFT,
		      "flows auto: a 65%% rise of p re-derives them (%.2f flows, a %.6g)",
		      ldexp((double)vars.tuned_flows_q16, -16), frac_to_double(vars.a_frac));
	}
}

static void test_default_response(void)
{
	static const double rates_mbit[] = { 10, 100, 1000, 10000 };
	static const unsigned int flows[] = { 1, 4, 16, 100 };
	static const double rtts[] = { 0.005, 0.02, 0.05, 0.1, 0.3 };
	static const unsigned int margins[] = { 0, 60, 70, 80, 87, PI_MARGIN_AUTO };
	static const char * const names[] = { "reno", "highspeed", "cubic" };
	unsigned int m, design, actual, i, j, l;
	struct pi_params params;

	pi_params_init(&params, 1514);
	for (m = 0; m < sizeof(margins) / sizeof(margins[0]); m++) {
		double worst[PI_RESPONSE_CUBIC + 1];

		for (design = 0; design <= PI_RESPONSE_CUBIC; design++) {
			worst[design] = 180;
			for (actual = 0; actual <= PI_RESPONSE_CUBIC; actual++)
			for (i = 0; i < sizeof(rates_mbit) / sizeof(rates_mbit[0]); i++)
			for (j = 0; j < sizeof(flows) / sizeof(flows[0]); j++)
			for (l = 0; l < sizeof(rtts) / sizeof(rtts[0]); l++) {
				double c = rates_mbit[i] * 1e6 / 8 / 1514;
				double w = rtts[l] * c / flows[j];

				if (w < 4 || w > 1e5)
					continue;
				worst[design] = fmin(worst[design],
						     mismatched_margin(c, flows[j], rtts[l], design,
								       actual, margins[m]));
			}
		}
		check(worst[params.response] >= worst[PI_RESPONSE_RENO] &&
		      worst[params.response] >= worst[PI_RESPONSE_HIGHSPEED] &&
		      worst[params.response] >= 35,
		      "margin %s, any senders: the default design (%s) keeps at least %.1f degrees of phase margin (reno's %.1f, highspeed's %.1f, cubic's %.1f)",
		      margin_name(margins[m]), names[params.response], worst[params.response],
		      worst[PI_RESPONSE_RENO], worst[PI_RESPONSE_HIGHSPEED],
		      worst[PI_RESPONSE_CUBIC]);
	}
}

/* a delay target: q_ref = d C, the law waiting for C, the design's R */
static void test_delay_target(void)
{
	struct pi_params params, pkts_params;
	struct pi_vars vars, pkts_vars;
	uint64_t now = 1000000000ULL, cap;
	uint64_t rng = 11;
	long step, differ = 0;
	double c;

	pi_params_init(&params, 1500);
	params.limit_pkts = 5000;
	params.target_delay_us = 20000;
	pi_vars_init(&vars);
	vars.prob = PI_PROB_ONE / 10;
	check(pi_needs_rate(&params) && pi_update(&params, &vars, 500) && vars.prob == 0 &&
	      vars.ref_pkts == PI_NO_REFERENCE && vars.qdelay_us == PI_NO_DELAY,
	      "delay target before C is known: no reference, no delay, p held at 0, the timer runs");

	feed_rate(&params, &vars, 8333.3, 20000, &now);
	c = ldexp((double)vars.dq.rate_q16, -16);
	pi_update(&params, &vars, 500);
	check(vars.ref_pkts == (uint32_t)floor(0.02 * c) &&
	      fabs(vars.qdelay_us - 500 / c * 1e6) <= 1,
	      "20 ms at the measured %.1f packets/s: reference %u packets, 500 packets wait %u us",
	      c, vars.ref_pkts, vars.qdelay_us);

	/* with a configured bandwidth, step for step the packet law at d C */
	params.bandwidth_bps = 125000000;		/* 83333.3 packets/s */
	pkts_params = params;
	pkts_params.target_delay_us = 0;
	pkts_params.target_pkts = 1666;
	pi_vars_init(&vars);
	pi_vars_init(&pkts_vars);
	pi_retune(&params, &vars, true);
	pi_retune(&pkts_params, &pkts_vars, true);
	for (step = 0; step < 100000; step++) {
		unsigned int q = (unsigned int)(test_uniform(&rng) * 4000);

		pi_update(&params, &vars, q);
		pi_update(&pkts_params, &pkts_vars, q);
		differ += vars.prob != pkts_vars.prob;
	}
	check(vars.ref_pkts == 1666 && differ == 0,
	      "target 20ms at 1 Gbit/s of 1500-byte packets is target 1666 (%u): %ld of 100000 updates differ",
	      vars.ref_pkts, differ);

	cap = pi_bandwidth_q16(&params);
	params.rtt_us = 60000;
	check(pi_design_rtt_us(&params, cap) == 80000,
	      "autotune's R with a delay target: 60 ms + 20 ms = %llu us",
	      (unsigned long long)pi_design_rtt_us(&params, cap));
	params.target_delay_us = 0;
	params.target_pkts = 1000;
	check(pi_design_rtt_us(&params, cap) == 60000 + 12000,
	      "with a packet target: 60 ms + 1000 packets at 83333.3/s = %llu us",
	      (unsigned long long)pi_design_rtt_us(&params, cap));

	/* the extremes: no trap, no wrap */
	check(pi_delay_us(UINT32_MAX, 1) == PI_TARGET_DELAY_MAX_US &&
	      pi_delay_us(UINT32_MAX, AQM_DQ_RATE_MAX_PPS << AQM_DQ_RATE_SHIFT) == 3906 &&
	      pi_delay_us(0, 1) == 0,
	      "queue delay: 2^32 packets at 2^-16 packets/s is the 10 s cap, at 2^40/s 3906 us");
	params.target_delay_us = PI_TARGET_DELAY_MAX_US;
	check(pi_reference_pkts(&params, AQM_DQ_RATE_MAX_PPS << AQM_DQ_RATE_SHIFT) ==
	      PI_NO_REFERENCE - 1 && pi_reference_pkts(&params, 1) == 0,
	      "10 s at 2^40 packets/s saturates below 'no reference'; at 2^-16/s it is 0 packets");
}

/*
 * CUBIC senders of another C (cubic_c): the rules and W(p) against doubles
 * for C from 10^-6 to 100, and the design of a link slowed down k times
 * (C / k, R k, CUBIC's C / k^3, sampled every T k) is the original's: the
 * same gains a and b, a pole k times slower.
 */
static void test_cubic_c(void)
{
	static const double cs[] = { 1e-6, 0.00005, 0.0004, 0.00625, 0.05, 0.4, 4, 100 };
	static const double rates_mbit[] = { 10, 100, 1000, 10000 };
	static const double ps[] = { 1e-8, 1e-6, 1e-4, 1e-2 };
	static const unsigned int ks[] = { 2, 4, 5, 10, 20 };	/* C / k^3 exact */
	double worst_a = 0, worst_w = 0, worst_k = 0;
	unsigned int i, j;

	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		uint32_t micro = (uint32_t)nearbyint(cs[i] * 1e6);

		for (j = 0; j < sizeof(rates_mbit) / sizeof(rates_mbit[0]); j++) {
			double c = rates_mbit[j] * 1e6 / 8 / 1514, t = 1 / 170.0;
			struct ref_design want = ref_rules(c, 4, 0.06, t, PI_RESPONSE_CUBIC,
							   cs[i], 30);
			struct pi_design d;
			uint64_t a, b;

			pi_design_rules((uint64_t)nearbyint(ldexp(c, 16)), 4ULL << PI_FLOWS_SHIFT,
					60000, PI_RESPONSE_CUBIC, micro, 30, 0, &d);
			pi_discretise(&d, 5882352, &a, &b);
			worst_a = fmax(worst_a, fabs(frac_to_double(a) / want.a - 1));
		}
		for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
			double e, lo = 1e-3, hi = 1e9;
			s64 log2_w = pi_response_log2_window(
				PI_RESPONSE_CUBIC, micro,
				aqm_log2_q32((uint64_t)ldexp(ps[j], PI_PROB_SHIFT), PI_PROB_SHIFT),
				aqm_log2_q32(60000, 0) - PI_LOG2_1E6);
			int n;

			/* the window at which the reference meets p, by bisection */
			for (n = 0; n < 200; n++) {
				double w = sqrt(lo * hi);

				if (ref_cubic_p(w, 0.06, cs[i], &e) > ps[j])
					lo = w;
				else
					hi = w;
			}
			worst_w = fmax(worst_w, fabs(exp2(ldexp((double)log2_w, -32)) / lo - 1));
		}
	}
	check(worst_a < 1e-6 && worst_w < 1e-6,
	      "cubic_c 10^-6..100: CUBIC rules' a within %.2g, W(p) within %.2g of doubles",
	      worst_a, worst_w);

	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		unsigned int k = ks[i];
		double c = 1e9 / 8 / 1514;
		struct pi_design d1, dk;
		uint64_t a1, b1, ak, bk;

		pi_design_rules((uint64_t)nearbyint(ldexp(c, 16)), 16ULL << PI_FLOWS_SHIFT,
				100000, PI_RESPONSE_CUBIC, PI_CUBIC_C_MICRO, 30, 0, &d1);
		pi_discretise(&d1, 5882352, &a1, &b1);
		pi_design_rules((uint64_t)nearbyint(ldexp(c / k, 16)), 16ULL << PI_FLOWS_SHIFT,
				100000ULL * k, PI_RESPONSE_CUBIC,
				(uint32_t)nearbyint(PI_CUBIC_C_MICRO / (double)(k * k * k)), 30, 0, &dk);
		pi_discretise(&dk, 5882352ULL * k, &ak, &bk);
		worst_k = fmax(worst_k, fmax(fabs((double)ak / a1 - 1), fabs((double)bk / b1 - 1)));
		worst_k = fmax(worst_k, fabs(exp2(ldexp((double)(d1.log2_z - dk.log2_z), -32)) - k));
	}
	check(worst_k < 1e-5,
	      "CUBIC at 1 Gbit/s, 16 flows, 100 ms slowed down k = 2, 4, 5, 10, 20 (C / k^3): the same a and b, a pole k times slower, within %.2g",
	      worst_k);
}

/*
 * Gains that change under the law (flows auto: N follows p) must not leave
 * the old proportional part behind: after every step p = I + b e, I the
 * sum of (a - b) e, with the gains of each step, as a positional PI has it.
 * The queue swings around a mean that moves above and below the reference,
 * p far from its bounds, and the gains are re-derived as it goes.
 */
static void test_gain_changes(void)
{
	struct pi_params params;
	struct pi_vars vars;
	long double integral = 0, worst = 0;
	uint64_t last_b = 0;
	double p_min = 1, p_max = 0;
	int n, retunes = 0;

	flows_auto_link(&params, &vars);
	vars.prob = (uint64_t)ldexp(3e-4, PI_PROB_SHIFT);
	vars.integral = vars.mean_loss = vars.prob;
	flows_settled(&vars);
	/* open loop: the gains' own feedback may drive p to a bound; stop there */
	for (n = 0; n < 20000 && p_min > 0 && p_max < 0.5; n++) {
		/* a swing around a mean that moves, so the mean of p (N's source) does */
		int bias = n % 4000 < 2000 ? 80 : -80;
		unsigned int q = (unsigned int)lrint(165 + bias + 80 * sin(2 * M_PI * n / 500.0));
		long double err, p;

		pi_update(&params, &vars, q);
		err = (long double)q - vars.ref_pkts;
		p = ldexpl((long double)vars.prob, -PI_PROB_SHIFT);
		if (n == 0) {
			integral = p - ldexpl((long double)vars.b_frac, -64) * err;
		} else {
			integral += ldexpl((long double)(vars.a_frac - vars.b_frac), -64) * err;
			worst = fmaxl(worst, fabsl(p - integral -
						   ldexpl((long double)vars.b_frac, -64) * err) / p);
		}
		retunes += vars.b_frac != last_b;
		last_b = vars.b_frac;
		p_min = fmin(p_min, (double)p);
		p_max = fmax(p_max, (double)p);
	}
	check(retunes > 10 && worst < 1e-9,
	      "flows auto re-derived the gains %d times in %d steps under a swinging queue (p %.3g..%.3g): p = I + b e after every step within %.2Lg",
	      retunes, n, p_min, p_max, worst);
}

/*
 * An empty queue drives p to 0 and keeps it there, with flows auto too,
 * where N once followed p itself: p up, N up, b up, p down by b |e| within
 * a step, and an empty queue's p alternated between two values on every
 * update (measured on a link the senders could not fill: 0 and 4.3e-4).
 * Near p = 0 the design is one flow's, gains thousands of times smaller.
 */
static void test_empty_queue_rests(void)
{
	static const unsigned int flows[] = { PI_FLOWS_AUTO, 16 };
	unsigned int f;

	for (f = 0; f < sizeof(flows) / sizeof(flows[0]); f++) {
		struct pi_params params;
		struct pi_vars vars;
		int n, zero_at = -1, rises = 0, retunes = 0;

		flows_auto_link(&params, &vars);
		params.flows = flows[f];
		/* settle near the reference with a p that means many flows */
		vars.prob = (uint64_t)ldexp(3e-4, PI_PROB_SHIFT);
		vars.integral = vars.mean_loss = vars.prob;
		flows_settled(&vars);
		for (n = 0; n < 50; n++)
			pi_update(&params, &vars, 165);
		for (n = 0; n < 40000; n++) {
			uint64_t before = vars.prob, b = vars.b_frac;

			pi_update(&params, &vars, 0);
			if (!vars.prob && zero_at < 0)
				zero_at = n;
			retunes += vars.b_frac != b;
			/* a retune may move p by its change of b times e, no more */
			rises += vars.prob > before && vars.b_frac == b;
		}
		check(zero_at >= 0 && !rises && !vars.prob,
		      "flows %s: an empty queue takes p to 0 (after %d steps, %d retunes) and stays there; p rose %d times but at a retune",
		      flows[f] == PI_FLOWS_AUTO ? "auto" : "16", zero_at, retunes, rises);
	}
}

/*
 * flows auto reads N from p's mean over about PI_FLOWS_MEAN_RTTS round
 * trips: an empty queue for one round trip leaves the design near N; one
 * that lasts takes N down to one flow as the integral unwinds, and an idle
 * link's mean settles at 0.
 */
static void test_flows_mean(void)
{
	struct pi_params params;
	struct pi_vars vars;
	double c, p16, after_dip, rtt_steps;
	int n, steps_to_one = -1, rises = 0;
	uint32_t ref;

	flows_auto_link(&params, &vars);
	c = ldexp((double)pi_bandwidth_q16(&params), -16);
	p16 = ref_response_p(PI_RESPONSE_CUBIC, 0.068 * c / 16, 0.068);
	vars.prob = (uint64_t)ldexp(p16, PI_PROB_SHIFT);
	vars.integral = vars.mean_loss = vars.prob;
	flows_settled(&vars);
	ref = pi_reference_pkts(&params, pi_bandwidth_q16(&params));
	for (n = 0; n < 200; n++)	/* the queue at the reference: p holds */
		pi_update(&params, &vars, ref);
	check(fabs(ldexp((double)vars.tuned_flows_q16, -16) / 16 - 1) < 0.13,
	      "flows auto, p held at 16 flows' %.3g: designed for %.2f flows",
	      p16, ldexp((double)vars.tuned_flows_q16, -16));

	rtt_steps = 0.068 * params.freq_mhz / 1000;
	for (n = 0; n < (int)ceil(rtt_steps); n++)
		pi_update(&params, &vars, 0);
	after_dip = ldexp((double)vars.tuned_flows_q16, -16);
	check(after_dip >= 12,
	      "flows auto: an empty queue for one round trip (%d updates, p down to %.2g) leaves the design at %.2f flows",
	      (int)ceil(rtt_steps), ldexp((double)vars.prob, -PI_PROB_SHIFT), after_dip);

	/*
	 * p = I - b q_ref falls as the integral unwinds, (a - b) q_ref an
	 * update, and N with p's mean (the gains fall with N, and the
	 * unwinding slows, as in ns-2's form, where p itself unwinds)
	 */
	for (n = 0; n < 100000 && steps_to_one < 0; n++) {
		uint64_t before = vars.tuned_flows_q16;

		pi_update(&params, &vars, 0);
		rises += vars.tuned_flows_q16 > before;
		/* within the retune band of one flow: N <= 8/7 */
		if (vars.tuned_flows_q16 <= (8 << PI_FLOWS_SHIFT) / 7)
			steps_to_one = n;
	}
	check(steps_to_one > 0 && rises < 10,
	      "flows auto: an empty queue that lasts takes the design down to one flow (%.0f round trips; N rose at %d retunes, where b's fall lifted p = I - b q_ref)",
	      steps_to_one / rtt_steps, rises);
	for (n = 0; n < 100000 && pi_update(&params, &vars, 0); n++)
		;
	check(!vars.mean_loss && !pi_update(&params, &vars, 0),
	      "flows auto: an idle link's mean reaches 0 and its timer may stop (%d more updates)",
	      n);
}

/*
 * a flow's hash, as random as skb_get_hash()'s (splitmix64's finaliser):
 * linear counting assumes hashes that collide at random
 */
static uint32_t flow_hash(unsigned int flow)
{
	uint64_t z = (flow + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* @count arrivals of @flows flows in turn, as pi_qdisc_enqueue() meets them */
static void flows_arrive(const struct pi_params *params, struct pi_vars *vars,
			 unsigned int flows, double count, uint64_t *rng)
{
	static unsigned int next;

	for (; count >= 1; count--, next = (next + 1) % flows)
		if (pi_count_due(params, vars))
			pi_count_flow(vars, flow_hash(next % flows),
				      (uint32_t)(test_uniform(rng) * 4294967296.0));
}

/*
 * flows auto where the limit carries the loss: p at 0 (the queue at the
 * reference), the limit dropping the share 16 flows meet, 16 flows
 * arriving. N reads the loss rate, not p: 16 flows, where from p it would
 * stay at one.
 */
static void test_flows_limit_loss(void)
{
	struct pi_params params;
	struct pi_vars vars;
	double c, p16, per_update, owed = 0, n_min = 1e9, n_max = 0;
	uint64_t dropped = 0, served = 0, rng = 3;
	uint32_t ref;
	int n;

	flows_auto_link(&params, &vars);
	c = ldexp((double)pi_bandwidth_q16(&params), -16);
	p16 = ref_response_p(PI_RESPONSE_CUBIC, 0.068 * c / 16, 0.068);
	per_update = c * 1000 / params.freq_mhz;
	ref = pi_reference_pkts(&params, pi_bandwidth_q16(&params));
	for (n = 0; n < 8000; n++) {	/* settled from n = 6000 on */
		for (owed += p16 * per_update; owed >= 1; owed--, dropped++)
			pi_limit_dropped(&vars);
		served += (uint64_t)per_update;
		flows_arrive(&params, &vars, 16, per_update, &rng);
		pi_update(&params, &vars, ref);
		if (n >= 6000) {
			double flows = ldexp((double)vars.tuned_flows_q16, -16);

			n_min = fmin(n_min, flows);
			n_max = fmax(n_max, flows);
		}
	}
	check(!vars.prob && n_min > 16 * 0.8 && n_max < 16 * 1.25,
	      "flows auto: the limit dropping 16 flows' %.3g (%llu of %llu packets), p at 0: designed for %.1f-%.1f flows",
	      p16, (unsigned long long)dropped, (unsigned long long)served, n_min, n_max);

	for (n = 0; n < 4000; n++) {
		flows_arrive(&params, &vars, 16, per_update, &rng);
		pi_update(&params, &vars, ref);
	}
	check(ldexp((double)vars.tuned_flows_q16, -16) < 8.0 / 7,
	      "flows auto: the limit's drops over, p at 0, 16 flows still counted: back to one flow (%.2f)",
	      ldexp((double)vars.tuned_flows_q16, -16));

	for (n = 0; n < 2000; n++) {
		int k;

		for (k = 0; k < 10 * (int)per_update; k++)
			pi_limit_dropped(&vars);
		pi_update(&params, &vars, ref);
	}
	check(vars.mean_loss <= PI_PROB_ONE && vars.mean_loss > PI_PROB_ONE / 2 &&
	      !vars.limit_drops,
	      "flows auto: ten times the packets served dropped at the limit counts as a loss rate of 1 (%.4f)",
	      ldexp((double)vars.mean_loss, -PI_PROB_SHIFT));

	params.flows = 16;
	pi_retune(&params, &vars, true);
	pi_limit_dropped(&vars);
	pi_update(&params, &vars, ref);
	check(!vars.limit_drops && vars.mean_loss == vars.prob,
	      "flows 16: the limit's drops are not kept");
}

/*
 * flows auto counts the flows in its arrivals: 1 to 64 flows in turn at
 * 10 Mbit/s (every arrival sampled; a window holds 80 arrivals), 1 to 500
 * at 10 Gbit/s (one in 2^s, where a fixed stride of 2^s would meet one
 * flow of 64), within about three times the linear count's standard error
 * (4.6% at 64 flows, 6.5% at 500); a window with no arrival counts none.
 */
static void test_flows_count(void)
{
	static const unsigned int flows[] = { 1, 4, 16, 64, 256, 500 };
	static const double rates[] = { 10e6, 10e9 };
	uint64_t rng = 42;
	unsigned int i, j, windows;

	for (j = 0; j < sizeof(rates) / sizeof(rates[0]); j++) {
		for (i = 0; i < sizeof(flows) / sizeof(flows[0]) &&
		     (rates[j] > 10e6 || flows[i] <= 64); i++) {
			struct pi_params params;
			struct pi_vars vars;
			double per_update, worst = 0;
			uint32_t ref;
			int n;

			flows_auto_link(&params, &vars);
			params.bandwidth_bps = (uint64_t)(rates[j] / 8);
			ref = pi_reference_pkts(&params, pi_bandwidth_q16(&params));
			per_update = rates[j] / 8 / 1514 * 1000 / params.freq_mhz;
			for (n = 0, windows = 0; n < 2000; n++) {
				uint32_t before = vars.count_updates;

				flows_arrive(&params, &vars, flows[i], per_update, &rng);
				pi_update(&params, &vars, ref);
				/* from the second window on: the first sampled all */
				if (vars.count_updates < before && ++windows > 1)
					worst = fmax(worst, fabs((double)vars.counted_flows /
								 flows[i] - 1));
			}
			check(windows > 10 && worst < (flows[i] > 64 ? 0.2 : 0.15),
			      "flows auto at %g bit/s: %u flows in turn counted within %.1f%% over %u windows (one in 2^%u sampled)",
			      rates[j], flows[i], 100 * worst, windows, vars.count_shift);
			if (j == 1 && flows[i] == 64)
				check(vars.count_shift >= 6,
				      "flows auto at 10 Gbit/s samples one arrival in 2^%u",
				      vars.count_shift);
			for (n = 0; n < 100; n++)
				pi_update(&params, &vars, ref);
			check(!vars.counted_flows && !vars.log2_counted_flows,
			      "flows auto: windows without arrivals count %u flows",
			      vars.counted_flows);
		}
	}
}

/* the response functions' loss rate at a window: their window inverted */
static void test_response_loss(void)
{
	static const double windows[] = { 2, 10, 38, 39, 100, 1000, 1e4, 1e5 };
	double worst = 0, worst_p = 0;
	unsigned int resp, i;

	for (resp = 0; resp <= PI_RESPONSE_CUBIC; resp++) {
		for (i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
			s64 log2_r = (s64)nearbyint(ldexp(log2(0.068), 32));
			s64 log2_w = (s64)nearbyint(ldexp(log2(windows[i]), 32));
			s64 log2_p = pi_response_log2_loss(resp, PI_CUBIC_C_MICRO,
							   log2_w, log2_r);
			s64 back = pi_response_log2_window(resp, PI_CUBIC_C_MICRO,
							   log2_p, log2_r);
			double p = exp2(ldexp((double)log2_p, -32));

			worst = fmax(worst, fabs(exp2(ldexp((double)(back - log2_w), -32)) - 1));
			worst_p = fmax(worst_p, fabs(p / ref_response_p(resp, windows[i], 0.068) - 1));
		}
	}
	check(worst < 1e-6 && worst_p < 1e-6,
	      "the loss rate at a window, 2 to 1e5 packets, inverts each response's window (within %.2g) and matches doubles (within %.2g)",
	      worst, worst_p);
}

/*
 * margin auto with flows auto: the flows counted place the crossover, not
 * the design's N (read from p). 16 CUBIC flows arriving with p at 0, so N
 * read as one: the crossover a design for 16 flows has, with the gains of
 * one flow's; then 4 arriving: 4's. A margin configured is not moved.
 */
static void test_margin_auto_counted(void)
{
	static const unsigned int flows[] = { 16, 4 };
	struct pi_params params;
	struct pi_vars vars;
	uint64_t rng = 11, cap_q16;
	double per_update, counted;
	unsigned int i, want, alone;
	uint32_t ref;
	int n;

	flows_auto_link(&params, &vars);
	params.margin_deg = PI_MARGIN_AUTO;
	cap_q16 = pi_bandwidth_q16(&params);
	ref = pi_reference_pkts(&params, cap_q16);
	per_update = ldexp((double)cap_q16, -16) * 1000 / params.freq_mhz;
	for (i = 0; i < sizeof(flows) / sizeof(flows[0]); i++) {
		struct pi_design d, d1;

		for (n = 0; n < 2000; n++) {
			flows_arrive(&params, &vars, flows[i], per_update, &rng);
			pi_update(&params, &vars, ref);
		}
		pi_design_rules(cap_q16, vars.tuned_loss_flows_q16,
				pi_design_rtt_us(&params, cap_q16), PI_RESPONSE_CUBIC,
				PI_CUBIC_C_MICRO, PI_MARGIN_AUTO, 0, &d);
		pi_design_rules(cap_q16, 1ULL << PI_FLOWS_SHIFT,
				pi_design_rtt_us(&params, cap_q16), PI_RESPONSE_CUBIC,
				PI_CUBIC_C_MICRO, PI_MARGIN_AUTO, 0, &d1);
		want = pi_margin_of(d.log2_wgr);
		alone = pi_margin_of(d1.log2_wgr);
		counted = ldexp((double)vars.tuned_loss_flows_q16, -PI_FLOWS_SHIFT);
		check(!vars.prob && vars.tuned_flows_q16 == 1ULL << PI_FLOWS_SHIFT &&
		      fabs(counted / flows[i] - 1) < 0.2 && vars.tuned_margin_deg == want &&
		      want + 1 < alone,
		      "margin auto, flows auto: %u flows, counted as %.1f, with p at 0 place the crossover at margin %u (a design for %.1f flows: %u; for one: %u), the design's N at %.2f",
		      flows[i], counted, vars.tuned_margin_deg, counted, want, alone,
		      ldexp((double)vars.tuned_flows_q16, -PI_FLOWS_SHIFT));
	}

	params.margin_deg = 75;
	pi_retune(&params, &vars, true);
	check(vars.tuned_margin_deg == 75 && !vars.tuned_loss_flows_q16,
	      "flows auto with margin 75: the count moves no crossover (margin %u)",
	      vars.tuned_margin_deg);
}

/* p at @p4, four flows' need, settled there with the 4 flows arriving */
static void four_flows_settled(const struct pi_params *params, struct pi_vars *vars,
			       double p4, double per_update, uint32_t ref, uint64_t *rng)
{
	int n;

	vars->prob = vars->integral = vars->mean_loss = (uint64_t)ldexp(p4, PI_PROB_SHIFT);
	flows_settled(vars);
	for (n = 0; n < 200; n++) {
		flows_arrive(params, vars, 4, per_update, rng);
		pi_update(params, vars, ref);
	}
}

/*
 * The N the limit's drops add is at most the flows counted; p's own N
 * follows p's mean. A burst at the limit for ten round trips (slow
 * start's overshoot: 5% of the packets dropped) reads as many tens of
 * flows, and leaves a design settled at four, four flows counted, at
 * four; the limit carrying sixteen flows' loss with p at 0 brings the
 * design to them within a few PI_LIMIT_MEAN_RTTS where the sixteen are
 * counted, and not at all where none is; and keeps it near them where
 * the limit drops in clusters (a mean over a few round trips would fall
 * to nothing between them); p's rise from four flows' to sixteen's within
 * a few PI_FLOWS_MEAN_RTTS.
 */
static void test_flows_rise(void)
{
	struct pi_params params;
	struct pi_vars vars;
	double c, p4, p16, per_update, rtt_steps, owed = 0, peak = 0, read_peak = 0;
	uint64_t cap_q16, rtt_us, rng = 7;
	int n, limit_at = -1, prob_at = -1;
	uint32_t ref;

	flows_auto_link(&params, &vars);
	cap_q16 = pi_bandwidth_q16(&params);
	rtt_us = pi_design_rtt_us(&params, cap_q16);
	c = ldexp((double)cap_q16, -16);
	p4 = ref_response_p(PI_RESPONSE_CUBIC, 0.068 * c / 4, 0.068);
	p16 = ref_response_p(PI_RESPONSE_CUBIC, 0.068 * c / 16, 0.068);
	per_update = c * 1000 / params.freq_mhz;
	rtt_steps = rtt_us * 1e-6 * params.freq_mhz / 1000;
	ref = pi_reference_pkts(&params, cap_q16);
	four_flows_settled(&params, &vars, p4, per_update, ref, &rng);
	for (n = 0; n < 20 * (int)rtt_steps; n++) {	/* and ten after it */
		if (n < 10 * (int)rtt_steps)
			for (owed += 0.05 * per_update; owed >= 1; owed--)
				pi_limit_dropped(&vars);
		flows_arrive(&params, &vars, 4, per_update, &rng);
		pi_update(&params, &vars, ref);
		peak = fmax(peak, design_flows(&params, &vars));
		read_peak = fmax(read_peak, exp2(ldexp((double)pi_loss_log2_flows(
			&params, vars.mean_loss, cap_q16, rtt_us), -32)));
	}
	check(read_peak > 20 && fabs(peak / 4 - 1) < 0.1,
	      "flows auto: ten round trips of 5%% limit drops on 4 flows' p, 4 flows counted, read as up to %.0f flows; the design went to %.2f",
	      read_peak, peak);

	/* p at 0, the limit dropping 16 flows' loss rate, none counted */
	pi_rest(&vars);
	for (n = 0; n < 8 * PI_LIMIT_MEAN_RTTS * (int)rtt_steps; n++) {
		for (owed += p16 * per_update; owed >= 1; owed--)
			pi_limit_dropped(&vars);
		pi_update(&params, &vars, ref);
		peak = design_flows(&params, &vars);
	}
	check(!vars.prob && peak == 1,
	      "flows auto: the limit carrying 16 flows' loss, p at 0, no flow counted: the design stays at %.2f",
	      peak);

	/* the same with the 16 flows' arrivals counted */
	pi_rest(&vars);
	for (n = 0; n < 8 * PI_LIMIT_MEAN_RTTS * (int)rtt_steps && limit_at < 0; n++) {
		for (owed += p16 * per_update; owed >= 1; owed--)
			pi_limit_dropped(&vars);
		flows_arrive(&params, &vars, 16, per_update, &rng);
		pi_update(&params, &vars, ref);
		if (design_flows(&params, &vars) >= 12)
			limit_at = n;
	}
	check(!vars.prob && limit_at >= 0 && limit_at < 2 * PI_LIMIT_MEAN_RTTS * rtt_steps,
	      "flows auto: the limit carrying 16 flows' loss, p at 0, %u flows counted: the design reaches 12 after %.0f round trips (the limit's share's mean over %d)",
	      vars.counted_flows, limit_at / rtt_steps, PI_LIMIT_MEAN_RTTS);

	/* the same loss in clusters, one round trip every 30 (the queue's overshoots) */
	pi_rest(&vars);
	for (n = 0, peak = 1e9; n < 8 * PI_LIMIT_MEAN_RTTS * (int)rtt_steps; n++) {
		if (n % (30 * (int)rtt_steps) < (int)rtt_steps)
			for (owed += 30 * p16 * per_update; owed >= 1; owed--)
				pi_limit_dropped(&vars);
		flows_arrive(&params, &vars, 16, per_update, &rng);
		pi_update(&params, &vars, ref);
		if (n >= 4 * PI_LIMIT_MEAN_RTTS * (int)rtt_steps)
			peak = fmin(peak, design_flows(&params, &vars));
	}
	check(peak >= 8,
	      "flows auto: the limit carrying 16 flows' loss in clusters 30 round trips apart, p at 0, 16 flows counted: the design stays at %.1f or more",
	      peak);

	/* p itself from 4 flows' to 16 flows' */
	pi_rest(&vars);
	vars.prob = vars.integral = vars.mean_loss = (uint64_t)ldexp(p4, PI_PROB_SHIFT);
	flows_settled(&vars);
	vars.prob = vars.integral = (uint64_t)ldexp(p16, PI_PROB_SHIFT);
	for (n = 0; n < 8 * PI_LIMIT_MEAN_RTTS * (int)rtt_steps && prob_at < 0; n++) {
		pi_update(&params, &vars, ref);
		if (design_flows(&params, &vars) >= 14)
			prob_at = n;
	}
	check(prob_at >= 0 && prob_at < 4 * PI_FLOWS_MEAN_RTTS * rtt_steps,
	      "flows auto: p from 4 flows' to 16 flows': the design reaches 14 after %.0f round trips (p's mean over %d)",
	      prob_at / rtt_steps, PI_FLOWS_MEAN_RTTS);
}

/*
 * Above twice the reference p's mean rises only up to the flows counted:
 * slow start's overshoot (the
 * queue at 6 q_ref for a second) makes a p that reads more flows than
 * there are, and a design for them raised p, which read more (in a run:
 * 77 flows with 4 counted, the integral wound up to 140 times the p four
 * flows need). The design stays at four and the integral rises by at
 * most (a - b) q_ref an update of their gains; from rest (one flow's
 * design, p = 0) it still rises to the four (not at all, a queue at 2.5-4
 * times its target held a one-flow design for 25 s). At an operating point (the
 * queue at q_ref) p's N follows p above the count: sixteen flows' p with
 * four counted brings the design to sixteen within a few
 * PI_FLOWS_MEAN_RTTS.
 */
static void test_flows_overshoot(void)
{
	struct pi_params params;
	struct pi_vars vars;
	double p4, p16, per_update, rtt_steps, peak = 0, read_peak = 0, rise, most;
	uint64_t cap_q16, rtt_us, rng = 5, a_minus_b, integral0;
	int n, steps, rise_at = -1;
	uint32_t ref;

	flows_auto_link(&params, &vars);
	cap_q16 = pi_bandwidth_q16(&params);
	rtt_us = pi_design_rtt_us(&params, cap_q16);
	p4 = ref_response_p(PI_RESPONSE_CUBIC, 0.068 * ldexp((double)cap_q16, -16) / 4, 0.068);
	per_update = ldexp((double)cap_q16, -16) * 1000 / params.freq_mhz;
	ref = pi_reference_pkts(&params, cap_q16);
	four_flows_settled(&params, &vars, p4, per_update, ref, &rng);
	a_minus_b = vars.a_frac - vars.b_frac;
	integral0 = vars.integral;
	steps = (int)(params.freq_mhz / 1000);	/* a second */
	for (n = 0; n < steps; n++) {
		flows_arrive(&params, &vars, 4, per_update, &rng);
		pi_update(&params, &vars, 6 * ref);
		peak = fmax(peak, design_flows(&params, &vars));
		read_peak = fmax(read_peak, exp2(ldexp((double)pi_loss_log2_flows(
			&params, vars.prob, cap_q16, rtt_us), -32)));
	}
	rise = ldexp((double)(vars.integral - integral0), -PI_PROB_SHIFT);
	most = ldexp((double)a_minus_b, -64) * ref * steps;
	check(read_peak > 6 && peak < 4.4 && rise <= 1.01 * most,
	      "flows auto: a second at 6 q_ref, 4 flows counted: p (%.2g at the end) read up to %.0f flows, the design went to %.2f, the integral rose %.3g (at most %.3g, a design for 4; p4 %.3g)",
	      prob_of(&vars), read_peak, peak, rise, most, p4);

	/* from rest (p = 0, one flow's design), 20 s at 5 q_ref, 4 counted */
	pi_vars_init(&vars);
	peak = 0;
	for (n = 0; n < 20 * steps; n++) {
		flows_arrive(&params, &vars, 4, per_update, &rng);
		pi_update(&params, &vars, 5 * ref);
		peak = fmax(peak, design_flows(&params, &vars));
	}
	check(design_flows(&params, &vars) > 3.5 && peak < 4.4,
	      "flows auto: from rest, 20 s at 5 q_ref, %u flows counted: the design reached %.2f (at most %.2f; p %.3g)",
	      vars.counted_flows, design_flows(&params, &vars), peak, prob_of(&vars));

	/* at the reference, with sixteen flows' p and four counted */
	p16 = ref_response_p(PI_RESPONSE_CUBIC, 0.068 * ldexp((double)cap_q16, -16) / 16, 0.068);
	four_flows_settled(&params, &vars, p4, per_update, ref, &rng);
	rtt_steps = rtt_us * 1e-6 * params.freq_mhz / 1000;
	for (n = 0; n < 8 * PI_FLOWS_MEAN_RTTS * (int)rtt_steps && rise_at < 0; n++) {
		vars.prob = vars.integral = (uint64_t)ldexp(p16, PI_PROB_SHIFT);
		flows_arrive(&params, &vars, 4, per_update, &rng);
		pi_update(&params, &vars, ref);
		if (design_flows(&params, &vars) >= 14)
			rise_at = n;
	}
	check(vars.counted_flows <= 5 && rise_at >= 0 &&
	      rise_at < 4 * PI_FLOWS_MEAN_RTTS * rtt_steps,
	      "flows auto: at the reference, sixteen flows' p, %u flows counted: the design reaches 14 after %.0f round trips (p's mean over %d; -1: not in %d)",
	      vars.counted_flows, rise_at < 0 ? -1 : rise_at / rtt_steps, PI_FLOWS_MEAN_RTTS,
	      8 * PI_FLOWS_MEAN_RTTS);
}

/* autotune on a 100 Mbit/s link designed for 16 flows; returns q_ref */
static uint32_t sixteen_flow_law(struct pi_params *params, struct pi_vars *vars)
{
	uint32_t ref;

	flows_auto_link(params, vars);
	params->flows = 16;
	ref = pi_reference_pkts(params, pi_bandwidth_q16(params));
	pi_retune(params, vars, true);
	return ref;
}

/*
 * A swing to an empty queue that clamps p to 0: autotune's integral keeps
 * what the errors made it (p back at the reference is I + (a - b) times
 * their sum), where ns-2's form, with the same gains set by hand, restarts
 * p from 0 and comes back at b q_ref, whatever p was before.
 */
static void test_clamp_keeps_integral(void)
{
	struct pi_params params;
	struct pi_vars vars;
	long double expect;
	double p_auto, p_manual, bref;
	uint32_t ref;
	int n;

	ref = sixteen_flow_law(&params, &vars);
	bref = ldexp((double)vars.b_frac, -64) * ref;
	vars.prob = vars.integral = vars.mean_loss = (uint64_t)ldexp(bref / 5, PI_PROB_SHIFT);
	pi_update(&params, &vars, ref);
	expect = ldexpl((long double)vars.integral, -PI_PROB_SHIFT);
	for (n = 0; n < 20; n++) {
		pi_update(&params, &vars, 0);
		expect -= ldexpl((long double)(vars.a_frac - vars.b_frac), -64) * ref;
	}
	check(!vars.prob, "autotune: an empty queue clamps p to 0 where I < b q_ref");
	for (n = 0; n < 20; n++)
		pi_update(&params, &vars, ref);
	p_auto = ldexp((double)vars.prob, -PI_PROB_SHIFT);

	params.a_frac = vars.a_frac;
	params.b_frac = vars.b_frac;
	params.autotune = false;
	pi_retune(&params, &vars, true);
	vars.prob = vars.integral = (uint64_t)ldexp(bref / 5, PI_PROB_SHIFT);
	pi_update(&params, &vars, ref);
	for (n = 0; n < 20; n++)
		pi_update(&params, &vars, 0);
	for (n = 0; n < 20; n++)
		pi_update(&params, &vars, ref);
	p_manual = ldexp((double)vars.prob, -PI_PROB_SHIFT);

	check(fabsl(p_auto / expect - 1) < 1e-9 && p_auto < bref / 5,
	      "autotune: back at the reference after 20 updates of empty queue, p = I + (a - b) sum e (%.4g; it was %.4g)",
	      p_auto, bref / 5);
	check(fabs(p_manual / bref - 1) < 1e-6,
	      "ns-2's form (gains set by hand): the same swing brings p back at b q_ref (%.4g, b q_ref %.4g)",
	      p_manual, bref);
}

/*
 * Autotune's integral counts the error up to q_ref, the proportional part
 * all of it: an overshoot to 5 q_ref winds I up by (a - b) q_ref an update,
 * no more than an empty queue unwinds it, with p = I + b 4 q_ref meanwhile;
 * within twice the reference the law is unchanged.
 */
static void test_integral_counts_up_to_reference(void)
{
	struct pi_params params;
	struct pi_vars vars;
	long double i0, ki, i_over, i_empty, i_within, b;
	double p_over;
	uint32_t ref;
	int n;

	ref = sixteen_flow_law(&params, &vars);
	ki = ldexpl((long double)(vars.a_frac - vars.b_frac), -64);
	b = ldexpl((long double)vars.b_frac, -64);
	vars.prob = vars.integral = vars.mean_loss = (uint64_t)ldexp(1e-3, PI_PROB_SHIFT);
	vars.qold_pkts = ref;
	i0 = ldexpl((long double)vars.integral, -PI_PROB_SHIFT);

	for (n = 0; n < 50; n++)
		pi_update(&params, &vars, 5 * ref);
	i_over = ldexpl((long double)vars.integral, -PI_PROB_SHIFT);
	p_over = ldexp((double)vars.prob, -PI_PROB_SHIFT);
	check(fabsl((i_over - i0) / (50 * ki * ref) - 1) < 1e-6,
	      "autotune: 50 updates at 5 q_ref add 50 (a - b) q_ref to I, not 50 (a - b) 4 q_ref (%.6Lg, expected %.6Lg)",
	      i_over - i0, 50 * ki * ref);
	check(fabsl(p_over / (i_over + b * 4 * ref) - 1) < 1e-6,
	      "autotune: the proportional part takes all of the error there: p = I + b 4 q_ref (%.6g)",
	      p_over);

	for (n = 0; n < 50; n++)
		pi_update(&params, &vars, 0);
	i_empty = ldexpl((long double)vars.integral, -PI_PROB_SHIFT);
	check(fabsl(i_empty / i0 - 1) < 1e-9,
	      "autotune: as many updates of empty queue take it back (I %.9Lg, it was %.9Lg)",
	      i_empty, i0);

	for (n = 0; n < 50; n++)
		pi_update(&params, &vars, 2 * ref);
	i_within = ldexpl((long double)vars.integral, -PI_PROB_SHIFT);
	check(fabsl((i_within - i_empty) / (50 * ki * ref) - 1) < 1e-6,
	      "autotune: within twice the reference the integral counts all of the error (%.6Lg, expected %.6Lg)",
	      i_within - i_empty, 50 * ki * ref);
}

/*
 * pi_segments_kept() makes a GSO skb's decisions as its segments one by
 * one would (each the arrival it is, the backlog grown by those before it,
 * the same random numbers) up to the first drop, and no more: the same
 * count kept, the same state after, the same numbers drawn. Random states:
 * p 0 or not, backlogs across the two-packet floor, both spacings.
 */
static void test_segments_kept(void)
{
	struct pi_params params;
	struct pi_vars start, one;
	uint64_t rng = 31;
	struct test_ahead t = { 0 };
	long i, floor_skips = 0;

	pi_params_init(&params, 1514);
	for (i = 0; i < 100000; i++) {
		uint64_t r = test_rand64(&rng), backlog = (r >> 8) % 8 * 1000;
		uint32_t segs = 2 + r % 63, kept, s;
		long one_draws;

		params.even_spacing = r & (1ULL << 20);
		pi_vars_init(&start);
		start.prob = r & (1ULL << 21) ? 0 : test_rand64(&rng) % (PI_PROB_ONE / 50);
		start.accu = params.even_spacing && start.prob ?
			     test_rand64(&rng) % PI_PROB_ONE : 0;
		one = start;
		test_draws_restart(r);
		for (s = 0; s < segs; s++) {
			uint64_t b = backlog + (uint64_t)s * 1514;

			floor_skips += one.prob && !pi_backlog_allows_drop(&params, b);
			if (pi_arrival_drops(&params, &one, b, test_draw))
				break;
		}
		one_draws = test_draws;
		test_draws_restart(r);
		kept = pi_segments_kept(&params, &start, backlog, 1514, segs, test_draw);
		test_ahead_tally(&t, segs, s, one_draws, &one, kept, &start, sizeof(start));
	}
	check(t.differ == 0 && t.whole > 10000 && t.cut > 10000 && floor_skips > 1000,
	      "a GSO skb's decisions are its segments' one by one up to the first drop "
	      "(100000 random states: %ld whole, %ld cut, %ld decisions skipped below two "
	      "packets of backlog; %ld differences)", t.whole, t.cut, floor_skips, t.differ);
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
	test_even_spacing(0.3, 1000000);
	test_even_spacing(1.5e-5, 10000000);
	test_even_spacing(1.0, 1000);
	test_log2_exp2();
	test_rules_paper();
	test_rules_match_reference();
	test_margin_table();
	test_margin_loop();
	test_margin_auto();
	test_autotune();
	test_default_response();
	test_flows_estimate();
	test_delay_target();
	test_cubic_c();
	test_gain_changes();
	test_empty_queue_rests();
	test_flows_mean();
	test_flows_limit_loss();
	test_flows_count();
	test_response_loss();
	test_margin_auto_counted();
	test_flows_rise();
	test_flows_overshoot();
	test_clamp_keeps_integral();
	test_integral_counts_up_to_reference();
	test_shaper_bursts();
	test_gso_dequeues();
	test_skipped_dequeues();
	test_backlog_floor();
	test_segments_kept();
	return aqm_test_failures ? 1 : 0;
}
