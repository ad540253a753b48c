/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BLUE active queue management (Feng, Kandlur, Saha, Shin, "BLUE: A New
 * Class of Active Queue Management Algorithms", U. Michigan CSE-TR-387-99,
 * 1999; IEEE/ACM Transactions on Networking 10(4), 2002).
 *
 * One marking probability pm, moved by events rather than by a clock:
 *
 *   packet loss (buffer overflow), or an arrival finding >= L packets:
 *           if now - last_update >= freeze_time:  pm = pm + d1
 *   link idle:
 *           if now - last_update >= freeze_time:  pm = pm - d2
 *
 * with pm kept in [0, 1]. Each arriving packet is dropped (or ECN-marked)
 * with probability pm.
 *
 * Choices the paper leaves open, made here:
 *  - One freeze timestamp shared by both directions, as in the paper's
 *    pseudo-code (last_update). ns-2's port keeps one per direction.
 *  - The freeze restarts only when pm actually changes: a loss with pm
 *    already at 1, or an idle event with pm at 0, is not a change, so it
 *    does not delay the next event the other way. The paper updates
 *    last_update on every accepted event.
 *  - "At least freeze_time": an event exactly freeze_time after the last
 *    change is accepted (the paper writes a strict ">").
 *  - The first event after init or reset is never frozen.
 *  - Increase events are judged on arrival: the arrival finds the queue
 *    full (a loss), or finds at least L packets queued, so queuing it takes
 *    the queue above L. With L = limit (the default) only losses count.
 *    BLUE's own early drops are not losses: counting them would feed pm
 *    back into itself.
 *  - Link idle: the paper (and ns-2, whose link calls deque() when it is
 *    free) means "the link asked for a packet and the queue had none". In
 *    Linux that is a dequeue or peek that finds the queue empty, and it is
 *    what a root qdisc or a leaf under tbf sees. Parents such as htb, drr or
 *    hfsc never dequeue an empty leaf, so an arrival that finds the queue
 *    empty also counts as idle, unless the dequeue side already signalled
 *    this idle period (then the arrival merely ends it). Either way an idle
 *    period gives one idle event, as in ns-2; the freeze rule applies.
 *    A long idle period gives one decrement, not one per freeze_time.
 *
 * The core is pure: time comes in as now_ns from a monotonic clock and the
 * random number as an argument, so it builds unchanged into the unit tests.
 */
#ifndef AQM_CORE_BLUE_H
#define AQM_CORE_BLUE_H

#include "aqm_types.h"

/* pm, d1 and d2: Q62, 1.0 = BLUE_PROB_ONE (same scale as TC_AQM_PROB_ONE) */
#define BLUE_PROB_SHIFT		62
#define BLUE_PROB_ONE		BIT_ULL(BLUE_PROB_SHIFT)

#define BLUE_DEFAULT_LIMIT_PKTS		1000
#define BLUE_DEFAULT_INCREMENT		11529215046068470ULL	/* 0.0025 */
#define BLUE_DEFAULT_DECREMENT		1152921504606847ULL	/* 0.00025 */
#define BLUE_DEFAULT_FREEZE_US		100000			/* 100 ms */

/* With ECN, CE marks up to pm = 0.1 and drops above (as pie) */
#define BLUE_DEFAULT_ECN_CEILING	(BLUE_PROB_ONE / 10)

#define BLUE_FREEZE_MIN_US		1
#define BLUE_FREEZE_MAX_US		60000000		/* 60 s */

/**
 * struct blue_params - configuration
 * @limit_pkts:		queue capacity; an arrival at a full queue is a loss
 * @threshold_pkts:	an arrival finding this many packets raises pm (L);
 *			0 means L = limit
 * @increment:		d1, the step of pm on a loss, Q62 in (0, 1]
 * @decrement:		d2, the step of pm on link idle, Q62 in (0, 1]
 * @freeze_us:		freeze_time, the least time between two changes of pm
 * @ecn:		mark ECN-capable packets instead of dropping them
 * @ecn_ceiling:	with @ecn, drop rather than mark above this pm, Q62
 */
struct blue_params {
	u32 limit_pkts;
	u32 threshold_pkts;
	u64 increment;		/* d1 */
	u64 decrement;		/* d2 */
	u32 freeze_us;		/* freeze_time */
	bool ecn;
	u64 ecn_ceiling;
};

/**
 * struct blue_vars - algorithm state
 * @prob:		marking probability pm, Q62, 1.0 = BLUE_PROB_ONE
 * @last_change_ns:	when pm last changed (last_update), monotonic ns
 * @changed:		pm has changed since init or reset
 * @idle_signalled:	the dequeue side signalled link idle since the last
 *			arrival
 */
struct blue_vars {
	u64 prob;		/* pm */
	u64 last_change_ns;	/* last_update */
	bool changed;
	bool idle_signalled;
};

/**
 * struct blue_stats - counters
 * @increments:		times pm rose
 * @decrements:		times pm fell
 * @early_drops:	packets dropped with probability pm
 * @tail_drops:		packets dropped because the queue was full
 * @ecn_marks:		packets marked instead of dropped
 * @max_qlen_pkts:	largest queue seen
 */
struct blue_stats {
	u32 increments;
	u32 decrements;
	u32 early_drops;
	u32 tail_drops;
	u32 ecn_marks;
	u32 max_qlen_pkts;
};

/**
 * enum blue_event - what an event asks of pm
 * @BLUE_EVENT_NONE:		nothing
 * @BLUE_EVENT_CONGESTION:	a loss, or the queue above L: raise pm by d1
 * @BLUE_EVENT_IDLE:		the link went idle: lower pm by d2
 */
enum blue_event {
	BLUE_EVENT_NONE,
	BLUE_EVENT_CONGESTION,
	BLUE_EVENT_IDLE,
};

static inline void blue_params_init(struct blue_params *params)
{
	params->limit_pkts = BLUE_DEFAULT_LIMIT_PKTS;
	params->threshold_pkts = 0;
	params->increment = BLUE_DEFAULT_INCREMENT;
	params->decrement = BLUE_DEFAULT_DECREMENT;
	params->freeze_us = BLUE_DEFAULT_FREEZE_US;
	params->ecn = false;
	params->ecn_ceiling = BLUE_DEFAULT_ECN_CEILING;
}

static inline void blue_vars_init(struct blue_vars *vars)
{
	WRITE_ONCE(vars->prob, 0);
	vars->last_change_ns = 0;
	vars->changed = false;
	vars->idle_signalled = false;
}

/* The threshold L in force: the configured one, or the limit */
static inline u32 blue_threshold_pkts(const struct blue_params *params)
{
	return params->threshold_pkts ? params->threshold_pkts : params->limit_pkts;
}

/**
 * blue_arrival_event() - the event an arriving packet signals
 * @params:	configuration
 * @vars:	state, updated
 * @qlen_pkts:	packets queued when the packet arrives
 *
 * A full queue is above every threshold (L <= limit), so one comparison
 * covers both the loss and the threshold rule. An empty queue is an idle
 * event unless blue_link_idle() already reported this idle period.
 */
static inline enum blue_event blue_arrival_event(const struct blue_params *params,
						 struct blue_vars *vars,
						 u32 qlen_pkts)
{
	bool idle_signalled = vars->idle_signalled;

	vars->idle_signalled = false;
	if (qlen_pkts >= blue_threshold_pkts(params))
		return BLUE_EVENT_CONGESTION;
	if (qlen_pkts == 0 && !idle_signalled)
		return BLUE_EVENT_IDLE;
	return BLUE_EVENT_NONE;
}

/**
 * blue_link_idle() - the link asked for a packet and the queue had none
 * @vars:	state, updated
 *
 * Return: the event to apply.
 */
static inline enum blue_event blue_link_idle(struct blue_vars *vars)
{
	vars->idle_signalled = true;
	return BLUE_EVENT_IDLE;
}

/* Could the event move pm at all? Lets the caller skip reading the clock. */
static inline bool blue_event_may_move(const struct blue_vars *vars,
				       enum blue_event event)
{
	if (event == BLUE_EVENT_CONGESTION)
		return vars->prob < BLUE_PROB_ONE;
	if (event == BLUE_EVENT_IDLE)
		return vars->prob > 0;
	return false;
}

/* Less than freeze_time since pm last changed? A clock seen going back is. */
static inline bool blue_frozen(const struct blue_params *params,
			       const struct blue_vars *vars, u64 now_ns)
{
	u64 freeze_ns = (u64)params->freeze_us * AQM_NSEC_PER_USEC;

	if (!vars->changed)
		return false;
	if (now_ns < vars->last_change_ns)
		return true;
	return now_ns - vars->last_change_ns < freeze_ns;
}

/**
 * blue_apply_event() - apply one event to pm
 * @params:	configuration
 * @vars:	state, updated
 * @event:	the event
 * @now_ns:	monotonic time of the event, in nanoseconds
 *
 * Return: +1 if pm rose, -1 if it fell, 0 if it did not change (no event,
 * frozen, or already at the bound).
 */
static inline int blue_apply_event(const struct blue_params *params,
				   struct blue_vars *vars,
				   enum blue_event event, u64 now_ns)
{
	u64 prob;

	if (event == BLUE_EVENT_NONE || blue_frozen(params, vars, now_ns))
		return 0;

	if (event == BLUE_EVENT_CONGESTION) {
		/* both at most 2^62: the sum cannot overflow */
		prob = vars->prob + params->increment;
		if (prob > BLUE_PROB_ONE)
			prob = BLUE_PROB_ONE;
	} else {
		prob = vars->prob > params->decrement ?
		       vars->prob - params->decrement : 0;
	}

	if (prob == vars->prob)
		return 0;
	WRITE_ONCE(vars->prob, prob);	/* dumps read it */
	vars->last_change_ns = now_ns;
	vars->changed = true;
	return event == BLUE_EVENT_CONGESTION ? 1 : -1;
}

/**
 * blue_should_drop() - the early drop/mark decision for one arriving packet
 * @vars:	state
 * @rnd:	a uniformly distributed random number
 *
 * Return: true with probability pm.
 */
static inline bool blue_should_drop(const struct blue_vars *vars, u32 rnd)
{
	/* pm in Q32 is at most 2^32, above every u32: pm = 1 always drops */
	return rnd < (vars->prob >> (BLUE_PROB_SHIFT - 32));
}

/**
 * blue_segments_kept() - the early decisions of @segs arrivals in a row
 * @vars:	state
 * @segs:	the arrivals (a GSO skb's segments), all below the threshold
 *		L (<= limit)
 * @rnd:	draws a uniformly distributed random number; pm = 0 draws none
 *
 * Below L only the first of them can signal an event (an idle link), and
 * the caller applies it first; the others signal none, and a decision
 * changes no state. So their decisions in order, up to the first to be
 * dropped or marked, are what they would meet one by one.
 * Return: the arrivals kept before it (@segs if all are kept).
 */
static inline u32 blue_segments_kept(const struct blue_vars *vars, u32 segs,
				     u32 (*rnd)(void))
{
	u32 kept;

	if (!vars->prob)
		return segs;
	for (kept = 0; kept < segs; kept++)
		if (blue_should_drop(vars, rnd()))
			break;
	return kept;
}

#endif /* AQM_CORE_BLUE_H */
