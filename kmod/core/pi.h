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
 * Autotune runs the same law in its positional form, p = I + b e with
 * e = q - q_ref and the integral I, the sum of (a - b) e, kept apart and
 * held within [0, 1], e counted there at most q_ref (pi_update()). The
 * two are one law while p stays within its bounds and the queue under
 * twice q_ref.
 * Where p is clamped they part: ns-2's form forgets what the clamp took,
 * so a queue that runs empty (p clamped to 0) restarts p from 0, and the
 * integral it then holds is b times the error the queue left from, about
 * b q_ref, whatever the senders need. Where b q_ref exceeds the p they
 * need (high speed: b q_ref falls as 1/C, the senders' p faster), each
 * empty queue leaves p too high, the queue empties again, and the mean
 * settles under the reference (measured: 16 CUBIC flows at 400 Mbit/s,
 * 20 ms target, queue empty 6-12% of the time, p at the reference
 * 1.7-2.1e-4 for b q_ref 1.5-1.7e-4 where the flows met 1.2e-4: mean
 * 11-14 ms). The positional form's integral keeps counting the error
 * while p is clamped, so the mean error goes to 0. The study's PI (gains
 * set by hand) keeps ns-2's form.
 *
 * I stays at or above 0, though a queue whose bursts swing b e wider than
 * the p the senders need then settles a little under q_ref (the clamp of p
 * at 0 cuts only the low swings: 16 CUBIC flows at 1 Gbit/s, 20 ms target,
 * mean 18.3-19.5 ms). An integral let down to -b q_ref while the queue
 * held packets (tried, commit 29bd63a) took the mean to 18.5-19.9 ms but
 * wound down after each burst of the limit's drops, when the queue sat
 * under its target for seconds, and held p at 0 above the 2500-packet
 * limit (30 ms): the limit did the dropping, loss 2.5 times higher and the
 * sd 6.0-7.0 ms instead of 3.9-5.9 ms.
 *
 * The reference q_ref is a packet count, or a queueing delay d: then
 * q_ref = d C, with C the link's rate in packets per second (the configured
 * bandwidth, or the dequeue rate measured while the queue is backlogged), so
 * the law holds the queue at d's worth of the link: the queue over the rate,
 * the delay a packet arriving now would wait (pie measures it the same way).
 * Until C is known there is no reference and p stays 0.
 *
 * The gains of a high-speed link are tiny (the study used a = 1.822e-7,
 * b = 1.816e-7, so a - b = 6e-10), so they are held as 64-bit fractions and
 * every update is computed exactly in 128 bits before it is clamped.
 *
 * Autotune derives a and b from the PI paper's design rules instead, for a
 * link of capacity C packets/s carrying at least N flows with round-trip
 * times at most R, sampled every T. As in the paper, R = Tp + q_ref / C:
 * the configured round trip Tp (the path's, without this queue) plus the
 * delay of the reference queue, so the window W = (C Tp + q_ref) / N covers
 * the pipe and the queue:
 *
 *   z = wg = p_TCP,  K = z wg sqrt(1 + (wg R)^2) / (G R)
 *   a = K (1/z + T/2),  b = K (1/z - T/2)
 *
 * where p_TCP is the senders' pole and G the gain from p to the queue's
 * rate of change, both at the operating point W = R C / N packets per
 * window. For Reno (the paper's model, p = 2 / W^2) p_TCP = 2N / (R^2 C)
 * and G = C^2 / 2N, which give the paper's rules. For HighSpeed TCP
 * (RFC 3649: W = 0.12 / p^0.835 above 38 packets, decrease b(W) after a
 * loss) linearising its fluid model dW/dt = a(W)/R - b(W) W^2 p / R gives
 * p_TCP = e b(W) W p / R and G = N b(W) W^2 / R^2 with e = 1/0.835: the
 * same rules, for the senders actually there. In general, for senders whose
 * response function W(p) has elasticity e = -d ln p / d ln W and whose
 * window falls by D(W) packets a loss, p_TCP = e D p / R and G = N D W / R^2
 * (Reno: e = 2, D = W/2; HighSpeed: D = b(W) W).
 *
 * CUBIC (RFC 9438, beta 0.7) averages W = (C (3 + beta) /
 * (4 (1 - beta)))^(1/4) (R / p)^(3/4) packets, so
 * p = (3.0833 C)^(1/3) R / W^(4/3) with e = 4/3; below its Reno-friendly
 * window (an AIMD with alpha = 3 (1 - beta) / (1 + beta): p = 1.5 / W^2,
 * e = 2) it follows that. The sender's p is the larger of the two, and
 * either way a loss cuts D = (1 - beta) W = 0.3 W. C, 0.4 s^-3 in RFC 9438
 * and in Linux, is configurable: senders whose window grows in another time
 * unit, as in a testbed slowed down k times (C / k^3), have another.
 *
 * The crossover wg = z keeps almost 90 degrees of phase margin, and so a
 * loop as slow as the senders' pole (seconds at high speed). With a phase
 * margin PM configured, wg is placed where the loop, with the pole
 * cancelled by z, has that margin: wg R = x solving atan(x) + x = 90 - PM
 * degrees (pi_margin_wgr_q32[]), and K = z wg sqrt(1 + (wg R)^2) / (G R)
 * keeps |L(j wg)| = 1.
 *
 * With the margin auto, wg follows the senders' loss events instead. The
 * linear model is a fluid; the queue meets the flows' cuts one by one, a
 * loss taking D packets out of the pipe at once, and the proportional
 * part answers each with a fall of p by b D. With K/z ~ b and G = N D W /
 * R^2 (the plant's gain above), b D = x sqrt(1 + x^2) / (C R) where
 * x = wg R, whatever D and N. The p the senders need, times C R, is nu,
 * their loss events per round trip, and the crossover is the fastest at
 * which one cut takes at most p: x sqrt(1 + x^2) = nu. Faster, a single
 * cut of a few large windows drives p to 0 (measured at margin 75, where
 * one cut of 4 CUBIC flows took 2.4 to 3.8 times p: p = 0 for 11-50% of
 * a run); much slower, the loop drifts with many small ones (margin 87,
 * 16 flows at 1 Gbit/s, one cut 0.16 times p: sd a third of the target).
 * x is kept between the paper's z R and the x of PI_MARGIN_AUTO_MIN_DEG,
 * the margin at which the CUBIC design keeps 41 degrees with any senders
 * (the unit tests). With flows auto, p is the senders' at the window of
 * the flows counted in the arrivals (pi_loss_flows_q16()), not of the
 * design's N, which is read from p. C is the configured bandwidth
 * or the dequeue-rate estimate, and the gains are derived again when C
 * moves by more than 1/2^PI_RETUNE_SHIFT. The rules are evaluated in the
 * log2 domain (fixed_log2.h), K/z and K T/2 separately so that a - b = K T
 * keeps its precision.
 *
 * With flows 0 (tc's "flows auto") N is not configured but estimated: the
 * senders' response function inverted at the loss rate they meet (p
 * averaged over about PI_FLOWS_MEAN_RTTS design round trips,
 * pi_loss_log2_flows()) gives the window W(p), and N = R C / W(p) flows
 * of that window fill the pipe and the reference queue. Where the limit
 * drops too, the N its share adds is at most the flows counted in the
 * arrivals (pi_count_window(), pi_design_flows_q16()), and p's mean
 * rises above them only at an operating point (a transient's p is none).
 * The gains are
 * derived again when the design's N moves by more than 1/2^PI_RETUNE_SHIFT, as for
 * C; below N = 1 (p = 0 at the start) the design is for one flow. A
 * design for N- flows is stable for more flows but slower with each: the
 * senders' gain falls as 1/N to 1/N^2, and with the margin's crossover the
 * gains grow about as N (a design for 4 gives 16 flows a quarter of the
 * gains a design for 16 derives). With the estimate, a link whose flow
 * count is unknown or varies keeps the designed loop at every load.
 * R is the design's: flows with shorter round trips make N look larger
 * (by (R / R_i)^(1/4) each for CUBIC, R / R_i for Reno), and so the loop
 * faster than designed, which the phase margin must then absorb.
 *
 * Drops are random (each packet with probability p, ns-2's way) or, with
 * even spacing, at every packet that brings the probability accumulated
 * since the last drop to 1: the same rate, at regular intervals of 1/p
 * packets. At high speed p is so small that random drops come in clumps
 * and gaps of seconds, and each one cuts a large window; even spacing
 * removes that variance from the queue.
 */
#ifndef AQM_CORE_PI_H
#define AQM_CORE_PI_H

#include "aqm_types.h"
#include "dq_rate.h"
#include "fixed_log2.h"

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

/*
 * At most 1 kHz: no faster than a jiffies timer at HZ=1000. Anyone with
 * CAP_NET_ADMIN in a user namespace may create qdiscs on many veth
 * devices, and a softirq hrtimer per qdisc at 100 kHz is a timer storm.
 * The law needs far less: ns-2 runs it at 170 Hz.
 */
#define PI_FREQ_MIN_MHZ		10		/* 0.01 Hz */
#define PI_FREQ_MAX_MHZ		1000000		/* 1 kHz */

/* With ECN, CE marks up to p = 0.1 and drops above (as pie) */
#define PI_DEFAULT_ECN_CEILING	(PI_PROB_ONE / 10)

/* Autotune: the design's defaults are the safe side, long RTT, few flows */
#define PI_DEFAULT_RTT_US	200000
#define PI_DEFAULT_FLOWS	1
#define PI_FLOWS_AUTO		0	/* N estimated from the loss rate */
#define PI_FLOWS_SHIFT		16	/* an estimated N is Q16 */
#define PI_FLOWS_MEAN_RTTS	8	/* horizon of the loss rate flows auto reads */
#define PI_LIMIT_MEAN_RTTS	64	/* horizon of the limit's share of the loss */
#define PI_COUNT_LOG2_BITS	8	/* flows auto counts flows in 2^8 bits */
#define PI_COUNT_BITS		256	/* 2^PI_COUNT_LOG2_BITS */
#define PI_COUNT_WORDS		(PI_COUNT_BITS / 64)
#define PI_COUNT_SAMPLES	1024	/* hashes sampled a window, about */
#define PI_COUNT_RTTS		2	/* a count's window, design round trips */
#define PI_LN2_Q32		2977044472ULL	/* ln 2 */
#define PI_RTT_MAX_US		10000000	/* 10 s */
#define PI_TARGET_DELAY_MAX_US	10000000	/* 10 s */
#define PI_USEC_PER_SEC_Q16	(1000000ULL << AQM_DQ_RATE_SHIFT)

/* No reference yet (a delay target before C is known); no delay, no C */
#define PI_NO_REFERENCE		U32_MAX
#define PI_NO_DELAY		U32_MAX
#define PI_RETUNE_SHIFT		3		/* re-derive at 12.5% */
#define PI_MARGIN_MAX_DEG	89		/* 0 = the paper's wg = z */
#define PI_MARGIN_AUTO		(PI_MARGIN_MAX_DEG + 1)	/* wg from the losses */
#define PI_MARGIN_AUTO_MIN_DEG	60	/* the fastest loop auto places */

/*
 * Senders' response function the autotuned design assumes. CUBIC is the
 * default: most senders run it (Linux, Windows and macOS do), and a design
 * for CUBIC keeps the most phase margin when the senders turn out to be
 * Reno or HighSpeed TCP (the unit tests evaluate the loops).
 */
enum pi_response {
	PI_RESPONSE_RENO,
	PI_RESPONSE_HIGHSPEED,
	PI_RESPONSE_CUBIC,
};

/* Where the gains in use come from */
enum pi_gains_source {
	PI_GAINS_MANUAL,	/* a and b as configured */
	PI_GAINS_BANDWIDTH,	/* autotune, C from the configured bandwidth */
	PI_GAINS_ESTIMATE,	/* autotune, C from the dequeue rate */
	PI_GAINS_PENDING,	/* autotune, no estimate yet: a = b = 0 */
};

/*
 * Constants of the design rules, log2 values in Q32: log2 of 10^3, 10^6 and
 * 10^9 (millihertz per hertz, us and ns per second); HighSpeed TCP's W = 0.12 / p^0.835 as
 * log2 p = (log2 0.12 - log2 W) / 0.835, its decrease
 * b(W) = 0.5 - 0.4 (log2 W - log2 38) / (log2 83000 - log2 38), clamped to
 * [0.1, 0.5]; e = 1/0.835 (Q32 and log2 Q32).
 */
#define PI_LOG2_1E6		85605435163LL
#define PI_LOG2_1E3		42802717582LL
#define PI_LOG2_1E9		128408152745LL
#define PI_HS_LOG2_0_12		(-13137848356LL)
#define PI_HS_LOG2_LOW_WINDOW	22539677042LL		/* log2 38 */
#define PI_HS_LOG2_HIGH_WINDOW	70183303450LL		/* log2 83000 */
#define PI_HS_DECREASE_SLOPE_Q32 154872712ULL		/* 0.4 / log2 ratio */
#define PI_HS_EXPONENT_Q32	5143673408ULL		/* e = 1/0.835 */
#define PI_HS_INV_EXPONENT_Q32	3586297692ULL		/* 0.835 */
#define PI_HS_LOG2_EXPONENT	1117343891LL		/* log2 e */

/*
 * CUBIC's: log2 of its decrease 1 - beta = 0.3; of (3 + beta) / (4 (1 - beta))
 * = 3.0833 and 1/3 (Q32), which scale its C, and 4/3 (Q32 and log2) for its
 * own region; log2 1.5 for the Reno-friendly one. C in 10^-6 s^-3: RFC 9438's
 * 0.4 by default, from 10^-6 (senders slowed down 74 times) to 100.
 */
#define PI_CUBIC_LOG2_DECREASE	(-7460210421LL)
#define PI_CUBIC_LOG2_SHAPE	6977135137LL
#define PI_THIRD_Q32		1431655765ULL
#define PI_CUBIC_C_MICRO	400000
#define PI_CUBIC_C_MIN_MICRO	1
#define PI_CUBIC_C_MAX_MICRO	100000000
#define PI_CUBIC_EXPONENT_Q32	5726623061ULL
#define PI_CUBIC_INV_EXPONENT_Q32 3221225472ULL			/* 3/4 */
#define PI_CUBIC_LOG2_EXPONENT	1782572486LL
#define PI_CUBIC_LOG2_FRIENDLY	2512394810LL

/**
 * struct pi_params - configuration
 * @limit_pkts:		queue capacity; a full queue tail-drops
 * @target_pkts:	reference queue length q_ref, without @target_delay_us
 * @target_delay_us:	reference queueing delay d, q_ref = d C; 0 = use
 *			@target_pkts
 * @a_frac:		gain a, as a fraction of 2^64
 * @b_frac:		gain b, as a fraction of 2^64
 * @freq_mhz:		update frequency in millihertz
 * @ecn:		mark ECN-capable packets instead of dropping them
 * @ecn_ceiling:	with @ecn, drop rather than mark above this p, Q62
 * @autotune:		derive the gains from the design rules, not @a_frac
 *			and @b_frac
 * @rtt_us:		autotune: largest round-trip time Tp without this queue
 * @flows:		autotune: fewest flows N; PI_FLOWS_AUTO = estimate N
 * @bandwidth_bps:	C in bytes per second, for autotune and a delay
 *			target; 0 = estimate it
 * @pkt_bytes:		bytes of a wire packet (MTU and link header): turns
 *			@bandwidth_bps into packets, sets the early-drop floor
 * @response:		autotune: senders' response function, pi_response
 * @cubic_c_micro:	autotune, CUBIC: the senders' C, 10^-6 s^-3
 * @even_spacing:	drop at regular intervals of 1/p packets, not at random
 * @margin_deg:		autotune: phase margin that places the crossover,
 *			degrees; 0 = the paper's wg = z; PI_MARGIN_AUTO =
 *			from the senders' loss events
 */
struct pi_params {
	u32 limit_pkts;
	u32 target_pkts;
	u32 target_delay_us;
	u64 a_frac;
	u64 b_frac;
	u32 freq_mhz;
	bool ecn;
	u64 ecn_ceiling;
	bool autotune;
	u32 rtt_us;
	u32 flows;
	u64 bandwidth_bps;
	u32 pkt_bytes;
	u32 response;
	u32 cubic_c_micro;
	bool even_spacing;
	u32 margin_deg;
};

/**
 * struct pi_vars - controller state
 * @prob:	drop/mark probability p, 1.0 = PI_PROB_ONE
 * @qold_pkts:	queue length at the previous update, q_old
 * @a_frac:	gain a in use, fraction of 2^64
 * @b_frac:	gain b in use, fraction of 2^64
 * @tuned_q16:	autotune: C the gains in use derive from, packets per second,
 *		Q16; 0 = none
 * @tuned_flows_q16:	autotune: N the gains in use derive from, Q16; 0 = none
 * @tuned_loss_flows_q16:	margin auto with flows auto: the flows counted
 *			whose loss events placed the crossover in use, Q16;
 *			0 = the design's N did (none counted yet)
 * @tuned_margin_deg:	autotune: phase margin of the gains in use, whole
 *			degrees, rounded down; 0 below 1 degree and without
 *			autotuned gains
 * @source:	where the gains in use come from, pi_gains_source
 * @dq:		dequeue rate, where C is not configured
 * @accu:	even spacing: probability accumulated since the last drop, Q62
 * @ref_pkts:	q_ref at the last update (the delay target's moves with C);
 *		PI_NO_REFERENCE while C is unknown
 * @qdelay_us:	queue over C at the last update; PI_NO_DELAY while C is
 *		unknown
 * @integral:	autotune: the law's integral I, within [0, 1], Q62; else
 *		p itself (a change to autotune starts from it)
 * @mean_prob:	flows auto: p averaged over about PI_FLOWS_MEAN_RTTS design
 *		round trips, Q62, the operating point N is read from; else p
 * @mean_share:	flows auto: the share of the packets served that the
 *		limit dropped, averaged over about PI_LIMIT_MEAN_RTTS design
 *		round trips, Q62
 * @mean_loss:	flows auto: the loss rate the senders meet, @mean_prob plus
 *		@mean_share (at most 1), Q62; else p
 * @limit_drops:	wire packets the limit dropped since the last update
 * @count_map:	flows auto: the flow hashes sampled this window, a bit each
 * @count_skip:	flows auto: arrivals to pass before the next sample
 * @count_shift:	flows auto: about one arrival in 2^@count_shift is sampled
 * @count_arrivals:	flows auto: arrivals this window
 * @count_updates:	flows auto: updates this window
 * @counted_flows:	flows auto: flows counted in the last window; 0 = none
 * @log2_counted_flows:	the same, log2 Q32, at least 0
 */
struct pi_vars {
	u64 prob;
	u32 qold_pkts;
	u64 a_frac;
	u64 b_frac;
	u64 tuned_q16;
	u64 tuned_flows_q16;
	u64 tuned_loss_flows_q16;
	u32 tuned_margin_deg;
	u32 source;
	struct aqm_dq_rate dq;
	u64 accu;
	u32 ref_pkts;
	u32 qdelay_us;
	u64 integral;
	u64 mean_prob;
	u64 mean_share;
	u64 mean_loss;
	u64 limit_drops;
	u64 count_map[PI_COUNT_WORDS];
	u32 count_skip;
	u32 count_shift;
	u32 count_arrivals;
	u32 count_updates;
	u32 counted_flows;
	s64 log2_counted_flows;
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

static inline void pi_params_init(struct pi_params *params, u32 pkt_bytes)
{
	params->limit_pkts = PI_DEFAULT_LIMIT_PKTS;
	params->target_pkts = PI_DEFAULT_TARGET_PKTS;
	params->target_delay_us = 0;
	params->a_frac = PI_DEFAULT_A_FRAC;
	params->b_frac = PI_DEFAULT_B_FRAC;
	params->freq_mhz = PI_DEFAULT_FREQ_MHZ;
	params->ecn = false;
	params->ecn_ceiling = PI_DEFAULT_ECN_CEILING;
	params->autotune = false;
	params->rtt_us = PI_DEFAULT_RTT_US;
	params->flows = PI_DEFAULT_FLOWS;
	params->bandwidth_bps = 0;
	params->pkt_bytes = pkt_bytes;
	params->response = PI_RESPONSE_CUBIC;
	params->cubic_c_micro = PI_CUBIC_C_MICRO;
	params->even_spacing = false;
	params->margin_deg = 0;
}

/* flows auto's count: none yet, the next arrival sampled */
static inline void pi_count_reset(struct pi_vars *vars)
{
	unsigned int i;

	for (i = 0; i < PI_COUNT_WORDS; i++)
		vars->count_map[i] = 0;
	vars->count_skip = 0;
	vars->count_shift = 0;
	vars->count_arrivals = 0;
	vars->count_updates = 0;
	WRITE_ONCE(vars->counted_flows, 0);
	vars->log2_counted_flows = 0;
}

/* Control state; the gains in use are set by pi_retune() */
static inline void pi_vars_init(struct pi_vars *vars)
{
	vars->prob = 0;
	vars->qold_pkts = 0;
	vars->a_frac = 0;
	vars->b_frac = 0;
	vars->tuned_q16 = 0;
	vars->tuned_flows_q16 = 0;
	vars->tuned_loss_flows_q16 = 0;
	vars->tuned_margin_deg = 0;
	vars->source = PI_GAINS_PENDING;
	aqm_dq_rate_init(&vars->dq);
	vars->accu = 0;
	vars->ref_pkts = PI_NO_REFERENCE;
	vars->qdelay_us = PI_NO_DELAY;
	vars->integral = 0;
	vars->mean_prob = 0;
	vars->mean_share = 0;
	vars->mean_loss = 0;
	vars->limit_drops = 0;
	pi_count_reset(vars);
}

/* Update period 1/freq in nanoseconds; freq_mhz >= PI_FREQ_MIN_MHZ */
static inline u64 pi_update_period_ns(const struct pi_params *params)
{
	return div_u64(AQM_NSEC_PER_SEC * 1000, params->freq_mhz);
}

/**
 * struct pi_design - a continuous-time PI design, C(s) = K (s/z + 1) / s
 * @log2_z:	log2 of the zero z, rad/s, Q32
 * @log2_k:	log2 of the gain K, Q32
 * @log2_wgr:	log2 of the crossover wg times R, Q32
 */
struct pi_design {
	s64 log2_z;
	s64 log2_k;
	s64 log2_wgr;
};

/* x * y for a Q32 factor x and a Q32 value y of either sign */
static inline s64 pi_mul_q32(u64 x, s64 y)
{
	return (s64)aqm_s128_mul_frac(x, y, AQM_LOG2_SHIFT).lo;
}

/*
 * wg R = x for a phase margin of PM degrees, Q32, index PM - 1: the root of
 * atan(x) + x = (90 - PM) degrees, the phase the delay e^-sR and the pole
 * 1/R take at the crossover. Checked against atan() by the unit tests.
 */
static const u32 pi_margin_wgr_q32[PI_MARGIN_MAX_DEG] = {
	3647594823, 3600274826, 3553144005, 3506201675, 3459447108,
	3412879527, 3366498108, 3320301979, 3274290223, 3228461875,
	3182815924, 3137351311, 3092066933, 3046961641, 3002034239,
	2957283488, 2912708103, 2868306754, 2824078069, 2780020631,
	2736132981, 2692413618, 2648860997, 2605473533, 2562249602,
	2519187536, 2476285631, 2433542142, 2390955285, 2348523241,
	2306244152, 2264116124, 2222137227, 2180305498, 2138618937,
	2097075512, 2055673158, 2014409778, 1973283244, 1932291396,
	1891432046, 1850702976, 1810101939, 1769626661, 1729274841,
	1689044152, 1648932241, 1608936731, 1569055221, 1529285287,
	1489624481, 1450070334, 1410620356, 1371272037, 1332022847,
	1292870236, 1253811637, 1214844465, 1175966117, 1137173974,
	1098465402, 1059837751, 1021288357, 982814543, 944413615,
	906082871, 867819594, 829621057, 791484520, 753407234,
	715386441, 677419371, 639503247, 601635284, 563812688,
	526032658, 488292387, 450589061, 412919860, 375281959,
	337672528, 300088732, 262527733, 224986689, 187462755,
	149953083, 112454824, 74965126, 37481136,
};

/* log2 of (3.0833 C)^(1/3), Q32, for C in 10^-6 s^-3 (not 0) */
static inline s64 pi_cubic_log2_scale(u32 cubic_c_micro)
{
	return pi_mul_q32(PI_THIRD_Q32, aqm_log2_q32(cubic_c_micro, 0) -
			  PI_LOG2_1E6 + PI_CUBIC_LOG2_SHAPE);
}

/*
 * CUBIC's pole and gain (see the top of this file) from the log2 of its
 * window and round trip and its C: log2 p_TCP into @log2_z, log2 G into
 * @log2_g; log2 of the loss rate at that window into @log2_loss.
 */
static inline void pi_cubic_plant(s64 log2_w, s64 log2_r, s64 log2_n,
				  u32 cubic_c_micro, s64 *log2_z, s64 *log2_g,
				  s64 *log2_loss)
{
	s64 log2_p = pi_cubic_log2_scale(cubic_c_micro) + log2_r -
		     pi_mul_q32(PI_CUBIC_EXPONENT_Q32, log2_w);
	s64 log2_p_friendly = PI_CUBIC_LOG2_FRIENDLY - 2 * log2_w;
	s64 log2_e = PI_CUBIC_LOG2_EXPONENT;

	if (log2_p_friendly > log2_p) {
		log2_p = log2_p_friendly;
		log2_e = AQM_LOG2_ONE;		/* e = 2 */
	}
	/* p_TCP = e D p / R,  G = N D W / R^2,  D = 0.3 W */
	*log2_z = log2_e + PI_CUBIC_LOG2_DECREASE + log2_w + log2_p - log2_r;
	*log2_g = log2_n + PI_CUBIC_LOG2_DECREASE + 2 * log2_w - 2 * log2_r;
	*log2_loss = log2_p;
}

/*
 * log2 of the loss rate, Q32, at which senders with @response keep the
 * window W (log2 @log2_w) at the round trip R (@log2_r, seconds): the
 * p of pi_design_rules(), pi_response_log2_window() inverted.
 */
static inline s64 pi_response_log2_loss(u32 response, u32 cubic_c_micro,
					s64 log2_w, s64 log2_r)
{
	s64 log2_z, log2_g, log2_p;

	if (response == PI_RESPONSE_CUBIC) {
		pi_cubic_plant(log2_w, log2_r, 0, cubic_c_micro, &log2_z,
			       &log2_g, &log2_p);
		return log2_p;
	}
	/* HighSpeed: p = (0.12 / W)^(1 / 0.835); Reno: p = 2 / W^2 */
	if (response == PI_RESPONSE_HIGHSPEED && log2_w > PI_HS_LOG2_LOW_WINDOW)
		return pi_mul_q32(PI_HS_EXPONENT_Q32, PI_HS_LOG2_0_12 - log2_w);
	return (s64)AQM_LOG2_ONE - 2 * log2_w;
}

/*
 * log2 of x = wg R, Q32, for the margin auto (the top of this file): the
 * root of x sqrt(1 + x^2) = nu, the senders' loss events per round trip
 * (@log2_nu), at most the x of PI_MARGIN_AUTO_MIN_DEG. As
 * x^2 = 2 nu^2 / (1 + sqrt(1 + 4 nu^2)), which keeps its precision for any
 * small nu.
 */
static inline s64 pi_auto_log2_wgr(s64 log2_nu)
{
	s64 log2_fastest = aqm_log2_q32(pi_margin_wgr_q32[PI_MARGIN_AUTO_MIN_DEG - 1],
					AQM_LOG2_SHIFT);
	s64 log2_x, log2_root;
	u64 four_nu2;

	/* the fastest x is below 1/2 and its nu below 1; under 1, 4 nu^2 < 4 */
	if (log2_nu >= 0)
		return log2_fastest;
	four_nu2 = aqm_exp2_q32(2 * log2_nu + 2 * (s64)AQM_LOG2_ONE, AQM_LOG2_SHIFT);
	log2_root = aqm_log2_q32(AQM_LOG2_ONE + four_nu2, AQM_LOG2_SHIFT) / 2;
	log2_x = log2_nu + ((s64)AQM_LOG2_ONE -
			   aqm_log2_q32(AQM_LOG2_ONE +
					aqm_exp2_q32(log2_root, AQM_LOG2_SHIFT),
					AQM_LOG2_SHIFT)) / 2;
	return log2_x < log2_fastest ? log2_x : log2_fastest;
}

/*
 * The phase margin of a crossover wg R = x (log2, Q32), whole degrees
 * rounded down: the largest PM whose x (pi_margin_wgr_q32[], falling with
 * PM) is at least this one, to 2^-20 (a configured margin's x comes back
 * from the log domain a few units of 2^-30 off); 0 below 1 degree.
 */
static inline u32 pi_margin_of(s64 log2_wgr)
{
	u64 x_q32 = aqm_exp2_q32(log2_wgr, AQM_LOG2_SHIFT);
	u32 pm = PI_MARGIN_MAX_DEG;

	while (pm && pi_margin_wgr_q32[pm - 1] < x_q32 - (x_q32 >> 20))
		pm--;
	return pm;
}

/**
 * pi_design_rules() - the PI paper's design for a given link
 * @cap_q16:	C, packets per second, Q16, not 0
 * @flows_q16:	N, Q16, not 0
 * @rtt_us:	R, the round trip with the reference queue's delay, not 0
 * @response:	senders' response function, pi_response
 * @cubic_c_micro: CUBIC's C, 10^-6 s^-3, not 0 (read for PI_RESPONSE_CUBIC)
 * @margin_deg:	phase margin placing the crossover, 1..PI_MARGIN_MAX_DEG
 *		degrees; 0 = wg = z; PI_MARGIN_AUTO = from the senders' loss
 *		events (at least z)
 * @loss_flows_q16: PI_MARGIN_AUTO: the flows whose loss events place the
 *		crossover, each with a window of R C / them, Q16; 0 = @flows_q16
 * @d:		the design, written
 *
 * See the top of this file; HighSpeed TCP below its low window (38
 * packets) is Reno, and so is its design.
 */
static inline void pi_design_rules(u64 cap_q16, u64 flows_q16, u64 rtt_us,
				   u32 response, u32 cubic_c_micro,
				   u32 margin_deg, u64 loss_flows_q16,
				   struct pi_design *d)
{
	s64 log2_c = aqm_log2_q32(cap_q16, AQM_DQ_RATE_SHIFT);
	s64 log2_n = aqm_log2_q32(flows_q16, PI_FLOWS_SHIFT);
	s64 log2_r = aqm_log2_q32(rtt_us, 0) - PI_LOG2_1E6;
	s64 log2_w = log2_r + log2_c - log2_n;
	s64 log2_g, log2_wg, log2_sqrt, log2_loss;
	u64 x2_q32;

	if (response == PI_RESPONSE_CUBIC) {
		pi_cubic_plant(log2_w, log2_r, log2_n, cubic_c_micro,
			       &d->log2_z, &log2_g, &log2_loss);
	} else if (response == PI_RESPONSE_HIGHSPEED &&
		   log2_w > PI_HS_LOG2_LOW_WINDOW) {
		s64 log2_p = pi_response_log2_loss(response, cubic_c_micro,
						   log2_w, log2_r);
		s64 above = (log2_w < PI_HS_LOG2_HIGH_WINDOW ?
			     log2_w : PI_HS_LOG2_HIGH_WINDOW) - PI_HS_LOG2_LOW_WINDOW;
		u64 dec_q32 = (AQM_LOG2_ONE >> 1) -
			      (u64)pi_mul_q32(PI_HS_DECREASE_SLOPE_Q32, above);
		s64 log2_b = aqm_log2_q32(dec_q32, AQM_LOG2_SHIFT);

		/* p_TCP = e b W p / R,  G = N b W^2 / R^2 */
		d->log2_z = PI_HS_LOG2_EXPONENT + log2_b + log2_w + log2_p - log2_r;
		log2_g = log2_n + log2_b + 2 * log2_w - 2 * log2_r;
		log2_loss = log2_p;
	} else {
		/* p_TCP = 2N / (R^2 C),  G = C^2 / 2N,  p = 2 / W^2 */
		d->log2_z = (s64)AQM_LOG2_ONE + log2_n - 2 * log2_r - log2_c;
		log2_g = 2 * log2_c - (s64)AQM_LOG2_ONE - log2_n;
		log2_loss = pi_response_log2_loss(response, cubic_c_micro,
						  log2_w, log2_r);
	}

	if (margin_deg && margin_deg <= PI_MARGIN_MAX_DEG) {
		log2_wg = aqm_log2_q32(pi_margin_wgr_q32[margin_deg - 1],
				       AQM_LOG2_SHIFT) - log2_r;
	} else if (margin_deg == PI_MARGIN_AUTO) {
		if (loss_flows_q16)
			log2_loss = pi_response_log2_loss(response, cubic_c_micro,
							  log2_r + log2_c -
							  aqm_log2_q32(loss_flows_q16,
								       PI_FLOWS_SHIFT),
							  log2_r);
		/* nu = p C R */
		log2_wg = pi_auto_log2_wgr(log2_loss + log2_c + log2_r) - log2_r;
		if (log2_wg < d->log2_z)
			log2_wg = d->log2_z;
	} else {
		log2_wg = d->log2_z;
	}
	d->log2_wgr = log2_wg + log2_r;

	/* sqrt(1 + (wg R)^2), (wg R)^2 saturating far above 1 */
	x2_q32 = aqm_exp2_q32(2 * (log2_wg + log2_r), AQM_LOG2_SHIFT);
	if (x2_q32 > U64_MAX - AQM_LOG2_ONE)
		x2_q32 = U64_MAX - AQM_LOG2_ONE;
	log2_sqrt = aqm_log2_q32(x2_q32 + AQM_LOG2_ONE, AQM_LOG2_SHIFT) / 2;

	d->log2_k = d->log2_z + log2_wg + log2_sqrt - log2_g - log2_r;
}

/**
 * pi_discretise() - the gains of a design sampled every @period_ns
 * @d:		the design
 * @period_ns:	T, not 0
 * @a_frac:	a = K (1/z + T/2), fraction of 2^64, saturated below 1
 * @b_frac:	b = K (1/z - T/2), 0 if negative
 */
static inline void pi_discretise(const struct pi_design *d, u64 period_ns,
				 u64 *a_frac, u64 *b_frac)
{
	s64 log2_t = aqm_log2_q32(period_ns, 0) - PI_LOG2_1E9;
	u64 k_over_z = aqm_exp2_q32(d->log2_k - d->log2_z, PI_GAIN_SHIFT);
	u64 k_half_t = aqm_exp2_q32(d->log2_k + log2_t - (s64)AQM_LOG2_ONE,
				    PI_GAIN_SHIFT);

	*a_frac = k_over_z > U64_MAX - k_half_t ? U64_MAX : k_over_z + k_half_t;
	*b_frac = k_over_z > k_half_t ? k_over_z - k_half_t : 0;
}

/* C from the configured bandwidth, packets per second, Q16 */
static inline u64 pi_bandwidth_q16(const struct pi_params *params)
{
	u64 whole = div_u64(params->bandwidth_bps, params->pkt_bytes);
	u64 rem = params->bandwidth_bps - whole * params->pkt_bytes;

	if (whole >= AQM_DQ_RATE_MAX_PPS)
		return AQM_DQ_RATE_MAX_PPS << AQM_DQ_RATE_SHIFT;
	return (whole << AQM_DQ_RATE_SHIFT) |
	       div_u64(rem << AQM_DQ_RATE_SHIFT, params->pkt_bytes);
}

/* C, packets per second, Q16: configured, or measured; 0 = not yet known */
static inline u64 pi_capacity_q16(const struct pi_params *params,
				  const struct pi_vars *vars)
{
	return params->bandwidth_bps ? pi_bandwidth_q16(params) : vars->dq.rate_q16;
}

/* q_ref in packets for a C: the packet target, or d C below 2^32 - 1 */
static inline u32 pi_reference_pkts(const struct pi_params *params,
				    u64 cap_q16)
{
	u64 pkts;

	if (!params->target_delay_us)
		return params->target_pkts;
	if (!cap_q16)
		return PI_NO_REFERENCE;
	/* d <= 10 s and C < 2^56 (Q16): the quotient stays below 2^46 */
	pkts = mul_u64_u64_div_u64(params->target_delay_us, cap_q16,
				   PI_USEC_PER_SEC_Q16);
	return pkts < PI_NO_REFERENCE ? pkts : PI_NO_REFERENCE - 1;
}

/*
 * The delay of @pkts at C, microseconds, at most PI_TARGET_DELAY_MAX_US
 * (C not 0). The bound is checked first: mul_u64_u64_div_u64() traps on
 * x86 when the quotient does not fit.
 */
static inline u64 pi_delay_us(u64 pkts, u64 cap_q16)
{
	u64 most = mul_u64_u64_div_u64(cap_q16, PI_TARGET_DELAY_MAX_US,
				       PI_USEC_PER_SEC_Q16);

	if (pkts > most)
		return PI_TARGET_DELAY_MAX_US;
	return mul_u64_u64_div_u64(pkts, PI_USEC_PER_SEC_Q16, cap_q16);
}

/* R of the design: Tp plus the reference queue's delay at C (not 0) */
static inline u64 pi_design_rtt_us(const struct pi_params *params, u64 cap_q16)
{
	if (params->target_delay_us)
		return (u64)params->rtt_us + params->target_delay_us;
	return params->rtt_us + pi_delay_us(params->target_pkts, cap_q16);
}

/* |x - y| above y / 2^PI_RETUNE_SHIFT: C or N moved enough to re-derive */
static inline bool pi_design_moved(u64 x, u64 y)
{
	return (x > y ? x - y : y - x) > y >> PI_RETUNE_SHIFT;
}

/*
 * log2 of the window W(p) in packets, Q32, of senders with @response at
 * drop probability p (log2 @log2_p, below 0) and round trip R (@log2_r,
 * seconds): pi_design_rules()'s W -> p inverted. CUBIC's window (its C
 * @cubic_c_micro, 10^-6 s^-3) is the larger of its own and its Reno-friendly
 * one; HighSpeed TCP's is Reno's where it falls below its low window.
 */
static inline s64 pi_response_log2_window(u32 response, u32 cubic_c_micro,
					  s64 log2_p, s64 log2_r)
{
	s64 log2_w, log2_w_friendly;

	if (response == PI_RESPONSE_CUBIC) {
		/* W = ((3.0833 C)^(1/3) R / p)^(3/4), or (1.5 / p)^(1/2) */
		log2_w = pi_mul_q32(PI_CUBIC_INV_EXPONENT_Q32,
				    pi_cubic_log2_scale(cubic_c_micro) +
				    log2_r - log2_p);
		log2_w_friendly = (PI_CUBIC_LOG2_FRIENDLY - log2_p) / 2;
		return log2_w > log2_w_friendly ? log2_w : log2_w_friendly;
	}
	if (response == PI_RESPONSE_HIGHSPEED) {
		/* W = 0.12 / p^0.835 */
		log2_w = PI_HS_LOG2_0_12 - pi_mul_q32(PI_HS_INV_EXPONENT_Q32, log2_p);
		if (log2_w > PI_HS_LOG2_LOW_WINDOW)
			return log2_w;
	}
	/* W = (2 / p)^(1/2) */
	return ((s64)AQM_LOG2_ONE - log2_p) / 2;
}

/*
 * log2 of the flows the loss rate @loss (Q62) means, Q32: R C / W(loss),
 * within [0, 32] (one flow to 2^32; C and R not 0).
 *
 * Not at p itself: N would move b, and b p, within each step (p up, N up,
 * b up, p down by b |e|): measured, an empty queue's p swinging between
 * two values on every update instead of falling. Nor at the integral
 * part of ns-2's form (p less b e), which a clamp of p at 0 resets: a
 * queue empty for a moment took N to one flow each time, with gains too
 * small to hold the next rise (measured: 16 CUBIC flows at 400 Mbit/s,
 * their queue empty for moments every few seconds, held 2.3 times the
 * target, tail drops 90% of the loss). The mean over several round trips
 * is the rate the senders meet, and a moment's empty queue barely moves
 * it.
 */
static inline s64 pi_loss_log2_flows(const struct pi_params *params, u64 loss,
				     u64 cap_q16, u64 rtt_us)
{
	s64 log2_r, log2_n;

	if (!loss)
		return 0;
	log2_r = aqm_log2_q32(rtt_us, 0) - PI_LOG2_1E6;
	log2_n = log2_r + aqm_log2_q32(cap_q16, AQM_DQ_RATE_SHIFT) -
		 pi_response_log2_window(params->response, params->cubic_c_micro,
					 aqm_log2_q32(loss, PI_PROB_SHIFT), log2_r);
	if (log2_n <= 0)
		return 0;
	return log2_n < 32 * (s64)AQM_LOG2_ONE ? log2_n : 32 * (s64)AQM_LOG2_ONE;
}

/*
 * N of the design, Q16: the configured fewest flows, or the estimate's,
 * the more of p's (@vars->mean_prob) and the limit's: the loss rate with
 * the limit's share (@vars->mean_loss), the limit's at most the flows
 * counted.
 *
 * Not at p alone: where the limit carries the loss, p need not rise, N
 * read low and its slow gains kept p low (measured: 16 CUBIC flows at
 * 1 Gbit/s, 2494 of 2525 drops at the limit, p at 0-1e-5 where the flows
 * met 1.8e-4, N read 1-11). The limit's N is bounded by the count, because
 * the limit's drops come in bursts the loop neither made nor bounds:
 * slow start's overshoot into the limit reads as many times the flows
 * there are (measured: 724-2385 drops in its first seconds read 37-83 for
 * 16 CUBIC flows at 400 Mbit/s), and a design for them wound p up to
 * several times the flows' need for 30-70 s. Followed slowly instead (64
 * to 128 round trips), it left 16 flows at 1 Gbit/s in the trap above for
 * a minute. The count holds short flows too, so it bounds the limit's N
 * and is no floor of the design.
 *
 * p's N above the count is read at operating points only: N = R C / W(p)
 * holds at one, and slow start's overshoot is none. Its p (up to 5%) read
 * 40-77 flows with 4 counted, the integral wound up with the gains of a
 * design for them to 140 times the p the flows needed, and unwound at the
 * gains of four: for 30 s the queue sat at a third to two thirds of its
 * target, where b e = p - I (4 CUBIC flows at 100 Mbit/s, 254 drops in
 * slow start). So above twice its reference p's mean rises only up to the
 * flows counted (pi_average_loss()); rising not at all there, it kept the
 * design at the one flow of p = 0 through slow start, and its gains held
 * the queue at 2.5-4 times the target for 25 s (4 CUBIC flows at 100
 * Mbit/s). Within twice the reference p's N is not bounded by the count:
 * at an operating point p's N above it is the flows' need, and a design
 * held to the count was too slow for it (measured: 16 CUBIC flows at 1
 * Gbit/s, a 30 ms limit for a 20 ms target, N read up to 39 with 17
 * counted and the queue at its target, sd 3.0-3.4 ms; held to 17, the
 * queue overshot into the limit, 1800-3900 limit drops, sd 8 ms).
 */
static inline u64 pi_design_flows_q16(const struct pi_params *params,
				      const struct pi_vars *vars, u64 cap_q16,
				      u64 rtt_us)
{
	s64 log2_n, log2_limit;

	if (params->flows != PI_FLOWS_AUTO)
		return (u64)params->flows << PI_FLOWS_SHIFT;
	/* p's N, and the limit's */
	log2_n = pi_loss_log2_flows(params, vars->mean_prob, cap_q16, rtt_us);
	log2_limit = pi_loss_log2_flows(params, vars->mean_loss, cap_q16, rtt_us);
	if (log2_limit > vars->log2_counted_flows)
		log2_limit = vars->log2_counted_flows;
	if (log2_n < log2_limit)
		log2_n = log2_limit;
	return aqm_exp2_q32(log2_n, PI_FLOWS_SHIFT);
}

/*
 * The flows whose loss events place margin auto's crossover, Q16: with
 * flows auto those counted in the arrivals, 0 (the design's N) before the
 * first count and otherwise.
 *
 * Not the design's N: with flows auto it is read from p, and nu = p C R
 * at its window then follows the loop's own output. An empty queue's p = 0
 * read one flow, whose loss events gave the slowest loop; the queue rose
 * to 2.5 times the target before N and nu rose together and p leapt 30
 * times, the drops cut most flows at once, and p fell to 0 again
 * (measured: 4 CUBIC flows at 100 and 400 Mbit/s, p at 0 for 39-71% of a
 * run, sd 11-12 ms for a 20 ms target). The count does not depend on p.
 */
static inline u64 pi_loss_flows_q16(const struct pi_params *params,
				    const struct pi_vars *vars)
{
	if (params->margin_deg != PI_MARGIN_AUTO || params->flows != PI_FLOWS_AUTO ||
	    !vars->counted_flows)
		return 0;
	return aqm_exp2_q32(vars->log2_counted_flows, PI_FLOWS_SHIFT);
}

/* the count moved enough to place the crossover again, or came or went */
static inline bool pi_loss_flows_moved(u64 x, u64 y)
{
	return !x != !y || (x && pi_design_moved(x, y));
}

/* no law (C unknown): p = 0 and no integral, so no drops */
static inline void pi_rest(struct pi_vars *vars)
{
	WRITE_ONCE(vars->prob, 0);
	vars->accu = 0;
	vars->integral = 0;
	vars->mean_prob = 0;
	vars->mean_share = 0;
	vars->mean_loss = 0;
	vars->limit_drops = 0;
	pi_count_reset(vars);
}

/**
 * pi_retune() - bring the gains in use up to date
 * @params:	configuration
 * @vars:	state: the gains in use and where they come from, updated
 * @force:	derive them again even if C did not move (the configuration
 *		changed)
 */
static inline void pi_retune(const struct pi_params *params,
			     struct pi_vars *vars, bool force)
{
	u64 cap_q16, rtt_us, flows_q16, loss_flows_q16, a_frac, b_frac;
	struct pi_design d;

	if (!params->autotune) {
		WRITE_ONCE(vars->a_frac, params->a_frac);
		WRITE_ONCE(vars->b_frac, params->b_frac);
		WRITE_ONCE(vars->tuned_q16, 0);
		WRITE_ONCE(vars->tuned_flows_q16, 0);
		WRITE_ONCE(vars->tuned_margin_deg, 0);
		WRITE_ONCE(vars->source, PI_GAINS_MANUAL);
		return;
	}

	cap_q16 = pi_capacity_q16(params, vars);
	if (!cap_q16) {
		/* no law until C is known: no drops either, not a frozen p */
		WRITE_ONCE(vars->a_frac, 0);
		WRITE_ONCE(vars->b_frac, 0);
		WRITE_ONCE(vars->tuned_q16, 0);
		WRITE_ONCE(vars->tuned_flows_q16, 0);
		WRITE_ONCE(vars->tuned_margin_deg, 0);
		WRITE_ONCE(vars->source, PI_GAINS_PENDING);
		pi_rest(vars);
		return;
	}
	rtt_us = pi_design_rtt_us(params, cap_q16);
	flows_q16 = pi_design_flows_q16(params, vars, cap_q16, rtt_us);
	loss_flows_q16 = pi_loss_flows_q16(params, vars);
	if (!force && vars->tuned_q16 && !pi_design_moved(cap_q16, vars->tuned_q16) &&
	    !pi_design_moved(flows_q16, vars->tuned_flows_q16) &&
	    !pi_loss_flows_moved(loss_flows_q16, vars->tuned_loss_flows_q16))
		return;

	pi_design_rules(cap_q16, flows_q16, rtt_us, params->response,
			params->cubic_c_micro, params->margin_deg,
			loss_flows_q16, &d);
	pi_discretise(&d, pi_update_period_ns(params), &a_frac, &b_frac);
	WRITE_ONCE(vars->tuned_margin_deg, pi_margin_of(d.log2_wgr));
	WRITE_ONCE(vars->a_frac, a_frac);
	WRITE_ONCE(vars->b_frac, b_frac);
	WRITE_ONCE(vars->tuned_q16, cap_q16);
	WRITE_ONCE(vars->tuned_flows_q16, flows_q16);
	vars->tuned_loss_flows_q16 = loss_flows_q16;
	WRITE_ONCE(vars->source, params->bandwidth_bps ? PI_GAINS_BANDWIDTH :
			       PI_GAINS_ESTIMATE);
}

/* a wire packet the limit dropped: flows auto's N reads the loss rate */
static inline void pi_limit_dropped(struct pi_vars *vars)
{
	vars->limit_drops++;
}

/*
 * The share of the C T packets served in this update that the limit
 * dropped instead, Q62 (the limit drops only while the queue is full, so
 * the link is busy and served C T). At most 1.
 */
static inline u64 pi_update_share(const struct pi_params *params,
				  const struct pi_vars *vars, u64 cap_q16)
{
	s64 log2_share;

	if (!vars->limit_drops || !cap_q16)
		return 0;
	/* drops / (C / freq), freq in millihertz */
	log2_share = aqm_log2_q32(vars->limit_drops, 0) +
		     aqm_log2_q32(params->freq_mhz, 0) -
		     aqm_log2_q32(cap_q16, AQM_DQ_RATE_SHIFT) - PI_LOG2_1E3;
	if (log2_share >= 0)
		return PI_PROB_ONE;
	return aqm_exp2_q32(log2_share, PI_PROB_SHIFT);
}

/* s of the 2^s updates nearest below @rtts design round trips of @rtt_us */
static inline unsigned int pi_rtts_shift(const struct pi_params *params,
					 u64 rtt_us, u32 rtts)
{
	/* microseconds times millihertz: 10^9 of them make one update */
	u64 updates = div_u64(rtts * rtt_us * params->freq_mhz, AQM_NSEC_PER_SEC);

	return updates ? aqm_fls64(updates) - 1 : 0;
}

/*
 * Flows auto counts the flows as well, by linear counting (Whang,
 * Vander-Zanden, Taylor, ACM TODS 1990): the flow hashes of a sample of
 * the arrivals set bits of a map of m = PI_COUNT_BITS, and n flows leave
 * about m e^(-n/m) of them clear, so n = m ln(m / z) for z clear bits
 * (within 10% up to about 2m flows; the map saturates at m ln m, 1420).
 * One arrival (an skb) in about 2^s is sampled, s set at each window's
 * end so that PI_COUNT_SAMPLES are; a flow with a thousandth of the
 * arrivals is then seen with probability 1 - 1/e, one with a hundredth
 * almost surely, and the rest are the short flows the design is not for.
 * The gaps between samples are random: a fixed stride could alias with
 * flows that arrive in turn and see only some of them.
 */

/* an arrival: whether flows auto samples its flow hash (pi_count_flow()) */
static inline bool pi_count_due(const struct pi_params *params,
				struct pi_vars *vars)
{
	if (!params->autotune || params->flows != PI_FLOWS_AUTO)
		return false;
	if (vars->count_arrivals < U32_MAX)
		vars->count_arrivals++;
	if (vars->count_skip) {
		vars->count_skip--;
		return false;
	}
	return true;
}

/* a sampled arrival's flow @hash; @rnd, uniform, draws the next gap */
static inline void pi_count_flow(struct pi_vars *vars, u32 hash, u32 rnd)
{
	u32 bit = hash >> (32 - PI_COUNT_LOG2_BITS);
	u32 shift = vars->count_shift;

	vars->count_map[bit / 64] |= BIT_ULL(bit % 64);
	/* 2^(s-1) to 2^s + 2^(s-1) - 1 arrivals on: one in 2^s - 1/2 */
	if (shift)
		vars->count_skip = (1U << (shift - 1)) - 1 + (rnd >> (32 - shift));
}

/* log2 of the flows @clear of the map's bits mean, Q32, at least 0 */
static inline s64 pi_count_log2_flows(u32 clear)
{
	s64 log2_n;

	if (clear >= PI_COUNT_BITS)
		return 0;
	if (!clear)
		clear = 1;			/* saturated: m ln m */
	/* n = m ln(m / z) = m (log2 m - log2 z) ln 2 */
	log2_n = PI_COUNT_LOG2_BITS * (s64)AQM_LOG2_ONE +
		 aqm_log2_q32(pi_mul_q32(PI_LN2_Q32, PI_COUNT_LOG2_BITS *
					 (s64)AQM_LOG2_ONE -
					 aqm_log2_q32(clear, 0)),
			      AQM_LOG2_SHIFT);
	return log2_n > 0 ? log2_n : 0;
}

/*
 * An update: a window of 2^s of them, 2^s nearest below PI_COUNT_RTTS
 * design round trips (one to two, so that every flow still sending sends
 * in it), ends with its count.
 */
static inline void pi_count_window(const struct pi_params *params,
				   struct pi_vars *vars, u64 rtt_us)
{
	unsigned int window = pi_rtts_shift(params, rtt_us, PI_COUNT_RTTS);
	unsigned int i, clear = 0;
	u32 per_sample;

	if (++vars->count_updates < BIT_ULL(window))
		return;
	for (i = 0; i < PI_COUNT_WORDS; i++) {
		clear += 64 - aqm_hweight64(vars->count_map[i]);
		vars->count_map[i] = 0;
	}
	vars->log2_counted_flows = pi_count_log2_flows(clear);
	WRITE_ONCE(vars->counted_flows, clear < PI_COUNT_BITS ?
		   (u32)((aqm_exp2_q32(vars->log2_counted_flows, 1) + 1) >> 1) : 0);
	per_sample = vars->count_arrivals / PI_COUNT_SAMPLES;
	vars->count_shift = per_sample ? aqm_fls64(per_sample) - 1 : 0;
	vars->count_skip = 0;
	vars->count_arrivals = 0;
	vars->count_updates = 0;
}

/* @mean towards @now by 1/2^@shift, rounded down: it settles at 0 */
static inline void pi_average(u64 *mean, u64 now, unsigned int shift)
{
	*mean -= (*mean + BIT_ULL(shift) - 1) >> shift;
	*mean += now >> shift;
}

/*
 * Move the mean of p towards this update's by 1/2^s, 2^s the power of two
 * of updates nearest below PI_FLOWS_MEAN_RTTS design round trips, the
 * limit's share likewise over PI_LIMIT_MEAN_RTTS, and count the flows.
 * p's mean rises at an operating point (@operating: the queue within the
 * error the integral counts, twice the reference), where N = R C / W(p)
 * holds; above it, where p answers an overshoot (slow start's) that says
 * nothing of N, only while the N it reads is under the flows counted
 * (pi_design_flows_q16()).
 * Rounded down at each step, so that they settle (and the timer of
 * an idle link can stop): at 0 when p is 0, rather than a few units above
 * it.
 *
 * The limit's share over a longer horizon than p's: the limit drops in
 * clusters, each time the queue overshoots into it, seconds apart at high
 * speed; a mean over 8 round trips fell to nothing between them, and the
 * N it read with it, so the design stayed that of a few flows and the
 * limit kept the loss (measured: 16 CUBIC flows at
 * 1 Gbit/s, 17 flows counted, N read 1-6 at 10 s intervals, p at 0-1e-5,
 * 3485 limit drops). Over 32-64 round trips the clusters' rate holds.
 */
static inline void pi_average_loss(const struct pi_params *params,
				   struct pi_vars *vars, u64 cap_q16,
				   bool operating)
{
	unsigned int shift;
	u64 rtt_us;

	if (!params->autotune || params->flows != PI_FLOWS_AUTO) {
		/* flows auto would start here */
		vars->mean_prob = vars->prob;
		vars->mean_share = 0;
		vars->mean_loss = vars->prob;
		vars->limit_drops = 0;
		pi_count_reset(vars);
		return;
	}
	rtt_us = cap_q16 ? pi_design_rtt_us(params, cap_q16) : params->rtt_us;
	shift = pi_rtts_shift(params, rtt_us, PI_FLOWS_MEAN_RTTS);
	if (operating || vars->prob < vars->mean_prob ||
	    (cap_q16 && pi_loss_log2_flows(params, vars->mean_prob, cap_q16,
					   rtt_us) < vars->log2_counted_flows))
		pi_average(&vars->mean_prob, vars->prob, shift);
	pi_average(&vars->mean_share, pi_update_share(params, vars, cap_q16),
		   pi_rtts_shift(params, rtt_us, PI_LIMIT_MEAN_RTTS));
	vars->mean_loss = vars->mean_share < PI_PROB_ONE - vars->mean_prob ?
			  vars->mean_prob + vars->mean_share : PI_PROB_ONE;
	vars->limit_drops = 0;
	pi_count_window(params, vars, rtt_us);
}

/**
 * pi_update() - one step of the control law
 * @params:	configuration
 * @vars:	state, updated
 * @qlen_pkts:	instantaneous queue length q
 *
 * The gains in use are brought up to date first (pi_retune()), and the
 * reference and the queue's delay at C for the dumps. q_old is compared
 * with the reference of now: d C moves the two errors alike.
 *
 * With autotune, p = I + b e (the positional form, above) with the gains
 * of this step. Gains that follow the queue (flows auto: N from p, p from
 * the queue) then move p by their change of b times e once, and nothing
 * of it stays: in ns-2's form, p += a e - b e_old with b just re-derived
 * left (b' - b) e_old in p at each retune, and the leftovers summed into
 * a drift the slow integral could not outrun (measured: a queue held 4
 * times above its target).
 *
 * The integral counts the error within [-q_ref, q_ref] (at least one
 * packet up), the proportional part all of it. An empty queue bounds the
 * error below at -q_ref and nothing bounds it above, so an overshoot (slow
 * start's: 700-1300 packets for a 166-packet reference, 4 CUBIC flows at
 * 100 Mbit/s) wound the integral up many times faster than an empty queue
 * could unwind it, at the slow rate of the design's zero (a time constant
 * of 12 s there): the queue then sat under its target for most of a run.
 * Within twice the reference the law is unchanged.
 *
 * Return: false when the queue is empty and the step changed nothing, so
 * the caller may stop its timer until the next packet arrives.
 */
static inline bool pi_update(const struct pi_params *params,
			     struct pi_vars *vars, u32 qlen_pkts)
{
	u64 cap_q16 = pi_capacity_q16(params, vars);
	u32 ref_pkts = pi_reference_pkts(params, cap_q16);
	s64 err_now = (s64)qlen_pkts - ref_pkts;
	s64 err_old = (s64)vars->qold_pkts - ref_pkts;
	u64 old_prob = vars->prob, old_integral = vars->integral;
	u64 old_mean = vars->mean_loss, old_mean_prob = vars->mean_prob;
	u64 old_share = vars->mean_share;
	struct aqm_s128 p;

	pi_retune(params, vars, false);
	WRITE_ONCE(vars->ref_pkts, ref_pkts);
	WRITE_ONCE(vars->qdelay_us, cap_q16 ? pi_delay_us(qlen_pkts, cap_q16) : PI_NO_DELAY);
	if (ref_pkts == PI_NO_REFERENCE) {
		/* a delay target before C is known */
		pi_rest(vars);
		vars->qold_pkts = qlen_pkts;
		return qlen_pkts;
	}

	/* Q64 gains times packets, shifted to the Q62 scale of p */
	if (params->autotune) {
		s64 bound = ref_pkts ? ref_pkts : 1;
		s64 err_counted = err_now < bound ? err_now : bound;

		p = aqm_s128_from_u64(vars->integral);
		p = aqm_s128_add(p, aqm_s128_mul_frac(vars->a_frac, err_counted,
						      PI_GAIN_SHIFT - PI_PROB_SHIFT));
		p = aqm_s128_add(p, aqm_s128_mul_frac(vars->b_frac, -err_counted,
						      PI_GAIN_SHIFT - PI_PROB_SHIFT));
		vars->integral = aqm_s128_clamp(p, PI_PROB_ONE);
		p = aqm_s128_from_u64(vars->integral);
		p = aqm_s128_add(p, aqm_s128_mul_frac(vars->b_frac, err_now,
						      PI_GAIN_SHIFT - PI_PROB_SHIFT));
		WRITE_ONCE(vars->prob, aqm_s128_clamp(p, PI_PROB_ONE));
	} else {
		p = aqm_s128_from_u64(vars->prob);
		p = aqm_s128_add(p, aqm_s128_mul_frac(vars->a_frac, err_now,
						      PI_GAIN_SHIFT - PI_PROB_SHIFT));
		p = aqm_s128_add(p, aqm_s128_mul_frac(vars->b_frac, -err_old,
						      PI_GAIN_SHIFT - PI_PROB_SHIFT));
		WRITE_ONCE(vars->prob, aqm_s128_clamp(p, PI_PROB_ONE));
		vars->integral = vars->prob;	/* autotune would start here */
	}
	pi_average_loss(params, vars, cap_q16,
			err_now <= (ref_pkts ? (s64)ref_pkts : 1));
	vars->qold_pkts = qlen_pkts;

	return qlen_pkts || vars->prob != old_prob || err_old != err_now ||
	       vars->integral != old_integral || vars->mean_loss != old_mean ||
	       vars->mean_share != old_share ||
	       vars->mean_prob != old_mean_prob;
}

/* Autotune and a delay target need C: the dequeue rate, if not configured */
static inline bool pi_needs_rate(const struct pi_params *params)
{
	return (params->autotune || params->target_delay_us) &&
	       !params->bandwidth_bps;
}

/*
 * No early drop below two packets of backlog (pie's rule): a p left above
 * 0 on an empty queue (a = b holds it there while the timer sleeps) must
 * not drop the first packets into an idle link.
 */
static inline bool pi_backlog_allows_drop(const struct pi_params *params,
					  u64 backlog_bytes)
{
	return backlog_bytes >= 2 * (u64)params->pkt_bytes;
}

/**
 * pi_dequeued() - feed the capacity estimator with one dequeue
 * @params:		configuration
 * @vars:		state, updated
 * @pkts:		wire packets dequeued
 * @qlen_after_pkts:	queue length after them
 * @now_ns:		time of the dequeue
 *
 * Only pi_needs_rate() configurations need the estimate.
 */
static inline void pi_dequeued(const struct pi_params *params,
			       struct pi_vars *vars, u32 pkts,
			       u32 qlen_after_pkts, u64 now_ns)
{
	aqm_dq_rate_dequeued(&vars->dq, pkts, qlen_after_pkts, now_ns,
			     pi_update_period_ns(params));
}

/**
 * pi_even_drop() - the early drop/mark decision with even spacing
 * @vars:	state; the accumulated probability moves
 *
 * Return: true at every packet that brings the accumulated p to 1.
 */
static inline bool pi_even_drop(struct pi_vars *vars)
{
	/* below 2^62 after each drop, so the sum stays below 2^63 */
	vars->accu += vars->prob;
	if (vars->accu < PI_PROB_ONE)
		return false;
	vars->accu -= PI_PROB_ONE;
	return true;
}

/**
 * pi_should_drop() - the early drop/mark decision for one arriving packet
 * @params:	configuration
 * @vars:	state; with even spacing, the accumulated probability moves
 * @rnd:	a uniformly distributed random number; ignored with even
 *		spacing, so the caller need not draw one then
 *
 * Return: true with probability p, or at every 1/p-th packet.
 */
static inline bool pi_should_drop(const struct pi_params *params,
				  struct pi_vars *vars, u32 rnd)
{
	if (params->even_spacing)
		return pi_even_drop(vars);
	/* p in Q32 is at most 2^32, above every u32: p = 1 always drops */
	return rnd < (vars->prob >> (PI_PROB_SHIFT - 32));
}

/**
 * pi_arrival_drops() - the early decision for one arrival below the limit
 * @params:		configuration
 * @vars:		state; with even spacing, the accumulated probability moves
 * @backlog_bytes:	the backlog it finds
 * @rnd:		draws a uniformly distributed random number; p = 0 and
 *			even spacing draw none
 *
 * Return: true if it is to be dropped or marked.
 */
static inline bool pi_arrival_drops(const struct pi_params *params,
				    struct pi_vars *vars, u64 backlog_bytes,
				    u32 (*rnd)(void))
{
	if (!vars->prob || !pi_backlog_allows_drop(params, backlog_bytes))
		return false;
	return pi_should_drop(params, vars, params->even_spacing ? 0 : rnd());
}

/**
 * pi_segments_kept() - the early decisions of @segs arrivals in a row
 * @params:		configuration
 * @vars:		state, moved as by their decisions
 * @backlog_bytes:	the backlog the first of them finds
 * @seg_bytes:		the wire length of each
 * @segs:		the arrivals (a GSO skb's segments), all below the limit
 * @rnd:		as for pi_arrival_drops()
 *
 * Each arrival's decision in order, as if each had come alone and those
 * before it were queued, up to the first to be dropped or marked: its
 * decision is made, those after it are not. The law reads the queue only
 * at its updates, so the decisions are all an arrival changes.
 * Return: the arrivals kept before it (@segs if all are kept).
 */
static inline u32 pi_segments_kept(const struct pi_params *params,
				   struct pi_vars *vars, u64 backlog_bytes,
				   u32 seg_bytes, u32 segs, u32 (*rnd)(void))
{
	u32 kept;

	if (!vars->prob)
		return segs;
	for (kept = 0; kept < segs; kept++, backlog_bytes += seg_bytes)
		if (pi_arrival_drops(params, vars, backlog_bytes, rnd))
			break;
	return kept;
}

#endif /* AQM_CORE_PI_H */
