// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the ARED core (kmod/core/ared.h) against a double-precision
 * reference of the same rules (ns-2 2.35 red.cc).
 *
 * Bounds, stated where they are checked:
 *  - average queue: |avg - avg_ref| <= 1e-6 packets over 10^7 arrivals with
 *    idle periods (w from 1.2e-5 to 0.5);
 *  - automatic weight: within 1e-12 relative + 2^-62 absolute (4 units of
 *    the Q64 result) of -expm1(-1/C), for 1/C from 1 ns to 1 s;
 *  - p_b: |p_b - p_ref| <= 1e-12;
 *  - p_a: within 1e-12 relative + 2^-60 absolute (4 units of Q62), where
 *    the double reference itself is good (|1 - count p_b| > 1e-3);
 *  - (1 - w)^m: relative error <= 1e-12 while the result is above 1e-300.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aqm_test.h"
#include "ared.h"

#define GBIT_BPS	125000000ULL	/* 1 Gbit/s in bytes/s */
#define MTU		1500

static double prob_d(uint64_t p)
{
	return ldexp((double)p, -ARED_PROB_SHIFT);
}

static uint64_t prob_q(double p)
{
	return (uint64_t)nearbyint(ldexp(p, ARED_PROB_SHIFT));
}

static double frac_d(uint64_t f)
{
	return ldexp((double)f, -64);
}

static double avg_d(const struct ared_vars *v)
{
	return (double)v->avg_pkts + ldexp((double)v->avg_frac, -64);
}

static void set_avg(struct ared_vars *v, double avg)
{
	v->avg_pkts = (uint64_t)floor(avg);
	v->avg_frac = (uint64_t)ldexp(avg - floor(avg), 64);
}

static long draws;	/* random numbers verdict_of() used */

/* sch_ared.c's enqueue: a random number only when the core asks for one */
static enum ared_verdict verdict_of(const struct ared_params *p, struct ared_vars *v,
				    uint32_t qlen, uint32_t bytes, uint64_t now, uint32_t rnd)
{
	enum ared_verdict d = ared_enqueue_verdict(p, v, qlen, bytes, now);

	if (d != ARED_DRAW)
		return d;
	draws++;
	return ared_draw_verdict(p, v, rnd);
}

static void setup(struct ared_params *p, struct ared_vars *v, uint64_t rate)
{
	ared_params_init(p);
	*v = (struct ared_vars){ 0 };
	ared_vars_reset(p, v, 0);
	ared_derive(p, v, rate, MTU);
}

static void test_defaults(void)
{
	struct ared_params p;
	struct ared_vars v;
	double c = GBIT_BPS / (double)MTU;

	setup(&p, &v, GBIT_BPS);
	check(p.limit_pkts == 1000 && !p.min_pkts && !p.max_pkts &&
	      p.maxp == ARED_PROB_ONE / 10 && !p.weight_frac && p.gentle &&
	      p.wait && !p.adaptive && !p.ecn && !p.bytemode &&
	      p.interval_us == 500000,
	      "defaults: limit 1000, min/max/weight auto, maxp 0.1, gentle, wait, interval 500ms (ns-default.tcl)");
	check(fabs(frac_d(p.target_low_frac) - 0.4) < 1e-18 &&
	      fabs(frac_d(p.target_high_frac) - 0.6) < 1e-18 &&
	      fabs(frac_d(ARED_BETA_FRAC) - 0.9) < 1e-18,
	      "target band [0.4, 0.6] of max - min and beta 0.9 to 1e-18");
	check(v.pkt_time_ps == 12000000, "1 Gbit/s, 1500 bytes: 1/C = 12 us (%llu ps)",
	      (unsigned long long)v.pkt_time_ps);
	check(fabs(frac_d(v.weight_frac) / -expm1(-1 / c) - 1) < 1e-12,
	      "1 Gbit/s: auto w = %.9g = 1 - exp(-1/83333)", frac_d(v.weight_frac));
	/* 5 ms of 83333 pkt/s is 416.7 packets; half is 208, max 3 min */
	check(v.min_pkts == 208 && v.max_pkts == 624,
	      "1 Gbit/s: auto thresholds min 208, max 624 (got %u, %u)", v.min_pkts, v.max_pkts);
	check(fabs(prob_d(v.bottom) - 8e-5) < 1e-15,
	      "1 Gbit/s: adaptive bottom = 80000 / 1e9 = 8e-5 (got %g)", prob_d(v.bottom));

	ared_derive(&p, &v, 125000, MTU);	/* 1 Mbit/s */
	check(v.min_pkts == 5 && v.max_pkts == 15 && v.bottom == ARED_PROB_ONE / 100,
	      "1 Mbit/s: auto thresholds 5 and 15, bottom 0.01");
	ared_derive(&p, &v, 1250000000000ULL, MTU);	/* 10 Tbit/s */
	check(v.max_pkts == 1000 && v.min_pkts == 333,
	      "10 Tbit/s: auto max clipped to limit 1000, min = max / 3 (%u, %u)",
	      v.min_pkts, v.max_pkts);
	p.min_pkts = 625;
	ared_derive(&p, &v, GBIT_BPS, MTU);
	check(v.min_pkts == 625 && v.max_pkts == 1875, "min 625 alone gives max 1875 (red.cc)");
	p.min_pkts = 0;
	p.max_pkts = 1875;
	ared_derive(&p, &v, GBIT_BPS, MTU);
	check(v.min_pkts == 625 && v.max_pkts == 1875, "max 1875 alone gives min 625");
	p.limit_pkts = 1;
	p.max_pkts = 0;
	ared_derive(&p, &v, GBIT_BPS, MTU);
	check(v.min_pkts < v.max_pkts, "limit 1: auto thresholds still min < max (%u, %u)",
	      v.min_pkts, v.max_pkts);
}

static void test_auto_weight(void)
{
	double worst = 0;
	uint64_t ps;

	/* 1/C from 1 ps to 1 s, a factor 1.01 apart */
	/* 1/C from 1 ns (100 Gbit/s of 64-byte packets is 5 ns) to 1 s */
	for (ps = 1000; ps <= ARED_PSEC_PER_SEC; ps = ps * 101 / 100 + 1) {
		double x = ps * 1e-12, ref = -expm1(-x);
		/* beyond the 2^-64 resolution of the result itself */
		double err = fabs(frac_d(ared_auto_weight(ps)) - ref) /
			     (ref + 0x1p-62 / 1e-12);

		if (err > worst)
			worst = err;
	}
	check(worst <= 1e-12,
	      "auto w = 1 - exp(-1/C) for 1/C in [1 ns, 1 s]: err %.3g (bound 1e-12 rel + 2^-62 abs)",
	      worst);
	check(fabs(frac_d(ared_auto_weight(10 * ARED_PSEC_PER_SEC)) - (1 - exp(-1))) < 1e-15,
	      "C below 1 pkt/s is capped at w = 1 - 1/e");
}

static void test_decay_factor(void)
{
	static const double weights[] = { 1.2e-5, 0.002, 0.1, 0.5 };
	double worst = 0;
	unsigned int i;
	uint64_t m;

	for (i = 0; i < sizeof(weights) / sizeof(weights[0]); i++) {
		uint64_t w = (uint64_t)ldexp(weights[i], 64);
		double wd = frac_d(w);

		for (m = 1; m < (1ULL << 40); m = m * 3 + 1) {
			double ref = exp((double)m * log1p(-wd));
			double got = frac_d(ared_decay_factor(w, m));
			/* relative above 1e-6, absolute 1e-18 below */
			double err = fabs(got - ref) / fmax(ref, 1e-6);

			if (err > worst)
				worst = err;
		}
	}
	check(worst <= 1e-12, "(1 - w)^m by squaring, m up to 2^40: err %.3g (bound 1e-12 rel, 1e-18 abs)",
	      worst);
	check(ared_decay_factor(1ULL << 60, UINT64_MAX) == 0,
	      "a huge m decays to exactly 0 without overflow");
}

/* the reference estimator: red.cc estimator() in doubles */
struct ref_avg {
	double avg, w;
	int idle;
	uint64_t idle_start;
};

static void ref_update(struct ref_avg *r, const struct ared_vars *v,
		       unsigned int q, uint64_t now)
{
	if (r->idle) {
		uint64_t m = (now - r->idle_start) * 1000 / v->pkt_time_ps;

		r->avg *= exp((double)m * log1p(-r->w));
		r->idle = 0;
	}
	r->avg = r->avg * (1 - r->w) + r->w * q;
}

static void test_avg_trace(const char *name, uint64_t rate, double weight,
			   long arrivals)
{
	struct ared_params p;
	struct ared_vars v;
	struct ref_avg r = { 0 };
	uint64_t rng = 0x9e3779b97f4a7c15ULL, now = 0;
	double walk = 0, err = 0, lo = 1e9, hi = 0;
	long i, idles = 0;

	ared_params_init(&p);
	if (weight > 0)
		p.weight_frac = (uint64_t)nearbyint(ldexp(weight, 64));
	p.limit_pkts = 2500;
	v = (struct ared_vars){ 0 };
	ared_vars_reset(&p, &v, 0);
	ared_derive(&p, &v, rate, MTU);
	r.w = frac_d(v.weight_frac);
	r.idle = 1;

	for (i = 0; i < arrivals; i++) {
		unsigned int q;

		walk += (test_uniform(&rng) - 0.5) * 30;
		walk = fmin(fmax(walk, -1200), 1200);
		q = (unsigned int)fmin(fmax(1250 + walk + 1000 * sin(i / 2e5), 0), 2500);
		now += v.pkt_time_ps / 1000;
		/* now and then the queue drains and stays empty a while */
		if ((test_rand64(&rng) & 0xffff) == 0) {
			ared_dequeued(&v, now, MTU, 0);
			r.idle = 1;
			r.idle_start = now;
			now += test_rand64(&rng) % 50000000;	/* up to 50 ms */
			idles++;
		}
		ared_update_avg(&v, q, now);
		ref_update(&r, &v, q, now);
		err = fmax(err, fabs(avg_d(&v) - r.avg));
		lo = fmin(lo, r.avg);
		hi = fmax(hi, r.avg);
	}
	check(err <= 1e-6, "%s: %ld arrivals, %ld idle periods, max |avg - avg_ref| = %.3g pkts (bound 1e-6)",
	      name, arrivals, idles, err);
	check(hi - lo > 100, "%s: the average spans [%.1f, %.1f]", name, lo, hi);
}

/* the 64x64-bit products: __int128 on 64-bit hosts, halves under -m32 */
static void test_wide_multiply(void)
{
	uint64_t rng = 7;
	int i, bad_shr = 0, bad_div = 0, divs = 0;

	for (i = 0; i < 200000; i++) {
		uint64_t a = test_rand64(&rng) >> (test_rand64(&rng) & 63);
		uint64_t b = test_rand64(&rng) >> (test_rand64(&rng) & 63);
		uint64_t c = test_rand64(&rng) >> (test_rand64(&rng) & 63);
		unsigned int shift = test_rand64(&rng) % 128;
		struct test_u128 ab = test_mul_64x64(a, b), q;

		bad_shr += ared_mul_shr(a, b, shift) != test_shr_128(ab, shift).lo;
		if (!c)
			continue;
		q = test_div_128_64(ab, c);
		if (q.hi)
			continue;	/* the quotient must fit in 64 bits */
		divs++;
		bad_div += ared_mul_div(a, b, c) != q.lo;
	}
	check(bad_shr == 0, "a * b >> s matches a bitwise reference on 2 * 10^5 random cases (%d wrong)",
	      bad_shr);
	check(bad_div == 0 && divs > 100000,
	      "a * b / c matches a bitwise reference on %d random cases (%d wrong)", divs, bad_div);
}

static void test_wide_accumulator(void)
{
	struct ared_params p;
	struct ared_vars v;
	long i;

	/* w = 1.2e-5, queue steady at 1: avg must climb to 1 - (1-w)^n */
	setup(&p, &v, GBIT_BPS);
	v.idle = false;
	for (i = 0; i < 100000; i++)
		ared_update_avg(&v, 1, 0);
	check(fabs(avg_d(&v) - -expm1(100000 * log1p(-frac_d(v.weight_frac)))) < 1e-12,
	      "one packet queued, 10^5 arrivals at w = 1.2e-5: avg = 1 - (1-w)^n to 1e-12 (%.15f)",
	      avg_d(&v));
	/* near-1 weight and a full 32-bit queue neither overflow nor lose it */
	p.weight_frac = UINT64_MAX;
	ared_derive(&p, &v, GBIT_BPS, MTU);
	ared_update_avg(&v, UINT32_MAX, 0);
	check(v.avg_pkts == UINT32_MAX - 1 || v.avg_pkts == UINT32_MAX,
	      "w ~ 1 and q = 2^32 - 1: avg follows q without overflow (%llu)",
	      (unsigned long long)v.avg_pkts);
}

static void test_idle_decay(void)
{
	struct ared_params p;
	struct ared_vars v;
	double w, want;

	setup(&p, &v, GBIT_BPS);
	v.idle = false;
	set_avg(&v, 1000);
	ared_dequeued(&v, 1000000, MTU, 0);		/* empty at 1 ms */
	ared_update_avg(&v, 0, 1000000 + 10000000);	/* back 10 ms later */
	w = frac_d(v.weight_frac);
	/* 10 ms / 12 us = 833 packet times, then one arrival at q = 0 */
	want = 1000 * exp(834 * log1p(-w));
	check(fabs(avg_d(&v) - want) < 1e-9,
	      "idle 10 ms at 1 Gbit/s decays avg 1000 -> %.6f (ns-2: %.6f, m = 833)",
	      avg_d(&v), want);
	check(!v.idle, "the arrival ends the idle period");
	ared_dequeued(&v, 2000000000, MTU, 0);
	ared_update_avg(&v, 0, 2000000000 + 3600ULL * AQM_NSEC_PER_SEC);
	check(v.avg_pkts == 0 && v.avg_frac == 0, "an hour idle: avg exactly 0");
	/* the fast path: an empty average over an empty queue */
	ared_dequeued(&v, 2000000000, MTU, 0);
	ared_update_avg(&v, 0, 3000000000ULL);
	check(v.avg_pkts == 0 && v.avg_frac == 0 && !v.idle,
	      "avg 0, q 0: avg stays exactly 0 and the idle period ends");
	ared_update_avg(&v, 1, 3000001000ULL);
	check(fabs(avg_d(&v) - frac_d(v.weight_frac)) < 1e-12,
	      "avg 0, q 1: avg becomes w (%.3g)", avg_d(&v));
}

static void test_prob(void)
{
	struct ared_params p;
	struct ared_vars v;
	uint64_t rng = 3;
	double worst_lin = 0, worst_gentle = 0;
	int i;

	setup(&p, &v, GBIT_BPS);
	p.min_pkts = 625;
	p.max_pkts = 1875;
	p.limit_pkts = 5000;
	ared_derive(&p, &v, GBIT_BPS, MTU);
	for (i = 0; i < 100000; i++) {
		double maxp = 0.005 + 0.995 * test_uniform(&rng);
		double a = 625 + test_uniform(&rng) * 2 * 1875 - 1e-9, ref;

		v.cur_maxp = prob_q(maxp);
		maxp = prob_d(v.cur_maxp);
		set_avg(&v, a);
		a = avg_d(&v);
		if (a >= 2 * 1875)
			continue;
		if (a < 1875) {
			ref = maxp * (a - 625) / (1875 - 625);
			worst_lin = fmax(worst_lin, fabs(prob_d(ared_prob(&p, &v)) - ref));
		} else {
			ref = maxp + (1 - maxp) * (a - 1875) / 1875;
			worst_gentle = fmax(worst_gentle, fabs(prob_d(ared_prob(&p, &v)) - ref));
		}
	}
	check(worst_lin <= 1e-12, "p_b between min and max: max err %.3g (bound 1e-12)", worst_lin);
	check(worst_gentle <= 1e-12, "gentle p_b between max and 2 max: max err %.3g (bound 1e-12)",
	      worst_gentle);
	v.cur_maxp = ARED_PROB_ONE / 10;
	set_avg(&v, 1875);
	check(ared_prob(&p, &v) == ARED_PROB_ONE / 10, "gentle: p_b = max_p exactly at max");
	set_avg(&v, 3749.999);
	check(fabs(prob_d(ared_prob(&p, &v)) - 1) < 1e-6, "gentle: p_b -> 1 at 2 max");
	p.gentle = false;
	check(ared_prob(&p, &v) == ARED_PROB_ONE, "not gentle: p_b = 1 above max");
}

/* red.cc modify_p() in doubles */
static double ref_spaced(double pb, double count, int wait)
{
	if (wait) {
		if (count * pb < 1)
			return 0;
		if (count * pb < 2)
			return fmin(pb / (2 - count * pb), 1);
		return 1;
	}
	if (count * pb < 1)
		return fmin(pb / (1 - count * pb), 1);
	return 1;
}

static void test_spacing_formula(void)
{
	struct ared_params p;
	struct ared_vars v;
	uint64_t rng = 11;
	double worst[2] = { 0, 0 };
	int i, w;

	setup(&p, &v, GBIT_BPS);
	for (w = 0; w < 2; w++) {
		p.wait = w;
		for (i = 0; i < 200000; i++) {
			uint64_t pb = test_rand64(&rng) >> (2 + test_rand64(&rng) % 20);
			double ref, got;

			v.count = test_rand64(&rng) % (1 + (uint32_t)(4 / fmax(prob_d(pb), 1e-6)));
			ref = ref_spaced(prob_d(pb), v.count, w);
			got = prob_d(ared_prob_spaced(&p, &v, pb, MTU));
			/*
			 * The double reference loses digits where 1 - count p_b
			 * (2 - count p_b) nearly vanishes: compare where it is
			 * above 1e-3, and require p_a in [0, 1] everywhere.
			 */
			if (got < 0 || got > 1)
				worst[w] = 1;
			if (fabs((w ? 2 : 1) - v.count * prob_d(pb)) < 1e-3)
				continue;
			/* relative 1e-12, plus 4 units of the Q62 result */
			worst[w] = fmax(worst[w], fabs(got - ref) / (ref + 0x1p-60 / 1e-12));
		}
	}
	check(worst[0] <= 1e-12,
	      "p_a = p_b / (1 - count p_b): err %.3g (bound 1e-12 rel + 2^-60 abs)", worst[0]);
	check(worst[1] <= 1e-12,
	      "wait: p_a = p_b / (2 - count p_b) or 0 or 1: err %.3g (bound 1e-12 rel + 2^-60 abs)",
	      worst[1]);

	/* bytemode: count in mean packets, p_a scaled by size / avpkt */
	p.wait = false;
	p.bytemode = true;
	v.count = 0;
	v.count_bytes = 3000;	/* two mean packets */
	check(fabs(prob_d(ared_prob_spaced(&p, &v, prob_q(0.01), 750)) -
		   0.01 / (1 - 2 * 0.01) * 0.5) < 1e-15,
	      "bytemode: half-size packet, count 2 avpkt: p_a = p_b / (1 - 2 p_b) / 2");
	check(ared_prob_spaced(&p, &v, prob_q(0.9), 65535) == ARED_PROB_ONE,
	      "bytemode: a large packet saturates p_a at 1 without overflow");
}

/*
 * With avg pinned (w tiny, q = avg) the drops follow from p_b and count
 * alone. count is 1 at the first arrival after a drop, so without wait
 * P(gap = n) = p_b / (1 - p_b) for n in [1, 1/p_b - 1] (mean 1 / (2 p_b));
 * with wait the gaps are uniform on (1/p_b, 2/p_b) (mean 1.5 / p_b).
 */
static void test_spacing_traffic(int wait)
{
	struct ared_params p;
	struct ared_vars v;
	uint64_t rng = 5;
	long n = 0, gap = 0, gaps = 0, sum = 0, min_gap = 1 << 30, max_gap = 0;
	long cycle_start = 0, most_draws = 0;	/* draws in a gap beyond gap - 1/p_b */
	double pb, want;

	setup(&p, &v, GBIT_BPS);
	p.min_pkts = 100;
	p.max_pkts = 300;
	p.limit_pkts = 1000;
	p.wait = wait;
	p.weight_frac = 1;
	ared_derive(&p, &v, GBIT_BPS, MTU);
	set_avg(&v, 200);	/* p_b = 0.1 * 100 / 200 = 0.05 */
	v.idle = false;
	v.old = true;
	pb = 0.05;
	draws = 0;
	for (n = 0; n < 2000000; n++) {
		enum ared_verdict d = verdict_of(&p, &v, 200, MTU, 0,
						 (uint32_t)test_rand64(&rng));

		gap++;
		if (d == ARED_EARLY_DROP) {
			if (gaps++) {
				sum += gap;
				min_gap = gap < min_gap ? gap : min_gap;
				max_gap = gap > max_gap ? gap : max_gap;
			}
			if (draws - cycle_start - (gap - 20) > most_draws)
				most_draws = draws - cycle_start - (gap - 20);
			cycle_start = draws;
			gap = 0;
		} else if (d != ARED_ENQUEUE) {
			break;
		}
	}
	want = wait ? 1.5 / pb : 1 / (2 * pb);
	check(n == 2000000 && fabs((double)sum / (gaps - 1) / want - 1) < 0.01,
	      "%s: mean gap between early drops %.2f (expect %.2f +- 1%%)",
	      wait ? "wait" : "nowait", (double)sum / (gaps - 1), want);
	if (wait)
		check(most_draws <= 1 && draws > n / 4,
		      "wait: only arrivals with count p_b >= 1 draw a random number: "
		      "%.3f of them; draws in a gap beyond gap - 1/p_b: at most 1 (got %+ld)",
		      (double)draws / n, most_draws);
	else
		check(draws > n / 2, "nowait: most arrivals draw (%.3f of them)", (double)draws / n);
	if (wait)
		check(min_gap >= 20 && max_gap <= 40,
		      "wait: every gap in [1/p_b, 2/p_b] = [20, 40] (got [%ld, %ld])", min_gap, max_gap);
	else
		check(min_gap == 1 && max_gap == 19,
		      "nowait: gaps span [1, 1/p_b - 1] = [1, 19] (got [%ld, %ld])", min_gap, max_gap);
}

/* one arrival or dequeue of a simulated queue, fed as the glue feeds it;
 * skip: read the clock only where ared_*_needs_clock() ask, and take an
 * arrival at rest the short way
 */
static long clock_reads_skipped, rest_arrivals;

static enum ared_verdict sim_arrival(struct ared_params *p, struct ared_vars *v,
				     uint32_t *qlen, uint64_t now, uint32_t rnd, int skip)
{
	uint64_t t = (skip ? ared_arrival_needs_clock(v) : v->idle) ? now : 0;
	enum ared_verdict d;

	clock_reads_skipped += skip && v->idle && !t;
	rest_arrivals += skip && ared_at_rest(v, *qlen);
	/* the reference never takes the short way of an arrival at rest */
	d = skip ? ared_enqueue_verdict(p, v, *qlen, MTU, t) :
		   ared_judge_arrival(p, v, *qlen, MTU, t);

	if (d == ARED_DRAW)
		d = ared_draw_verdict(p, v, rnd);
	if (d == ARED_ENQUEUE || d == ARED_DRAW || d == ARED_EARLY_MARK)
		++*qlen;
	return d;
}

static void sim_dequeue(struct ared_vars *v, uint32_t *qlen, uint64_t now, int skip)
{
	--*qlen;
	if (!skip || ared_dequeue_needs_clock(v, true, *qlen))
		ared_dequeued(v, now, MTU, *qlen);
	else
		clock_reads_skipped++;
}

/*
 * Reading the clock only where ared_arrival_needs_clock() and
 * ared_dequeue_needs_clock() ask, and taking an arrival at rest the short
 * way (ared_rest_arrival()), change no decision: a queue that swings
 * between a link that keeps up (every packet finds it empty, avg 0) and
 * overload (avg and drops), fed both ways from the same random stream.
 */
static void test_clock_skips(void)
{
	struct ared_params p[2];
	struct ared_vars v[2];
	uint32_t qlen[2] = { 0, 0 };
	uint64_t rng = 11, now = 1000000;
	long i, differ = 0, drops = 0;
	int k;

	for (k = 0; k < 2; k++) {
		setup(&p[k], &v[k], 125000000);		/* 1 Gbit/s */
		p[k].min_pkts = 5;
		p[k].max_pkts = 15;
		p[k].limit_pkts = 40;
		ared_derive(&p[k], &v[k], 125000000, MTU);
	}
	for (i = 0; i < 400000; i++) {
		/* phases of 20000 events: light, then heavy load */
		int heavy = (i / 20000) % 2;
		uint64_t r = test_rand64(&rng);
		uint32_t rnd = (uint32_t)test_rand64(&rng);
		int arrive = qlen[0] == 0 || r % 100 < (heavy ? 55 : 20);

		now += r % 30000;
		/* now and then a pause that decays avg to exactly 0 (the auto
		 * weight takes about 45 s of idle for that)
		 */
		if (!heavy && !qlen[0] && r % 97 == 0)
			now += 60 * AQM_NSEC_PER_SEC;
		for (k = 0; k < 2; k++) {
			if (arrive)
				drops += sim_arrival(&p[k], &v[k], &qlen[k], now, rnd, k) !=
					 ARED_ENQUEUE && !k;
			else
				sim_dequeue(&v[k], &qlen[k], now, k);
		}
		if (i % 1000 == 999) {
			for (k = 0; k < 2; k++)
				if (ared_estimate_rate(&v[k]))
					ared_derive(&p[k], &v[k], v[k].est_rate_bps, MTU);
		}
		differ += qlen[0] != qlen[1] || v[0].avg_pkts != v[1].avg_pkts ||
			  v[0].avg_frac != v[1].avg_frac || v[0].count != v[1].count ||
			  v[0].count_bytes != v[1].count_bytes ||
			  v[0].prob != v[1].prob || v[0].old != v[1].old ||
			  v[0].est_rate_bps != v[1].est_rate_bps;
		/* not idle: skipping the dequeue's clock leaves it unset over
		 * an empty average, which no idle period can decay
		 */
	}
	check(differ == 0 && drops > 1000 && clock_reads_skipped > 500 &&
	      rest_arrivals > 500,
	      "reading the clock only where needed and arrivals at rest taken the short "
	      "way change nothing (%ld drops, %ld clock reads skipped, %ld arrivals at "
	      "rest, %ld differences)", drops, clock_reads_skipped, rest_arrivals, differ);
}

/*
 * An arrival at rest taken the short way (ared_rest_arrival()) leaves the
 * state exactly as the full decision does, from any state at rest, also
 * those the queue does not reach (p_b > 0, old set, count saturated).
 */
static void test_rest_arrival(void)
{
	struct ared_params p;
	struct ared_vars start, full, rest;
	uint64_t rng = 5;
	long i, differ = 0, not_enqueued = 0;

	setup(&p, &start, 125000000);
	for (i = 0; i < 100000; i++) {
		uint64_t r = test_rand64(&rng);
		uint32_t len = 1 + r % 9000;

		start.count = r & 1 ? UINT32_MAX : (uint32_t)(r >> 8);
		start.count_bytes = test_rand64(&rng) >> (r % 64);
		start.old = r & 2;
		start.idle = r & 4;
		start.prob = r & 8 ? test_rand64(&rng) % ARED_PROB_ONE : 0;
		start.idle_start_ns = test_rand64(&rng) >> 20;
		p.gentle = r & 16;
		p.min_pkts = (r >> 32) % 3;	/* 0 too: avg 0 is not below it */
		full = start;
		rest = start;
		not_enqueued += ared_judge_arrival(&p, &full, 0, len,
						   start.idle_start_ns + (r >> 40)) !=
				ARED_ENQUEUE;
		ared_rest_arrival(&rest, len);
		differ += memcmp(&full, &rest, sizeof(full)) != 0;
	}
	check(differ == 0 && not_enqueued == 0,
	      "an arrival at rest the short way leaves the state as the full decision does "
	      "(100000 random states: %ld differ, %ld not enqueued)", differ, not_enqueued);
}

/*
 * One arrival as the qdisc's segment path decides it: its verdict, with
 * the random draw where it needs one.
 */
static enum ared_verdict segment_arrival(const struct ared_params *p,
				     struct ared_vars *v, uint32_t qlen,
				     uint32_t bytes, uint64_t now)
{
	enum ared_verdict d;

	d = ared_enqueue_verdict(p, v, qlen, bytes,
				 ared_arrival_needs_clock(v) ? now : 0);
	return d == ARED_DRAW ? ared_draw_verdict(p, v, test_draw()) : d;
}

/*
 * ared_segments_kept() makes a GSO skb's decisions as its segments one by
 * one would (each stepping the average, the queue grown by those before
 * it, the same random numbers) up to the first dropped or marked, and no
 * more: the same count queued, the same verdict for that one, the same
 * state after, the same numbers drawn. Bursts of 2 to 64 segments (the
 * last of any length) into a queue that swings between light load and
 * overload (avg crossing min and max, gentle, drops, marks, draws), fed
 * both ways; the queue then runs on with the reference's state.
 */
static void test_segments_kept(void)
{
	struct ared_params p;
	struct ared_vars one[1], ahead[1];
	struct test_ahead t = { 0 };
	uint32_t qlen = 0;
	uint64_t rng = 17, now = 1000000;
	long i, verdicts_differ = 0, marks = 0;

	setup(&p, one, 125000000);
	p.min_pkts = 100;
	p.max_pkts = 300;
	p.limit_pkts = 1000;
	p.ecn = true;
	p.gentle = true;
	p.weight_frac = UINT64_MAX / 500;	/* w = 0.002 (the RED paper's) */
	ared_derive(&p, one, 125000000, MTU);
	for (i = 0; i < 200000; i++) {
		int heavy = (i / 5000) % 2;
		uint64_t r = test_rand64(&rng);
		uint32_t segs = 2 + r % 63, last = 1 + (r >> 8) % MTU, s, kept;
		enum ared_verdict d = ARED_ENQUEUE, d_ahead = ARED_ENQUEUE;
		long one_draws;

		now += (r >> 32) % 30000;
		if (qlen && (r >> 20) % 1000 >= (heavy ? 40 : 10)) {
			sim_dequeue(one, &qlen, now, 1);
			continue;
		}
		if (qlen + segs > p.limit_pkts)
			continue;	/* the qdisc cuts it with none decided */
		*ahead = *one;
		test_draws_restart(r);
		for (s = 0; s < segs; s++) {
			d = segment_arrival(&p, one, qlen + s, s + 1 < segs ? MTU : last, now);
			if (d != ARED_ENQUEUE)
				break;
		}
		one_draws = test_draws;
		test_draws_restart(r);
		kept = ared_segments_kept(&p, ahead, qlen, MTU, last, segs,
					  ared_arrival_needs_clock(ahead) ? now : 0,
					  test_draw, &d_ahead);
		test_ahead_tally(&t, segs, s, one_draws, one, kept, ahead, sizeof(*one));
		verdicts_differ += kept < segs && d_ahead != d;
		marks += kept < segs && d == ARED_EARLY_MARK;
		/* the rest of a cut skb, one by one */
		qlen += s + (s < segs && d == ARED_EARLY_MARK);
		for (s++; s < segs; s++) {
			d = segment_arrival(&p, one, qlen, s + 1 < segs ? MTU : last, now);
			qlen += d == ARED_ENQUEUE || d == ARED_EARLY_MARK;
		}
	}
	check(t.differ == 0 && verdicts_differ == 0 && t.whole > 1000 && t.cut > 1000 &&
	      marks > 100,
	      "a GSO skb's decisions are its segments' one by one up to the first drop or "
	      "mark (%ld bursts: %ld whole, %ld cut, %ld of them at a mark; %ld states "
	      "and %ld verdicts differ)", t.whole + t.cut, t.whole, t.cut, marks, t.differ,
	      verdicts_differ);
}

static void test_verdicts(void)
{
	struct ared_params p;
	struct ared_vars v;
	enum ared_verdict d;

	setup(&p, &v, GBIT_BPS);
	p.min_pkts = 625;
	p.max_pkts = 1875;
	p.limit_pkts = 2500;
	p.weight_frac = 1;	/* avg stays where it is set */
	ared_derive(&p, &v, GBIT_BPS, MTU);
	v.idle = false;

	set_avg(&v, 700);
	check(verdict_of(&p, &v, 700, MTU, 0, 0) == ARED_ENQUEUE && v.old && v.count == 1,
	      "first arrival with avg above min is never dropped, count restarts at 1");
	set_avg(&v, 3750.5);	/* w = 2^-64 still nudges avg toward q */
	check(verdict_of(&p, &v, 2000, MTU, 0, UINT32_MAX) == ARED_FORCED_DROP &&
	      v.count == 0, "gentle: avg >= 2 max is a forced drop, count reset");
	set_avg(&v, 3749.5);
	v.count = 100;
	check(verdict_of(&p, &v, 2000, MTU, 0, 0) == ARED_EARLY_DROP,
	      "gentle: avg just below 2 max drops early (probabilistically)");
	p.gentle = false;
	set_avg(&v, 1875.5);
	check(verdict_of(&p, &v, 2000, MTU, 0, UINT32_MAX) == ARED_FORCED_DROP,
	      "not gentle: avg >= max is a forced drop");
	p.gentle = true;
	set_avg(&v, 3000);
	check(verdict_of(&p, &v, 1, MTU, 0, 0) == ARED_ENQUEUE,
	      "one packet queued: never an early or forced drop (red.cc qlen > 1)");
	check(!v.old, "... and the crossing is forgotten");
	check(verdict_of(&p, &v, 2500, MTU, 0, UINT32_MAX) == ARED_TAIL_DROP,
	      "a full queue tail-drops");
	set_avg(&v, 100);
	check(verdict_of(&p, &v, 2500, MTU, 0, UINT32_MAX) == ARED_TAIL_DROP,
	      "a full queue tail-drops with avg below min too");

	/* ECN: mark below max, drop above; harddrop never marks */
	p.ecn = true;
	p.wait = false;
	v.old = true;
	v.count = 1000;
	set_avg(&v, 1800);
	check(verdict_of(&p, &v, 1800, MTU, 0, 0) == ARED_EARLY_MARK,
	      "ecn: an early decision below max marks");
	v.count = 1000;
	set_avg(&v, 2000);
	check(verdict_of(&p, &v, 2000, MTU, 0, 0) == ARED_EARLY_DROP,
	      "ecn: an early decision in the gentle region drops");
	p.harddrop = true;
	v.count = 1000;
	set_avg(&v, 1800);
	check(verdict_of(&p, &v, 1800, MTU, 0, 0) == ARED_EARLY_DROP,
	      "ecn harddrop: early decisions always drop");

	/* the core asks for a random number only when 0 < p_a < 1 */
	p.ecn = false;
	p.harddrop = false;
	p.wait = true;
	set_avg(&v, 100);
	check(ared_enqueue_verdict(&p, &v, 100, MTU, 0) == ARED_ENQUEUE,
	      "draw: none with avg below min");
	set_avg(&v, 1250);	/* p_b = max_p / 2 = 0.05 */
	v.old = true;
	v.count = 10;		/* wait: count p_b = 0.55 < 1 */
	check(ared_enqueue_verdict(&p, &v, 1250, MTU, 0) == ARED_ENQUEUE && v.count == 11,
	      "draw: none while wait holds drops back (count p_b < 1)");
	v.count = 39;		/* count p_b = 2: p_a = 1 */
	check(ared_enqueue_verdict(&p, &v, 1250, MTU, 0) == ARED_EARLY_DROP && v.count == 0,
	      "draw: none at p_a = 1, a drop and count restarts");
	v.count = 29;		/* count p_b = 1.5: p_a = 0.05 / 0.5 = 0.1 */
	d = ared_enqueue_verdict(&p, &v, 1250, MTU, 0);
	check(d == ARED_DRAW && v.count == 30 && fabs(v.draw_q32 / 4294967296.0 - 0.1) < 1e-6,
	      "draw: asked for at 0 < p_a < 1, p_a = %.6f (expect 0.1)", v.draw_q32 / 4294967296.0);
	check(ared_draw_verdict(&p, &v, v.draw_q32) == ARED_ENQUEUE && v.count == 30,
	      "draw: u = p_a enqueues, count kept");
	check(ared_draw_verdict(&p, &v, v.draw_q32 - 1) == ARED_EARLY_DROP && v.count == 0,
	      "draw: u just below p_a drops, count restarts");
	v.count = 29;
	check(ared_enqueue_verdict(&p, &v, 2500, MTU, 0) == ARED_TAIL_DROP && v.count == 0,
	      "draw: none when the queue is full, a tail drop");
}

static void test_adaptive(void)
{
	struct ared_params p;
	struct ared_vars v;
	double maxp = 0.1, worst = 0;
	int i, steps = 0;

	setup(&p, &v, GBIT_BPS);
	p.min_pkts = 625;
	p.max_pkts = 1875;
	p.limit_pkts = 2500;
	p.adaptive = true;
	ared_derive(&p, &v, GBIT_BPS, MTU);
	v.cur_maxp = p.maxp;

	set_avg(&v, 1200);	/* band is [1125, 1375] */
	check(!ared_adapt(&p, &v) && v.cur_maxp == p.maxp, "avg inside the band: max_p unchanged");
	set_avg(&v, 1400);
	ared_adapt(&p, &v);
	check(fabs(prob_d(v.cur_maxp) - 0.11) < 1e-15, "avg above the band: 0.1 + min(0.01, 0.025) = 0.11");
	v.cur_maxp = prob_q(0.02);
	ared_adapt(&p, &v);
	check(fabs(prob_d(v.cur_maxp) - 0.025) < 1e-15, "avg above the band: 0.02 + 0.02/4 = 0.025");
	set_avg(&v, 1100);
	ared_adapt(&p, &v);
	check(fabs(prob_d(v.cur_maxp) - 0.0225) < 1e-15, "avg below the band: 0.025 * 0.9 = 0.0225");

	/* a long run against the reference, bounded by [bottom, top] */
	v.cur_maxp = p.maxp;
	for (i = 0; i < 3000; i++) {
		int up = (i / 200) % 2 == 0;

		set_avg(&v, up ? 1800 : 700);
		if (up && maxp < 0.5)
			maxp = fmin(maxp + fmin(0.01, maxp / 4), 0.5);
		else if (!up && maxp > 8e-5)
			maxp = fmax(maxp * 0.9, 8e-5);
		steps += ared_adapt(&p, &v);
		worst = fmax(worst, fabs(prob_d(v.cur_maxp) - maxp));
	}
	check(worst < 1e-12 && steps > 1000,
	      "3000 steps swinging between top 0.5 and bottom 8e-5: max err %.3g (bound 1e-12)", worst);
	set_avg(&v, 1800);
	for (i = 0; i < 100; i++)
		ared_adapt(&p, &v);
	check(v.cur_maxp == ARED_TOP, "max_p stops at top 0.5");
	set_avg(&v, 0);
	for (i = 0; i < 1000; i++)
		ared_adapt(&p, &v);
	check(v.cur_maxp == v.bottom, "max_p stops at bottom (8e-5 at 1 Gbit/s)");
}

static void test_rate_estimate(void)
{
	struct ared_params p;
	struct ared_vars v;
	uint64_t t = 0;
	bool ok;
	int i;

	setup(&p, &v, ARED_FALLBACK_RATE_BPS);
	/* 100 ms of back-to-back 1500-byte packets every 12 us, then idle */
	for (i = 0; i < 8334; i++) {
		t += 12000;
		ared_dequeued(&v, t, MTU, 10);
	}
	ared_dequeued(&v, t + 12000, MTU, 0);
	t += 5 * AQM_NSEC_PER_SEC;	/* an idle gap must not count */
	ared_dequeued(&v, t, MTU, 10);
	ared_dequeued(&v, t + 12000, MTU, 10);
	ok = ared_estimate_rate(&v);
	check(ok && fabs(v.est_rate_bps / 125e6 - 1) < 1e-3,
	      "backlogged dequeues at 1 Gbit/s estimate %llu B/s (within 0.1%%, idle excluded)",
	      (unsigned long long)v.est_rate_bps);
	for (i = 0; i < 2000; i++) {
		t += 12100;	/* 0.8% slower: within the hysteresis */
		ared_dequeued(&v, t, MTU, 10);
	}
	check(!ared_estimate_rate(&v), "a change below 1/32 leaves the estimate alone");
	for (i = 0; i < 2000; i++) {
		t += 24000;
		ared_dequeued(&v, t, MTU, 10);
	}
	ok = ared_estimate_rate(&v);
	check(ok && fabs(v.est_rate_bps / 62.5e6 - 1) < 1e-2,
	      "halving the rate moves the estimate (%llu B/s)", (unsigned long long)v.est_rate_bps);
	check(!ared_estimate_rate(&v), "no busy time, no new estimate");
}

int main(void)
{
	aqm_test_suite = "ared";
	test_defaults();
	test_auto_weight();
	test_decay_factor();
	test_avg_trace("1 Gbit/s auto w = 1.2e-5", GBIT_BPS, 0, 10000000);
	test_avg_trace("w = 0.002 (RED paper)", GBIT_BPS, 0.002, 2000000);
	test_avg_trace("w = 0.5", GBIT_BPS, 0.5, 1000000);
	test_wide_multiply();
	test_wide_accumulator();
	test_idle_decay();
	test_prob();
	test_spacing_formula();
	test_spacing_traffic(0);
	test_spacing_traffic(1);
	test_verdicts();
	test_clock_skips();
	test_rest_arrival();
	test_segments_kept();
	test_adaptive();
	test_rate_estimate();
	return aqm_test_failures ? 1 : 0;
}
