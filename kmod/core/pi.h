/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PI controller for AQM (Hollot, Misra, Towsley, Gong, "On Designing
 * Improved Controllers for AQM Routers Supporting TCP Flows", INFOCOM 2001),
 * with the control law of ns-2's PI queue:
 *
 *   every 1/freq seconds:  p = p + a (q - q_ref) - b (q_old - q_ref)
 *                          p = min(max(p, 0), 1);  q_old = q
 *
 * with q the instantaneous queue in packets. Each arriving packet is dropped
 * (or ECN-marked) with probability p.
 *
 * The gains of a high-speed link are tiny (the study used a = 1.822e-7,
 * b = 1.816e-7, so a - b = 6e-10), so they are held as 64-bit fractions and
 * every update is computed exactly in 128 bits before it is clamped.
 */
#ifndef AQM_CORE_PI_H
#define AQM_CORE_PI_H

#include "aqm_types.h"

/* Probability p: Q62, 1.0 = PI_PROB_ONE (same scale as TC_AQM_PROB_ONE) */
#define PI_PROB_SHIFT		62
#define PI_PROB_ONE		BIT_ULL(PI_PROB_SHIFT)

/* Gains are fractions of 2^64; the product gain * packets is Q64 */
#define PI_GAIN_SHIFT		64

#define PI_DEFAULT_LIMIT_PKTS	1000
#define PI_DEFAULT_TARGET_PKTS	50
#define PI_DEFAULT_FREQ_MHZ	170000		/* 170 Hz */
#define PI_DEFAULT_A_FRAC	336099677022988ULL	/* 1.822e-5 * 2^64 */
#define PI_DEFAULT_B_FRAC	334992872378565ULL	/* 1.816e-5 * 2^64 */

#define PI_FREQ_MIN_MHZ		10		/* 0.01 Hz */
#define PI_FREQ_MAX_MHZ		100000000	/* 100 kHz */

/**
 * struct pi_params - configuration
 * @limit_pkts:		queue capacity; a full queue tail-drops
 * @target_pkts:	reference queue length q_ref
 * @a_frac:		gain a, as a fraction of 2^64
 * @b_frac:		gain b, as a fraction of 2^64
 * @freq_mhz:		update frequency in millihertz
 * @ecn:		mark ECN-capable packets instead of dropping them
 */
struct pi_params {
	u32 limit_pkts;
	u32 target_pkts;
	u64 a_frac;
	u64 b_frac;
	u32 freq_mhz;
	bool ecn;
};

/**
 * struct pi_vars - controller state
 * @prob:	drop/mark probability p, 1.0 = PI_PROB_ONE
 * @qold_pkts:	queue length at the previous update, q_old
 */
struct pi_vars {
	u64 prob;
	u32 qold_pkts;
};

/**
 * struct pi_stats - counters
 * @early_drops:	packets dropped by the controller
 * @tail_drops:		packets dropped because the queue was full
 * @ecn_marks:		packets marked instead of dropped
 * @max_qlen_pkts:	largest queue seen
 * @updates:		control law updates
 */
struct pi_stats {
	u32 early_drops;
	u32 tail_drops;
	u32 ecn_marks;
	u32 max_qlen_pkts;
	u32 updates;
};

static inline void pi_params_init(struct pi_params *params)
{
	params->limit_pkts = PI_DEFAULT_LIMIT_PKTS;
	params->target_pkts = PI_DEFAULT_TARGET_PKTS;
	params->a_frac = PI_DEFAULT_A_FRAC;
	params->b_frac = PI_DEFAULT_B_FRAC;
	params->freq_mhz = PI_DEFAULT_FREQ_MHZ;
	params->ecn = false;
}

static inline void pi_vars_init(struct pi_vars *vars)
{
	vars->prob = 0;
	vars->qold_pkts = 0;
}

/* Update period 1/freq in nanoseconds; freq_mhz >= PI_FREQ_MIN_MHZ */
static inline u64 pi_update_period_ns(const struct pi_params *params)
{
	return div_u64(AQM_NSEC_PER_SEC * 1000, params->freq_mhz);
}

/**
 * pi_update() - one step of the control law
 * @params:	configuration
 * @vars:	state, updated
 * @qlen_pkts:	instantaneous queue length q
 *
 * Return: false when the queue is empty and the step changed nothing, so
 * the caller may stop its timer until the next packet arrives.
 */
static inline bool pi_update(const struct pi_params *params,
			     struct pi_vars *vars, u32 qlen_pkts)
{
	s64 err_now = (s64)qlen_pkts - params->target_pkts;
	s64 err_old = (s64)vars->qold_pkts - params->target_pkts;
	struct aqm_s128 p;
	u64 old_prob = vars->prob;

	/* Q64 gains times packets, shifted to the Q62 scale of p */
	p = aqm_s128_from_u64(vars->prob);
	p = aqm_s128_add(p, aqm_s128_mul_frac(params->a_frac, err_now,
					      PI_GAIN_SHIFT - PI_PROB_SHIFT));
	p = aqm_s128_add(p, aqm_s128_mul_frac(params->b_frac, -err_old,
					      PI_GAIN_SHIFT - PI_PROB_SHIFT));
	vars->prob = aqm_s128_clamp(p, PI_PROB_ONE);
	vars->qold_pkts = qlen_pkts;

	return qlen_pkts || vars->prob != old_prob || err_old != err_now;
}

/**
 * pi_should_drop() - the early drop/mark decision for one arriving packet
 * @vars:	state
 * @rnd:	a uniformly distributed random number
 *
 * Return: true with probability p.
 */
static inline bool pi_should_drop(const struct pi_vars *vars, u32 rnd)
{
	/* p in Q32 is at most 2^32, above every u32: p = 1 always drops */
	return rnd < (vars->prob >> (PI_PROB_SHIFT - 32));
}

#endif /* AQM_CORE_PI_H */
