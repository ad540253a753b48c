// SPDX-License-Identifier: GPL-2.0
/*
 * PI AQM qdisc: the Proportional-Integral controller of Hollot, Misra,
 * Towsley and Gong (INFOCOM 2001), as ns-2's PI queue runs it. The control
 * law lives in core/pi.h; this file is the qdisc around it.
 */

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/hrtimer.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/inet_ecn.h>
#include <linux/build_bug.h>

#include "aqm_compat.h"
#include "aqm_qdisc.h"
#include "uapi/linux/pkt_sched_aqm.h"
#include "core/pi.h"

struct pi_sched_data {
	struct pi_params params;
	struct pi_vars vars;
	struct pi_stats stats;
	struct hrtimer timer;
	bool timer_idle;	/* stopped on an idle, settled queue */
	u32 gso_extra_pkts;	/* GSO skbs queued whole: aqm_wire_qlen() */
	u32 decided_segs;	/* of a cut skb's segments: pi_take_whole() */
	struct Qdisc *sch;
};

/* not const: 6.1 netlink.h takes a non-const pointer */
static struct netlink_range_validation pi_freq_range = {
	.min = PI_FREQ_MIN_MHZ,
	.max = PI_FREQ_MAX_MHZ,
};

static struct netlink_range_validation pi_ecn_ceiling_range = {
	.min = 1,
	.max = PI_PROB_ONE,
};

static struct netlink_range_validation pi_rtt_range = {
	.min = 1,
	.max = PI_RTT_MAX_US,
};

static struct netlink_range_validation pi_target_delay_range = {
	.min = 0,
	.max = PI_TARGET_DELAY_MAX_US,
};

static struct netlink_range_validation pi_cubic_c_range = {
	.min = PI_CUBIC_C_MIN_MICRO,
	.max = PI_CUBIC_C_MAX_MICRO,
};

static const struct nla_policy pi_policy[TCA_PI_MAX + 1] = {
	[TCA_PI_LIMIT]	= NLA_POLICY_MIN(NLA_U32, 1),
	[TCA_PI_TARGET]	= { .type = NLA_U32 },
	[TCA_PI_A]	= { .type = NLA_U64 },
	[TCA_PI_B]	= { .type = NLA_U64 },
	[TCA_PI_FREQ]	= NLA_POLICY_FULL_RANGE(NLA_U32, &pi_freq_range),
	[TCA_PI_ECN]	= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_PI_AUTOTUNE] = NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_PI_RTT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &pi_rtt_range),
	[TCA_PI_FLOWS]	= { .type = NLA_U32 },	/* 0: estimate N */
	[TCA_PI_BANDWIDTH] = { .type = NLA_U64 },
	[TCA_PI_RESPONSE] = NLA_POLICY_MAX(NLA_U32, __TC_PI_RESPONSE_MAX - 1),
	[TCA_PI_SPACING] = NLA_POLICY_MAX(NLA_U32, __TC_PI_SPACING_MAX - 1),
	[TCA_PI_MARGIN]	= NLA_POLICY_MAX(NLA_U32, PI_MARGIN_AUTO),
	[TCA_PI_ECN_CEILING] = NLA_POLICY_FULL_RANGE(NLA_U64, &pi_ecn_ceiling_range),
	[TCA_PI_TARGET_DELAY] = NLA_POLICY_FULL_RANGE(NLA_U32, &pi_target_delay_range),
	[TCA_PI_CUBIC_C] = NLA_POLICY_FULL_RANGE(NLA_U32, &pi_cubic_c_range),
};

/* the core's enums are the uapi's */
static_assert((int)PI_RESPONSE_HIGHSPEED == (int)TC_PI_RESPONSE_HIGHSPEED);
static_assert((int)PI_RESPONSE_CUBIC == (int)TC_PI_RESPONSE_CUBIC);
static_assert(PI_NO_REFERENCE == TC_PI_UNKNOWN && PI_NO_DELAY == TC_PI_UNKNOWN);
static_assert((int)PI_GAINS_PENDING == (int)TC_PI_GAINS_PENDING);
static_assert(PI_MARGIN_AUTO == TC_PI_MARGIN_AUTO);

static void pi_timer_start(struct pi_sched_data *q)
{
	hrtimer_start(&q->timer, ns_to_ktime(pi_update_period_ns(&q->params)),
		      HRTIMER_MODE_REL_PINNED_SOFT);
}

/* the timer stopped on an idle queue: an arrival starts it again */
static void pi_timer_wake(struct pi_sched_data *q)
{
	if (unlikely(q->timer_idle)) {
		q->timer_idle = false;
		pi_timer_start(q);
	}
}

/*
 * One wire packet. A segment of a GSO skb pi_take_whole() cut has had its
 * decision made there: kept, but the last of decided_segs, the one to be
 * dropped or marked.
 */
static int pi_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			  struct sk_buff **to_free)
{
	struct pi_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);
	bool early;

	pi_timer_wake(q);

	if (unlikely(qlen >= q->params.limit_pkts)) {
		WRITE_ONCE(q->stats.tail_drops, q->stats.tail_drops + 1);
		pi_limit_dropped(&q->vars);
		return qdisc_drop(skb, sch, to_free);
	}

	if (unlikely(q->decided_segs))
		early = !--q->decided_segs;
	else
		early = pi_arrival_drops(&q->params, &q->vars,
					 sch->qstats.backlog, aqm_random_u32);
	if (early && aqm_early_drop(skb, sch, q->params.ecn, q->vars.prob,
				    q->params.ecn_ceiling, &q->stats.ecn_marks,
				    &q->stats.early_drops))
		return qdisc_drop(skb, sch, to_free);

	return aqm_enqueue_tail(skb, sch, qlen + 1, &q->stats.max_qlen_pkts);
}

/*
 * A GSO skb's segments, decided one by one up to the first drop or mark:
 * all kept, it is queued whole; else cut, its segments meeting
 * pi_enqueue_one() with the decisions made. So an skb is cut only where
 * one of its segments is dropped or marked (with p at 1e-3, 4% of 44-packet
 * skbs), not at every p > 0. Where the limit meets a segment (or a size
 * table changed the lengths), it is cut with none made.
 */
static bool pi_take_whole(struct Qdisc *sch, const struct sk_buff *skb,
			  u32 segs)
{
	struct pi_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);
	u32 seg_bytes = aqm_gso_seg_bytes(skb, segs);
	u32 kept;

	if ((u64)qlen + segs > q->params.limit_pkts || !seg_bytes)
		return false;
	pi_timer_wake(q);
	kept = pi_segments_kept(&q->params, &q->vars, sch->qstats.backlog,
				seg_bytes, segs, aqm_random_u32);
	return aqm_take_decided(kept, segs, &q->decided_segs);
}

static int pi_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct pi_sched_data *q = qdisc_priv(sch);

	if (pi_count_due(&q->params, &q->vars))
		pi_count_flow(&q->vars, skb_get_hash(skb), aqm_random_u32());
	if (unlikely(skb_is_gso(skb)))
		return aqm_enqueue_gso(skb, sch, to_free, &q->gso_extra_pkts,
				       &q->decided_segs, &q->stats.max_qlen_pkts,
				       pi_take_whole, pi_enqueue_one);
	return pi_enqueue_one(skb, sch, to_free);
}

static struct sk_buff *pi_qdisc_dequeue(struct Qdisc *sch)
{
	struct pi_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u32 pkts, qlen;

	skb = aqm_dequeue_head(sch, &q->gso_extra_pkts, &pkts);
	if (!skb || !pi_needs_rate(&q->params))
		return skb;
	qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);
	if (aqm_dq_rate_wants(&q->vars.dq, qlen))
		pi_dequeued(&q->params, &q->vars, pkts, qlen, ktime_get_ns());
	return skb;
}

static enum hrtimer_restart pi_timer(struct hrtimer *timer)
{
	struct pi_sched_data *q = container_of(timer, struct pi_sched_data, timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock; /* of the tree this qdisc is in */
	bool busy;

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);

	busy = pi_update(&q->params, &q->vars,
			 aqm_wire_qlen(sch, q->gso_extra_pkts));
	WRITE_ONCE(q->stats.updates, q->stats.updates + 1);
	if (busy)
		hrtimer_forward_now(timer, ns_to_ktime(pi_update_period_ns(&q->params)));
	else
		q->timer_idle = true;	/* the next enqueue restarts it */

	spin_unlock(root_lock);
	rcu_read_unlock();
	return busy ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/* the reference in use for the dumps, before the next update sets it */
static void pi_show_reference(struct pi_sched_data *q)
{
	WRITE_ONCE(q->vars.ref_pkts,
		   pi_reference_pkts(&q->params, pi_capacity_q16(&q->params, &q->vars)));
}

/* dumps read the parameters without the qdisc lock; every field goes here */
static void pi_publish_params(struct pi_sched_data *q, const struct pi_params *p)
{
	struct pi_params *dst = &q->params;

	WRITE_ONCE(dst->limit_pkts, p->limit_pkts);
	WRITE_ONCE(dst->target_pkts, p->target_pkts);
	WRITE_ONCE(dst->target_delay_us, p->target_delay_us);
	WRITE_ONCE(dst->a_frac, p->a_frac);
	WRITE_ONCE(dst->b_frac, p->b_frac);
	WRITE_ONCE(dst->freq_mhz, p->freq_mhz);
	WRITE_ONCE(dst->ecn, p->ecn);
	WRITE_ONCE(dst->ecn_ceiling, p->ecn_ceiling);
	WRITE_ONCE(dst->autotune, p->autotune);
	WRITE_ONCE(dst->rtt_us, p->rtt_us);
	WRITE_ONCE(dst->flows, p->flows);
	WRITE_ONCE(dst->bandwidth_bps, p->bandwidth_bps);
	WRITE_ONCE(dst->pkt_bytes, p->pkt_bytes);
	WRITE_ONCE(dst->response, p->response);
	WRITE_ONCE(dst->cubic_c_micro, p->cubic_c_micro);
	WRITE_ONCE(dst->even_spacing, p->even_spacing);
	WRITE_ONCE(dst->margin_deg, p->margin_deg);
}

static int pi_change(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct pi_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_PI_MAX + 1];
	struct pi_params params;
	int err;

	err = nla_parse_nested(tb, TCA_PI_MAX, opt, pi_policy, extack);
	if (err < 0)
		return err;

	params = q->params;
	if (tb[TCA_PI_LIMIT])
		params.limit_pkts = nla_get_u32(tb[TCA_PI_LIMIT]);
	if (tb[TCA_PI_TARGET])
		params.target_pkts = nla_get_u32(tb[TCA_PI_TARGET]);
	if (tb[TCA_PI_TARGET_DELAY])
		params.target_delay_us = nla_get_u32(tb[TCA_PI_TARGET_DELAY]);
	if (tb[TCA_PI_A])
		params.a_frac = nla_get_u64(tb[TCA_PI_A]);
	if (tb[TCA_PI_B])
		params.b_frac = nla_get_u64(tb[TCA_PI_B]);
	if (tb[TCA_PI_FREQ])
		params.freq_mhz = nla_get_u32(tb[TCA_PI_FREQ]);
	if (tb[TCA_PI_ECN])
		params.ecn = nla_get_u32(tb[TCA_PI_ECN]);
	if (tb[TCA_PI_AUTOTUNE])
		params.autotune = nla_get_u32(tb[TCA_PI_AUTOTUNE]);
	if (tb[TCA_PI_RTT])
		params.rtt_us = nla_get_u32(tb[TCA_PI_RTT]);
	if (tb[TCA_PI_FLOWS])
		params.flows = nla_get_u32(tb[TCA_PI_FLOWS]);
	if (tb[TCA_PI_BANDWIDTH])
		params.bandwidth_bps = nla_get_u64(tb[TCA_PI_BANDWIDTH]);
	if (tb[TCA_PI_RESPONSE])
		params.response = nla_get_u32(tb[TCA_PI_RESPONSE]);
	if (tb[TCA_PI_CUBIC_C])
		params.cubic_c_micro = nla_get_u32(tb[TCA_PI_CUBIC_C]);
	if (tb[TCA_PI_SPACING])
		params.even_spacing = nla_get_u32(tb[TCA_PI_SPACING]) == TC_PI_SPACING_EVEN;
	if (tb[TCA_PI_MARGIN])
		params.margin_deg = nla_get_u32(tb[TCA_PI_MARGIN]);
	if (tb[TCA_PI_ECN_CEILING])
		params.ecn_ceiling = nla_get_u64(tb[TCA_PI_ECN_CEILING]);
	params.pkt_bytes = max_t(u32, psched_mtu(qdisc_dev(sch)), 1);

	if (tb[TCA_PI_TARGET] && params.target_delay_us) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_PI_TARGET],
				    "target is a packet count or a delay, not both");
		return -EINVAL;
	}
	/* a delay target's packets are not known here: d C may exceed it */
	if (!params.target_delay_us && params.target_pkts >= params.limit_pkts) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_PI_TARGET] ?: tb[TCA_PI_LIMIT],
				    "target must be below limit");
		return -EINVAL;
	}
	/* a - b is the integral gain (K T): below zero, p would fall while
	 * the queue stays above target
	 */
	if (!params.autotune && params.a_frac < params.b_frac) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_PI_A] ?: tb[TCA_PI_B],
				    "gain a must not be below gain b");
		return -EINVAL;
	}
	if (params.autotune && (tb[TCA_PI_A] || tb[TCA_PI_B])) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_PI_A] ?: tb[TCA_PI_B],
				    "gains a and b are derived by autotune: turn it off to set them");
		return -EINVAL;
	}

	sch_tree_lock(sch);
	/* an estimator fed again must not count the pause as service time */
	if (!pi_needs_rate(&q->params) && pi_needs_rate(&params))
		aqm_dq_rate_init(&q->vars.dq);
	pi_publish_params(q, &params);
	WRITE_ONCE(sch->limit, params.limit_pkts);
	pi_retune(&q->params, &q->vars, true);
	pi_show_reference(q);

	aqm_trim_to_limit(sch, params.limit_pkts);

	sch_tree_unlock(sch);
	return 0;
}

static int pi_init(struct Qdisc *sch, struct nlattr *opt,
		   struct netlink_ext_ack *extack)
{
	struct pi_sched_data *q = qdisc_priv(sch);

	q->sch = sch;
	pi_params_init(&q->params, max_t(u32, psched_mtu(qdisc_dev(sch)), 1));
	pi_vars_init(&q->vars);
	pi_retune(&q->params, &q->vars, true);
	pi_show_reference(q);
	sch->limit = q->params.limit_pkts;
	/* the first enqueue starts the controller */
	q->timer_idle = true;
	/* A packet that finds the queue empty may go straight to the device,
	 * skipping enqueue and dequeue, as fifo's and fq_codel's do: PI never
	 * drops or marks below two packets of backlog
	 * (pi_backlog_allows_drop()), its even spacing counts only packets it
	 * could drop, its estimator only dequeues that leave a backlog, and
	 * its timer stops only where an update on an empty queue changes
	 * nothing. limit is at least 1.
	 */
	sch->flags |= TCQ_F_CAN_BYPASS;
	aqm_hrtimer_setup(&q->timer, pi_timer, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_SOFT);

	if (opt)
		return pi_change(sch, opt, extack);
	return 0;
}

static int pi_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct pi_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;

	if (nla_put_u32(skb, TCA_PI_LIMIT, READ_ONCE(q->params.limit_pkts)) ||
	    nla_put_u32(skb, TCA_PI_TARGET, READ_ONCE(q->params.target_pkts)) ||
	    nla_put_u64_64bit(skb, TCA_PI_A, READ_ONCE(q->params.a_frac), TCA_PI_PAD) ||
	    nla_put_u64_64bit(skb, TCA_PI_B, READ_ONCE(q->params.b_frac), TCA_PI_PAD) ||
	    nla_put_u32(skb, TCA_PI_FREQ, READ_ONCE(q->params.freq_mhz)) ||
	    nla_put_u32(skb, TCA_PI_ECN, READ_ONCE(q->params.ecn)) ||
	    nla_put_u32(skb, TCA_PI_AUTOTUNE, READ_ONCE(q->params.autotune)) ||
	    nla_put_u32(skb, TCA_PI_RTT, READ_ONCE(q->params.rtt_us)) ||
	    nla_put_u32(skb, TCA_PI_FLOWS, READ_ONCE(q->params.flows)) ||
	    nla_put_u64_64bit(skb, TCA_PI_BANDWIDTH, READ_ONCE(q->params.bandwidth_bps),
			      TCA_PI_PAD) ||
	    nla_put_u32(skb, TCA_PI_RESPONSE, READ_ONCE(q->params.response)) ||
	    nla_put_u32(skb, TCA_PI_SPACING, READ_ONCE(q->params.even_spacing) ?
			TC_PI_SPACING_EVEN : TC_PI_SPACING_RANDOM) ||
	    nla_put_u32(skb, TCA_PI_MARGIN, READ_ONCE(q->params.margin_deg)) ||
	    nla_put_u64_64bit(skb, TCA_PI_ECN_CEILING, READ_ONCE(q->params.ecn_ceiling),
			      TCA_PI_PAD) ||
	    nla_put_u32(skb, TCA_PI_TARGET_DELAY, READ_ONCE(q->params.target_delay_us)) ||
	    nla_put_u32(skb, TCA_PI_CUBIC_C, READ_ONCE(q->params.cubic_c_micro)))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int pi_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct pi_sched_data *q = qdisc_priv(sch);
	struct tc_pi_xstats st = {
		.prob		= READ_ONCE(q->vars.prob),
		.max_qlen	= READ_ONCE(q->stats.max_qlen_pkts),
		.early_drops	= READ_ONCE(q->stats.early_drops),
		.tail_drops	= READ_ONCE(q->stats.tail_drops),
		.ecn_marks	= READ_ONCE(q->stats.ecn_marks),
		.updates	= READ_ONCE(q->stats.updates),
		.gains_source	= READ_ONCE(q->vars.source),
		.gain_a		= READ_ONCE(q->vars.a_frac),
		.gain_b		= READ_ONCE(q->vars.b_frac),
		.tuned_capacity	= READ_ONCE(q->vars.tuned_q16),
		.rate_estimate	= READ_ONCE(q->vars.dq.rate_q16),
		.target_pkts	= READ_ONCE(q->vars.ref_pkts),
		.qdelay_us	= READ_ONCE(q->vars.qdelay_us),
		.tuned_flows	= READ_ONCE(q->vars.tuned_flows_q16),
		.wire_qlen	= aqm_wire_qlen_dump(sch, &q->gso_extra_pkts),
		.counted_flows	= READ_ONCE(q->vars.counted_flows),
		.tuned_margin	= READ_ONCE(q->vars.tuned_margin_deg),
	};

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void pi_reset(struct Qdisc *sch)
{
	struct pi_sched_data *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	WRITE_ONCE(q->gso_extra_pkts, 0);
	q->decided_segs = 0;
	pi_vars_init(&q->vars);
	pi_retune(&q->params, &q->vars, true);
	pi_show_reference(q);
}

static void pi_destroy(struct Qdisc *sch)
{
	struct pi_sched_data *q = qdisc_priv(sch);

	hrtimer_cancel(&q->timer);
}

static struct Qdisc_ops pi_qdisc_ops __read_mostly = {
	.id		= "pi",
	.priv_size	= sizeof(struct pi_sched_data),
	.enqueue	= pi_qdisc_enqueue,
	.dequeue	= pi_qdisc_dequeue,
	.peek		= qdisc_peek_head,
	.init		= pi_init,
	.destroy	= pi_destroy,
	.reset		= pi_reset,
	.change		= pi_change,
	.dump		= pi_dump,
	.dump_stats	= pi_dump_stats,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("pi");

static int __init pi_module_init(void)
{
	return register_qdisc(&pi_qdisc_ops);
}

static void __exit pi_module_exit(void)
{
	unregister_qdisc(&pi_qdisc_ops);
}

module_init(pi_module_init);
module_exit(pi_module_exit);

MODULE_DESCRIPTION("Proportional-Integral (PI) AQM, Hollot et al. 2001");
MODULE_AUTHOR("classic-aqm developers");
MODULE_LICENSE("GPL");
