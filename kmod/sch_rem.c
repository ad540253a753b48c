// SPDX-License-Identifier: GPL-2.0
/*
 * REM AQM qdisc: Random Exponential Marking of Athuraliya, Low, Li and Yin
 * (IEEE Network 2001), with the update rule of ns-2's REM queue. The price
 * update and the fixed-point exponential live in core/rem.h; this file is
 * the qdisc around them.
 *
 * The capacity c of the update is fixed by "bandwidth" (turned into packets
 * of the device's MTU plus link header, as htb and tbf count them), or else
 * estimated from the rate at which the parent or the device dequeues while
 * the queue is backlogged, so that REM works as a leaf under a shaper or on
 * a NIC whose rate it is not told.
 */

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/hrtimer.h>
#include <linux/timekeeping.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/inet_ecn.h>

#include "aqm_compat.h"
#include "aqm_qdisc.h"
#include "uapi/linux/pkt_sched_aqm.h"
#include "core/rem.h"

struct rem_sched_data {
	struct rem_params params;
	struct rem_vars vars;
	struct rem_stats stats;
	struct hrtimer timer;
	bool timer_idle;	/* stopped on an idle, settled queue */
	u32 gso_extra_pkts;	/* GSO skbs queued whole: aqm_wire_qlen() */
	u32 decided_segs;	/* of a cut skb's segments: rem_take_whole() */
	struct Qdisc *sch;
};

/* not const: 6.1 netlink.h takes non-const pointers */
static struct netlink_range_validation rem_interval_range = {
	.min = REM_INTERVAL_MIN_US,
	.max = REM_INTERVAL_MAX_US,
};

static struct netlink_range_validation rem_phi_range = {
	.min = REM_PHI_MIN_FRAC,
	.max = U64_MAX,
};

static struct netlink_range_validation rem_inw_range = {
	.min = 1,
	.max = REM_WEIGHT_ONE,
};

static struct netlink_range_validation rem_ecn_ceiling_range = {
	.min = 1,
	.max = REM_PROB_ONE,
};

static const struct nla_policy rem_policy[TCA_REM_MAX + 1] = {
	[TCA_REM_LIMIT]		= NLA_POLICY_MIN(NLA_U32, 1),
	[TCA_REM_TARGET]	= { .type = NLA_U32 },
	[TCA_REM_GAMMA]		= NLA_POLICY_MIN(NLA_U64, 1),
	[TCA_REM_PHI]		= NLA_POLICY_FULL_RANGE(NLA_U64, &rem_phi_range),
	[TCA_REM_ALPHA]		= NLA_POLICY_MIN(NLA_U64, 1),
	[TCA_REM_INTERVAL]	= NLA_POLICY_FULL_RANGE(NLA_U32, &rem_interval_range),
	[TCA_REM_INW]		= NLA_POLICY_FULL_RANGE(NLA_U64, &rem_inw_range),
	[TCA_REM_BANDWIDTH]	= { .type = NLA_U64 },
	[TCA_REM_ECN]		= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_REM_ECN_CEILING]	= NLA_POLICY_FULL_RANGE(NLA_U64, &rem_ecn_ceiling_range),
};

static void rem_timer_start(struct rem_sched_data *q)
{
	hrtimer_start(&q->timer, ns_to_ktime(rem_update_period_ns(&q->params)),
		      HRTIMER_MODE_REL_PINNED_SOFT);
}

/* the timer stopped on an idle queue: an arrival starts it again */
static void rem_timer_wake(struct rem_sched_data *q)
{
	if (unlikely(q->timer_idle)) {
		q->timer_idle = false;
		rem_timer_start(q);
	}
}

/*
 * One wire packet, the whole decision. A segment of a GSO skb
 * rem_take_whole() cut was counted and decided there: kept, but the last
 * of decided_segs, the one to be dropped or marked.
 */
static noinline int rem_enqueue_judged(struct sk_buff *skb, struct Qdisc *sch,
				       struct sk_buff **to_free)
{
	struct rem_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);
	bool early;

	rem_timer_wake(q);

	if (unlikely(q->decided_segs)) {
		early = !--q->decided_segs;
	} else {
		/* x counts every arrival, also those dropped below (as ns-2) */
		rem_arrival(&q->vars);

		if (unlikely(qlen >= q->params.limit_pkts)) {
			WRITE_ONCE(q->stats.tail_drops, q->stats.tail_drops + 1);
			return qdisc_drop(skb, sch, to_free);
		}

		/* p = 0 never drops: draw no random number (as pie does) */
		early = q->vars.prob &&
			rem_should_drop(&q->vars, aqm_random_u32());
	}
	if (early && aqm_early_drop(skb, sch, q->params.ecn, q->vars.prob,
				    q->params.ecn_ceiling, &q->stats.ecn_marks,
				    &q->stats.early_drops))
		return qdisc_drop(skb, sch, to_free);
	return aqm_enqueue_tail(skb, sch, qlen + 1, &q->stats.max_qlen_pkts);
}

/*
 * One wire packet. At p = 0 with the timer running and room in the queue
 * (every packet on a link that keeps up) an arrival is only counted: done
 * here, without the frame the whole decision needs (make bench-account:
 * 56 instructions a packet to enqueue before, 31 now).
 */
static int rem_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	struct rem_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);

	if (likely(!q->vars.prob && !q->timer_idle &&
		   qlen < q->params.limit_pkts)) {
		rem_arrival(&q->vars);
		return aqm_enqueue_tail(skb, sch, qlen + 1, &q->stats.max_qlen_pkts);
	}
	return rem_enqueue_judged(skb, sch, to_free);
}

/*
 * A GSO skb's segments, counted and decided one by one up to the first
 * drop or mark: all kept, it is queued whole; else cut, its segments
 * meeting rem_enqueue_judged() with that done. Where the limit meets a
 * segment it is cut with nothing done.
 */
static bool rem_take_whole(struct Qdisc *sch, const struct sk_buff *skb,
			   u32 segs)
{
	struct rem_sched_data *q = qdisc_priv(sch);
	u32 kept;

	if ((u64)aqm_wire_qlen(sch, q->gso_extra_pkts) + segs >
	    q->params.limit_pkts)
		return false;
	rem_timer_wake(q);
	kept = rem_segments_kept(&q->vars, segs, aqm_random_u32);
	return aqm_take_decided(kept, segs, &q->decided_segs);
}

static int rem_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			     struct sk_buff **to_free)
{
	struct rem_sched_data *q = qdisc_priv(sch);

	if (unlikely(skb_is_gso(skb)))
		return aqm_enqueue_gso(skb, sch, to_free, &q->gso_extra_pkts,
				       &q->decided_segs, &q->stats.max_qlen_pkts,
				       rem_take_whole, rem_enqueue_one);
	return rem_enqueue_one(skb, sch, to_free);
}

/* out of line: its clock read would give the dequeue a frame */
static noinline void rem_feed_estimator(struct Qdisc *sch, u32 pkts, u32 qlen)
{
	struct rem_sched_data *q = qdisc_priv(sch);

	rem_dequeued(&q->params, &q->vars, pkts, qlen, ktime_get_ns());
}

static struct sk_buff *rem_qdisc_dequeue(struct Qdisc *sch)
{
	struct rem_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u32 pkts, qlen;

	skb = aqm_dequeue_head(sch, &q->gso_extra_pkts, &pkts);
	if (!skb || !rem_needs_rate(&q->params))
		return skb;
	qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);
	if (aqm_dq_rate_wants(&q->vars.dq, qlen))
		rem_feed_estimator(sch, pkts, qlen);
	return skb;
}

static enum hrtimer_restart rem_timer(struct hrtimer *timer)
{
	struct rem_sched_data *q = container_of(timer, struct rem_sched_data, timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock;	/* the root qdisc lock, guards vars */
	u64 periods;
	bool busy;

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);

	/*
	 * Intervals since the last expiry: 1 on time, more when a busy CPU
	 * held the callback back past whole intervals; the law then makes up
	 * for the updates it missed.
	 */
	periods = hrtimer_forward_now(timer, ns_to_ktime(rem_update_period_ns(&q->params)));
	busy = rem_update(&q->params, &q->vars,
			  aqm_wire_qlen(sch, q->gso_extra_pkts),
			  min_t(u64, periods, REM_MAX_PERIODS));
	WRITE_ONCE(q->stats.updates, q->stats.updates + 1);
	if (!busy)
		q->timer_idle = true;	/* the next enqueue restarts it */

	spin_unlock(root_lock);
	rcu_read_unlock();
	return busy ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/* dumps read the parameters without the qdisc lock; every field goes here */
static void rem_publish_params(struct rem_sched_data *q, const struct rem_params *p)
{
	struct rem_params *dst = &q->params;

	WRITE_ONCE(dst->limit_pkts, p->limit_pkts);
	WRITE_ONCE(dst->target_pkts, p->target_pkts);
	WRITE_ONCE(dst->gamma_frac, p->gamma_frac);
	WRITE_ONCE(dst->phi_frac, p->phi_frac);
	WRITE_ONCE(dst->alpha_frac, p->alpha_frac);
	WRITE_ONCE(dst->inw_q62, p->inw_q62);
	WRITE_ONCE(dst->interval_us, p->interval_us);
	WRITE_ONCE(dst->bandwidth_bps, p->bandwidth_bps);
	WRITE_ONCE(dst->pkt_bytes, p->pkt_bytes);
	WRITE_ONCE(dst->ecn, p->ecn);
	WRITE_ONCE(dst->ecn_ceiling, p->ecn_ceiling);
	WRITE_ONCE(dst->log2phi_frac, p->log2phi_frac);
	dst->cap_fixed = p->cap_fixed;	/* not dumped */
}

static int rem_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct rem_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_REM_MAX + 1];
	struct rem_params params;
	int err;

	err = nla_parse_nested(tb, TCA_REM_MAX, opt, rem_policy, extack);
	if (err < 0)
		return err;

	params = q->params;
	if (tb[TCA_REM_LIMIT])
		params.limit_pkts = nla_get_u32(tb[TCA_REM_LIMIT]);
	if (tb[TCA_REM_TARGET])
		params.target_pkts = nla_get_u32(tb[TCA_REM_TARGET]);
	if (tb[TCA_REM_GAMMA])
		params.gamma_frac = nla_get_u64(tb[TCA_REM_GAMMA]);
	if (tb[TCA_REM_PHI])
		params.phi_frac = nla_get_u64(tb[TCA_REM_PHI]);
	if (tb[TCA_REM_ALPHA])
		params.alpha_frac = nla_get_u64(tb[TCA_REM_ALPHA]);
	if (tb[TCA_REM_INTERVAL])
		params.interval_us = nla_get_u32(tb[TCA_REM_INTERVAL]);
	if (tb[TCA_REM_INW])
		params.inw_q62 = nla_get_u64(tb[TCA_REM_INW]);
	if (tb[TCA_REM_BANDWIDTH])
		params.bandwidth_bps = nla_get_u64(tb[TCA_REM_BANDWIDTH]);
	if (tb[TCA_REM_ECN])
		params.ecn = nla_get_u32(tb[TCA_REM_ECN]);
	if (tb[TCA_REM_ECN_CEILING])
		params.ecn_ceiling = nla_get_u64(tb[TCA_REM_ECN_CEILING]);

	if (params.target_pkts >= params.limit_pkts) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_REM_TARGET] ?: tb[TCA_REM_LIMIT],
				    "target must be below limit");
		return -EINVAL;
	}

	/* one packet on the wire, as a shaper above us counts it */
	params.pkt_bytes = max_t(u32, psched_mtu(qdisc_dev(sch)), 1);
	rem_params_derive(&params);

	sch_tree_lock(sch);
	/* an estimator fed again must not count the pause as service time */
	if (!rem_needs_rate(&q->params) && rem_needs_rate(&params))
		aqm_dq_rate_init(&q->vars.dq);
	rem_publish_params(q, &params);
	WRITE_ONCE(sch->limit, params.limit_pkts);

	aqm_trim_to_limit(sch, params.limit_pkts);

	sch_tree_unlock(sch);
	return 0;
}

static int rem_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct rem_sched_data *q = qdisc_priv(sch);

	q->sch = sch;
	rem_params_init(&q->params, max_t(u32, psched_mtu(qdisc_dev(sch)), 1));
	rem_vars_init(&q->vars);
	sch->limit = q->params.limit_pkts;
	/* the first enqueue starts the controller */
	q->timer_idle = true;
	aqm_hrtimer_setup(&q->timer, rem_timer, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_SOFT);

	if (opt)
		return rem_change(sch, opt, extack);
	return 0;
}

static int rem_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct rem_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;

	if (nla_put_u32(skb, TCA_REM_LIMIT, READ_ONCE(q->params.limit_pkts)) ||
	    nla_put_u32(skb, TCA_REM_TARGET, READ_ONCE(q->params.target_pkts)) ||
	    nla_put_u64_64bit(skb, TCA_REM_GAMMA, READ_ONCE(q->params.gamma_frac),
			      TCA_REM_PAD) ||
	    nla_put_u64_64bit(skb, TCA_REM_PHI, READ_ONCE(q->params.phi_frac),
			      TCA_REM_PAD) ||
	    nla_put_u64_64bit(skb, TCA_REM_ALPHA, READ_ONCE(q->params.alpha_frac),
			      TCA_REM_PAD) ||
	    nla_put_u32(skb, TCA_REM_INTERVAL, READ_ONCE(q->params.interval_us)) ||
	    nla_put_u64_64bit(skb, TCA_REM_INW, READ_ONCE(q->params.inw_q62),
			      TCA_REM_PAD) ||
	    nla_put_u64_64bit(skb, TCA_REM_BANDWIDTH, READ_ONCE(q->params.bandwidth_bps),
			      TCA_REM_PAD) ||
	    nla_put_u32(skb, TCA_REM_ECN, READ_ONCE(q->params.ecn)) ||
	    nla_put_u64_64bit(skb, TCA_REM_ECN_CEILING, READ_ONCE(q->params.ecn_ceiling),
			      TCA_REM_PAD))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static u32 rem_capacity_mode(const struct rem_sched_data *q)
{
	if (READ_ONCE(q->params.bandwidth_bps))
		return TC_REM_CAPACITY_FIXED;
	if (READ_ONCE(q->vars.dq.rate_q16))
		return TC_REM_CAPACITY_ESTIMATED;
	return TC_REM_CAPACITY_PENDING;
}

static int rem_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct rem_sched_data *q = qdisc_priv(sch);
	struct tc_rem_xstats st = {
		.price		= READ_ONCE(q->vars.price_q32),
		.prob		= READ_ONCE(q->vars.prob),
		.arrivals	= READ_ONCE(q->vars.in_q32),
		.capacity	= READ_ONCE(q->vars.cap_q32),
		.rate_estimate	= READ_ONCE(q->vars.dq.rate_q16),
		.capacity_mode	= rem_capacity_mode(q),
		.interval	= READ_ONCE(q->params.interval_us),
		.max_qlen	= READ_ONCE(q->stats.max_qlen_pkts),
		.early_drops	= READ_ONCE(q->stats.early_drops),
		.tail_drops	= READ_ONCE(q->stats.tail_drops),
		.ecn_marks	= READ_ONCE(q->stats.ecn_marks),
		.updates	= READ_ONCE(q->stats.updates),
		.wire_qlen	= aqm_wire_qlen_dump(sch, &q->gso_extra_pkts),
	};

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void rem_reset(struct Qdisc *sch)
{
	struct rem_sched_data *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	WRITE_ONCE(q->gso_extra_pkts, 0);
	q->decided_segs = 0;
	rem_vars_init(&q->vars);
}

static void rem_destroy(struct Qdisc *sch)
{
	struct rem_sched_data *q = qdisc_priv(sch);

	hrtimer_cancel(&q->timer);
}

static struct Qdisc_ops rem_qdisc_ops __read_mostly = {
	.id		= "rem",
	.priv_size	= sizeof(struct rem_sched_data),
	.enqueue	= rem_qdisc_enqueue,
	.dequeue	= rem_qdisc_dequeue,
	.peek		= qdisc_peek_head,
	.init		= rem_init,
	.destroy	= rem_destroy,
	.reset		= rem_reset,
	.change		= rem_change,
	.dump		= rem_dump,
	.dump_stats	= rem_dump_stats,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("rem");

static int __init rem_module_init(void)
{
	return register_qdisc(&rem_qdisc_ops);
}

static void __exit rem_module_exit(void)
{
	unregister_qdisc(&rem_qdisc_ops);
}

module_init(rem_module_init);
module_exit(rem_module_exit);

MODULE_DESCRIPTION("Random Exponential Marking (REM) AQM, Athuraliya et al. 2001");
MODULE_AUTHOR("classic-aqm developers");
MODULE_LICENSE("GPL");
