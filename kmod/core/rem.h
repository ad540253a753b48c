/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random Exponential Marking (Athuraliya, Low, Li, Yin, "REM: Active Queue
 * Management", IEEE Network, May/June 2001), with the update rule of ns-2's
 * REM queue:
 *
 *   every interval:  x     = (1 - inw) x + inw * arrivals
 *                    price = max(0, price + gamma (alpha (q - b) + x - c))
 *                    p     = 1 - phi^(-price)
 *
 * with q the instantaneous queue in packets, b the target queue, arrivals the
 * packets that reached the queue during the interval (every one, also those
 * then dropped, as ns-2 counts them) and c the packets the link can send in
 * one interval. Each arriving packet is dropped (or ECN-marked) with
 * probability p.
 *
 * The capacity c is either fixed from a configured bandwidth (as ns-2 takes
 * it from its link) or estimated online from the dequeue rate (dq_rate.h,
 * samples spanning at least one interval). Until the first sample c is
 * taken equal to x: the rate term is then zero and the price follows the
 * queue term alone.
 *
 * Everything is fixed point. phi^(-price) = 2^(-E) with E = price log2(phi);
 * log2(phi) is computed once per configuration by repeated squaring, 2^(-E)
 * from the integer part of E by a shift and from its fraction by a 64-entry
 * table of 2^(-k/64) and a fourth-order polynomial for the rest.
 */
#ifndef AQM_CORE_REM_H
#define AQM_CORE_REM_H

#include "aqm_types.h"
#include "dq_rate.h"

/* Probability p: Q62, 1.0 = REM_PROB_ONE (same scale as TC_AQM_PROB_ONE) */
#define REM_PROB_SHIFT		62
#define REM_PROB_ONE		BIT_ULL(REM_PROB_SHIFT)

/* Smoothing weight inw: Q62, 1.0 = REM_WEIGHT_ONE */
#define REM_WEIGHT_SHIFT	62
#define REM_WEIGHT_ONE		BIT_ULL(REM_WEIGHT_SHIFT)

/*
 * Packet counts per interval (x, c, the mismatch of the law): Q64 in an
 * aqm_s128, so that no rounding bias piles up in the price; Q32 in the stats.
 */
#define REM_PKTS_SHIFT		64
#define REM_PKTS_STAT_SHIFT	32

/* gamma, alpha, phi - 1 and log2(phi) are fractions of 2^64 */
#define REM_FRAC_SHIFT		64

/* Link price: Q64 in an aqm_s128, integer part capped (see rem_update()) */
#define REM_PRICE_SHIFT		64
#define REM_PRICE_MAX_INT	(U32_MAX - 1ULL)

/* c is capped at 2^30 packets per interval, the mismatch at +-2^31 */
#define REM_CAP_MAX_PKTS	BIT_ULL(30)
#define REM_MISMATCH_MAX_PKTS	BIT_ULL(31)
/* a late timer stands for at most this many intervals */
#define REM_MAX_PERIODS		64

#define REM_USEC_PER_SEC	1000000U

#define REM_DEFAULT_LIMIT_PKTS	1000
#define REM_DEFAULT_TARGET_PKTS	20
#define REM_DEFAULT_GAMMA_FRAC	18446744073709552ULL	/* 0.001 * 2^64 */
#define REM_DEFAULT_PHI_FRAC	18446744073709552ULL	/* (1.001 - 1) * 2^64 */
#define REM_DEFAULT_ALPHA_FRAC	1844674407370955162ULL	/* 0.1 * 2^64 */
#define REM_DEFAULT_INW		REM_WEIGHT_ONE		/* no smoothing */
#define REM_DEFAULT_INTERVAL_US	2000

/*
 * At least 1 ms: no faster than a jiffies timer at HZ=1000, since anyone
 * with CAP_NET_ADMIN in a user namespace may start a softirq hrtimer per
 * qdisc on many veth devices. ns-2's REM updates every 2 ms.
 */
#define REM_INTERVAL_MIN_US	1000
#define REM_INTERVAL_MAX_US	1000000

/* With ECN, CE marks up to p = 0.1 and drops above (as pie) */
#define REM_DEFAULT_ECN_CEILING	(REM_PROB_ONE / 10)
/*
 * phi >= 1 + 2^-24: log2(phi) keeps 30 significant bits or more, and a
 * price of REM_PRICE_MAX_INT already gives p = 1 (E > 360).
 */
#define REM_PHI_MIN_FRAC	BIT_ULL(40)

/* ln(2) as a fraction of 2^64 */
#define REM_LN2_FRAC		12786308645202655660ULL

/* 2^(-k/64) for k = 0..63, Q62, rounded to nearest */
static const u64 rem_exp2_neg_q62[64] = {
	0x4000000000000000ULL, 0x3f4f83033d21b05dULL,
	0x3ea0ecb6dc8a80cfULL, 0x3df437dcc2b44eeeULL,
	0x3d495f454921b30bULL, 0x3ca05dcf167fec4eULL,
	0x3bf92e66f736bd73ULL, 0x3b53cc07b6650ae1ULL,
	0x3ab031b9f7490e4cULL, 0x3a0e5a940f12f71aULL,
	0x396e41b9df20d22aULL, 0x38cfe25cafa29694ULL,
	0x383337bb0aa53844ULL, 0x37983d209783a449ULL,
	0x36feede5f6bc8dd5ULL, 0x366745709e2bf5edULL,
	0x35d13f32b5a75abdULL, 0x353cd6aaf3fb7e88ULL,
	0x34aa07647c4ab917ULL, 0x3418ccf6bbcac965ULL,
	0x3389230547e12039ULL, 0x32fb053fbc9c9f17ULL,
	0x326e6f619b8bc9e9ULL, 0x31e35d322aee6c57ULL,
	0x3159ca845541b6b7ULL, 0x30d1b3368925d902ULL,
	0x304b1332999c2516ULL, 0x2fc5e66d9e9cc421ULL,
	0x2f4228e7d6030db0ULL, 0x2ebfd6ac84cf917fULL,
	0x2e3eebd1d8bee7baULL, 0x2dbf6478ca345de4ULL,
	0x2d413cccfe779921ULL, 0x2cc47104aa444922ULL,
	0x2c48fd6074ab0964ULL, 0x2bcede2b5a4290ddULL,
	0x2b560fba90a852b2ULL, 0x2ade8e6d6a4fb4ceULL,
	0x2a6856ad3a9f03beULL, 0x29f364ed3a594d5aULL,
	0x297fb5aa6c544e3bULL, 0x290d456b8279a028ULL,
	0x289c10c0c3125a06ULL, 0x282c1443ee5c53f1ULL,
	0x27bd4c982468446bULL, 0x274fb669cb3fedd4ULL,
	0x26e34e6e7553954eULL, 0x26781164c82dfe99ULL,
	0x260dfc14636e2a5cULL, 0x25a50b4dc8061680ULL,
	0x253d3bea3fbdc258ULL, 0x24d68acbc4f9ba4bULL,
	0x2470f4dceac470ceULL, 0x240c7710c519ac77ULL,
	0x23a90e62d17354f0ULL, 0x2346b7d6df96ea79ULL,
	0x22e57078faa2f5baULL, 0x2285355d525bbf67ULL,
	0x222603a024b6a14aULL, 0x21c7d865a7a34404ULL,
	0x216ab0d9f3121ec5ULL, 0x210e8a30eb379012ULL,
	0x20b361a62b0ae876ULL, 0x2059347cef00c1ddULL,
};

/**
 * struct rem_params - configuration
 * @limit_pkts:		queue capacity; a full queue tail-drops
 * @target_pkts:	target queue length b (ns-2's pbo_)
 * @gamma_frac:		step size gamma, as a fraction of 2^64
 * @phi_frac:		phi - 1, as a fraction of 2^64 (phi in (1, 2))
 * @alpha_frac:		queue weight alpha, as a fraction of 2^64
 * @inw_q62:		arrival smoothing weight inw in (0, 1], Q62
 * @interval_us:	update interval
 * @bandwidth_bps:	link rate in bytes per second; 0 = estimate c online
 * @pkt_bytes:		bytes per packet, to turn @bandwidth_bps into packets
 * @ecn:		mark ECN-capable packets instead of dropping them
 * @ecn_ceiling:	with @ecn, drop rather than mark above this p, Q62
 * @log2phi_frac:	log2(phi) as a fraction of 2^64, by rem_params_derive()
 * @cap_fixed:		c from @bandwidth_bps, packets per interval, Q64, by
 *			rem_params_derive()
 */
struct rem_params {
	u32 limit_pkts;
	u32 target_pkts;
	u64 gamma_frac;
	u64 phi_frac;
	u64 alpha_frac;
	u64 inw_q62;
	u32 interval_us;
	u64 bandwidth_bps;
	u32 pkt_bytes;
	bool ecn;
	u64 ecn_ceiling;
	u64 log2phi_frac;
	struct aqm_s128 cap_fixed;
};

/**
 * struct rem_vars - controller state
 * @price:		link price, Q64, never negative
 * @price_q32:		@price in Q32, saturated, for the stats
 * @prob:		drop/mark probability 1 - phi^(-price), 1.0 = REM_PROB_ONE
 * @in:			x, smoothed arrivals per interval, Q64
 * @in_q32:		@in in Q32, saturated, for the stats
 * @cap_q32:		c used by the last update, packets per interval, Q32
 * @arrivals_pkts:	packets arrived since the last update (saturating)
 * @dq:			dequeue rate estimate, for c when no bandwidth is set
 */
struct rem_vars {
	struct aqm_s128 price;
	u64 price_q32;
	u64 prob;
	struct aqm_s128 in;
	u64 in_q32;
	u64 cap_q32;
	u32 arrivals_pkts;
	struct aqm_dq_rate dq;
};

/**
 * struct rem_stats - counters
 * @early_drops:	packets dropped by the controller
 * @tail_drops:		packets dropped because the queue was full
 * @ecn_marks:		packets marked instead of dropped
 * @max_qlen_pkts:	largest queue seen
 * @updates:		price updates
 */
struct rem_stats {
	u32 early_drops;
	u32 tail_drops;
	u32 ecn_marks;
	u32 max_qlen_pkts;
	u32 updates;
};

/* 128-bit helpers on the non-negative values of an aqm_s128 */
static inline struct aqm_s128 rem_u128_shl(struct aqm_s128 x, unsigned int n)
{
	if (n) {
		x.hi = (x.hi << n) | (x.lo >> (64 - n));
		x.lo <<= n;
	}
	return x;
}

/*
 * floor(x / d) and x mod d, long division on 32-bit limbs so that div_u64()
 * suffices
 */
static inline struct aqm_s128 rem_u128_divmod_u32(struct aqm_s128 x, u32 d,
						  u32 *rem_out)
{
	u64 limb[4] = { x.hi >> 32, x.hi & U32_MAX, x.lo >> 32, x.lo & U32_MAX };
	u64 quot[4], rem = 0, cur;
	struct aqm_s128 r;
	int i;

	for (i = 0; i < 4; i++) {
		cur = (rem << 32) | limb[i];	/* rem < d, so no overflow */
		quot[i] = div_u64(cur, d);
		rem = cur - quot[i] * d;
	}
	r.hi = (quot[0] << 32) | quot[1];
	r.lo = (quot[2] << 32) | quot[3];
	*rem_out = rem;
	return r;
}

static inline struct aqm_s128 rem_u128_div_u32(struct aqm_s128 x, u32 d)
{
	u32 rem;

	return rem_u128_divmod_u32(x, d, &rem);
}

/*
 * floor(x 2^64 / d) for x < 2^64 d, as Q64: the integer quotient, then the
 * remainder carried into the fraction
 */
static inline struct aqm_s128 rem_u128_div_u32_q64(struct aqm_s128 x, u32 d)
{
	struct aqm_s128 whole, frac;
	u32 rem;

	whole = rem_u128_divmod_u32(x, d, &rem);
	frac = rem_u128_div_u32((struct aqm_s128){ .hi = rem, .lo = 0 }, d);
	return (struct aqm_s128){ .hi = whole.lo, .lo = frac.lo };
}

/* frac * x / 2^64, for x >= 0 with an integer part below 2^63 */
static inline struct aqm_s128 rem_mul_frac_q64(u64 frac, struct aqm_s128 x)
{
	return aqm_s128_add(aqm_s128_mul_frac(frac, (s64)x.hi, 0),
			    aqm_s128_mul_frac(frac, (s64)(x.lo >> 1), 63));
}

/* a Q64 value of the form hi:lo in Q32 for the stats, saturated */
static inline u64 rem_q64_to_q32(struct aqm_s128 x)
{
	if (x.hi >> 32)
		return U64_MAX;
	return (x.hi << 32) | (x.lo >> 32);
}

/* a Q64 value clamped to [0, max_pkts] packets */
static inline struct aqm_s128 rem_q64_clamp(struct aqm_s128 x, u64 max_pkts)
{
	if (aqm_s128_is_neg(x))
		return aqm_s128_from_u64(0);
	if (x.hi >= max_pkts)
		return (struct aqm_s128){ .hi = max_pkts, .lo = 0 };
	return x;
}

/**
 * rem_log2_frac() - log2(1 + d) for d in (0, 1)
 * @d_frac:	d as a fraction of 2^64
 *
 * Bit by bit: squaring y in [1, 2) doubles its logarithm, whose integer part
 * is then the next bit. With y in Q62 the result is within 2^-55.
 *
 * Return: log2(1 + d) as a fraction of 2^64.
 */
static inline u64 rem_log2_frac(u64 d_frac)
{
	u64 y = REM_PROB_ONE + (d_frac >> (REM_FRAC_SHIFT - 62));
	u64 log2 = 0;
	int bit;

	for (bit = 63; bit >= 0; bit--) {
		y = aqm_s128_mul_frac(y, (s64)y, 62).lo;	/* y < 2^63 */
		if (y >= 2 * REM_PROB_ONE) {
			y >>= 1;
			log2 |= 1ULL << bit;
		}
	}
	return log2;
}

/*
 * c = bytes_ps * interval / pkt_bytes packets per interval, Q64, rounded
 * down: bytes_ps * interval_us < 2^84, so the quotient by 10^6 is below
 * 2^64 and floor(floor(n / a) / b) = floor(n / ab) does the rest.
 */
static inline struct aqm_s128 rem_bandwidth_to_cap(u64 bytes_ps, u32 interval_us,
						   u32 pkt_bytes)
{
	struct aqm_s128 c;

	c = aqm_s128_mul_frac(bytes_ps, interval_us, 0);
	c = rem_u128_div_u32_q64(c, REM_USEC_PER_SEC);
	c = rem_u128_div_u32(c, pkt_bytes);
	return rem_q64_clamp(c, REM_CAP_MAX_PKTS);
}

/* c from the dequeue rate (packets/s, Q16) in Q64: the product is < 2^76 */
static inline struct aqm_s128 rem_rate_to_cap(u64 rate_q16, u32 interval_us)
{
	struct aqm_s128 c;

	c = aqm_s128_mul_frac(rate_q16, interval_us, 0);
	c = rem_u128_shl(c, REM_PKTS_SHIFT - AQM_DQ_RATE_SHIFT);
	c = rem_u128_div_u32(c, REM_USEC_PER_SEC);
	return rem_q64_clamp(c, REM_CAP_MAX_PKTS);
}

/* Fill the derived fields of @params; the others must be valid */
static inline void rem_params_derive(struct rem_params *params)
{
	params->log2phi_frac = rem_log2_frac(params->phi_frac);
	params->cap_fixed = aqm_s128_from_u64(0);
	if (params->bandwidth_bps && params->pkt_bytes)
		params->cap_fixed = rem_bandwidth_to_cap(params->bandwidth_bps,
							 params->interval_us,
							 params->pkt_bytes);
}

static inline void rem_params_init(struct rem_params *params, u32 pkt_bytes)
{
	params->limit_pkts = REM_DEFAULT_LIMIT_PKTS;
	params->target_pkts = REM_DEFAULT_TARGET_PKTS;
	params->gamma_frac = REM_DEFAULT_GAMMA_FRAC;
	params->phi_frac = REM_DEFAULT_PHI_FRAC;
	params->alpha_frac = REM_DEFAULT_ALPHA_FRAC;
	params->inw_q62 = REM_DEFAULT_INW;
	params->interval_us = REM_DEFAULT_INTERVAL_US;
	params->bandwidth_bps = 0;
	params->pkt_bytes = pkt_bytes;
	params->ecn = false;
	params->ecn_ceiling = REM_DEFAULT_ECN_CEILING;
	rem_params_derive(params);
}

static inline void rem_vars_init(struct rem_vars *vars)
{
	vars->price = aqm_s128_from_u64(0);
	WRITE_ONCE(vars->price_q32, 0);
	WRITE_ONCE(vars->prob, 0);
	vars->in = aqm_s128_from_u64(0);
	WRITE_ONCE(vars->in_q32, 0);
	WRITE_ONCE(vars->cap_q32, 0);
	vars->arrivals_pkts = 0;
	aqm_dq_rate_init(&vars->dq);
}

static inline u64 rem_update_period_ns(const struct rem_params *params)
{
	return (u64)params->interval_us * AQM_NSEC_PER_USEC;
}

/**
 * rem_prob_of_price() - p = 1 - phi^(-price)
 * @params:	configuration (log2phi_frac)
 * @price:	link price, Q64, not negative, integer part below 2^32
 *
 * Return: p, 1.0 = REM_PROB_ONE, within 2^-39 of the exact value.
 */
static inline u64 rem_prob_of_price(const struct rem_params *params,
				    struct aqm_s128 price)
{
	u64 t, t2, t3, t4, poly, frac, rest, q;
	struct aqm_s128 e;
	unsigned int k;

	/* E = price * log2(phi), Q64: integer part e.hi, fraction e.lo */
	e = rem_mul_frac_q64(params->log2phi_frac, price);
	if (e.hi >= REM_PROB_SHIFT)
		return REM_PROB_ONE;	/* 2^-E below the last bit of p */

	/* 2^-frac = 2^(-k/64) * 2^-rest, rest < 1/64 (Q64) */
	frac = e.lo;
	k = frac >> 58;
	rest = frac & (BIT_ULL(58) - 1);
	/*
	 * 2^-rest = e^-t, t = rest ln 2 < 0.011; the Q128 product's high half
	 * is Q64, t is Q62. The polynomial's error t^5/120 is below 2^-39.
	 */
	t = aqm_s128_mul_frac(REM_LN2_FRAC, (s64)rest, 0).hi >> (64 - 62);
	t2 = aqm_s128_mul_frac(t, (s64)t, 62).lo;
	t3 = aqm_s128_mul_frac(t2, (s64)t, 62).lo;
	t4 = aqm_s128_mul_frac(t3, (s64)t, 62).lo;
	poly = REM_PROB_ONE - t + (t2 >> 1) - div_u64(t3, 6) + div_u64(t4, 24);
	q = aqm_s128_mul_frac(rem_exp2_neg_q62[k], (s64)poly, 62).lo;
	q >>= e.hi;
	return REM_PROB_ONE - q;
}

/* c for the next update, packets per interval, Q64 */
static inline struct aqm_s128 rem_capacity(const struct rem_params *params,
					   const struct rem_vars *vars,
					   struct aqm_s128 in)
{
	if (params->bandwidth_bps)
		return params->cap_fixed;
	if (vars->dq.rate_q16)
		return rem_rate_to_cap(vars->dq.rate_q16, params->interval_us);
	return in;	/* no estimate yet: no rate term */
}

/**
 * rem_update() - one step of the price update rule
 * @params:	configuration
 * @vars:	state, updated
 * @qlen_pkts:	instantaneous queue length q
 * @periods:	intervals elapsed since the last update, 1 when the timer is
 *		on time (more when a busy CPU delayed it past a whole interval)
 *
 * A late update stands for @periods updates with the same q: x is taken per
 * interval (arrivals / @periods) and the price moves @periods steps, which
 * max(0, ...) makes exact for a constant mismatch. With inw < 1 the
 * smoothing is applied once, an approximation only when the timer slips.
 *
 * x, c and the mismatch alpha (q - b) + x - c are Q64, the price is Q64:
 * each step rounds by at most 2^-62 packets or price units. The price is
 * capped at REM_PRICE_MAX_INT (p is 1 far below it) and the mismatch at
 * +-2^31 packets per interval, so nothing overflows.
 *
 * Return: false when the queue is empty and the step changed nothing, so
 * the caller may stop its timer until the next packet arrives.
 */
static inline bool rem_update(const struct rem_params *params,
			      struct rem_vars *vars, u32 qlen_pkts, u32 periods)
{
	struct aqm_s128 x, c, m, mag, delta, price, old = vars->price, in;
	bool neg;

	if (!periods)
		periods = 1;
	else if (periods > REM_MAX_PERIODS)
		periods = REM_MAX_PERIODS;

	/*
	 * x = (1 - inw) x + inw arrivals. 1 - inw < 1 is a fraction of 2^64;
	 * rounding down makes an idle x decay all the way to 0.
	 */
	x = rem_mul_frac_q64((REM_WEIGHT_ONE - params->inw_q62) << (64 - REM_WEIGHT_SHIFT),
			     vars->in);
	in = rem_u128_shl(aqm_s128_mul_frac(params->inw_q62, vars->arrivals_pkts, 0),
			  REM_PKTS_SHIFT - REM_WEIGHT_SHIFT);
	x = aqm_s128_add(x, periods > 1 ? rem_u128_div_u32(in, periods) : in);
	c = rem_capacity(params, vars, x);

	/* m = alpha (q - b) + x - c, Q64, |m| < 2^34 packets before the cap */
	m = aqm_s128_mul_frac(params->alpha_frac, (s64)qlen_pkts - params->target_pkts, 0);
	m = aqm_s128_add(m, x);
	m = aqm_s128_add(m, aqm_s128_neg(c));
	neg = aqm_s128_is_neg(m);
	mag = rem_q64_clamp(neg ? aqm_s128_neg(m) : m, REM_MISMATCH_MAX_PKTS);

	/* price = max(0, price + periods gamma m); periods |m| < 2^37 */
	delta = rem_mul_frac_q64(params->gamma_frac, mag);
	if (periods > 1) {
		u64 whole = delta.hi * periods;

		delta = aqm_s128_mul_frac(delta.lo, periods, 0);
		delta.hi += whole;
	}
	price = aqm_s128_add(old, neg ? aqm_s128_neg(delta) : delta);
	price = rem_q64_clamp(price, REM_PRICE_MAX_INT);

	/* dumps read the Q32 copies and p without the qdisc lock */
	vars->price = price;
	WRITE_ONCE(vars->price_q32, rem_q64_to_q32(price));
	WRITE_ONCE(vars->prob, rem_prob_of_price(params, price));
	vars->in = x;
	WRITE_ONCE(vars->in_q32, rem_q64_to_q32(x));
	WRITE_ONCE(vars->cap_q32, rem_q64_to_q32(c));
	vars->arrivals_pkts = 0;

	return qlen_pkts || x.hi || x.lo || price.hi != old.hi || price.lo != old.lo;
}

/* Count one arriving packet, dropped or not */
static inline void rem_arrival(struct rem_vars *vars)
{
	if (vars->arrivals_pkts != U32_MAX)
		vars->arrivals_pkts++;
}

/**
 * rem_should_drop() - the early drop/mark decision for one arriving packet
 * @vars:	state
 * @rnd:	a uniformly distributed random number
 *
 * Return: true with probability p.
 */
static inline bool rem_should_drop(const struct rem_vars *vars, u32 rnd)
{
	/* p in Q32 is at most 2^32, above every u32: p = 1 always drops */
	return rnd < (vars->prob >> (REM_PROB_SHIFT - 32));
}

/**
 * rem_segments_kept() - the arrivals and early decisions of @segs in a row
 * @vars:	state, moved as by their arrivals and decisions
 * @segs:	the arrivals (a GSO skb's segments), all below the limit
 * @rnd:	draws a uniformly distributed random number; p = 0 draws none
 *
 * Each arrival counted and decided in order, as if each had come alone,
 * up to the first to be dropped or marked: it is counted and its decision
 * made, those after it are not. The price reads the queue only at its
 * updates, so the count and the decisions are all an arrival changes.
 * Return: the arrivals kept before it (@segs if all are kept).
 */
static inline u32 rem_segments_kept(struct rem_vars *vars, u32 segs,
				    u32 (*rnd)(void))
{
	u32 kept;

	if (!vars->prob) {
		vars->arrivals_pkts = segs > U32_MAX - vars->arrivals_pkts ?
				      U32_MAX : vars->arrivals_pkts + segs;
		return segs;
	}
	for (kept = 0; kept < segs; kept++) {
		rem_arrival(vars);
		if (rem_should_drop(vars, rnd()))
			break;
	}
	return kept;
}

/* Only a REM not told its bandwidth needs the dequeue rate */
static inline bool rem_needs_rate(const struct rem_params *params)
{
	return !params->bandwidth_bps;
}

/**
 * rem_dequeued() - feed the capacity estimator with one dequeue
 * @params:		configuration
 * @vars:		state, updated
 * @pkts:		wire packets dequeued
 * @qlen_after_pkts:	queue length after them
 * @now_ns:		time of the dequeue
 */
static inline void rem_dequeued(const struct rem_params *params,
				struct rem_vars *vars, u32 pkts,
				u32 qlen_after_pkts, u64 now_ns)
{
	aqm_dq_rate_dequeued(&vars->dq, pkts, qlen_after_pkts, now_ns,
			     rem_update_period_ns(params));
}

#endif /* AQM_CORE_REM_H */
