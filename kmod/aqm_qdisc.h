/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the four AQM qdiscs share on the packet path, apart from their
 * algorithms: GSO skbs cut into wire packets, the tail enqueue with its
 * largest-queue counter, and the choice between a CE mark and a drop.
 */
#ifndef AQM_QDISC_H
#define AQM_QDISC_H

#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>

#include "aqm_compat.h"

typedef int (*aqm_enqueue_fn)(struct sk_buff *skb, struct Qdisc *sch,
			      struct sk_buff **to_free);

/*
 * An AQM counts, judges and marks wire packets. A GSO skb (GRO on a
 * forwarding router's ingress, TSO from a local sender) holds up to 64 KB:
 * counted as one packet it would make limit, target, arrivals and the rate
 * estimate skb counts, and one drop would cut ~44 segments at once. So it
 * is cut into its segments here and each meets the algorithm as one
 * arrival, as tbf, cake and dualpi2 do; the cost is the software
 * segmentation, measured by make bench. The parents learn what was really
 * queued with one qdisc_tree_reduce_backlog().
 * Never inlined: inlined, its stack frame made every packet's enqueue save
 * and restore six registers (make bench-account: 24 instructions), GSO or
 * not. Callers test skb_is_gso() first, unlikely().
 */
static noinline int aqm_enqueue_segments(struct sk_buff *skb,
					 struct Qdisc *sch,
					 struct sk_buff **to_free,
					 aqm_enqueue_fn enqueue_one)
{
	netdev_features_t features = netif_skb_features(skb);
	unsigned int skb_bytes = qdisc_pkt_len(skb), queued_bytes = 0;
	struct sk_buff *segs, *seg, *next;
	int queued = 0;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return qdisc_drop(skb, sch, to_free);

	skb_list_walk_safe(segs, seg, next) {
		unsigned int seg_bytes = seg->len;

		skb_mark_not_on_list(seg);
		qdisc_skb_cb(seg)->pkt_len = seg_bytes;
		aqm_skb_one_segment(seg);
		if (enqueue_one(seg, sch, to_free) == NET_XMIT_SUCCESS) {
			queued++;
			queued_bytes += seg_bytes;
		}
	}
	consume_skb(skb);
	if (!queued)
		return NET_XMIT_DROP;
	/* the parents will count one packet of skb_bytes */
	qdisc_tree_reduce_backlog(sch, 1 - queued, skb_bytes - queued_bytes);
	return NET_XMIT_SUCCESS;
}

/* Queue one packet at the tail and keep the largest queue seen (dumps
 * read it without the lock)
 */
static inline int aqm_enqueue_tail(struct sk_buff *skb, struct Qdisc *sch,
				   u32 *max_qlen_pkts)
{
	u32 qlen = sch->q.qlen + 1;

	if (qlen > *max_qlen_pkts)
		WRITE_ONCE(*max_qlen_pkts, qlen);
	return qdisc_enqueue_tail(skb, sch);
}

/*
 * Carry out an early drop chosen at probability @prob: an overlimit, then a
 * CE mark instead when ECN is on, the packet is ECN-capable and @prob is at
 * most @ceiling. Above it the packet is dropped all the same: a sender that
 * ignores marks would otherwise keep the queue full (mainline pie drops
 * above 10%). The kind's counters are read locklessly by dump.
 * Return: true if the packet is to be dropped.
 */
static inline bool aqm_early_drop(struct sk_buff *skb, struct Qdisc *sch,
				  bool ecn, u64 prob, u64 ceiling,
				  u32 *ecn_marks, u32 *early_drops)
{
	qdisc_qstats_overlimit(sch);
	if (ecn && prob <= ceiling && INET_ECN_set_ce(skb)) {
		WRITE_ONCE(*ecn_marks, *ecn_marks + 1);
		return false;
	}
	WRITE_ONCE(*early_drops, *early_drops + 1);
	return true;
}

#endif /* AQM_QDISC_H */
