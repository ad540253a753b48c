// SPDX-License-Identifier: GPL-2.0
/*
 * gso_send: UDP GSO traffic for tests/bench/qdisc-bench, timed per wire
 * packet.
 *
 *   gso_send DST_IPV4 SEGMENT_BYTES SEGMENTS_PER_SEND SENDS
 *
 * One connected UDP socket with UDP_SEGMENT set to SEGMENT_BYTES sends
 * SENDS datagrams of SEGMENT_BYTES x SEGMENTS_PER_SEND payload bytes each,
 * back to back. Each send() builds one GSO skb (gso_type SKB_GSO_UDP_L4)
 * that the stack hands whole to a device advertising UDP segmentation
 * (dummy does): whatever cuts it into wire packets on the way, a qdisc or
 * the device path, runs inside the send. On a device that frees what it
 * transmits, the loop's time is then the whole transmit path: the
 * syscall, the copy of the payload, the qdisc, the segmentation and the
 * device.
 *
 * Prints one line on stdout:
 *
 *   sends N segments N wall_ns N cpu_ns N
 *
 * wall_ns: the loop's CLOCK_MONOTONIC time (under `testbed/vm/run --icount`
 * an instruction count: everything the guest's one CPU ran meanwhile,
 * softirqs included); cpu_ns: this process's CPU time over the loop
 * (CLOCK_PROCESS_CPUTIME_ID), which tells whether anything else ran.
 * Exits 1 on the first failed send: a qdisc's drop is no failure (UDP
 * reports none without IP_RECVERR), so the caller counts drops itself.
 *
 * With GSO_SEND_MARKS=1 in the environment it also sets a mark of
 * make bench-account (mark.h) right before and right after the loop, so
 * that the account holds the loop alone, not the process's start.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mark.h"

#define DISCARD_PORT	9
/* the kernel's UDP_MAX_SEGMENTS; an IPv4 datagram holds 65507 bytes */
#define MAX_SEGMENTS	64
#define MAX_PAYLOAD	65507

static long long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int bad_arguments(void)
{
	fprintf(stderr, "usage: gso_send DST_IPV4 SEGMENT_BYTES SEGMENTS_PER_SEND SENDS\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(DISCARD_PORT) };
	const char *marks_env = getenv("GSO_SEND_MARKS");
	int marks = marks_env && !strcmp(marks_env, "1");
	long long wall_ns, cpu_ns;
	int fd, seg_bytes, segs, sends, i;
	size_t payload;
	char *buf;

	if (argc != 5 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1)
		return bad_arguments();
	seg_bytes = atoi(argv[2]);
	segs = atoi(argv[3]);
	sends = atoi(argv[4]);
	payload = (size_t)seg_bytes * segs;
	if (seg_bytes < 1 || segs < 2 || segs > MAX_SEGMENTS || sends < 1 ||
	    payload > MAX_PAYLOAD)
		return bad_arguments();

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &seg_bytes, sizeof(seg_bytes)) ||
	    connect(fd, (struct sockaddr *)&dst, sizeof(dst))) {
		perror("gso_send: socket, UDP_SEGMENT, connect");
		return 1;
	}
	buf = calloc(1, payload);
	if (!buf) {
		perror("gso_send: calloc");
		return 1;
	}

	if (marks)
		insn_account_mark();
	wall_ns = clock_ns(CLOCK_MONOTONIC);
	cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < sends; i++) {
		if (send(fd, buf, payload, 0) != (ssize_t)payload) {
			perror("gso_send: send");
			free(buf);
			return 1;
		}
	}
	cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_ns;
	wall_ns = clock_ns(CLOCK_MONOTONIC) - wall_ns;
	if (marks)
		insn_account_mark();

	printf("sends %d segments %lld wall_ns %lld cpu_ns %lld\n",
	       sends, (long long)sends * segs, wall_ns, cpu_ns);
	close(fd);
	free(buf);
	return 0;
}
