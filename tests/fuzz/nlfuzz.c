// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: throw random and mutated TCA_OPTIONS at one of our qdiscs through
 * RTM_NEWQDISC (change, replace, delete and re-create) and count what the
 * kernel answers. It checks nothing itself: the caller runs traffic through
 * the qdisc meanwhile and afterwards requires a clean kernel log and a
 * working qdisc.
 *
 *   nlfuzz -d DEV -k KIND [-n COUNT] [-s SEED] [-P PARENT] [-H HANDLE]
 *
 * PARENT and HANDLE are tc's major:minor in hex ("1:1", "10:"); without -P
 * the qdisc is the root. Prints one JSON line: messages sent, accepted,
 * refused by errno.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "pkt_sched_aqm.h"

/* attribute sizes by type, 0 = no such attribute */
struct kind {
	const char *name;
	int max;		/* highest valid attribute type */
	unsigned char size[32];
};

static const struct kind kinds[] = {
	{ "pi", TCA_PI_MAX, {
		[TCA_PI_LIMIT] = 4, [TCA_PI_TARGET] = 4, [TCA_PI_A] = 8,
		[TCA_PI_B] = 8, [TCA_PI_FREQ] = 4, [TCA_PI_ECN] = 4,
		[TCA_PI_AUTOTUNE] = 4, [TCA_PI_RTT] = 4, [TCA_PI_FLOWS] = 4,
		[TCA_PI_BANDWIDTH] = 8, [TCA_PI_RESPONSE] = 4,
		[TCA_PI_SPACING] = 4, [TCA_PI_MARGIN] = 4,
		[TCA_PI_ECN_CEILING] = 8, [TCA_PI_TARGET_DELAY] = 4 } },
	{ "rem", TCA_REM_MAX, {
		[TCA_REM_LIMIT] = 4, [TCA_REM_TARGET] = 4, [TCA_REM_GAMMA] = 8,
		[TCA_REM_PHI] = 8, [TCA_REM_ALPHA] = 8, [TCA_REM_INTERVAL] = 4,
		[TCA_REM_INW] = 8, [TCA_REM_BANDWIDTH] = 8, [TCA_REM_ECN] = 4,
		[TCA_REM_ECN_CEILING] = 8 } },
	{ "blue", TCA_BLUE_MAX, {
		[TCA_BLUE_LIMIT] = 4, [TCA_BLUE_INCREMENT] = 8,
		[TCA_BLUE_DECREMENT] = 8, [TCA_BLUE_FREEZE] = 4,
		[TCA_BLUE_THRESHOLD] = 4, [TCA_BLUE_ECN] = 4,
		[TCA_BLUE_ECN_CEILING] = 8 } },
	{ "ared", TCA_ARED_MAX, {
		[TCA_ARED_LIMIT] = 4, [TCA_ARED_MIN_THRESH] = 4,
		[TCA_ARED_MAX_THRESH] = 4, [TCA_ARED_MAXP] = 8,
		[TCA_ARED_WEIGHT] = 8, [TCA_ARED_BANDWIDTH] = 8,
		[TCA_ARED_AVPKT] = 4, [TCA_ARED_INTERVAL] = 4,
		[TCA_ARED_TARGET_LOW] = 8, [TCA_ARED_TARGET_HIGH] = 8,
		[TCA_ARED_GENTLE] = 4, [TCA_ARED_WAIT] = 4,
		[TCA_ARED_ADAPTIVE] = 4, [TCA_ARED_ECN] = 4,
		[TCA_ARED_HARDDROP] = 4, [TCA_ARED_BYTEMODE] = 4 } },
};

enum op { OP_CHANGE, OP_REPLACE, OP_RECREATE };

static uint64_t rng_state;

/* xorshift64*: reproducible from -s, good enough to pick cases */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static unsigned int rnd_below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

/* a value a parser is likely to get wrong: edges, small, huge, random */
static uint64_t nasty_value(int size)
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 0x7f, 0xff, 0x100, 0xffff, 0x10000, 1000, 2500,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		1ULL << 40, 1ULL << 62, (1ULL << 62) + 1, 1ULL << 63,
		UINT64_MAX - 1, UINT64_MAX,
	};
	uint64_t v;

	switch (rnd_below(4)) {
	case 0:
		v = edges[rnd_below(sizeof(edges) / sizeof(edges[0]))];
		break;
	case 1:
		v = rnd_below(5000);
		break;
	case 2:
		v = rnd() >> rnd_below(64);
		break;
	default:
		v = rnd();
	}
	return size == 4 ? (uint32_t)v : v;
}

/* one attribute: mostly well-formed, sometimes with a wrong length or type */
static void put_attr(struct nlmsghdr *nlh, const struct kind *k)
{
	unsigned char junk[16];
	uint16_t type = 1 + rnd_below(k->max);
	uint64_t v;
	unsigned int i;

	switch (rnd_below(10)) {
	case 0:	/* unknown type, or one past the end */
		type = k->max + 1 + rnd_below(64);
		break;
	case 1:	/* wrong length, random bytes */
		for (i = 0; i < sizeof(junk); i++)
			junk[i] = rnd();
		mnl_attr_put(nlh, type, rnd_below(sizeof(junk) + 1), junk);
		return;
	default:
		break;
	}
	v = nasty_value(k->size[type] ? k->size[type] : 4);
	if (type <= k->max && k->size[type] == 8)
		mnl_attr_put_u64(nlh, type, v);
	else
		mnl_attr_put_u32(nlh, type, v);
}

static void put_options(struct nlmsghdr *nlh, const struct kind *k)
{
	struct nlattr *nest;
	unsigned int n, i;

	switch (rnd_below(20)) {
	case 0:	/* no options at all */
		return;
	case 1:	/* options that are not nested attributes */
		mnl_attr_put_u32(nlh, TCA_OPTIONS, rnd());
		return;
	default:
		break;
	}
	nest = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	n = rnd_below(k->max + 4);	/* duplicates happen by chance */
	for (i = 0; i < n; i++)
		put_attr(nlh, k);
	mnl_attr_nest_end(nlh, nest);
}

static uint32_t parse_handle(const char *s)
{
	unsigned int maj = 0, min = 0;

	if (sscanf(s, "%x:%x", &maj, &min) < 1) {
		fprintf(stderr, "nlfuzz: bad handle %s\n", s);
		exit(2);
	}
	return TC_H_MAKE(maj << 16, min);
}

/* send one request and return 0 or the kernel's errno */
static int talk(struct mnl_socket *nl, struct nlmsghdr *nlh)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		perror("nlfuzz: send");
		exit(2);
	}
	for (;;) {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0) {
			perror("nlfuzz: recv");
			exit(2);
		}
		ret = mnl_cb_run(buf, len, seq, mnl_socket_get_portid(nl), NULL, NULL);
		if (ret <= MNL_CB_STOP)
			return ret < 0 ? errno : 0;
	}
}

static struct nlmsghdr *request(char *buf, int type, int flags, int ifindex,
				uint32_t parent, uint32_t handle, const char *kind)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = (uint32_t)rnd();
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = parent;
	tcm->tcm_handle = handle;
	if (kind)
		mnl_attr_put_strz(nlh, TCA_KIND, kind);
	return nlh;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *kind_name = NULL;
	uint32_t parent = TC_H_ROOT, handle = 0;
	unsigned long count = 10000, sent = 0, accepted = 0;
	unsigned long refused[135] = { 0 };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	const struct kind *k = NULL;
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	int ifindex, opt, err;
	unsigned int i;

	rng_state = (uint64_t)time(NULL) | 1;
	while ((opt = getopt(argc, argv, "d:k:n:s:P:H:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'k':
			kind_name = optarg;
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 's':
			rng_state = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'P':
			parent = parse_handle(optarg);
			break;
		case 'H':
			handle = parse_handle(optarg);
			break;
		default:
			fprintf(stderr, "usage: nlfuzz -d DEV -k KIND [-n COUNT] [-s SEED] [-P PARENT] [-H HANDLE]\n");
			return 2;
		}
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kind_name && !strcmp(kinds[i].name, kind_name))
			k = &kinds[i];
	if (!dev || !k) {
		fprintf(stderr, "nlfuzz: -d DEV and -k pi|rem|blue|ared are needed\n");
		return 2;
	}
	ifindex = if_nametoindex(dev);
	if (!ifindex) {
		fprintf(stderr, "nlfuzz: no device %s\n", dev);
		return 2;
	}
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("nlfuzz: netlink");
		return 2;
	}

	while (sent < count) {
		enum op op = rnd_below(10) < 6 ? OP_CHANGE :
			     rnd_below(4) ? OP_REPLACE : OP_RECREATE;
		int flags = op == OP_CHANGE ? 0 :
			    op == OP_REPLACE ? NLM_F_CREATE | NLM_F_REPLACE :
			    NLM_F_CREATE | NLM_F_EXCL;

		if (op == OP_RECREATE) {
			nlh = request(buf, RTM_DELQDISC, 0, ifindex, parent, handle, NULL);
			talk(nl, nlh);
		}
		nlh = request(buf, RTM_NEWQDISC, flags, ifindex, parent, handle, k->name);
		put_options(nlh, k);
		err = talk(nl, nlh);
		if (err && op == OP_RECREATE) {
			/* keep a qdisc there for the next changes to hit */
			nlh = request(buf, RTM_NEWQDISC, flags, ifindex, parent,
				      handle, k->name);
			talk(nl, nlh);
		}
		sent++;
		if (!err)
			accepted++;
		else
			refused[err < 135 ? err : 0]++;
	}
	mnl_socket_close(nl);

	printf("{\"kind\": \"%s\", \"sent\": %lu, \"accepted\": %lu, \"refused\": {",
	       k->name, sent, accepted);
	for (i = 0, opt = 0; i < 135; i++)
		if (refused[i])
			printf("%s\"%s\": %lu", opt++ ? ", " : "", strerror(i), refused[i]);
	printf("}}\n");
	return 0;
}
