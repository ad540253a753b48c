// SPDX-License-Identifier: GPL-2.0
/*
 * sampler: record one qdisc's statistics at a fixed period, for the testbed.
 *
 *   sampler -d DEV -H HANDLE -i INTERVAL_US -t SECONDS -o FILE [-r]
 *
 * Every INTERVAL_US microseconds (absolute deadlines on CLOCK_MONOTONIC, so
 * lateness never accumulates) one RTM_GETQDISC dump over a netlink socket
 * opened once: no process is forked per sample. The qdisc is the one on DEV
 * whose handle major is HANDLE (hex, as tc writes it: "10:"). One CSV line
 * per sample:
 *
 *   t_us        when the sample was taken, since the first deadline, us
 *   late_us     how late the sample was taken after its deadline
 *   qlen_pkts   backlog_bytes  sent_bytes  sent_pkts  drops  overlimits
 *   requeues    ecn_marks      prob   price   avg_qlen_pkts
 *   qdelay_us   the queueing delay as the qdisc itself measures it
 *
 * qlen_pkts is in wire packets where the kind says (pi, rem, blue and ared
 * queue a GSO skb whole when they would keep all its segments: their
 * xstats' wire_qlen counts them), else TCA_STATS_QUEUE's skbs.
 * The last six come from the qdisc's TCA_STATS_APP xstats, decoded for pi,
 * rem, blue, ared (pkt_sched_aqm.h) and mainline pie, red, fq_codel,
 * dualpi2 (prob: what its classic queue meets, p' squared); a field the
 * kind has not is left empty. qdelay_us is pi's queue over the link's rate
 * at its last update, pie's delay (by default the sojourn time of the packet
 * it last dequeued) and dualpi2's delay_c (the time its classic queue's head
 * has waited so far). Deadlines missed by more than a period are skipped,
 * not made up, and counted. A summary of the lateness (jitter) goes to
 * stderr as one JSON object at the end, with start_ns, the first deadline on
 * CLOCK_MONOTONIC (time.monotonic_ns() in Python). SIGINT/SIGTERM end the
 * run early.
 * -r: run SCHED_FIFO (priority 10) to wake on time under load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_sched_aqm.h>

#define NSEC_PER_USEC	((int64_t)1000)
#define NSEC_PER_SEC	((int64_t)1000000000)
#define PIE_PROB_ONE	((double)UINT64_MAX)	/* mainline pie: prob / U64_MAX */

/* The head of mainline's struct tc_dualpi2_xstats (Linux 6.17 on; not in
 * older UAPI headers such as the build host's)
 */
struct dualpi2_xstats_head {
	uint32_t prob;		/* the base probability p', 1.0 = U32_MAX */
	uint32_t delay_c;	/* classic queue's head sojourn so far, us */
};

struct sample {
	bool found;
	char kind[IFNAMSIZ];
	uint32_t qlen_pkts, backlog_bytes, drops, overlimits, requeues;
	int64_t wire_qlen_pkts;	/* -1: not reported by this kind */
	uint64_t sent_bytes, sent_pkts;
	int64_t ecn_marks;	/* -1: not reported by this kind */
	double prob, price, avg_qlen_pkts, qdelay_us;	/* NAN: not reported */
};

struct target {
	int ifindex;
	uint32_t handle;	/* major << 16 */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	return ts;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

/* copy an xstats struct only when the kernel sent at least all of it */
#define XSTATS(var, attr) \
	(mnl_attr_get_payload_len(attr) >= sizeof(var) && \
	 memcpy(&(var), mnl_attr_get_payload(attr), sizeof(var)))

static void decode_xstats(struct sample *s, const struct nlattr *app)
{
	const double one = (double)TC_AQM_PROB_ONE;

	if (!strcmp(s->kind, "pi")) {
		struct tc_pi_xstats x;

		if (XSTATS(x, app)) {
			s->prob = x.prob / one;
			s->ecn_marks = x.ecn_marks;
			s->wire_qlen_pkts = x.wire_qlen;
			if (x.qdelay_us != TC_PI_UNKNOWN)
				s->qdelay_us = x.qdelay_us;
		}
	} else if (!strcmp(s->kind, "rem")) {
		struct tc_rem_xstats x;

		if (XSTATS(x, app)) {
			s->prob = x.prob / one;
			s->price = ldexp((double)x.price, -32);
			s->ecn_marks = x.ecn_marks;
			s->wire_qlen_pkts = x.wire_qlen;
		}
	} else if (!strcmp(s->kind, "blue")) {
		struct tc_blue_xstats x;

		if (XSTATS(x, app)) {
			s->prob = x.prob / one;
			s->ecn_marks = x.ecn_marks;
			s->wire_qlen_pkts = x.wire_qlen;
		}
	} else if (!strcmp(s->kind, "ared")) {
		struct tc_ared_xstats x;

		if (XSTATS(x, app)) {
			s->prob = x.prob / one;
			s->avg_qlen_pkts = ldexp((double)x.avg, -32);
			s->ecn_marks = x.ecn_marks;
			s->wire_qlen_pkts = x.wire_qlen;
		}
	} else if (!strcmp(s->kind, "pie")) {
		struct tc_pie_xstats x;

		if (XSTATS(x, app)) {
			s->prob = x.prob / PIE_PROB_ONE;
			s->ecn_marks = x.ecn_mark;
			s->qdelay_us = x.delay;
		}
	} else if (!strcmp(s->kind, "red")) {
		struct tc_red_xstats x;

		if (XSTATS(x, app))
			s->ecn_marks = x.marked;
	} else if (!strcmp(s->kind, "fq_codel")) {
		struct tc_fq_codel_xstats x;

		if (XSTATS(x, app) && x.type == TCA_FQ_CODEL_XSTATS_QDISC)
			s->ecn_marks = x.qdisc_stats.ecn_mark;
	} else if (!strcmp(s->kind, "dualpi2")) {
		struct dualpi2_xstats_head x;

		if (XSTATS(x, app)) {
			/* classic traffic meets p' squared */
			s->prob = pow(x.prob / (double)UINT32_MAX, 2);
			/* U32_MAX: its lockless dump read a head enqueued
			 * after its clock reading (now - ts went negative)
			 */
			if (x.delay_c != UINT32_MAX)
				s->qdelay_us = x.delay_c;
		}
	}
}

static int stats2_cb(const struct nlattr *attr, void *data)
{
	struct sample *s = data;
	struct gnet_stats_basic basic;
	struct gnet_stats_queue queue;

	switch (mnl_attr_get_type(attr)) {
	case TCA_STATS_BASIC:
		if (XSTATS(basic, attr)) {
			s->sent_bytes = basic.bytes;
			if (!s->sent_pkts)	/* TCA_STATS_PKT64 wins */
				s->sent_pkts = basic.packets;
		}
		break;
	case TCA_STATS_PKT64:
		if (mnl_attr_get_payload_len(attr) >= sizeof(uint64_t))
			s->sent_pkts = mnl_attr_get_u64(attr);
		break;
	case TCA_STATS_QUEUE:
		if (XSTATS(queue, attr)) {
			s->qlen_pkts = queue.qlen;
			s->backlog_bytes = queue.backlog;
			s->drops = queue.drops;
			s->requeues = queue.requeues;
			s->overlimits = queue.overlimits;
		}
		break;
	case TCA_STATS_APP:
		decode_xstats(s, attr);
		break;
	}
	return MNL_CB_OK;
}

static int qdisc_attr_cb(const struct nlattr *attr, void *data)
{
	struct sample *s = data;

	switch (mnl_attr_get_type(attr)) {
	case TCA_KIND:
		snprintf(s->kind, sizeof(s->kind), "%s", mnl_attr_get_str(attr));
		break;
	case TCA_STATS2:
		/* the kind comes first in the message: xstats can be decoded */
		mnl_attr_parse_nested(attr, stats2_cb, s);
		break;
	}
	return MNL_CB_OK;
}

struct dump_ctx {
	const struct target *target;
	struct sample *sample;
};

static int qdisc_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *ctx = data;
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);

	if (tcm->tcm_ifindex != ctx->target->ifindex ||
	    (tcm->tcm_handle & TC_H_MAJ_MASK) != ctx->target->handle)
		return MNL_CB_OK;
	memset(ctx->sample, 0, sizeof(*ctx->sample));
	ctx->sample->ecn_marks = ctx->sample->wire_qlen_pkts = -1;
	ctx->sample->prob = ctx->sample->price = NAN;
	ctx->sample->avg_qlen_pkts = ctx->sample->qdelay_us = NAN;
	ctx->sample->found = true;
	mnl_attr_parse(nlh, sizeof(*tcm), qdisc_attr_cb, ctx->sample);
	return MNL_CB_OK;
}

/* one RTM_GETQDISC dump; 0 and s->found when the qdisc was seen */
static int sample_qdisc(struct mnl_socket *nl, const struct target *t,
			struct sample *s, char *buf, size_t len)
{
	static uint32_t seq;
	struct dump_ctx ctx = { t, s };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;
	unsigned int portid = mnl_socket_get_portid(nl);
	ssize_t n;
	int ret;

	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = t->ifindex;
	s->found = false;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		n = mnl_socket_recvfrom(nl, buf, len);
		if (n < 0)
			return -1;
		ret = mnl_cb_run(buf, n, seq, portid, qdisc_msg_cb, &ctx);
	} while (ret > 0);
	return ret;
}

static void print_field_double(FILE *f, double v)
{
	if (isnan(v))
		fputc(',', f);
	else
		fprintf(f, ",%.9g", v);
}

static void write_sample(FILE *f, int64_t t_ns, int64_t late_ns,
			 const struct sample *s)
{
	fprintf(f, "%" PRId64 ",%" PRId64 ",%u,%u,%" PRIu64 ",%" PRIu64
		",%u,%u,%u,", t_ns / NSEC_PER_USEC, late_ns / NSEC_PER_USEC,
		s->wire_qlen_pkts >= 0 ? (uint32_t)s->wire_qlen_pkts : s->qlen_pkts,
		s->backlog_bytes, s->sent_bytes, s->sent_pkts,
		s->drops, s->overlimits, s->requeues);
	if (s->ecn_marks >= 0)
		fprintf(f, "%" PRId64, s->ecn_marks);
	print_field_double(f, s->prob);
	print_field_double(f, s->price);
	print_field_double(f, s->avg_qlen_pkts);
	print_field_double(f, s->qdelay_us);
	fputc('\n', f);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* lateness statistics as one JSON object on stderr */
static void report_jitter(int64_t *late_ns, size_t n, size_t missed,
			  size_t not_found, int64_t interval_ns, const char *kind,
			  int64_t start_ns)
{
	double sum = 0;
	size_t i;

	if (!n) {
		fprintf(stderr, "{\"samples\": 0, \"missed\": %zu}\n", missed);
		return;
	}
	for (i = 0; i < n; i++)
		sum += late_ns[i];
	qsort(late_ns, n, sizeof(*late_ns), cmp_i64);
	fprintf(stderr,
		"{\"kind\": \"%s\", \"start_ns\": %" PRId64 ", "
		"\"interval_us\": %" PRId64 ", \"samples\": %zu, "
		"\"missed\": %zu, \"not_found\": %zu, \"late_mean_us\": %.1f, "
		"\"late_p50_us\": %.1f, \"late_p99_us\": %.1f, \"late_max_us\": %.1f}\n",
		kind, start_ns, interval_ns / NSEC_PER_USEC, n, missed, not_found,
		sum / n / NSEC_PER_USEC, late_ns[n / 2] / 1e3,
		late_ns[(size_t)(n * 0.99)] / 1e3, late_ns[n - 1] / 1e3);
}

static void usage(void)
{
	fprintf(stderr, "usage: sampler -d DEV -H HANDLE -i INTERVAL_US -t SECONDS -o FILE [-r]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *out = NULL;
	long interval_us = 10000;
	double seconds = 0;
	bool realtime = false;
	struct target t = { 0 };
	char *buf, kind[IFNAMSIZ] = "";
	size_t buf_len = MNL_SOCKET_BUFFER_SIZE * 4, n = 0, cap, missed = 0, not_found = 0;
	int64_t interval_ns, start, deadline, end, woke, *late;
	struct mnl_socket *nl;
	struct sample s;
	FILE *f;
	int opt;

	while ((opt = getopt(argc, argv, "d:H:i:t:o:r")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'H': t.handle = strtoul(optarg, NULL, 16) << 16; break;
		case 'i': interval_us = strtol(optarg, NULL, 10); break;
		case 't': seconds = strtod(optarg, NULL); break;
		case 'o': out = optarg; break;
		case 'r': realtime = true; break;
		default: usage();
		}
	}
	if (!dev || !out || !t.handle || interval_us <= 0 || seconds <= 0)
		usage();
	t.ifindex = if_nametoindex(dev);
	if (!t.ifindex) {
		fprintf(stderr, "sampler: no device %s\n", dev);
		return 1;
	}
	if (realtime) {
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			perror("sampler: SCHED_FIFO (continuing)");
	}
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("sampler: netlink");
		return 1;
	}
	f = fopen(out, "w");
	buf = malloc(buf_len);
	interval_ns = interval_us * NSEC_PER_USEC;
	cap = (size_t)(seconds * 1e9 / interval_ns) + 2;
	late = calloc(cap, sizeof(*late));
	if (!f || !buf || !late) {
		perror("sampler");
		return 1;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	fprintf(f, "t_us,late_us,qlen_pkts,backlog_bytes,sent_bytes,sent_pkts,"
		"drops,overlimits,requeues,ecn_marks,prob,price,avg_qlen_pkts,"
		"qdelay_us\n");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	start = now_ns();
	end = start + (int64_t)(seconds * 1e9);
	for (deadline = start; deadline <= end && !stop && n < cap; deadline += interval_ns) {
		struct timespec ts = ns_ts(deadline);

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			if (stop)
				break;
		if (stop)
			break;
		woke = now_ns();
		if (woke - deadline >= interval_ns) {	/* skip, don't catch up */
			int64_t skip = (woke - deadline) / interval_ns;

			missed += skip;
			deadline += skip * interval_ns;
		}
		if (sample_qdisc(nl, &t, &s, buf, buf_len) < 0) {
			perror("sampler: RTM_GETQDISC");
			break;
		}
		if (!s.found) {
			not_found++;
			continue;
		}
		snprintf(kind, sizeof(kind), "%s", s.kind);
		late[n++] = woke - deadline;
		write_sample(f, woke - start, woke - deadline, &s);
	}
	fclose(f);
	mnl_socket_close(nl);
	report_jitter(late, n, missed, not_found, interval_ns, kind, start);
	free(late);
	free(buf);
	return n ? 0 : 1;
}
