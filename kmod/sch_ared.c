// SPDX-License-Identifier: GPL-2.0
/*
 * ARED qdisc: Random Early Detection in packet mode as ns-2 2.35 runs it
 * (Floyd and Jacobson 1993), with gentle RED and Adaptive RED (Floyd,
 * Gummadi and Shenker 2001). The algorithm lives in core/ared.h; this file
 * is the qdisc around it: the link rate for the automatic settings, the
 * dequeue-rate estimate and the adaptive interval timer.
 */

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/inet_ecn.h>

#include "aqm_compat.h"
#include "aqm_qdisc.h"
#include "uapi/linux/pkt_sched_aqm.h"
#include "core/ared.h"

struct ared_sched_data {
	struct ared_params params;
	struct ared_vars vars;
	struct ared_stats stats;
	struct hrtimer timer;
	bool timer_idle;	/* stopped: idle queue or nothing to do */
	u32 gso_extra_pkts;	/* GSO skbs queued whole: aqm_wire_qlen() */
	u32 decided_segs;	/* of a cut skb's segments: ared_take_whole() */
	enum ared_verdict decided_verdict;	/* the last decided one's */
	struct Qdisc *sch;
};

/* not const: 6.1 netlink.h takes a non-const pointer */
static struct netlink_range_validation ared_maxp_range = {
	.min = 1,
	.max = ARED_PROB_ONE,
};

static struct netlink_range_validation ared_avpkt_range = {
	.min = 0,
	.max = ARED_AVPKT_MAX_BYTES,
};

static struct netlink_range_validation ared_interval_range = {
	.min = ARED_INTERVAL_MIN_US,
	.max = ARED_INTERVAL_MAX_US,
};

static const struct nla_policy ared_policy[TCA_ARED_MAX + 1] = {
	[TCA_ARED_LIMIT]	= NLA_POLICY_MIN(NLA_U32, 1),
	[TCA_ARED_MIN_THRESH]	= { .type = NLA_U32 },
	[TCA_ARED_MAX_THRESH]	= { .type = NLA_U32 },
	[TCA_ARED_MAXP]		= NLA_POLICY_FULL_RANGE(NLA_U64, &ared_maxp_range),
	[TCA_ARED_WEIGHT]	= { .type = NLA_U64 },
	[TCA_ARED_BANDWIDTH]	= { .type = NLA_U64 },
	[TCA_ARED_AVPKT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ared_avpkt_range),
	[TCA_ARED_INTERVAL]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ared_interval_range),
	[TCA_ARED_TARGET_LOW]	= NLA_POLICY_MIN(NLA_U64, 1),
	[TCA_ARED_TARGET_HIGH]	= NLA_POLICY_MIN(NLA_U64, 1),
	[TCA_ARED_GENTLE]	= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_ARED_WAIT]		= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_ARED_ADAPTIVE]	= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_ARED_ECN]		= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_ARED_HARDDROP]	= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_ARED_BYTEMODE]	= NLA_POLICY_MAX(NLA_U32, 1),
};

/* the timer adapts max_p, estimates the rate, or both */
static bool ared_timer_needed(const struct ared_params *params)
{
	return params->adaptive || !params->bandwidth_bps;
}

/* stopped, and an arrival must start it again */
static bool ared_timer_due(const struct ared_sched_data *q)
{
	return q->timer_idle && ared_timer_needed(&q->params);
}

static u64 ared_interval_ns(const struct ared_params *params)
{
	return (u64)params->interval_us * AQM_NSEC_PER_USEC;
}

static void ared_timer_start(struct ared_sched_data *q)
{
	hrtimer_start(&q->timer, ns_to_ktime(ared_interval_ns(&q->params)),
		      HRTIMER_MODE_REL_PINNED_SOFT);
}

/* the timer stopped on an idle queue: an arrival starts it again */
static void ared_timer_wake(struct ared_sched_data *q)
{
	if (unlikely(ared_timer_due(q))) {
		q->timer_idle = false;
		ared_timer_start(q);
	}
}

/* C from `bandwidth`, else the estimate, else the fallback guess */
static void ared_rederive(struct Qdisc *sch)
{
	struct ared_sched_data *q = qdisc_priv(sch);
	u64 rate = q->params.bandwidth_bps ?: q->vars.est_rate_bps ?:
		   ARED_FALLBACK_RATE_BPS;
	u32 avpkt = q->params.avpkt_bytes ?: psched_mtu(qdisc_dev(sch));

	ared_derive(&q->params, &q->vars, rate, avpkt);
}

/*
 * What a verdict asks beyond enqueueing: the random draw, a CE mark or a
 * drop. Out of line: inlined, it made every arrival save registers and set
 * a stack canary, also the arrivals that only enqueue (make bench-account).
 * Return: true if the packet is to be dropped.
 */
static noinline bool ared_carry_out(struct sk_buff *skb, struct Qdisc *sch,
				    enum ared_verdict verdict)
{
	struct ared_sched_data *q = qdisc_priv(sch);

	if (verdict == ARED_DRAW)
		verdict = ared_draw_verdict(&q->params, &q->vars,
					    aqm_random_u32());
	switch (verdict) {
	case ARED_ENQUEUE:
	case ARED_DRAW:		/* decided above */
		return false;
	case ARED_EARLY_MARK:
		qdisc_qstats_overlimit(sch);
		if (INET_ECN_set_ce(skb)) {
			WRITE_ONCE(q->stats.ecn_marks, q->stats.ecn_marks + 1);
			return false;
		}
		WRITE_ONCE(q->stats.early_drops, q->stats.early_drops + 1);
		return true;
	case ARED_EARLY_DROP:
		qdisc_qstats_overlimit(sch);
		WRITE_ONCE(q->stats.early_drops, q->stats.early_drops + 1);
		return true;
	case ARED_FORCED_DROP:
		qdisc_qstats_overlimit(sch);
		WRITE_ONCE(q->stats.forced_drops, q->stats.forced_drops + 1);
		return true;
	case ARED_TAIL_DROP:
		WRITE_ONCE(q->stats.tail_drops, q->stats.tail_drops + 1);
		return true;
	}
	return false;
}

/* one wire packet, the whole decision */
static noinline int ared_enqueue_judged(struct sk_buff *skb, struct Qdisc *sch,
					struct sk_buff **to_free)
{
	struct ared_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);
	enum ared_verdict verdict;
	u64 now_ns;

	ared_timer_wake(q);

	now_ns = ared_arrival_needs_clock(&q->vars) ? ktime_get_ns() : 0;
	verdict = ared_enqueue_verdict(&q->params, &q->vars, qlen,
				       qdisc_pkt_len(skb), now_ns);
	if (verdict != ARED_ENQUEUE && ared_carry_out(skb, sch, verdict))
		return qdisc_drop(skb, sch, to_free);
	return aqm_enqueue_tail(skb, sch, qlen + 1, &q->stats.max_qlen_pkts);
}

/*
 * A segment of a GSO skb ared_take_whole() cut has had its decision made
 * there: queued, but the last of decided_segs, whose verdict is carried out.
 */
static noinline int ared_enqueue_decided(struct sk_buff *skb,
					 struct Qdisc *sch,
					 struct sk_buff **to_free)
{
	struct ared_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);

	if (!--q->decided_segs &&
	    ared_carry_out(skb, sch, q->decided_verdict))
		return qdisc_drop(skb, sch, to_free);
	return aqm_enqueue_tail(skb, sch, qlen + 1, &q->stats.max_qlen_pkts);
}

/*
 * One wire packet. An arrival at rest (empty queue, empty average: every
 * packet on a link that keeps up) that need not restart the timer only
 * counts itself: done here, without the frame the whole decision needs
 * (make bench-account: 74 instructions a packet in one function before,
 * 35 now). At rest the queue is empty: no skb, so no GSO extra to add.
 */
static int ared_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct ared_sched_data *q = qdisc_priv(sch);

	if (unlikely(q->decided_segs))
		return ared_enqueue_decided(skb, sch, to_free);
	if (likely(ared_at_rest(&q->vars, sch->q.qlen)) &&
	    !ared_timer_due(q)) {
		ared_rest_arrival(&q->vars, qdisc_pkt_len(skb));
		return aqm_enqueue_tail(skb, sch, 1, &q->stats.max_qlen_pkts);
	}
	return ared_enqueue_judged(skb, sch, to_free);
}

/*
 * A GSO skb's segments, decided one by one up to the first drop or mark:
 * all queued, it is queued whole; else cut, its segments meeting
 * ared_enqueue_one() with the decisions made. So an skb is cut only where
 * one of its segments is dropped or marked, not wherever avg is above
 * min_th. Where the limit meets a segment (or a size table changed the
 * lengths), it is cut with none made.
 */
static bool ared_take_whole(struct Qdisc *sch, const struct sk_buff *skb,
			    u32 segs)
{
	struct ared_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);
	u32 seg_bytes = aqm_gso_seg_bytes(skb, segs);
	u64 now_ns;
	u32 kept;

	if ((u64)qlen + segs > q->params.limit_pkts || !seg_bytes)
		return false;
	ared_timer_wake(q);
	now_ns = ared_arrival_needs_clock(&q->vars) ? ktime_get_ns() : 0;
	kept = ared_segments_kept(&q->params, &q->vars, qlen, seg_bytes,
				  qdisc_pkt_len(skb) - (segs - 1) * seg_bytes,
				  segs, now_ns, aqm_random_u32,
				  &q->decided_verdict);
	return aqm_take_decided(kept, segs, &q->decided_segs);
}

static int ared_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			      struct sk_buff **to_free)
{
	struct ared_sched_data *q = qdisc_priv(sch);

	if (unlikely(skb_is_gso(skb)))
		return aqm_enqueue_gso(skb, sch, to_free, &q->gso_extra_pkts,
				       &q->decided_segs, &q->stats.max_qlen_pkts,
				       ared_take_whole, ared_enqueue_one);
	return ared_enqueue_one(skb, sch, to_free);
}

/* out of line: its clock read would give the dequeue a frame */
static noinline void ared_dequeued_at_now(struct Qdisc *sch,
					  const struct sk_buff *skb)
{
	struct ared_sched_data *q = qdisc_priv(sch);

	ared_dequeued(&q->vars, ktime_get_ns(), qdisc_pkt_len(skb), sch->q.qlen);
}

static struct sk_buff *ared_qdisc_dequeue(struct Qdisc *sch)
{
	struct ared_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u32 pkts;

	/* ared_dequeued() asks only whether the queue is empty: skbs tell */
	skb = aqm_dequeue_head(sch, &q->gso_extra_pkts, &pkts);
	if (skb && ared_dequeue_needs_clock(&q->vars, ared_needs_rate(&q->params),
					    sch->q.qlen))
		ared_dequeued_at_now(sch, skb);
	return skb;
}

static enum hrtimer_restart ared_timer(struct hrtimer *timer)
{
	struct ared_sched_data *q = container_of(timer, struct ared_sched_data,
						 timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock; /* of the tree this qdisc is in */
	bool busy;

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);

	if (!q->params.bandwidth_bps && ared_estimate_rate(&q->vars))
		ared_rederive(sch);
	if (q->params.adaptive && ared_adapt(&q->params, &q->vars))
		WRITE_ONCE(q->stats.maxp_updates, q->stats.maxp_updates + 1);

	/* ns-2 adapts only at arrivals: an idle queue stops the timer */
	busy = sch->q.qlen && ared_timer_needed(&q->params);
	if (busy)
		hrtimer_forward_now(timer, ns_to_ktime(ared_interval_ns(&q->params)));
	else
		q->timer_idle = true;	/* the next enqueue restarts it */

	spin_unlock(root_lock);
	rcu_read_unlock();
	return busy ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

static int ared_check_params(const struct ared_params *params,
			     struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct nlattr *min_attr = tb[TCA_ARED_MIN_THRESH];
	struct nlattr *max_attr = tb[TCA_ARED_MAX_THRESH];
	u64 max = params->max_pkts;

	if (params->min_pkts && !max)
		max = 3 * (u64)params->min_pkts;	/* red.cc reset() */
	if (params->min_pkts && params->min_pkts >= max) {
		NL_SET_ERR_MSG_ATTR(extack, min_attr ?: max_attr,
				    "min must be below max");
		return -EINVAL;
	}
	if (max > params->limit_pkts) {
		NL_SET_ERR_MSG_ATTR(extack, max_attr ?: min_attr ?: tb[TCA_ARED_LIMIT],
				    "max (3 min if unset) must not exceed limit");
		return -EINVAL;
	}
	if (params->target_low_frac >= params->target_high_frac) {
		NL_SET_ERR_MSG_ATTR(extack,
				    tb[TCA_ARED_TARGET_LOW] ?: tb[TCA_ARED_TARGET_HIGH],
				    "target-low must be below target-high, both in (0, 1)");
		return -EINVAL;
	}
	return 0;
}

/* dumps read the parameters without the qdisc lock; every field goes here */
static void ared_publish_params(struct ared_sched_data *q,
				const struct ared_params *p)
{
	struct ared_params *dst = &q->params;

	WRITE_ONCE(dst->limit_pkts, p->limit_pkts);
	WRITE_ONCE(dst->min_pkts, p->min_pkts);
	WRITE_ONCE(dst->max_pkts, p->max_pkts);
	WRITE_ONCE(dst->maxp, p->maxp);
	WRITE_ONCE(dst->weight_frac, p->weight_frac);
	WRITE_ONCE(dst->bandwidth_bps, p->bandwidth_bps);
	WRITE_ONCE(dst->avpkt_bytes, p->avpkt_bytes);
	WRITE_ONCE(dst->interval_us, p->interval_us);
	WRITE_ONCE(dst->target_low_frac, p->target_low_frac);
	WRITE_ONCE(dst->target_high_frac, p->target_high_frac);
	WRITE_ONCE(dst->gentle, p->gentle);
	WRITE_ONCE(dst->wait, p->wait);
	WRITE_ONCE(dst->adaptive, p->adaptive);
	WRITE_ONCE(dst->ecn, p->ecn);
	WRITE_ONCE(dst->harddrop, p->harddrop);
	WRITE_ONCE(dst->bytemode, p->bytemode);
}

static int ared_change(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct ared_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_ARED_MAX + 1];
	struct ared_params params;
	bool restart_maxp;
	int err;

	err = nla_parse_nested(tb, TCA_ARED_MAX, opt, ared_policy, extack);
	if (err < 0)
		return err;

	params = q->params;
	if (tb[TCA_ARED_LIMIT])
		params.limit_pkts = nla_get_u32(tb[TCA_ARED_LIMIT]);
	if (tb[TCA_ARED_MIN_THRESH])
		params.min_pkts = nla_get_u32(tb[TCA_ARED_MIN_THRESH]);
	if (tb[TCA_ARED_MAX_THRESH])
		params.max_pkts = nla_get_u32(tb[TCA_ARED_MAX_THRESH]);
	if (tb[TCA_ARED_MAXP])
		params.maxp = nla_get_u64(tb[TCA_ARED_MAXP]);
	if (tb[TCA_ARED_WEIGHT])
		params.weight_frac = nla_get_u64(tb[TCA_ARED_WEIGHT]);
	if (tb[TCA_ARED_BANDWIDTH])
		params.bandwidth_bps = nla_get_u64(tb[TCA_ARED_BANDWIDTH]);
	if (tb[TCA_ARED_AVPKT])
		params.avpkt_bytes = nla_get_u32(tb[TCA_ARED_AVPKT]);
	if (tb[TCA_ARED_INTERVAL])
		params.interval_us = nla_get_u32(tb[TCA_ARED_INTERVAL]);
	if (tb[TCA_ARED_TARGET_LOW])
		params.target_low_frac = nla_get_u64(tb[TCA_ARED_TARGET_LOW]);
	if (tb[TCA_ARED_TARGET_HIGH])
		params.target_high_frac = nla_get_u64(tb[TCA_ARED_TARGET_HIGH]);
	if (tb[TCA_ARED_GENTLE])
		params.gentle = nla_get_u32(tb[TCA_ARED_GENTLE]);
	if (tb[TCA_ARED_WAIT])
		params.wait = nla_get_u32(tb[TCA_ARED_WAIT]);
	if (tb[TCA_ARED_ADAPTIVE])
		params.adaptive = nla_get_u32(tb[TCA_ARED_ADAPTIVE]);
	if (tb[TCA_ARED_ECN])
		params.ecn = nla_get_u32(tb[TCA_ARED_ECN]);
	if (tb[TCA_ARED_HARDDROP])
		params.harddrop = nla_get_u32(tb[TCA_ARED_HARDDROP]);
	if (tb[TCA_ARED_BYTEMODE])
		params.bytemode = nla_get_u32(tb[TCA_ARED_BYTEMODE]);

	err = ared_check_params(&params, tb, extack);
	if (err)
		return err;

	sch_tree_lock(sch);
	/* a new max_p, or adaptive switched on or off, restarts max_p */
	restart_maxp = params.maxp != q->params.maxp ||
		       params.adaptive != q->params.adaptive;
	if (!ared_needs_rate(&q->params) && ared_needs_rate(&params))
		ared_estimator_restart(&q->vars);
	ared_publish_params(q, &params);
	WRITE_ONCE(sch->limit, params.limit_pkts);
	if (restart_maxp)
		WRITE_ONCE(q->vars.cur_maxp, params.maxp);
	ared_rederive(sch);

	aqm_trim_to_limit(sch, params.limit_pkts);
	if (!sch->q.qlen && !q->vars.idle)
		ared_dequeued(&q->vars, ktime_get_ns(), 0, 0);

	sch_tree_unlock(sch);
	return 0;
}

static int ared_init(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct ared_sched_data *q = qdisc_priv(sch);

	q->sch = sch;
	ared_params_init(&q->params);
	memset(&q->vars, 0, sizeof(q->vars));
	ared_vars_reset(&q->params, &q->vars, ktime_get_ns());
	ared_rederive(sch);
	sch->limit = q->params.limit_pkts;
	/* the first enqueue starts the timer */
	q->timer_idle = true;
	aqm_hrtimer_setup(&q->timer, ared_timer, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_SOFT);

	if (opt)
		return ared_change(sch, opt, extack);
	return 0;
}

static int ared_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct ared_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;

	if (nla_put_u32(skb, TCA_ARED_LIMIT, READ_ONCE(q->params.limit_pkts)) ||
	    nla_put_u32(skb, TCA_ARED_MIN_THRESH, READ_ONCE(q->params.min_pkts)) ||
	    nla_put_u32(skb, TCA_ARED_MAX_THRESH, READ_ONCE(q->params.max_pkts)) ||
	    nla_put_u64_64bit(skb, TCA_ARED_MAXP, READ_ONCE(q->params.maxp),
			      TCA_ARED_PAD) ||
	    nla_put_u64_64bit(skb, TCA_ARED_WEIGHT, READ_ONCE(q->params.weight_frac),
			      TCA_ARED_PAD) ||
	    nla_put_u64_64bit(skb, TCA_ARED_BANDWIDTH,
			      READ_ONCE(q->params.bandwidth_bps), TCA_ARED_PAD) ||
	    nla_put_u32(skb, TCA_ARED_AVPKT, READ_ONCE(q->params.avpkt_bytes)) ||
	    nla_put_u32(skb, TCA_ARED_INTERVAL, READ_ONCE(q->params.interval_us)) ||
	    nla_put_u64_64bit(skb, TCA_ARED_TARGET_LOW,
			      READ_ONCE(q->params.target_low_frac), TCA_ARED_PAD) ||
	    nla_put_u64_64bit(skb, TCA_ARED_TARGET_HIGH,
			      READ_ONCE(q->params.target_high_frac), TCA_ARED_PAD) ||
	    nla_put_u32(skb, TCA_ARED_GENTLE, READ_ONCE(q->params.gentle)) ||
	    nla_put_u32(skb, TCA_ARED_WAIT, READ_ONCE(q->params.wait)) ||
	    nla_put_u32(skb, TCA_ARED_ADAPTIVE, READ_ONCE(q->params.adaptive)) ||
	    nla_put_u32(skb, TCA_ARED_ECN, READ_ONCE(q->params.ecn)) ||
	    nla_put_u32(skb, TCA_ARED_HARDDROP, READ_ONCE(q->params.harddrop)) ||
	    nla_put_u32(skb, TCA_ARED_BYTEMODE, READ_ONCE(q->params.bytemode)))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int ared_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct ared_sched_data *q = qdisc_priv(sch);
	struct tc_ared_xstats st = {
		.avg		= READ_ONCE(q->vars.avg_q32),
		.cur_maxp	= READ_ONCE(q->vars.cur_maxp),
		.prob		= READ_ONCE(q->vars.prob),
		.weight		= READ_ONCE(q->vars.weight_frac),
		.rate		= READ_ONCE(q->vars.rate_bps),
		.min		= READ_ONCE(q->vars.min_pkts),
		.max		= READ_ONCE(q->vars.max_pkts),
		.max_qlen	= READ_ONCE(q->stats.max_qlen_pkts),
		.early_drops	= READ_ONCE(q->stats.early_drops),
		.forced_drops	= READ_ONCE(q->stats.forced_drops),
		.tail_drops	= READ_ONCE(q->stats.tail_drops),
		.ecn_marks	= READ_ONCE(q->stats.ecn_marks),
		.maxp_updates	= READ_ONCE(q->stats.maxp_updates),
		.wire_qlen	= aqm_wire_qlen_dump(sch, &q->gso_extra_pkts),
	};

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void ared_reset(struct Qdisc *sch)
{
	struct ared_sched_data *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	WRITE_ONCE(q->gso_extra_pkts, 0);
	q->decided_segs = 0;
	ared_vars_reset(&q->params, &q->vars, ktime_get_ns());
}

static void ared_destroy(struct Qdisc *sch)
{
	struct ared_sched_data *q = qdisc_priv(sch);

	hrtimer_cancel(&q->timer);
}

static struct Qdisc_ops ared_qdisc_ops __read_mostly = {
	.id		= "ared",
	.priv_size	= sizeof(struct ared_sched_data),
	.enqueue	= ared_qdisc_enqueue,
	.dequeue	= ared_qdisc_dequeue,
	.peek		= qdisc_peek_head,
	.init		= ared_init,
	.destroy	= ared_destroy,
	.reset		= ared_reset,
	.change		= ared_change,
	.dump		= ared_dump,
	.dump_stats	= ared_dump_stats,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("ared");

static int __init ared_module_init(void)
{
	return register_qdisc(&ared_qdisc_ops);
}

static void __exit ared_module_exit(void)
{
	unregister_qdisc(&ared_qdisc_ops);
}

module_init(ared_module_init);
module_exit(ared_module_exit);

MODULE_DESCRIPTION("RED, gentle RED and Adaptive RED in packet mode, as ns-2 runs them");
MODULE_AUTHOR("classic-aqm developers");
MODULE_LICENSE("GPL");
