/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the four AQM qdiscs share on the packet path, apart from their
 * algorithms: GSO skbs judged in wire packets (queued whole, or cut into
 * them), the tail enqueue with its largest-queue counter, and the choice
 * between a CE mark and a drop.
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
typedef bool (*aqm_take_whole_fn)(struct Qdisc *sch, const struct sk_buff *skb,
				  u32 segs);

/* wire packets a queued skb holds beyond its first (GSO skbs queued whole) */
static inline u32 aqm_gso_extra_pkts(const struct sk_buff *skb)
{
	return skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs - 1 : 0;
}

/*
 * The wire length of each of a GSO skb's @segs (> 1) segments but the last:
 * qdisc_pkt_len_init() counted the headers once for each segment beyond
 * the first. 0 where a size table (stab) changed the length: the segments'
 * lengths are then unknown, and the skb must be cut to learn them.
 */
static inline u32 aqm_gso_seg_bytes(const struct sk_buff *skb, u32 segs)
{
	u32 seg_bytes = (qdisc_pkt_len(skb) - skb->len) / (segs - 1) +
			skb_shinfo(skb)->gso_size;

	if ((u64)seg_bytes * (segs - 1) >= qdisc_pkt_len(skb))
		return 0;
	return seg_bytes;
}

/*
 * The end of a take_whole for a kind that decides a GSO skb's segments
 * ahead: @kept of @segs kept, in order. All kept, the skb is queued whole;
 * else it is cut, and its segments meet the enqueue with *@decided_segs =
 * kept + 1 decisions made: kept, but the last, to be dropped or marked.
 */
static inline bool aqm_take_decided(u32 kept, u32 segs, u32 *decided_segs)
{
	if (kept == segs)
		return true;
	*decided_segs = kept + 1;
	return false;
}

/*
 * The queue in wire packets: sch->q.qlen counts skbs, which the parents and
 * the bypass test (qdisc_qlen()) must see; @gso_extra_pkts counts the
 * segments of the GSO skbs queued whole beyond one each.
 */
static inline u32 aqm_wire_qlen(const struct Qdisc *sch, u32 gso_extra_pkts)
{
	return sch->q.qlen + gso_extra_pkts;
}

/* the same for a dump, which reads without the lock */
static inline u32 aqm_wire_qlen_dump(const struct Qdisc *sch,
				     const u32 *gso_extra_pkts)
{
	return READ_ONCE(sch->q.qlen) + READ_ONCE(*gso_extra_pkts);
}

/*
 * Cut a GSO skb into its segments, each meeting @enqueue_one as one
 * arrival, as tbf, cake and dualpi2 do. The parents learn what was really
 * queued with one qdisc_tree_reduce_backlog().
 */
static int aqm_enqueue_segments(struct sk_buff *skb, struct Qdisc *sch,
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

/* Queue one skb at the tail and keep the largest queue seen, in wire
 * packets (dumps read it without the lock)
 */
static inline int aqm_enqueue_tail(struct sk_buff *skb, struct Qdisc *sch,
				   u32 wire_qlen_after, u32 *max_qlen_pkts)
{
	if (wire_qlen_after > *max_qlen_pkts)
		WRITE_ONCE(*max_qlen_pkts, wire_qlen_after);
	return qdisc_enqueue_tail(skb, sch);
}

/*
 * An AQM counts, judges and marks wire packets. A GSO skb (GRO on a
 * forwarding router's ingress, TSO from a local sender) holds up to 64 KB:
 * counted as one packet it would make limit, target, arrivals and the rate
 * estimate skb counts, and one drop would cut ~44 segments at once. Each
 * segment is one arrival. Where @take_whole finds that every one of them
 * is queued (it makes their decisions then, in order, up to the first
 * drop or mark), the skb is queued whole, as a NIC with segmentation offload
 * takes it: the decisions are those of the segments one by one, and the
 * software segmentation is saved (make bench: ~2.2 times pfifo's cost per
 * wire packet when cut here). Otherwise it is cut and each segment meets
 * @enqueue_one, which takes the decisions @take_whole made from
 * *@decided_segs. @gso_extra_pkts counts the segments queued beyond one per
 * skb (dumps read it without the lock).
 * Never inlined: inlined, its stack frame made every packet's enqueue save
 * and restore six registers (make bench-account: 24 instructions), GSO or
 * not. Callers test skb_is_gso() first, unlikely().
 */
static noinline int aqm_enqueue_gso(struct sk_buff *skb, struct Qdisc *sch,
				    struct sk_buff **to_free,
				    u32 *gso_extra_pkts, u32 *decided_segs,
				    u32 *max_qlen_pkts,
				    aqm_take_whole_fn take_whole,
				    aqm_enqueue_fn enqueue_one)
{
	u32 segs = skb_shinfo(skb)->gso_segs;
	int ret;

	if (segs > 1 && take_whole(sch, skb, segs)) {
		WRITE_ONCE(*gso_extra_pkts, *gso_extra_pkts + segs - 1);
		return aqm_enqueue_tail(skb, sch, aqm_wire_qlen(sch, *gso_extra_pkts) + 1,
					max_qlen_pkts);
	}
	ret = aqm_enqueue_segments(skb, sch, to_free, enqueue_one);
	*decided_segs = 0;	/* a failed cut leaves some unused */
	return ret;
}

/* The head skb and the wire packets it holds (1 + its GSO extra) */
static inline struct sk_buff *aqm_dequeue_head(struct Qdisc *sch,
					       u32 *gso_extra_pkts, u32 *pkts)
{
	struct sk_buff *skb = qdisc_dequeue_head(sch);
	u32 extra = 0;

	if (skb && unlikely(*gso_extra_pkts)) {
		extra = aqm_gso_extra_pkts(skb);
		WRITE_ONCE(*gso_extra_pkts, *gso_extra_pkts - extra);
	}
	*pkts = 1 + extra;
	return skb;
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
