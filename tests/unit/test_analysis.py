#!/usr/bin/python3
"""Unit checks of testbed/analysis.py, the code behind every number in
results/: known inputs, hand-computed answers. One "PASS: analysis: ..."
or "FAIL: analysis: ..." line per check, like the C unit tests."""

import math
import os
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
    half = [sample(10 * i, 5 * i, 0, 20) for i in range(101)]
    check(close(analysis.busy_service(half, rate, k)["ratio"], 0.5),
          "busy service: half the link's rate while backlogged is 0.5")


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


for test in (test_percentile, test_jain, test_summary_counts, test_synchronisation,
             test_highspeed_decrease):
    test()
sys.exit(1 if failures else 0)
