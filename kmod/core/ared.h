/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RED (Floyd, Jacobson, "Random Early Detection Gateways for Congestion
 * Avoidance", IEEE/ACM ToN 1993), its gentle variant and Adaptive RED
 * (Floyd, Gummadi, Shenker, "Adaptive RED", 2001), with the semantics of
 * ns-2 2.35's queue/red.cc in packet mode:
 *
 *   on arrival:  avg = avg (1 - w)^m          m = idle time * C, if idle
 *                avg = avg (1 - w) + w q      q = instantaneous queue
 *                pb  = max_p (avg - min) / (max - min)         min <= avg < max
 *                pb  = max_p + (1 - max_p) (avg - max) / max   gentle, max <= avg
 *                pa  = pb / (1 - count pb)                     (wait off)
 *                pa  = 0, pb / (2 - count pb) or 1             (wait on)
 *   every interval, when adaptive:
 *                max_p = max_p + min(alpha, max_p / 4)  avg above the target band
 *                max_p = max_p * beta                   avg below it
 *
 * with C the link rate in packets per second. The average is kept in 96
 * bits (Q32.64), wide enough that w = 1.2e-5 (1 Gbit/s, 1500 bytes) loses
 * nothing measurable over any run length.
 */
#ifndef AQM_CORE_ARED_H
#define AQM_CORE_ARED_H

#include "aqm_types.h"

/* Probabilities p_b, p_a, max_p: Q62, 1.0 = ARED_PROB_ONE = TC_AQM_PROB_ONE */
#define ARED_PROB_SHIFT		62
#define ARED_PROB_ONE		BIT_ULL(ARED_PROB_SHIFT)

/* Weights and fractions in (0, 1): fractions of 2^64 (Q64) */
#define ARED_FRAC_SHIFT		64

/* 1e12 picoseconds per second: the packet time 1/C is held in ps */
#define ARED_PSEC_PER_SEC	1000000000000ULL

/*
 * Defaults. Where ns-2 2.35 has one, it is its tcl/lib/ns-default.tcl value
 * (Queue/RED ...) with the rule of queue/red.cc that gives it meaning.
 */
/* Queue limit_ is 50 for 1.5 Mbit/s links; Linux's txqueuelen is 1000 */
#define ARED_DEFAULT_LIMIT_PKTS		1000
/* linterm_ 10: max_p = 1 / linterm_ = 0.1 */
#define ARED_DEFAULT_MAXP		(ARED_PROB_ONE / 10)
/* targetdelay_ 0.005: automatic min = max(5, C * 5 ms / 2), max = 3 min */
#define ARED_AUTO_TARGET_DELAY_PS	5000000000ULL
#define ARED_AUTO_MIN_PKTS		5
/* interval_ 0.5 */
#define ARED_DEFAULT_INTERVAL_US	500000
/* alpha_ 0.01, beta_ 0.9, top_ 0.5; bottom_ 0 means min(0.01, 1/W) below */
#define ARED_ALPHA			(ARED_PROB_ONE / 100)
#define ARED_BETA_FRAC			16602069666338596454ULL	/* 0.9 * 2^64 */
#define ARED_TOP			(ARED_PROB_ONE / 2)
#define ARED_BOTTOM_MAX			(ARED_PROB_ONE / 100)
/* red.cc bottom1 = 80000 / bandwidth in bit/s = 10000 / rate in bytes/s */
#define ARED_BOTTOM_RATE_BYTES		10000
/* updateMaxP(): part = 0.4 (max - min), target band [min + part, max - part] */
#define ARED_DEFAULT_TARGET_LOW_FRAC	7378697629483820646ULL	/* 0.4 * 2^64 */
#define ARED_DEFAULT_TARGET_HIGH_FRAC	11068046444225730970ULL	/* 0.6 * 2^64 */

/*
 * Link rate assumed while neither `bandwidth` nor a dequeue-rate estimate
 * is known: 100 Mbit/s. A slow guess errs on the side of a larger w, so the
 * average follows the queue rather than lagging it.
 */
#define ARED_FALLBACK_RATE_BPS		12500000ULL
/* a rate estimate needs this much busy time, and moves C by > 1/32 */
#define ARED_EST_MIN_BUSY_NS		(10 * AQM_NSEC_PER_SEC / 1000)
#define ARED_EST_HYSTERESIS_SHIFT	5

#define ARED_INTERVAL_MIN_US		1000
#define ARED_INTERVAL_MAX_US		60000000
#define ARED_AVPKT_MAX_BYTES		65536

/**
 * struct ared_params - configuration
 * @limit_pkts:		queue capacity; a full queue tail-drops
 * @min_pkts:		min threshold th_min; 0 = automatic
 * @max_pkts:		max threshold th_max; 0 = automatic
 * @maxp:		max_p (1 / linterm), Q62; where adaptive starts from
 * @weight_frac:	queue weight w_q, Q64; 0 = automatic, 1 - exp(-1/C)
 * @bandwidth_bps:	link rate in bytes/s giving C; 0 = estimate it
 * @avpkt_bytes:	mean packet size (mean_pktsize); 0 = the device's
 * @interval_us:	adaptive update interval
 * @target_low_frac:	bottom of the target band, fraction of max - min, Q64
 * @target_high_frac:	top of the target band, fraction of max - min, Q64
 * @gentle:		p from max_p to 1 between max and 2 max
 * @wait:		ns-2 wait_: space drops by at least 1 / p_b packets
 * @adaptive:		Adaptive RED adjusts max_p every interval
 * @ecn:		mark ECN-capable packets instead of dropping, avg < max
 * @harddrop:		never mark, always drop
 * @bytemode:		ns-2 bytes_: p scaled by packet size / avpkt
 */
struct ared_params {
	u32 limit_pkts;
	u32 min_pkts;
	u32 max_pkts;
	u64 maxp;
	u64 weight_frac;
	u64 bandwidth_bps;
	u32 avpkt_bytes;
	u32 interval_us;
	u64 target_low_frac;
	u64 target_high_frac;
	bool gentle;
	bool wait;
	bool adaptive;
	bool ecn;
	bool harddrop;
	bool bytemode;
};

/**
 * struct ared_vars - state, and the values derived from the link rate
 * @rate_bps:		C in bytes/s in effect (derived)
 * @avpkt_bytes:	mean packet size in effect (derived)
 * @pkt_time_ps:	1 / C, the time of one mean packet, ps (derived)
 * @weight_frac:	w_q in effect, Q64, nonzero (derived)
 * @min_pkts:		th_min in effect (derived)
 * @max_pkts:		th_max in effect, above @min_pkts (derived)
 * @bottom:		lower bound of max_p for adaptive, Q62 (derived)
 * @avg_pkts:		integer part of the average queue avg
 * @avg_frac:		fractional part of avg, Q64
 * @avg_q32:		avg in Q32.32, written whole for lockless dumps (the
 *			two parts above could be read torn)
 * @cur_maxp:		max_p in effect, Q62 (cur_max_p)
 * @prob:		p_b at the last arrival that computed one, Q62
 * @count:		packets since the last drop or mark
 * @draw_q32:		p_a of the arrival awaiting its draw, Q32, below 1
 * @count_bytes:	bytes since the last drop or mark
 * @old:		avg was at or above min at the previous arrival
 * @idle:		the queue has been empty since @idle_start_ns
 * @idle_start_ns:	when the queue went empty
 * @est_rate_bps:	dequeue-rate estimate, bytes/s; 0 = none yet
 * @est_busy_ns:	busy time accumulated for the next estimate
 * @est_bytes:		bytes sent in @est_busy_ns
 * @last_deq_ns:	time of the previous dequeue
 * @last_deq_bytes:	length of the previous dequeued packet
 * @backlogged:		packets remained after the previous dequeue
 */
struct ared_vars {
	u64 rate_bps;
	u32 avpkt_bytes;
	u64 pkt_time_ps;
	u64 weight_frac;
	u32 min_pkts;
	u32 max_pkts;
	u64 bottom;

	u64 avg_pkts;
	u64 avg_frac;
	u64 avg_q32;
	u64 cur_maxp;
	u64 prob;
	u32 count;
	u32 draw_q32;
	u64 count_bytes;
	bool old;
	bool idle;
	u64 idle_start_ns;

	u64 est_rate_bps;
	u64 est_busy_ns;
	u64 est_bytes;
	u64 last_deq_ns;
	u32 last_deq_bytes;
	bool backlogged;
};

/**
 * struct ared_stats - counters
 * @early_drops:	probabilistic drops (ns-2's unforced drops)
 * @forced_drops:	drops because avg >= max (2 max when gentle)
 * @tail_drops:		drops because the queue was full
 * @ecn_marks:		packets marked instead of dropped
 * @max_qlen_pkts:	largest queue seen
 * @maxp_updates:	adaptive steps that changed max_p
 */
struct ared_stats {
	u32 early_drops;
	u32 forced_drops;
	u32 tail_drops;
	u32 ecn_marks;
	u32 max_qlen_pkts;
	u32 maxp_updates;
};

/* what to do with an arriving packet */
enum ared_verdict {
	ARED_ENQUEUE,
	ARED_EARLY_DROP,	/* probabilistic drop */
	ARED_EARLY_MARK,	/* probabilistic, may be ECN-marked instead */
	ARED_FORCED_DROP,	/* avg above the (gentle) drop region */
	ARED_TAIL_DROP,		/* queue full */
	ARED_DRAW,		/* early with probability p_a: ared_draw_verdict() */
};

/* --- 64x64-bit arithmetic: exact, math64.h's or aqm_types.h's ---------- */

static inline u64 ared_mul_shr(u64 a, u64 b, unsigned int shift)
{
	return mul_u64_u64_shr(a, b, shift);
}

/* a * b / c; the caller guarantees the quotient fits in 64 bits */
static inline u64 ared_mul_div(u64 a, u64 b, u64 c)
{
	return mul_u64_u64_div_u64(a, b, c);
}

/* avg * f for the Q32.64 average and a Q64 factor f */
static inline void ared_avg_scale(u64 *avg_pkts, u64 *avg_frac, u64 f)
{
	u64 hi = ared_mul_shr(*avg_pkts, f, 64);
	u64 lo = *avg_pkts * f;
	u64 frac = ared_mul_shr(*avg_frac, f, 64);

	lo += frac;
	hi += lo < frac;
	*avg_pkts = hi;
	*avg_frac = lo;
}

/* avg as Q32.32 packets (avg < 2^32: it never exceeds a u32 queue) */
static inline u64 ared_avg_q32(const struct ared_vars *vars)
{
	return (vars->avg_pkts << 32) | (vars->avg_frac >> 32);
}

static inline bool ared_avg_empty(const struct ared_vars *vars)
{
	return !vars->avg_pkts && !vars->avg_frac;
}

/* --- configuration ------------------------------------------------------ */

static inline void ared_params_init(struct ared_params *params)
{
	params->limit_pkts = ARED_DEFAULT_LIMIT_PKTS;
	params->min_pkts = 0;			/* thresh_ 0 */
	params->max_pkts = 0;			/* maxthresh_ 0 */
	params->maxp = ARED_DEFAULT_MAXP;
	params->weight_frac = 0;		/* q_weight_ -1, see ared_auto_weight() */
	params->bandwidth_bps = 0;
	params->avpkt_bytes = 0;
	params->interval_us = ARED_DEFAULT_INTERVAL_US;
	params->target_low_frac = ARED_DEFAULT_TARGET_LOW_FRAC;
	params->target_high_frac = ARED_DEFAULT_TARGET_HIGH_FRAC;
	params->gentle = true;			/* gentle_ true (since 2001) */
	params->wait = true;			/* wait_ true */
	params->adaptive = false;		/* adaptive_ 0 */
	params->ecn = false;			/* setbit_ false */
	params->harddrop = false;
	params->bytemode = false;		/* packet mode, as the study */
}

/**
 * ared_auto_weight() - w_q = 1 - exp(-1/C), red.cc's automatic weight
 * @pkt_time_ps:	1 / C in picoseconds
 *
 * ns-2's default q_weight_ -1 sets 1 - exp(-1 / (10 rtt C)) with
 * rtt = max(0.1 s, 3 (delay + 1/C)): the same value for every link with a
 * delay below 33 ms, and q_weight_ 0 sets this one outright.
 *
 * Return: w_q as a Q64 fraction, never 0; 1/C is capped at 1 s.
 */
static inline u64 ared_auto_weight(u64 pkt_time_ps)
{
	u64 x_frac, x, term, f;
	unsigned int k;

	/* x = 1/C in seconds: Q64 for the product, Q62 for the series */
	if (pkt_time_ps >= ARED_PSEC_PER_SEC)
		x_frac = U64_MAX;
	else
		x_frac = ared_mul_div(pkt_time_ps, 1ULL << 63,
				      ARED_PSEC_PER_SEC / 2);
	x = x_frac >> (ARED_FRAC_SHIFT - ARED_PROB_SHIFT);

	/*
	 * w = x f(x), f(x) = (1 - e^-x) / x = 1 - x/2! + x^2/3! - ..., in
	 * [1 - 1/e, 1]: computing f rather than w keeps w's relative
	 * precision for the tiny x of fast links.
	 */
	term = ARED_PROB_ONE;
	f = ARED_PROB_ONE;
	for (k = 2; k < 40 && term; k++) {
		term = div_u64(ared_mul_shr(term, x, ARED_PROB_SHIFT), k);
		if (k & 1)
			f += term;
		else
			f -= term;
	}
	return ared_mul_shr(x_frac, f, ARED_PROB_SHIFT) ?: 1;
}

/**
 * ared_derive() - set the values that follow from the link rate
 * @params:	configuration, validated (explicit max <= limit, min < max)
 * @vars:	state; its derived fields are set
 * @rate_bps:	C in bytes/s (nonzero)
 * @avpkt_bytes: mean packet size (nonzero)
 *
 * Called at configuration time and whenever the rate estimate moves.
 */
static inline void ared_derive(const struct ared_params *params,
			       struct ared_vars *vars, u64 rate_bps,
			       u32 avpkt_bytes)
{
	u64 min, max;

	/* dumps read the derived values without the qdisc lock */
	WRITE_ONCE(vars->rate_bps, rate_bps);
	vars->avpkt_bytes = avpkt_bytes;
	/* avpkt < 2^17, so avpkt * 1e12 < 2^57 */
	vars->pkt_time_ps = div64_u64((u64)avpkt_bytes * ARED_PSEC_PER_SEC,
				      rate_bps) ?: 1;
	WRITE_ONCE(vars->weight_frac, params->weight_frac ?:
		   ared_auto_weight(vars->pkt_time_ps));

	min = params->min_pkts;
	max = params->max_pkts;
	if (!min && !max) {
		/* red.cc initialize_params(): half the 5 ms target queue */
		min = div64_u64(ARED_AUTO_TARGET_DELAY_PS / 2, vars->pkt_time_ps);
		if (min < ARED_AUTO_MIN_PKTS)
			min = ARED_AUTO_MIN_PKTS;
		max = 3 * min;
		if (max > params->limit_pkts) {
			max = params->limit_pkts;
			min = div_u64(max, 3);
		}
	} else if (!max) {
		max = 3 * (u64)min;		/* red.cc reset() */
	} else if (!min) {
		min = div_u64(max, 3);
	}
	WRITE_ONCE(vars->min_pkts, min);
	WRITE_ONCE(vars->max_pkts, max);

	/* red.cc: bottom = min(0.01, 1/W) with W the BDP of a 100 ms RTT */
	if (rate_bps > (u64)ARED_BOTTOM_RATE_BYTES * 100)
		vars->bottom = ared_mul_div(ARED_BOTTOM_RATE_BYTES,
					    ARED_PROB_ONE, rate_bps);
	else
		vars->bottom = ARED_BOTTOM_MAX;
}

/* the state of an empty queue; derived fields are left to ared_derive() */
static inline void ared_vars_reset(const struct ared_params *params,
				   struct ared_vars *vars, u64 now_ns)
{
	vars->avg_pkts = 0;
	vars->avg_frac = 0;
	WRITE_ONCE(vars->avg_q32, 0);
	WRITE_ONCE(vars->cur_maxp, params->maxp);
	WRITE_ONCE(vars->prob, 0);
	vars->count = 0;
	vars->count_bytes = 0;
	vars->old = false;
	vars->idle = true;
	vars->idle_start_ns = now_ns;
	vars->est_busy_ns = 0;
	vars->est_bytes = 0;
	vars->last_deq_ns = now_ns;
	vars->last_deq_bytes = 0;
	vars->backlogged = false;
}

/* --- the average queue -------------------------------------------------- */

/* (1 - w)^m by squaring, Q64, with 1.0 held as U64_MAX (off by 2^-64) */
static inline u64 ared_decay_factor(u64 weight_frac, u64 m)
{
	u64 base = U64_MAX - weight_frac + 1;	/* 1 - w; w != 0 */
	u64 result = U64_MAX;

	while (m && result) {
		if (m & 1)
			result = ared_mul_shr(result, base, 64);
		m >>= 1;
		base = ared_mul_shr(base, base, 64);
	}
	return result;
}

/**
 * ared_update_avg() - the estimator at a packet arrival
 * @vars:	state, updated
 * @qlen_pkts:	queue length found by the arriving packet
 * @now_ns:	time of arrival
 *
 * After an idle period the average decays as if m = idle time * C packets
 * had arrived to an empty queue (red.cc enque(): m = int(ptc * idle)).
 */
static inline void ared_update_avg(struct ared_vars *vars, u32 qlen_pkts,
				   u64 now_ns)
{
	u64 w = vars->weight_frac, hi, lo;

	/* an empty average over an empty queue stays empty: no decay, no
	 * 128-bit products on a link that keeps up
	 */
	if (ared_avg_empty(vars) && !qlen_pkts) {
		vars->idle = false;
		return;
	}
	if (vars->idle) {
		u64 idle_ns = now_ns > vars->idle_start_ns ?
			      now_ns - vars->idle_start_ns : 0;
		u64 m;

		vars->idle = false;
		/* 2^53 ns is 104 days: beyond that every average is 0 */
		if (idle_ns >= (1ULL << 53))
			m = U64_MAX;
		else
			m = div64_u64(idle_ns * 1000, vars->pkt_time_ps);
		if (m)
			ared_avg_scale(&vars->avg_pkts, &vars->avg_frac,
				       ared_decay_factor(w, m));
	}

	/* avg = avg (1 - w) + w q, all 96 bits kept */
	ared_avg_scale(&vars->avg_pkts, &vars->avg_frac, U64_MAX - w + 1);
	hi = ared_mul_shr(qlen_pkts, w, 64);
	lo = (u64)qlen_pkts * w;
	vars->avg_frac += lo;
	vars->avg_pkts += hi + (vars->avg_frac < lo);
	WRITE_ONCE(vars->avg_q32, ared_avg_q32(vars));
}

/* --- probabilities ------------------------------------------------------ */

/* (avg - base) / span as Q62, avg >= base, capped at 1 */
static inline u64 ared_ratio(const struct ared_vars *vars, u32 base, u32 span)
{
	u64 num = ared_avg_q32(vars) - ((u64)base << 32);

	if (num >= (u64)span << 32)
		return ARED_PROB_ONE;
	return ared_mul_div(num, ARED_PROB_ONE >> 32, span);
}

/**
 * ared_prob() - p_b, red.cc calculate_p_new()
 * @params:	configuration
 * @vars:	state; avg >= min
 *
 * Return: p_b in Q62, at most 1.
 */
static inline u64 ared_prob(const struct ared_params *params,
			    const struct ared_vars *vars)
{
	u64 maxp = vars->cur_maxp;

	if (vars->avg_pkts >= vars->max_pkts) {
		if (!params->gentle)
			return ARED_PROB_ONE;
		/* from max_p at max to 1 at 2 max */
		return maxp + ared_mul_shr(ARED_PROB_ONE - maxp,
					   ared_ratio(vars, vars->max_pkts,
						      vars->max_pkts),
					   ARED_PROB_SHIFT);
	}
	return ared_mul_shr(maxp, ared_ratio(vars, vars->min_pkts,
					     vars->max_pkts - vars->min_pkts),
			    ARED_PROB_SHIFT);
}

/**
 * ared_prob_spaced() - p_a, red.cc modify_p()
 * @params:	configuration
 * @vars:	state (count, count_bytes, avpkt)
 * @pb:		p_b, Q62
 * @pkt_bytes:	length of the arriving packet
 *
 * Without wait, p_a = p_b / (1 - count p_b), so drops come at roughly
 * uniform intervals of 1/p_b packets; with wait (ns-2's default) no drop
 * comes before count p_b reaches 1 and p_a = p_b / (2 - count p_b) after.
 *
 * Return: p_a in Q62, at most 1.
 */
static inline u64 ared_prob_spaced(const struct ared_params *params,
				   const struct ared_vars *vars, u64 pb,
				   u32 pkt_bytes)
{
	u64 count = params->bytemode ?
		    div64_u64(vars->count_bytes, vars->avpkt_bytes) :
		    vars->count;
	u64 one = params->wait ? 2 * ARED_PROB_ONE : ARED_PROB_ONE;
	u64 cp, pa;

	if (!pb)
		return 0;
	/* count p_b >= 2 saturates both rules */
	if (count && pb > div64_u64(2 * ARED_PROB_ONE, count))
		return ARED_PROB_ONE;
	cp = count * pb;
	if (params->wait && cp < ARED_PROB_ONE)
		return 0;
	if (cp >= one || pb >= one - cp)
		return ARED_PROB_ONE;
	/* p_b < one - cp: the quotient is below 1 */
	pa = ared_mul_div(pb, ARED_PROB_ONE, one - cp);
	if (params->bytemode) {
		/* p_a size / avpkt, capped at 1 before the quotient can overflow */
		if (pkt_bytes > vars->avpkt_bytes &&
		    pa >= ared_mul_div(ARED_PROB_ONE, vars->avpkt_bytes, pkt_bytes))
			return ARED_PROB_ONE;
		pa = ared_mul_div(pa, pkt_bytes, vars->avpkt_bytes);
	}
	return pa;
}

/* an early decision marks where ECN allows it, else drops */
static inline enum ared_verdict
ared_early_verdict(const struct ared_params *params,
		   const struct ared_vars *vars)
{
	return params->ecn && !params->harddrop &&
	       vars->avg_pkts < vars->max_pkts ? ARED_EARLY_MARK : ARED_EARLY_DROP;
}

static inline void ared_restart_count(struct ared_vars *vars)
{
	vars->count = 0;
	vars->count_bytes = 0;
}

static inline void ared_count_arrival(struct ared_vars *vars, u32 pkt_bytes)
{
	if (vars->count < U32_MAX)
		vars->count++;
	vars->count_bytes += pkt_bytes;
}

/* an empty queue under an empty average: nothing to decide */
static inline bool ared_at_rest(const struct ared_vars *vars, u32 qlen_pkts)
{
	return !qlen_pkts && ared_avg_empty(vars);
}

/**
 * ared_rest_arrival() - all that an arrival at rest changes
 * @vars:	state, updated
 * @pkt_bytes:	the packet's length
 *
 * The average stays 0 (ared_update_avg()), below any min_th, so the packet
 * is enqueued (limit >= 1) and p_b is 0. The qdisc calls this alone on its
 * fast path, the path of every packet on a link that keeps up.
 */
static inline void ared_rest_arrival(struct ared_vars *vars, u32 pkt_bytes)
{
	vars->idle = false;
	ared_count_arrival(vars, pkt_bytes);
	WRITE_ONCE(vars->prob, 0);
	vars->old = false;
}

/**
 * ared_judge_arrival() - the decision for one arriving packet, in full
 * @params:	configuration
 * @vars:	state, updated (avg, count, old, prob, draw_q32)
 * @qlen_pkts:	queue length found by the packet
 * @pkt_bytes:	its length
 * @now_ns:	its arrival time
 *
 * red.cc enque(): early decisions need avg >= min and more than one packet
 * queued; the first arrival after avg crosses min is never dropped.
 * Only an early drop with 0 < p_a < 1 needs a random number: that one
 * returns ARED_DRAW and ared_draw_verdict() decides. Most arrivals find
 * p_a = 0 (avg below min, or wait holding drops back), so they are spared
 * the draw, which costs about as much as the rest of the decision.
 */
static inline enum ared_verdict
ared_judge_arrival(const struct ared_params *params, struct ared_vars *vars,
		   u32 qlen_pkts, u32 pkt_bytes, u64 now_ns)
{
	enum ared_verdict verdict = ARED_ENQUEUE;

	ared_update_avg(vars, qlen_pkts, now_ns);
	ared_count_arrival(vars, pkt_bytes);

	if (vars->avg_pkts >= vars->min_pkts && qlen_pkts > 1) {
		u64 forced_pkts = params->gentle ? 2 * (u64)vars->max_pkts :
				  vars->max_pkts;

		if (vars->avg_pkts >= forced_pkts) {
			WRITE_ONCE(vars->prob, ARED_PROB_ONE);
			verdict = ARED_FORCED_DROP;
		} else if (!vars->old) {
			vars->old = true;
			vars->count = 1;
			vars->count_bytes = pkt_bytes;
		} else {
			/* p_a as Q32: a drop when u < p_a, u = rnd / 2^32 */
			u64 pa_q32;

			WRITE_ONCE(vars->prob, ared_prob(params, vars));
			pa_q32 = ared_prob_spaced(params, vars, vars->prob,
						  pkt_bytes) >>
				 (ARED_PROB_SHIFT - 32);
			if (pa_q32 >= 1ULL << 32) {
				verdict = ared_early_verdict(params, vars);
			} else if (pa_q32) {
				vars->draw_q32 = pa_q32;
				verdict = ARED_DRAW;
			}
		}
	} else {
		WRITE_ONCE(vars->prob, 0);
		vars->old = false;
	}
	if (qlen_pkts >= params->limit_pkts)
		verdict = ARED_TAIL_DROP;

	if (verdict != ARED_ENQUEUE && verdict != ARED_DRAW)
		ared_restart_count(vars);
	return verdict;
}

/*
 * The decision for one arriving packet (ared_judge_arrival()), with an
 * arrival at rest taken the short way, as the qdisc's fast path takes it.
 */
static inline enum ared_verdict
ared_enqueue_verdict(const struct ared_params *params, struct ared_vars *vars,
		     u32 qlen_pkts, u32 pkt_bytes, u64 now_ns)
{
	if (ared_at_rest(vars, qlen_pkts)) {
		ared_rest_arrival(vars, pkt_bytes);
		return ARED_ENQUEUE;
	}
	return ared_judge_arrival(params, vars, qlen_pkts, pkt_bytes, now_ns);
}

/**
 * ared_draw_verdict() - finish a decision that ared_enqueue_verdict() left
 * @params:	configuration
 * @vars:	state, as ared_enqueue_verdict() left it with ARED_DRAW
 * @rnd:	a uniformly distributed random number
 *
 * Return: ARED_ENQUEUE, ARED_EARLY_DROP or ARED_EARLY_MARK.
 */
static inline enum ared_verdict
ared_draw_verdict(const struct ared_params *params, struct ared_vars *vars,
		  u32 rnd)
{
	if (rnd >= vars->draw_q32)
		return ARED_ENQUEUE;
	ared_restart_count(vars);
	return ared_early_verdict(params, vars);
}

/**
 * ared_segments_kept() - the decisions of @segs arrivals in a row
 * @params:	configuration
 * @vars:	state, moved as by their decisions
 * @qlen_pkts:	wire packets queued before the first of them
 * @seg_bytes:	the length of each but the last
 * @last_bytes:	the last one's
 * @segs:	the arrivals (a GSO skb's segments), all below the limit
 * @now_ns:	their arrival time
 * @rnd:	where a decision draws its random number
 * @verdict:	set to the decision of the first not simply queued
 *
 * Each arrival's decision in order, as if each had come alone and those
 * before it were queued (each steps the average), up to the first that is
 * dropped or marked: its decision is made, with its random draw, and those
 * after it are not.
 * Return: the arrivals queued before it (@segs if all are).
 */
static inline u32 ared_segments_kept(const struct ared_params *params,
				     struct ared_vars *vars, u32 qlen_pkts,
				     u32 seg_bytes, u32 last_bytes, u32 segs,
				     u64 now_ns, u32 (*rnd)(void),
				     enum ared_verdict *verdict)
{
	u32 kept;

	for (kept = 0; kept < segs; kept++) {
		*verdict = ared_enqueue_verdict(params, vars, qlen_pkts + kept,
						kept + 1 < segs ? seg_bytes :
								  last_bytes,
						now_ns);
		if (*verdict == ARED_DRAW)
			*verdict = ared_draw_verdict(params, vars, rnd());
		if (*verdict != ARED_ENQUEUE)
			break;
	}
	return kept;
}

/* --- idle periods and the dequeue-rate estimate ------------------------- */

/*
 * The clock is read only where it is used. An empty average stays empty
 * over an idle period (ared_update_avg()), and nothing but an arrival
 * changes it: on a link that keeps up, where every packet finds the queue
 * empty, neither the arrival nor the dequeue reads it.
 *
 * ared_arrival_needs_clock(): at an arrival that ends an idle period over a
 * non-empty average.
 */
static inline bool ared_arrival_needs_clock(const struct ared_vars *vars)
{
	return vars->idle && !ared_avg_empty(vars);
}

static inline bool ared_needs_rate(const struct ared_params *params)
{
	return !params->bandwidth_bps;
}

/**
 * ared_dequeue_needs_clock() - whether a dequeue needs ared_dequeued()
 * @vars:	state
 * @rate:	the rate estimate is fed (ared_needs_rate())
 * @qlen_pkts:	packets left behind
 *
 * Yes where it feeds the estimator (a gap after a backlogged dequeue, or
 * the start of one) or starts an idle period that a non-empty average
 * will decay over; a queue emptied again under an empty average skips it
 * and changes nothing.
 */
static inline bool ared_dequeue_needs_clock(const struct ared_vars *vars,
					    bool rate, u32 qlen_pkts)
{
	if (qlen_pkts)
		return rate;
	return (rate && vars->backlogged) || !ared_avg_empty(vars);
}

/* the estimator fed again after a pause must not count it as busy time */
static inline void ared_estimator_restart(struct ared_vars *vars)
{
	vars->est_busy_ns = 0;
	vars->est_bytes = 0;
	vars->backlogged = false;
}

/**
 * ared_dequeued() - account for one packet leaving the queue
 * @vars:	state, updated
 * @now_ns:	time of the dequeue
 * @pkt_bytes:	its length
 * @qlen_pkts:	packets left behind
 *
 * While the queue stays backlogged, the time between two dequeues is the
 * time the link took to send the earlier packet: their sums give the
 * dequeue rate. The queue going empty starts an idle period.
 */
static inline void ared_dequeued(struct ared_vars *vars, u64 now_ns,
				 u32 pkt_bytes, u32 qlen_pkts)
{
	if (vars->backlogged && now_ns > vars->last_deq_ns) {
		vars->est_busy_ns += now_ns - vars->last_deq_ns;
		vars->est_bytes += vars->last_deq_bytes;
	}
	vars->last_deq_ns = now_ns;
	vars->last_deq_bytes = pkt_bytes;
	vars->backlogged = qlen_pkts > 0;
	if (!qlen_pkts) {
		vars->idle = true;
		vars->idle_start_ns = now_ns;
	}
}

/**
 * ared_estimate_rate() - close one estimation period
 * @vars:	state, updated
 *
 * Return: true when the estimate moved by more than 1/32 (or appeared),
 * so the caller should ared_derive() again.
 */
static inline bool ared_estimate_rate(struct ared_vars *vars)
{
	u64 sample, old = vars->est_rate_bps, diff;

	if (vars->est_busy_ns < ARED_EST_MIN_BUSY_NS || !vars->est_bytes)
		return false;
	/* busy >= 10 ms: the quotient is at most 100 * bytes */
	sample = ared_mul_div(vars->est_bytes, AQM_NSEC_PER_SEC,
			      vars->est_busy_ns);
	vars->est_busy_ns = 0;
	vars->est_bytes = 0;
	if (!sample)
		return false;
	diff = sample > old ? sample - old : old - sample;
	if (old && diff <= old >> ARED_EST_HYSTERESIS_SHIFT)
		return false;
	vars->est_rate_bps = sample;
	return true;
}

/* --- Adaptive RED ------------------------------------------------------- */

/**
 * ared_adapt() - one interval of Adaptive RED, red.cc updateMaxP()
 * @params:	configuration
 * @vars:	state; cur_maxp updated
 *
 * max_p is kept within [bottom, top] (red.cc stops stepping once past a
 * bound; here the step that crosses one is clipped to it).
 *
 * Return: true if max_p changed.
 */
static inline bool ared_adapt(const struct ared_params *params,
			      struct ared_vars *vars)
{
	u64 span_q32 = (u64)(vars->max_pkts - vars->min_pkts) << 32;
	u64 base_q32 = (u64)vars->min_pkts << 32;
	u64 low_q32 = base_q32 + ared_mul_shr(span_q32, params->target_low_frac, 64);
	u64 high_q32 = base_q32 + ared_mul_shr(span_q32, params->target_high_frac, 64);
	u64 avg_q32 = ared_avg_q32(vars);
	u64 maxp = vars->cur_maxp;

	if (avg_q32 < low_q32 && maxp > vars->bottom) {
		maxp = ared_mul_shr(maxp, ARED_BETA_FRAC, 64);
		if (maxp < vars->bottom)
			maxp = vars->bottom;
	} else if (avg_q32 > high_q32 && maxp < ARED_TOP) {
		maxp += maxp / 4 < ARED_ALPHA ? maxp / 4 : ARED_ALPHA;
		if (maxp > ARED_TOP)
			maxp = ARED_TOP;
	}
	if (maxp == vars->cur_maxp)
		return false;
	WRITE_ONCE(vars->cur_maxp, maxp);
	return true;
}

#endif /* AQM_CORE_ARED_H */
