/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Link capacity estimated online from the dequeue rate, for the controllers
 * whose law needs the capacity C (REM's rate term, PI's autotuned gains).
 *
 * Only the time between two dequeues with the queue backlogged in between
 * counts as service time, so idle periods do not dilute the estimate. Every
 * AQM_DQ_RATE_SAMPLE_PKTS such packets that span at least the caller's
 * minimum time (so a parent's bursts are averaged out) give a rate sample,
 * averaged with weight 1/2^AQM_DQ_RATE_EWMA_SHIFT.
 *
 * The first minimum time of service after the queue was empty is not
 * counted: a parent shaper (htb, tbf) saves tokens while its child is
 * empty and spends them in a burst at line rate when packets come back, so
 * a sample holding that burst reads the line, not the shaped rate. Seen in
 * the testbed with offloads on: htb's 10 ms burst after each of the queue's
 * frequent empties lifted pi's estimate to 1.17 times the link. The burst
 * takes no service time however large, so it always falls in this warm-up.
 * A busy stretch shorter than the minimum time adds nothing to a sample.
 */
#ifndef AQM_CORE_DQ_RATE_H
#define AQM_CORE_DQ_RATE_H

#include "aqm_types.h"

/* Rate: packets per second, Q16 */
#define AQM_DQ_RATE_SHIFT	16
#define AQM_DQ_RATE_MAX_PPS	BIT_ULL(40)
#define AQM_DQ_RATE_SAMPLE_PKTS	16
#define AQM_DQ_RATE_EWMA_SHIFT	3

/**
 * struct aqm_dq_rate - dequeue rate estimator
 * @rate_q16:		estimate, packets per second, Q16; 0 = none yet
 * @last_ns:		time of the last dequeue
 * @stretch_ns:		service time since the queue was last empty, up to
 *			the minimum time (the warm-up)
 * @busy_ns:		backlogged service time gathered for the next sample
 * @busy_pkts:		packets served in @busy_ns
 * @last_pkts:		wire packets the last dequeue took
 * @backlogged:		the queue was not empty after the last dequeue
 */
struct aqm_dq_rate {
	u64 rate_q16;
	u64 last_ns;
	u64 stretch_ns;
	u64 busy_ns;
	u32 busy_pkts;
	u32 last_pkts;
	bool backlogged;
};

/* also when the estimator is fed again after a pause: a stale last_ns
 * would count the whole pause as service time
 */
static inline void aqm_dq_rate_init(struct aqm_dq_rate *est)
{
	WRITE_ONCE(est->rate_q16, 0);
	est->last_ns = 0;
	est->stretch_ns = 0;
	est->busy_ns = 0;
	est->busy_pkts = 0;
	est->last_pkts = 0;
	est->backlogged = false;
}

/* One sample: @pkts served in @busy_ns, packets per second, Q16 */
static inline u64 aqm_dq_rate_sample_q16(u32 pkts, u64 busy_ns)
{
	u64 num = (u64)pkts * AQM_NSEC_PER_SEC;		/* < 2^62 */
	u64 whole = div64_u64(num, busy_ns);
	u64 rem = num - whole * busy_ns;
	u64 frac = busy_ns >> 47 ? 0 : div64_u64(rem << AQM_DQ_RATE_SHIFT, busy_ns);

	if (whole >= AQM_DQ_RATE_MAX_PPS)
		return AQM_DQ_RATE_MAX_PPS << AQM_DQ_RATE_SHIFT;
	return (whole << AQM_DQ_RATE_SHIFT) | frac;
}

/*
 * A dequeue that empties the queue after one that emptied it too changes
 * nothing the estimator reads: its time is read only after a dequeue that
 * left a backlog. The caller may then skip it, and the clock read it
 * would take (on the path where every packet finds the queue empty). Only
 * a sample that a shorter minimum time (a changed period) would complete
 * at once waits for the next dequeue that counts.
 */
static inline bool aqm_dq_rate_wants(const struct aqm_dq_rate *est,
				     u32 qlen_after_pkts)
{
	return est->backlogged || qlen_after_pkts;
}

/**
 * aqm_dq_rate_dequeued() - feed the estimator with one dequeue
 * @est:		estimator, updated
 * @pkts:		wire packets it took (a GSO skb's segments)
 * @qlen_after_pkts:	queue length after it, in wire packets
 * @now_ns:		time of the dequeue
 * @min_span_ns:	service time a sample must span
 *
 * The gap since the last dequeue is the time the link took for what that
 * one took (a parent shaper releases the next skb once the last is paid
 * for): its packets are counted with it. Counting this dequeue's instead
 * pairs a GSO skb's packets with another skb's time (unit test: 1.2% low
 * for skbs of 1-44 packets at random).
 * A dequeue loop cannot reach 2^32 packets within @min_span_ns (at most a
 * second in every caller), so the packet count does not wrap.
 *
 * Return: true when this dequeue completed a sample and moved the estimate.
 */
static inline bool aqm_dq_rate_dequeued(struct aqm_dq_rate *est, u32 pkts,
					u32 qlen_after_pkts, u64 now_ns,
					u64 min_span_ns)
{
	bool sampled = false;

	if (est->backlogged) {
		u64 gap = now_ns > est->last_ns ? now_ns - est->last_ns : 0;

		if (est->stretch_ns < min_span_ns) {
			est->stretch_ns += gap;		/* the warm-up */
		} else {
			est->busy_ns += gap;
			est->busy_pkts += est->last_pkts; /* no gap: a burst */
		}
	}
	if (est->busy_pkts >= AQM_DQ_RATE_SAMPLE_PKTS &&
	    est->busy_ns >= min_span_ns && est->busy_ns) {
		u64 sample = aqm_dq_rate_sample_q16(est->busy_pkts, est->busy_ns);

		u64 rate = est->rate_q16;

		if (rate)
			rate += (sample >> AQM_DQ_RATE_EWMA_SHIFT) -
				(rate >> AQM_DQ_RATE_EWMA_SHIFT);
		else
			rate = sample;
		WRITE_ONCE(est->rate_q16, rate);	/* dumps read it */
		est->busy_pkts = 0;
		est->busy_ns = 0;
		sampled = true;
	}
	est->last_ns = now_ns;
	est->last_pkts = pkts;
	est->backlogged = qlen_after_pkts > 0;
	if (!est->backlogged)
		est->stretch_ns = 0;
	return sampled;
}

#endif /* AQM_CORE_DQ_RATE_H */
