/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API drift met by the AQM qdiscs, one helper per difference, each
 * with the version where the API changed. The oldest kernel supported is 6.1.
 */
#ifndef AQM_COMPAT_H
#define AQM_COMPAT_H

#include <linux/version.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/random.h>
#include <net/sch_generic.h>
/* 6.5 moved skb_gso_segment() out of netdevice.h into its own header */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#include <net/gso.h>
#endif

/*
 * The control laws run from hrtimers rather than timer_list: at HZ=250 a
 * jiffies timer cannot tick at PI's 170 Hz or REM's 2 ms. The callbacks run
 * in softirq context (HRTIMER_MODE_*_SOFT) so they may take the root lock.
 *
 * 6.13 added hrtimer_setup(), which sets the callback with the mode;
 * hrtimer_init() was removed in 6.15.
 */
static inline void aqm_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/* 6.10 autoloads qdiscs by "net-sch-<kind>"; older kernels by file name */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(id)	MODULE_ALIAS("net-sch-" id)
#endif

/* get_random_u32() is the batched per-cpu source on every supported kernel */
static inline u32 aqm_random_u32(void)
{
	return get_random_u32();
}

/*
 * Shrink a FIFO qdisc to a lowered limit, dropping from the head, with the
 * backlog of the parents reduced once. A parent that peeked
 * (qdisc_peek_dequeued) parked the head in gso_skb while it still counts in
 * q.qlen; take that one first, or the queue runs dry before qlen reaches the
 * limit. Mainline grew qdisc_dequeue_internal() for the same job in 6.16
 * (and stable); this private version works on all. Caller holds the tree
 * lock.
 */
static inline void aqm_trim_to_limit(struct Qdisc *sch, u32 limit_pkts)
{
	unsigned int dropped_pkts = 0, dropped_bytes = 0;

	while (sch->q.qlen > limit_pkts) {
		struct sk_buff *skb = __skb_dequeue(&sch->gso_skb);

		if (skb) {
			sch->q.qlen--;
		} else {
			skb = __qdisc_dequeue_head(&sch->q);
			if (!skb)
				break;
		}
		qdisc_qstats_backlog_dec(sch, skb);
		dropped_pkts++;
		dropped_bytes += qdisc_pkt_len(skb);
		rtnl_qdisc_drop(skb, sch);
	}
	qdisc_tree_reduce_backlog(sch, dropped_pkts, dropped_bytes);
}

/*
 * Newer kernels (after 6.12; 7.2 has it) count a qdisc's packets from
 * qdisc_skb_cb()->pkt_segs, set once per skb at the root from its GSO
 * segment count. Segments cut from a GSO skb inherit its cb, so each must
 * say 1 again (as mainline tbf and cake do), or every counter of ours and
 * of the parents counts the whole skb once per segment. Kbuild finds the
 * field in the kernel's own headers (AQM_HAVE_PKT_SEGS): distributions
 * backport it.
 */
static inline void aqm_skb_one_segment(struct sk_buff *skb)
{
#ifdef AQM_HAVE_PKT_SEGS
	qdisc_skb_cb(skb)->pkt_segs = 1;
#endif
}

#endif /* AQM_COMPAT_H */
