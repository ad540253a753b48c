#!/usr/bin/python3
"""Unit checks of testbed/analysis.py, the code behind every number in
results/: known inputs, hand-computed answers. One "PASS: analysis: ..."
or "FAIL: analysis: ..." line per check, like the C unit tests."""

import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "testbed"))
import analysis  # noqa: E402

failures = 0


def check(ok, name):
    global failures
    print("%s: analysis: %s" % ("PASS" if ok else "FAIL", name))
    failures += not ok


def close(a, b, tol=1e-9):
    return a is not None and abs(a - b) <= tol * max(1.0, abs(b))


def sample(t_ms, sent_pkts, drops, qlen, pkt_bytes=1500):
    """A sampler row: cumulative counters at t_ms of emulated time."""
    return {"t_us": t_ms * 1000, "t_s": t_ms / 1000, "sent_pkts": sent_pkts,
            "sent_bytes": sent_pkts * pkt_bytes, "drops": drops, "qlen_pkts": qlen,
            "backlog_bytes": qlen * pkt_bytes, "ecn_marks": 0, "prob": None,
            "late_us": 0}


def test_percentile():
    v = [5, 1, 4, 2, 3]
    check(analysis.percentile(v, 50) == 3 and analysis.percentile(v, 0) == 1
          and analysis.percentile(v, 100) == 5, "percentile: ranks of 1..5")
    check(close(analysis.percentile([0, 10], 25), 2.5), "percentile: interpolates")
    check(analysis.percentile([], 50) is None, "percentile: empty is None")


def test_jain():
    check(close(analysis.jain([3, 3, 3, 3]), 1.0), "jain: equal shares give 1")
    check(close(analysis.jain([1, 0, 0, 0]), 0.25), "jain: one of four gives 1/4")
    check(close(analysis.jain([1, 2, None]), 9 / 10), "jain: (1+2)^2 / (2 (1+4)), None skipped")
    check(analysis.jain([0, 0]) is None, "jain: no goodput is None")


def test_mean_ci():
    m = analysis.mean_ci([1, 2, 3, None])
    # sd 1, n 3: t(2) = 4.303, half-width 4.303 / sqrt 3
    check(m["n"] == 3 and close(m["mean"], 2) and close(m["ci95"], 4.303 / math.sqrt(3)),
          "mean_ci: three runs, Student's t with 2 degrees of freedom")
    m = analysis.mean_ci([5.0] * 40)
    check(close(m["mean"], 5) and close(m["ci95"], 0), "mean_ci: no spread, no interval")
    m = analysis.mean_ci([0, 2] * 20)
    check(close(m["ci95"], 1.96 * statistics.stdev([0, 2] * 20) / math.sqrt(40)),
          "mean_ci: 40 runs use 1.96")
    check(analysis.mean_ci([7])["ci95"] is None and analysis.mean_ci([None])["n"] == 0,
          "mean_ci: one run has no interval, none has no mean")


def test_probe_summary():
    probes = [{"t_s": t, "delay_ms": float(t)} for t in range(11)]
    p = analysis.probe_summary(probes, 2, (1, 9))
    check(p["samples"] == 9 and p["lost"] == 2 and close(p["p50_ms"], 5)
          and close(p["p90_ms"], 8.2), "probe_summary: the window's delays, p50 and p90")


def test_short_flow_summary():
    rows = [{"start_s": t, "size_bytes": 1000 if t % 2 else 5000,
             "fct_ms": None if t == 3 else 10.0 * t} for t in range(10)]
    s = analysis.short_flow_summary(rows, (1, 8))
    check(s["flows"] == 8 and s["completed"] == 7 and close(s["p50_ms"], 50)
          and s["by_size"]["1000"]["flows"] == 4 and s["by_size"]["1000"]["completed"] == 3
          and close(s["by_size"]["5000"]["p50_ms"], 50),
          "short_flow_summary: the window's flows, one not completed, by size")
    check(analysis.short_flow_summary([], (0, 1)) == {"flows": 0},
          "short_flow_summary: no flows")


def test_summary_counts():
    # 12 Mbit/s emulated link, 1500-byte packets: 1000 packets/s, 10 per
    # 10 ms sample; the queue holds 20 and every 10th arrival is dropped
    rate, k = 120e6, 10
    samples = [sample(10 * i, 10 * i, i, 20) for i in range(101)]
    s = analysis.summary(samples, [], rate, k, (0, 1.0), 0.1)
    check(close(s["utilisation"], 1.0), "summary: a link sending at its rate is 100% busy")
    check(close(s["loss_rate"], 100 / 1100), "summary: loss = drops / (sent + drops)")
    check(close(s["queue_pkts"]["mean"], 20) and s["queue_pkts"]["std"] == 0,
          "summary: queue mean and sd")
    # 20 packets of 1500 bytes at the nominal 120 Mbit/s: 2 ms
    check(close(s["queue_delay_ms"]["p99"], 2.0), "summary: delay in nominal ms")
    check(s["qdisc_delay_ms"] is None, "summary: no own delay from a kind that reports none")
    # the qdisc's own figure is emulated us: 20 ms emulated at k = 10 is 2 ms
    for i, row in enumerate(samples):
        row["qdelay_us"] = 20000 if i % 2 else None
    own = analysis.summary(samples, [], rate, k, (0, 1.0), 0.1)["qdisc_delay_ms"]
    check(close(own["mean"], 2.0) and own["std"] == 0,
          "summary: the qdisc's own delay in nominal ms, over the samples that have it")
    check(s["prob_zero_share"] is None and s["queue_empty_share"] == 0,
          "summary: no p recorded, no share at p = 0; a queue never empty")
    for i, row in enumerate(samples):
        row["prob"] = 0.0 if i % 4 == 0 else 1e-3
        row["qlen_pkts"] = 0 if i < 10 else 20
    shares = analysis.summary(samples, [], rate, k, (0, 1.0), 0.1)
    check(close(shares["prob_zero_share"], 26 / 101) and close(shares["queue_empty_share"], 10 / 101),
          "summary: the shares of samples with p at 0 (26 of 101) and the queue empty (10)")
    half = [sample(10 * i, 5 * i, 0, 20) for i in range(101)]
    check(close(analysis.busy_service(half, rate, k)["ratio"], 0.5),
          "busy service: half the link's rate while backlogged is 0.5")


def test_capacity_schedule():
    # k = 1: 12 Mbit/s (1000 packets/s) for 0.5 s, then 1.2 Mbit/s; the link
    # sends at its rate throughout, 20 packets queued (20 ms, then 200 ms)
    sched = [(0, 12e6), (0.5, 1.2e6)]
    samples, sent = [], 0
    for i in range(101):
        samples.append(sample(10 * i, sent, 0, 20))
        sent += 10 if i < 50 else 1
    s = analysis.summary(samples, [], sched, 1, (0, 1.0), 0.1)
    check(close(s["utilisation"], 1.0),
          "capacity schedule: a link sending at each step's rate is 100% busy")
    check(close(s["queue_delay_ms"]["mean"], (50 * 20.0 + 51 * 200.0) / 101)
          and close(s["queue_delay_ms"]["p99"], 200.0),
          "capacity schedule: delay from the rate in effect")
    bins = analysis.bins(samples, [], sched, 1, bin_s=0.25)
    check(all(close(b["utilisation"], 1.0) for b in bins[1:]),
          "capacity schedule: every bin 100% busy, the step's bin too")
    check(analysis.rate_at(sched, -1) == 12e6 and analysis.rate_at(sched, 0.5) == 1.2e6
          and analysis.rate_at(5e6, 3) == 5e6, "rate_at: steps, and a fixed rate")


def test_synchronisation():
    def flow(f, cuts):
        rows, w = [], 100.0
        for i in range(100):
            t = i * 0.1
            if any(abs(t - c) < 1e-9 for c in cuts):
                w /= 2
            else:
                w += 1
            rows.append({"flow": f, "t_s": t, "cwnd_pkts": w})
        return rows
    # an epoch at 2 s where both cut (0.1 s apart), one at 6 s where one does
    s = analysis.synchronisation(flow(1, [2.0, 6.0]) + flow(2, [2.1]), 0.1)
    check(s["loss_epochs"] == 2, "synchronisation: two loss epochs")
    check(close(s["all_flows_cut_fraction"], 0.5), "synchronisation: half of them global")
    check(close(s["mean_flows_cut_fraction"], 0.75), "synchronisation: mean flows cut 3/4")


def test_highspeed_decrease():
    # RFC 3649 Appendix B, b(w) rounded to two decimals
    table = {38: 0.50, 118: 0.44, 347: 0.38, 1058: 0.33, 3778: 0.26, 12082: 0.20, 83000: 0.10}
    worst = max(abs(analysis.highspeed_decrease(w) - b) for w, b in table.items())
    check(worst <= 0.005 + 1e-12, "highspeed b(W) matches RFC 3649's table (worst %.4f)" % worst)
    check(analysis.highspeed_decrease(10) == 0.5 and
          close(analysis.highspeed_decrease(1e6), 0.1), "highspeed b(W) clamps outside 38..83000")
    # 1 Gbit/s of 1514-byte frames, 4 flows, 120 ms: window 2476, cut b W
    one, independent = analysis.sawtooth_sd_pkts(1e9 / 8 / 1514, 0.12, 4)
    w = 1e9 / 8 / 1514 * 0.12 / 4
    check(close(one, analysis.highspeed_decrease(w) * w / math.sqrt(12))
          and close(independent, 2 * one), "sawtooth sd: b W / sqrt 12, sqrt N for independent")


def trace(arrivals, qlen0=20, drop_at=()):
    """Samples every 10 ms at k = 1 of a 12 Mbit/s link (10 packets an
    interval) that sends while it has a queue: arrivals[i] packets come
    in interval i; an interval in drop_at drops one more."""
    rows, sent, drops, q = [sample(0, 0, 0, qlen0)], 0, 0, qlen0
    for i, n in enumerate(arrivals):
        q += n
        out = min(q, 10)
        q -= out
        sent += out
        drops += i in drop_at
        rows.append(sample(10 * (i + 1), sent, drops, q))
    return rows


def test_held_bursts():
    rate, steady = 12e6, [10] * 200
    check(analysis.held_bursts(trace(steady), rate, 1)["events"] == 0,
          "held bursts: none at a steady rate")
    # 2 packets in one interval, 25 in the next: one event, link never idle
    lump = steady[:150] + [2, 25] + steady[152:]
    h = analysis.held_bursts(trace(lump), rate, 1)
    check(h["events"] == 1 and close(h["per_minute"], 30) and h["idle_share"] == 0,
          "held bursts: a hole then a lump is one event (30 a minute in 2 s)")
    # from a 5-packet queue, nothing for 20 ms, then 30: the link sends 5
    # packets of 20 it could have, then 10 of 10: 15 ms idle
    h = analysis.held_bursts(trace(steady[:100] + [0, 0, 30] + steady[103:], qlen0=5),
                             rate, 1)
    check(h["events"] == 1 and close(h["idle_share"], 0.015 / 2),
          "held bursts: the link's idle time inside the event (15 ms of 2 s)")
    check(analysis.held_bursts(trace(lump, drop_at={110}), rate, 1)["events"] == 0,
          "held bursts: a drop in the second before explains the hole")
    check(analysis.held_bursts(trace(lump, drop_at={20}), rate, 1)["events"] == 1,
          "held bursts: a drop earlier than a second before does not")
    check(analysis.held_bursts(trace(steady[:100] + [2] + [10] * 10 + [25] + steady[112:]),
                               rate, 1)["events"] == 0,
          "held bursts: a lump more than 100 ms after the hole is not one")
    # the same lump at k = 10 and a tenth of the rate, in nominal time
    k10 = [dict(r, t_s=r["t_s"] / 10) for r in trace(lump)]
    check(analysis.held_bursts(k10, rate * 10, 10)["events"] == 1,
          "held bursts: rates in nominal units at k = 10")


for test in (test_percentile, test_jain, test_mean_ci, test_probe_summary,
             test_short_flow_summary, test_summary_counts, test_capacity_schedule,
             test_synchronisation, test_highspeed_decrease, test_held_bursts):
    test()
sys.exit(1 if failures else 0)
