/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Netlink interface of the classic AQM qdiscs: pi, rem, blue and ared.
 *
 * Shared by the kernel modules and the tc parsers. Each qdisc takes its
 * options as attributes nested in TCA_OPTIONS (with NLA_F_NESTED) and reports
 * its state through TCA_STATS_APP as the matching tc_<kind>_xstats.
 *
 * Fixed-point conventions, one scale per kind of quantity:
 *  - probabilities reported in xstats: __u64 with 1.0 = TC_AQM_PROB_ONE;
 *  - gains and weights in (0, 1): __u64 fractions, value = field / 2^64;
 *  - times: microseconds (__u32) unless a name says otherwise.
 *
 * tc -j prints xstats beside its own counters: their names must not clash
 * with qlen, backlog, drops, packets, bytes, overlimits, requeues, rate or
 * pps (the last two appear with a rate estimator).
 */
#ifndef _UAPI_LINUX_PKT_SCHED_AQM_H
#define _UAPI_LINUX_PKT_SCHED_AQM_H

#include <linux/types.h>

#define TC_AQM_PROB_SHIFT	62
#define TC_AQM_PROB_ONE		(1ULL << TC_AQM_PROB_SHIFT)

/* PI: Hollot, Misra, Towsley, Gong, INFOCOM 2001 */
enum {
	TCA_PI_UNSPEC,
	TCA_PI_PAD,
	TCA_PI_LIMIT,		/* u32, packets */
	TCA_PI_TARGET,		/* u32, packets (q_ref) */
	TCA_PI_A,		/* u64, gain a as a fraction of 2^64 */
	TCA_PI_B,		/* u64, gain b as a fraction of 2^64 */
	TCA_PI_FREQ,		/* u32, update frequency in mHz */
	TCA_PI_ECN,		/* u32, 0 or 1 */
	TCA_PI_AUTOTUNE,	/* u32, 0 or 1: derive a and b (then not settable) */
	TCA_PI_RTT,		/* u32, autotune: largest RTT, microseconds */
	TCA_PI_FLOWS,		/* u32, autotune: fewest flows; 0 = estimate */
	TCA_PI_BANDWIDTH,	/* u64, autotune: link rate in bytes/s; 0 = estimate */
	TCA_PI_RESPONSE,	/* u32, autotune: TC_PI_RESPONSE_* */
	TCA_PI_SPACING,		/* u32, TC_PI_SPACING_*: how drops are spread */
	TCA_PI_MARGIN,		/* u32, autotune: phase margin, degrees; 0 = wg = z;
				 * TC_PI_MARGIN_AUTO = from the senders' losses
				 */
	TCA_PI_ECN_CEILING,	/* u64, with ECN: above this p drop, do not mark;
				 * (0, 1], 1.0 = TC_AQM_PROB_ONE
				 */
	TCA_PI_TARGET_DELAY,	/* u32, queueing delay to hold, microseconds,
				 * [1, 10 s]; 0 = hold TCA_PI_TARGET packets
				 */
	TCA_PI_CUBIC_C,		/* u32, autotune, CUBIC: the senders' C,
				 * 10^-6 s^-3, [1, 10^8]; RFC 9438's 0.4 by default
				 */
	__TCA_PI_MAX
};

#define TCA_PI_MAX (__TCA_PI_MAX - 1)

/* TCA_PI_MARGIN: the crossover from the senders' loss events per round trip */
#define TC_PI_MARGIN_AUTO	90

/* senders' response function an autotuned design assumes */
enum {
	TC_PI_RESPONSE_RENO,		/* the PI paper's model */
	TC_PI_RESPONSE_HIGHSPEED,	/* HighSpeed TCP, RFC 3649 */
	TC_PI_RESPONSE_CUBIC,		/* CUBIC, RFC 9438 (the default) */
	__TC_PI_RESPONSE_MAX
};

/* which packets carry the probability p's drops */
enum {
	TC_PI_SPACING_RANDOM,		/* each with probability p (ns-2) */
	TC_PI_SPACING_EVEN,		/* every 1/p-th, by accumulated p */
	__TC_PI_SPACING_MAX
};

/* where the gains in use come from */
enum {
	TC_PI_GAINS_MANUAL,		/* TCA_PI_A and TCA_PI_B */
	TC_PI_GAINS_BANDWIDTH,		/* autotune, from TCA_PI_BANDWIDTH */
	TC_PI_GAINS_ESTIMATE,		/* autotune, from the dequeue rate */
	TC_PI_GAINS_PENDING,		/* autotune, no estimate yet: a = b = 0 */
};

struct tc_pi_xstats {
	__u64 prob;		/* drop/mark probability, 1.0 = TC_AQM_PROB_ONE */
	__u32 max_qlen;		/* largest queue seen, packets */
	__u32 early_drops;	/* dropped by the controller */
	__u32 tail_drops;	/* dropped because the queue was full */
	__u32 ecn_marks;	/* CE-marked instead of dropped */
	__u32 updates;		/* control law updates so far */
	__u32 gains_source;	/* TC_PI_GAINS_* */
	__u64 gain_a;		/* gain a in use, fraction of 2^64 */
	__u64 gain_b;		/* gain b in use, fraction of 2^64 */
	__u64 tuned_capacity;	/* C of the autotuned gains, Q48.16 packets/s */
	__u64 rate_estimate;	/* dequeue rate while backlogged, Q48.16 packets/s */
	__u32 target_pkts;	/* reference queue in use, packets (with a delay
				 * target: the delay at the link's rate); or
				 * TC_PI_UNKNOWN while that rate is unknown
				 */
	__u32 qdelay_us;	/* queue over the link's rate at the last update,
				 * microseconds; or TC_PI_UNKNOWN
				 */
	__u64 tuned_flows;	/* N of the autotuned gains, Q48.16; 0 = none */
	__u32 wire_qlen;	/* queue now, wire packets (TCA_STATS' qlen
				 * counts skbs: a GSO skb queued whole is one)
				 */
	__u32 counted_flows;	/* flows auto: flows in the arrivals of the last
				 * window (one to two design round trips);
				 * 0 = none counted
				 */
	__u32 tuned_margin;	/* phase margin of the autotuned gains, whole
				 * degrees rounded down (0 below 1 degree)
				 */
	__u32 pad;		/* 0 */
};

#define TC_PI_UNKNOWN	0xffffffffU

/* REM: Athuraliya, Low, Li, Yin, IEEE Network 2001 (section owned by sch_rem) */
enum {
	TCA_REM_UNSPEC,
	TCA_REM_PAD,
	TCA_REM_LIMIT,		/* u32, packets */
	TCA_REM_TARGET,		/* u32, packets (b), below limit */
	TCA_REM_GAMMA,		/* u64, gamma in (0, 1) as a fraction of 2^64 */
	TCA_REM_PHI,		/* u64, phi - 1 as a fraction of 2^64, >= 2^40 */
	TCA_REM_ALPHA,		/* u64, alpha in (0, 1) as a fraction of 2^64 */
	TCA_REM_INTERVAL,	/* u32, update interval in microseconds */
	TCA_REM_INW,		/* u64, inw in (0, 1], 1.0 = TC_AQM_PROB_ONE */
	TCA_REM_BANDWIDTH,	/* u64, link rate in bytes/s; 0 = estimate */
	TCA_REM_ECN,		/* u32, 0 or 1 */
	TCA_REM_ECN_CEILING,	/* u64, as TCA_PI_ECN_CEILING */
	__TCA_REM_MAX
};

#define TCA_REM_MAX (__TCA_REM_MAX - 1)

/* where the capacity c of the price update comes from */
enum {
	TC_REM_CAPACITY_FIXED,		/* from TCA_REM_BANDWIDTH */
	TC_REM_CAPACITY_ESTIMATED,	/* from the dequeue-rate estimate */
	TC_REM_CAPACITY_PENDING,	/* no estimate yet: c = x */
};

struct tc_rem_xstats {
	__u64 price;		/* link price, Q32.32 (value / 2^32) */
	__u64 prob;		/* drop/mark probability, 1.0 = TC_AQM_PROB_ONE */
	__u64 arrivals;		/* x: smoothed arrivals per interval, Q32.32 packets */
	__u64 capacity;		/* c at the last update, per interval, Q32.32 packets */
	__u64 rate_estimate;	/* dequeue rate while backlogged, Q48.16 packets/s */
	__u32 capacity_mode;	/* TC_REM_CAPACITY_* */
	__u32 interval;		/* update interval, microseconds */
	__u32 max_qlen;		/* largest queue seen, packets */
	__u32 early_drops;	/* dropped by the controller */
	__u32 tail_drops;	/* dropped because the queue was full */
	__u32 ecn_marks;	/* CE-marked instead of dropped */
	__u32 updates;		/* price updates so far */
	__u32 wire_qlen;	/* queue now, wire packets (TCA_STATS' qlen
				 * counts skbs: a GSO skb queued whole is one)
				 */
};

/* BLUE: Feng, Kandlur, Saha, Shin (section owned by sch_blue) */
enum {
	TCA_BLUE_UNSPEC,
	TCA_BLUE_PAD,
	TCA_BLUE_LIMIT,		/* u32, packets */
	TCA_BLUE_INCREMENT,	/* u64, d1 in (0, 1], 1.0 = TC_AQM_PROB_ONE */
	TCA_BLUE_DECREMENT,	/* u64, d2 in (0, 1], 1.0 = TC_AQM_PROB_ONE */
	TCA_BLUE_FREEZE,	/* u32, freeze_time in microseconds */
	TCA_BLUE_THRESHOLD,	/* u32, packets (L), at most limit; 0 = follow limit */
	TCA_BLUE_ECN,		/* u32, 0 or 1 */
	TCA_BLUE_ECN_CEILING,	/* u64, as TCA_PI_ECN_CEILING */
	__TCA_BLUE_MAX
};

#define TCA_BLUE_MAX (__TCA_BLUE_MAX - 1)

struct tc_blue_xstats {
	__u64 prob;		/* marking probability pm, 1.0 = TC_AQM_PROB_ONE */
	__u32 max_qlen;		/* largest queue seen, packets */
	__u32 increments;	/* times pm rose */
	__u32 decrements;	/* times pm fell */
	__u32 early_drops;	/* dropped with probability pm */
	__u32 tail_drops;	/* dropped because the queue was full */
	__u32 ecn_marks;	/* CE-marked instead of dropped */
	__u32 threshold;	/* L in effect, packets (TCA_BLUE_THRESHOLD 0: limit) */
	__u32 wire_qlen;	/* queue now, wire packets (TCA_STATS' qlen
				 * counts skbs: a GSO skb queued whole is one)
				 */
};

/* ARED: RED, gentle RED and Adaptive RED (section owned by sch_ared) */
enum {
	TCA_ARED_UNSPEC,
	TCA_ARED_PAD,
	TCA_ARED_LIMIT,		/* u32, packets */
	TCA_ARED_MIN_THRESH,	/* u32, packets (th_min); 0 = automatic */
	TCA_ARED_MAX_THRESH,	/* u32, packets (th_max); 0 = automatic */
	TCA_ARED_MAXP,		/* u64, max_p in (0, 1], 1.0 = TC_AQM_PROB_ONE */
	TCA_ARED_WEIGHT,	/* u64, w_q as a fraction of 2^64; 0 = automatic */
	TCA_ARED_BANDWIDTH,	/* u64, link rate in bytes/s; 0 = estimate */
	TCA_ARED_AVPKT,		/* u32, mean packet size in bytes; 0 = device's */
	TCA_ARED_INTERVAL,	/* u32, adaptive interval in microseconds */
	TCA_ARED_TARGET_LOW,	/* u64, target band bottom, fraction of 2^64 of max - min */
	TCA_ARED_TARGET_HIGH,	/* u64, target band top, fraction of 2^64 of max - min */
	TCA_ARED_GENTLE,	/* u32, 0 or 1 */
	TCA_ARED_WAIT,		/* u32, 0 or 1 (ns-2 wait_) */
	TCA_ARED_ADAPTIVE,	/* u32, 0 or 1 */
	TCA_ARED_ECN,		/* u32, 0 or 1 */
	TCA_ARED_HARDDROP,	/* u32, 0 or 1 */
	TCA_ARED_BYTEMODE,	/* u32, 0 or 1 (ns-2 bytes_) */
	__TCA_ARED_MAX
};

#define TCA_ARED_MAX (__TCA_ARED_MAX - 1)

struct tc_ared_xstats {
	__u64 avg;		/* average queue, packets in Q32.32 (2^-32 packets) */
	__u64 cur_maxp;		/* max_p in effect, 1.0 = TC_AQM_PROB_ONE */
	__u64 prob;		/* p_b at the last arrival, 1.0 = TC_AQM_PROB_ONE */
	__u64 weight;		/* w_q in effect, fraction of 2^64 */
	__u64 rate;		/* link rate in effect, bytes/s */
	__u32 min;		/* th_min in effect, packets */
	__u32 max;		/* th_max in effect, packets */
	__u32 max_qlen;		/* largest queue seen, packets */
	__u32 early_drops;	/* probabilistic drops */
	__u32 forced_drops;	/* dropped because avg >= max (2 max if gentle) */
	__u32 tail_drops;	/* dropped because the queue was full */
	__u32 ecn_marks;	/* CE-marked instead of dropped */
	__u32 maxp_updates;	/* adaptive steps that changed max_p */
	__u32 wire_qlen;	/* queue now, wire packets (TCA_STATS' qlen
				 * counts skbs: a GSO skb queued whole is one)
				 */
	__u32 pad;
};

#endif /* _UAPI_LINUX_PKT_SCHED_AQM_H */
