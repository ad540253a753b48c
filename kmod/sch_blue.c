// SPDX-License-Identifier: GPL-2.0
/*
 * BLUE AQM qdisc: the single-queue BLUE of Feng, Kandlur, Saha and Shin
 * (CSE-TR-387-99, 1999; IEEE/ACM ToN 2002). The algorithm lives in
 * core/blue.h; this file is the qdisc around it.
 *
 * BLUE needs no timer: pm moves only on events. Arrivals report losses,
 * the queue above threshold and, when the queue is empty, link idle; a
 * dequeue or peek that finds the queue empty reports link idle too (the
 * choice is explained in core/blue.h). The freeze rule reads the monotonic
 * clock, and only when an event happens.
 */

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/inet_ecn.h>

#include "aqm_compat.h"
#include "aqm_qdisc.h"
#include "uapi/linux/pkt_sched_aqm.h"
#include "core/blue.h"

struct blue_sched_data {
	struct blue_params params;
	struct blue_vars vars;
	struct blue_stats stats;
	u32 gso_extra_pkts;	/* GSO skbs queued whole: aqm_wire_qlen() */
	u32 decided_segs;	/* of a cut skb's segments: blue_take_whole() */
};

/* not const: 6.1 netlink.h takes a non-const pointer */
static struct netlink_range_validation blue_step_range = {
	.min = 1,
	.max = BLUE_PROB_ONE,
};

static struct netlink_range_validation blue_freeze_range = {
	.min = BLUE_FREEZE_MIN_US,
	.max = BLUE_FREEZE_MAX_US,
};

static const struct nla_policy blue_policy[TCA_BLUE_MAX + 1] = {
	[TCA_BLUE_LIMIT]	= NLA_POLICY_MIN(NLA_U32, 1),
	[TCA_BLUE_INCREMENT]	= NLA_POLICY_FULL_RANGE(NLA_U64, &blue_step_range),
	[TCA_BLUE_DECREMENT]	= NLA_POLICY_FULL_RANGE(NLA_U64, &blue_step_range),
	[TCA_BLUE_FREEZE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &blue_freeze_range),
	[TCA_BLUE_THRESHOLD]	= { .type = NLA_U32 },	/* 0: follow limit */
	[TCA_BLUE_ECN]		= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_BLUE_ECN_CEILING]	= NLA_POLICY_FULL_RANGE(NLA_U64, &blue_step_range),
};

/* Apply an event to pm and count what it did; caller holds the root lock */
static void blue_note_event(struct blue_sched_data *q, enum blue_event event)
{
	int moved;

	if (!blue_event_may_move(&q->vars, event))
		return;
	moved = blue_apply_event(&q->params, &q->vars, event, ktime_get_ns());
	if (moved > 0)
		WRITE_ONCE(q->stats.increments, q->stats.increments + 1);
	else if (moved < 0)
		WRITE_ONCE(q->stats.decrements, q->stats.decrements + 1);
}

/*
 * The early decision at p > 0, kept out of line: on the path of p = 0,
 * every packet of a link that keeps up, its random draw and ECN marking
 * would make the compiler save registers and set a stack canary
 * (make bench-account). Return: true if the packet is to be dropped.
 */
static noinline bool blue_early_drop(struct sk_buff *skb, struct Qdisc *sch)
{
	struct blue_sched_data *q = qdisc_priv(sch);

	return blue_should_drop(&q->vars, aqm_random_u32()) &&
	       aqm_early_drop(skb, sch, q->params.ecn, q->vars.prob,
			      q->params.ecn_ceiling, &q->stats.ecn_marks,
			      &q->stats.early_drops);
}

/*
 * A segment of a GSO skb blue_take_whole() cut: its event and decision
 * were made there. Kept, but the last of decided_segs, the one to be
 * dropped or marked.
 */
static noinline int blue_enqueue_decided(struct sk_buff *skb,
					 struct Qdisc *sch,
					 struct sk_buff **to_free)
{
	struct blue_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);

	if (!--q->decided_segs &&
	    aqm_early_drop(skb, sch, q->params.ecn, q->vars.prob,
			   q->params.ecn_ceiling, &q->stats.ecn_marks,
			   &q->stats.early_drops))
		return qdisc_drop(skb, sch, to_free);
	return aqm_enqueue_tail(skb, sch, qlen + 1, &q->stats.max_qlen_pkts);
}

/* one wire packet */
static int blue_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct blue_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);

	if (unlikely(q->decided_segs))
		return blue_enqueue_decided(skb, sch, to_free);

	blue_note_event(q, blue_arrival_event(&q->params, &q->vars, qlen));

	if (unlikely(qlen >= q->params.limit_pkts)) {
		WRITE_ONCE(q->stats.tail_drops, q->stats.tail_drops + 1);
		return qdisc_drop(skb, sch, to_free);
	}

	/* p = 0 never drops: draw no random number (as pie does) */
	if (q->vars.prob && blue_early_drop(skb, sch))
		return qdisc_drop(skb, sch, to_free);

	return aqm_enqueue_tail(skb, sch, qlen + 1, &q->stats.max_qlen_pkts);
}

/*
 * A GSO skb's segments: the first's event applied (below the threshold
 * the others signal none), then their decisions one by one up to the
 * first drop or mark. All kept, it is queued whole; else cut, its
 * segments meeting blue_enqueue_decided(). Where the threshold or the
 * limit meets a segment it is cut with nothing done.
 */
static bool blue_take_whole(struct Qdisc *sch, const struct sk_buff *skb,
			    u32 segs)
{
	struct blue_sched_data *q = qdisc_priv(sch);
	u32 qlen = aqm_wire_qlen(sch, q->gso_extra_pkts);
	u32 kept;

	if ((u64)qlen + segs > blue_threshold_pkts(&q->params))
		return false;
	blue_note_event(q, blue_arrival_event(&q->params, &q->vars, qlen));
	kept = blue_segments_kept(&q->vars, segs, aqm_random_u32);
	return aqm_take_decided(kept, segs, &q->decided_segs);
}

static int blue_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			      struct sk_buff **to_free)
{
	struct blue_sched_data *q = qdisc_priv(sch);

	if (unlikely(skb_is_gso(skb)))
		return aqm_enqueue_gso(skb, sch, to_free, &q->gso_extra_pkts,
				       &q->decided_segs, &q->stats.max_qlen_pkts,
				       blue_take_whole, blue_enqueue_one);
	return blue_enqueue_one(skb, sch, to_free);
}

static struct sk_buff *blue_qdisc_dequeue(struct Qdisc *sch)
{
	struct blue_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u32 pkts;

	skb = aqm_dequeue_head(sch, &q->gso_extra_pkts, &pkts);

	if (!skb)
		blue_note_event(q, blue_link_idle(&q->vars));
	return skb;
}

/* tbf and other shapers peek before they dequeue: an empty peek is idle */
static struct sk_buff *blue_qdisc_peek(struct Qdisc *sch)
{
	struct blue_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb = qdisc_peek_head(sch);

	if (!skb)
		blue_note_event(q, blue_link_idle(&q->vars));
	return skb;
}

/* dumps read the parameters without the qdisc lock; every field goes here */
static void blue_publish_params(struct blue_sched_data *q,
				const struct blue_params *p)
{
	struct blue_params *dst = &q->params;

	WRITE_ONCE(dst->limit_pkts, p->limit_pkts);
	WRITE_ONCE(dst->threshold_pkts, p->threshold_pkts);
	WRITE_ONCE(dst->increment, p->increment);
	WRITE_ONCE(dst->decrement, p->decrement);
	WRITE_ONCE(dst->freeze_us, p->freeze_us);
	WRITE_ONCE(dst->ecn, p->ecn);
	WRITE_ONCE(dst->ecn_ceiling, p->ecn_ceiling);
}

static int blue_change(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct blue_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_BLUE_MAX + 1];
	struct blue_params params;
	int err;

	err = nla_parse_nested(tb, TCA_BLUE_MAX, opt, blue_policy, extack);
	if (err < 0)
		return err;

	params = q->params;
	if (tb[TCA_BLUE_LIMIT])
		params.limit_pkts = nla_get_u32(tb[TCA_BLUE_LIMIT]);
	if (tb[TCA_BLUE_INCREMENT])
		params.increment = nla_get_u64(tb[TCA_BLUE_INCREMENT]);
	if (tb[TCA_BLUE_DECREMENT])
		params.decrement = nla_get_u64(tb[TCA_BLUE_DECREMENT]);
	if (tb[TCA_BLUE_FREEZE])
		params.freeze_us = nla_get_u32(tb[TCA_BLUE_FREEZE]);
	if (tb[TCA_BLUE_THRESHOLD])
		params.threshold_pkts = nla_get_u32(tb[TCA_BLUE_THRESHOLD]);
	if (tb[TCA_BLUE_ECN])
		params.ecn = nla_get_u32(tb[TCA_BLUE_ECN]);
	if (tb[TCA_BLUE_ECN_CEILING])
		params.ecn_ceiling = nla_get_u64(tb[TCA_BLUE_ECN_CEILING]);

	/* an unset threshold (0) follows the limit */
	if (params.threshold_pkts > params.limit_pkts) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_BLUE_THRESHOLD] ?: tb[TCA_BLUE_LIMIT],
				    "threshold must not exceed limit");
		return -EINVAL;
	}

	sch_tree_lock(sch);
	blue_publish_params(q, &params);
	WRITE_ONCE(sch->limit, params.limit_pkts);

	aqm_trim_to_limit(sch, params.limit_pkts);

	sch_tree_unlock(sch);
	return 0;
}

static int blue_init(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct blue_sched_data *q = qdisc_priv(sch);

	blue_params_init(&q->params);
	blue_vars_init(&q->vars);
	sch->limit = q->params.limit_pkts;

	if (opt)
		return blue_change(sch, opt, extack);
	return 0;
}

static int blue_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct blue_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;

	/* the threshold as configured: 0 follows limit, and replays so */
	if (nla_put_u32(skb, TCA_BLUE_LIMIT, READ_ONCE(q->params.limit_pkts)) ||
	    nla_put_u64_64bit(skb, TCA_BLUE_INCREMENT, READ_ONCE(q->params.increment),
			      TCA_BLUE_PAD) ||
	    nla_put_u64_64bit(skb, TCA_BLUE_DECREMENT, READ_ONCE(q->params.decrement),
			      TCA_BLUE_PAD) ||
	    nla_put_u32(skb, TCA_BLUE_FREEZE, READ_ONCE(q->params.freeze_us)) ||
	    nla_put_u32(skb, TCA_BLUE_THRESHOLD, READ_ONCE(q->params.threshold_pkts)) ||
	    nla_put_u32(skb, TCA_BLUE_ECN, READ_ONCE(q->params.ecn)) ||
	    nla_put_u64_64bit(skb, TCA_BLUE_ECN_CEILING,
			      READ_ONCE(q->params.ecn_ceiling), TCA_BLUE_PAD))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int blue_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct blue_sched_data *q = qdisc_priv(sch);
	struct tc_blue_xstats st = {
		.prob		= READ_ONCE(q->vars.prob),
		.max_qlen	= READ_ONCE(q->stats.max_qlen_pkts),
		.increments	= READ_ONCE(q->stats.increments),
		.decrements	= READ_ONCE(q->stats.decrements),
		.early_drops	= READ_ONCE(q->stats.early_drops),
		.tail_drops	= READ_ONCE(q->stats.tail_drops),
		.ecn_marks	= READ_ONCE(q->stats.ecn_marks),
		.threshold	= READ_ONCE(q->params.threshold_pkts) ?:
				  READ_ONCE(q->params.limit_pkts),
		.wire_qlen	= aqm_wire_qlen_dump(sch, &q->gso_extra_pkts),
	};

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void blue_reset(struct Qdisc *sch)
{
	struct blue_sched_data *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	WRITE_ONCE(q->gso_extra_pkts, 0);
	q->decided_segs = 0;
	blue_vars_init(&q->vars);
}

static struct Qdisc_ops blue_qdisc_ops __read_mostly = {
	.id		= "blue",
	.priv_size	= sizeof(struct blue_sched_data),
	.enqueue	= blue_qdisc_enqueue,
	.dequeue	= blue_qdisc_dequeue,
	.peek		= blue_qdisc_peek,
	.init		= blue_init,
	.reset		= blue_reset,
	.change		= blue_change,
	.dump		= blue_dump,
	.dump_stats	= blue_dump_stats,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("blue");

static int __init blue_module_init(void)
{
	return register_qdisc(&blue_qdisc_ops);
}

static void __exit blue_module_exit(void)
{
	unregister_qdisc(&blue_qdisc_ops);
}

module_init(blue_module_init);
module_exit(blue_module_exit);

MODULE_DESCRIPTION("BLUE AQM, Feng, Kandlur, Saha, Shin 1999");
MODULE_AUTHOR("classic-aqm developers");
MODULE_LICENSE("GPL");
