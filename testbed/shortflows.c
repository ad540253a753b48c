// SPDX-License-Identifier: GPL-2.0
/*
 * shortflows: short TCP flows and their completion times, for the testbed.
 *
 *   shortflows server -p PORT
 *   shortflows client -s ADDR -p PORT -t SECONDS -r FLOWS_PER_S -z SIZES
 *                     [-b BURST] [-S SEED] -o FILE
 *
 * The client starts bursts of BURST flows (default 1) at Poisson arrivals of
 * mean rate FLOWS_PER_S / BURST per second for SECONDS; each flow sends a
 * size drawn uniformly from SIZES (bytes, comma-separated), half-closes, and
 * ends when the server's one-byte answer arrives: its completion time runs
 * from connect() to that byte, the time a user waits for a small transfer.
 * Flows still open SECONDS + GRACE_S after the start are cut and written as
 * not completed. One event loop (epoll) drives every flow: no process or
 * thread per flow, so hundreds can overlap. One CSV line per flow:
 *
 *   flow  size_bytes  start_us  fct_us  completed
 *
 * start_us since the first arrival; fct_us empty when not completed. At
 * the end one JSON object goes to stdout: start_ns (the first arrival on
 * CLOCK_MONOTONIC, time.monotonic_ns() in Python), flows, completed.
 * The server answers each connection's end of data with one byte and
 * closes it; it runs until killed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_USEC	((int64_t)1000)
#define NSEC_PER_SEC	((int64_t)1000000000)
#define MAX_SIZES	32
#define MAX_FLOWS	100000
#define GRACE_S		30
#define CHUNK_BYTES	65536

enum flow_state { CONNECTING, SENDING, WAITING, DONE };

struct flow {
	int fd;
	enum flow_state state;
	bool reading;		/* epoll wakes it for the answer only */
	uint64_t size, sent;
	int64_t start_ns, end_ns;	/* end_ns 0: not completed */
};

static char zeros[CHUNK_BYTES];

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void usage(void)
{
	fprintf(stderr, "usage: shortflows server -p PORT\n"
		"       shortflows client -s ADDR -p PORT -t SECONDS -r FLOWS_PER_S -z SIZES\n"
		"                         [-b BURST] [-S SEED] -o FILE\n");
	exit(2);
}

/* a strictly positive number from an option, or a message naming it */
static double positive(const char *text, char opt)
{
	char *end;
	double v = strtod(text, &end);

	if (*text == '\0' || *end != '\0' || !(v > 0) || !isfinite(v)) {
		fprintf(stderr, "shortflows: -%c: %s is not a positive number\n", opt, text);
		exit(2);
	}
	return v;
}

static int parse_sizes(char *text, uint64_t *sizes)
{
	int n = 0;

	for (char *tok = strtok(text, ","); tok; tok = strtok(NULL, ",")) {
		double v = positive(tok, 'z');

		if (n == MAX_SIZES || v > 1e12) {
			fprintf(stderr, "shortflows: -z: at most %d sizes, each under 1e12\n",
				MAX_SIZES);
			exit(2);
		}
		sizes[n++] = (uint64_t)v;
	}
	if (!n)
		usage();
	return n;
}

static void epoll_set(int ep, int op, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	if (epoll_ctl(ep, op, fd, &ev) < 0)
		die("epoll_ctl");
}

static int run_server(int port)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct epoll_event events[64];
	int one = 1, ep, lfd;
	char buf[CHUNK_BYTES];

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(lfd, 4096) < 0)
		die("bind/listen");
	ep = epoll_create1(0);
	if (ep < 0)
		die("epoll_create1");
	epoll_set(ep, EPOLL_CTL_ADD, lfd, EPOLLIN, (uint64_t)lfd);
	for (;;) {
		int n = epoll_wait(ep, events, 64, -1);

		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int i = 0; i < n; i++) {
			int fd = (int)events[i].data.u64;
			ssize_t got;

			if (fd == lfd) {
				int c;

				while ((c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0)
					epoll_set(ep, EPOLL_CTL_ADD, c, EPOLLIN, (uint64_t)c);
				continue;
			}
			while ((got = read(fd, buf, sizeof(buf))) > 0)
				;
			if (got < 0 && errno == EAGAIN)
				continue;
			/* end of the flow's data (or an error): answer, close */
			if (got == 0 && write(fd, "", 1) != 1)
				perror("write");
			close(fd);
		}
	}
	return 0;
}

/* one step of a flow that epoll says is ready; true when it has ended */
static bool flow_step(struct flow *f, int64_t t)
{
	char byte;

	if (f->state == CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err)
			return true;
		f->state = SENDING;
	}
	if (f->state == SENDING) {
		while (f->sent < f->size) {
			size_t want = f->size - f->sent < CHUNK_BYTES ?
				      f->size - f->sent : CHUNK_BYTES;
			ssize_t put = write(f->fd, zeros, want);

			if (put < 0)
				return errno != EAGAIN;
			f->sent += (uint64_t)put;
		}
		shutdown(f->fd, SHUT_WR);
		f->state = WAITING;
		return false;
	}
	if (read(f->fd, &byte, 1) == 1) {
		f->end_ns = t;
		return true;
	}
	return errno != EAGAIN;
}

static void start_flow(struct flow *f, int ep, uint64_t id,
		       const struct sockaddr_in *addr, uint64_t size, int64_t t)
{
	int one = 1;

	f->size = size;
	f->start_ns = t;
	f->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (f->fd < 0)
		die("socket");
	setsockopt(f->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	f->state = CONNECTING;
	if (connect(f->fd, (const struct sockaddr *)addr, sizeof(*addr)) < 0 &&
	    errno != EINPROGRESS) {
		close(f->fd);
		f->state = DONE;
		return;
	}
	/* EPOLLOUT: connected, or room to send; EPOLLIN: the answer */
	epoll_set(ep, EPOLL_CTL_ADD, f->fd, EPOLLOUT | EPOLLIN, id);
}

static int run_client(const char *server, int port, double seconds, double rate,
		      int burst, uint64_t *sizes, int nsizes, long seed, const char *out)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port) };
	int64_t t0, stop_starting, give_up, next_arrival;
	struct epoll_event events[256];
	uint64_t nflows = 0, open = 0, completed = 0;
	struct flow *flows;
	FILE *csv;
	int ep;

	if (inet_pton(AF_INET, server, &addr.sin_addr) != 1) {
		fprintf(stderr, "shortflows: -s: %s is not an IPv4 address\n", server);
		return 2;
	}
	flows = calloc(MAX_FLOWS, sizeof(*flows));
	csv = fopen(out, "w");
	if (!flows || !csv)
		die(out);
	ep = epoll_create1(0);
	if (ep < 0)
		die("epoll_create1");
	srand48(seed);
	t0 = now_ns();
	next_arrival = t0;
	stop_starting = t0 + (int64_t)(seconds * NSEC_PER_SEC);
	give_up = stop_starting + GRACE_S * NSEC_PER_SEC;
	for (;;) {
		int64_t t = now_ns(), wait_ms;
		int n;

		while (next_arrival <= t && next_arrival < stop_starting) {
			for (int b = 0; b < burst && nflows < MAX_FLOWS; b++) {
				struct flow *f = &flows[nflows];

				start_flow(f, ep, nflows, &addr, sizes[lrand48() % nsizes], t);
				nflows++;
				open += f->state != DONE;
			}
			/* exponential gaps: Poisson arrivals of bursts */
			next_arrival += (int64_t)(-log(1.0 - drand48()) / (rate / burst) *
						  NSEC_PER_SEC);
		}
		if ((t >= stop_starting && !open) || t >= give_up)
			break;
		wait_ms = ((next_arrival < stop_starting ? next_arrival : give_up) - t) /
			  (NSEC_PER_SEC / 1000) + 1;
		n = epoll_wait(ep, events, 256, wait_ms > 1000 ? 1000 : (int)wait_ms);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		t = now_ns();
		for (int i = 0; i < n; i++) {
			uint64_t id = events[i].data.u64;
			struct flow *f = &flows[id];

			if (f->state == DONE)
				continue;
			if (!flow_step(f, t)) {
				/* all sent: wake for the answer only */
				if (f->state == WAITING && !f->reading) {
					epoll_set(ep, EPOLL_CTL_MOD, f->fd, EPOLLIN, id);
					f->reading = true;
				}
				continue;
			}
			completed += f->end_ns != 0;
			f->state = DONE;
			close(f->fd);
			open--;
		}
	}
	fprintf(csv, "flow,size_bytes,start_us,fct_us,completed\n");
	for (uint64_t i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		fprintf(csv, "%" PRIu64 ",%" PRIu64 ",%" PRId64 ",", i + 1, f->size,
			(f->start_ns - t0) / NSEC_PER_USEC);
		if (f->end_ns)
			fprintf(csv, "%" PRId64 ",1\n", (f->end_ns - f->start_ns) / NSEC_PER_USEC);
		else
			fprintf(csv, ",0\n");
	}
	if (fclose(csv))
		die(out);
	printf("{\"start_ns\": %" PRId64 ", \"flows\": %" PRIu64 ", \"completed\": %" PRIu64 "}\n",
	       t0, nflows, completed);
	return 0;
}

int main(int argc, char **argv)
{
	const char *server = NULL, *out = NULL;
	double seconds = 0, rate = 0;
	uint64_t sizes[MAX_SIZES];
	int port = 0, burst = 1, nsizes = 0, opt;
	long seed = 1;
	bool client;

	if (argc < 2 || (strcmp(argv[1], "server") && strcmp(argv[1], "client")))
		usage();
	client = !strcmp(argv[1], "client");
	optind = 2;
	while ((opt = getopt(argc, argv, "s:p:t:r:z:b:S:o:")) != -1) {
		switch (opt) {
		case 's': server = optarg; break;
		case 'p': port = (int)positive(optarg, 'p'); break;
		case 't': seconds = positive(optarg, 't'); break;
		case 'r': rate = positive(optarg, 'r'); break;
		case 'z': nsizes = parse_sizes(optarg, sizes); break;
		case 'b': burst = (int)positive(optarg, 'b'); break;
		case 'S': seed = strtol(optarg, NULL, 10); break;
		case 'o': out = optarg; break;
		default: usage();
		}
	}
	if (port < 1 || port > 65535)
		usage();
	if (!client)
		return run_server(port);
	if (!server || !out || !seconds || !rate || !nsizes || burst < 1 || burst > 1000)
		usage();
	return run_client(server, port, seconds, rate, burst, sizes, nsizes, seed, out);
}
