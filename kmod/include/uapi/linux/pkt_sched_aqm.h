/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Netlink interface of the classic AQM qdiscs: pi, rem, blue and ared.
 *
 * Shared by the kernel modules and the tc parsers. Each qdisc takes its
 * options as attributes nested in TCA_OPTIONS (with NLA_F_NESTED) and reports
 * its state through TCA_STATS_APP as the matching tc_<kind>_xstats.
 *
 * Fixed-point conventions, one scale per kind of quantity:
 *  - probabilities reported in xstats: __u64 with 1.0 = TC_AQM_PROB_ONE;
 *  - gains and weights in (0, 1): __u64 fractions, value = field / 2^64;
 *  - times: microseconds (__u32) unless a name says otherwise.
 */
#ifndef _UAPI_LINUX_PKT_SCHED_AQM_H
#define _UAPI_LINUX_PKT_SCHED_AQM_H

#include <linux/types.h>

#define TC_AQM_PROB_SHIFT	62
#define TC_AQM_PROB_ONE		(1ULL << TC_AQM_PROB_SHIFT)

/* PI: Hollot, Misra, Towsley, Gong, INFOCOM 2001 */
enum {
	TCA_PI_UNSPEC,
	TCA_PI_PAD,
	TCA_PI_LIMIT,		/* u32, packets */
	TCA_PI_TARGET,		/* u32, packets (q_ref) */
	TCA_PI_A,		/* u64, gain a as a fraction of 2^64 */
	TCA_PI_B,		/* u64, gain b as a fraction of 2^64 */
	TCA_PI_FREQ,		/* u32, update frequency in mHz */
	TCA_PI_ECN,		/* u32, 0 or 1 */
	__TCA_PI_MAX
};

#define TCA_PI_MAX (__TCA_PI_MAX - 1)

struct tc_pi_xstats {
	__u64 prob;		/* drop/mark probability, 1.0 = TC_AQM_PROB_ONE */
	__u32 qlen;		/* packets queued at the last update */
	__u32 max_qlen;		/* largest queue seen, packets */
	__u32 early_drops;	/* dropped by the controller */
	__u32 tail_drops;	/* dropped because the queue was full */
	__u32 ecn_marks;	/* CE-marked instead of dropped */
	__u32 updates;		/* control law updates so far */
};

/* REM: Athuraliya, Low, Li, Yin, IEEE Network 2001 (section owned by sch_rem) */

/* BLUE: Feng, Kandlur, Saha, Shin (section owned by sch_blue) */

/* ARED: RED, gentle RED and Adaptive RED (section owned by sch_ared) */

#endif /* _UAPI_LINUX_PKT_SCHED_AQM_H */
