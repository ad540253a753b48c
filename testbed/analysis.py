"""From a run's raw series to 1 s bins and a summary, all in nominal units.

Inputs, as experiment.py writes them:
- queue samples (the C sampler's CSV, emulated time) with `t_s`, the
  sample's nominal time since the first flow started, added;
- flow intervals: one dict per (flow, iperf3 interval) with nominal `t_s`
  (interval end), `cwnd_pkts`, `goodput_bps` (receiver side, nominal).

Time in nominal seconds, rates in nominal bit/s, delays in nominal ms: the
emulated link runs at rate / k for k times as long. A link rate is a number,
or a schedule [(from_s, bit/s), ...] in time order for a link whose
capacity changes during the run (the first entry holds from the start).
"""

import csv
import gzip
import math
import statistics

def read_csv(path):
    """Rows of a CSV (gzip-compressed if the name ends in .gz) as dicts of
    numbers; empty fields are None."""
    opener = gzip.open if path.endswith(".gz") else open
    rows = []
    with opener(path, "rt", newline="") as f:
        for row in csv.DictReader(f):
            rows.append({key: number(v) for key, v in row.items()})
    return rows


def number(text):
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


CUT_FRACTION = 0.05   # a cwnd drop larger than this is a window cut
EPOCH_GAP_S = 0.2     # cuts closer than this belong to one loss epoch


def percentile(values, p):
    """Linear interpolation between closest ranks; None when empty."""
    if not values:
        return None
    v = sorted(values)
    x = (len(v) - 1) * p / 100
    lo = math.floor(x)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (x - lo)


def delta(a, b):
    """Counter deltas between two samples (b after a)."""
    sent = b["sent_pkts"] - a["sent_pkts"]
    drops = b["drops"] - a["drops"]
    arrivals = sent + drops + b["qlen_pkts"] - a["qlen_pkts"]
    return {"t_emul_s": (b["t_us"] - a["t_us"]) / 1e6,
            "bytes": b["sent_bytes"] - a["sent_bytes"],
            "drops": drops, "arrivals": arrivals,
            "marks": (b["ecn_marks"] or 0) - (a["ecn_marks"] or 0)}


def rate_at(rate, t_s):
    """The link's nominal rate at nominal time t_s."""
    if not isinstance(rate, (list, tuple)):
        return rate
    current = rate[0][1]
    for start, bps in rate:
        if start > t_s:
            break
        current = bps
    return current


def possible_bits(rate, scale, a, b):
    """What the link could send between samples a and b (a schedule's
    steps between them included)."""
    if not isinstance(rate, (list, tuple)):
        return rate / scale * (b["t_us"] - a["t_us"]) / 1e6
    edges = [a["t_s"]] + [t for t, _ in rate if a["t_s"] < t < b["t_s"]] + [b["t_s"]]
    return sum(rate_at(rate, x) * (y - x) for x, y in zip(edges, edges[1:]))


def rates(d, bits):
    """Utilisation of `bits` the link could send, and loss rate."""
    util = d["bytes"] * 8 / bits if d["t_emul_s"] > 0 and bits > 0 else None
    loss = d["drops"] / d["arrivals"] if d["arrivals"] > 0 else 0.0
    return util, loss


def queue_delay_ms(sample, rate_nominal_bps):
    """Delay a packet arriving at this sample would see, nominal ms."""
    return sample["backlog_bytes"] * 8 / rate_at(rate_nominal_bps, sample["t_s"]) * 1e3


def bins(samples, flows, rate_nominal_bps, scale, bin_s=1.0):
    """One row per bin_s of nominal time: utilisation, loss rate, queue,
    mean goodput of each flow. Counters are differenced between the last
    samples of consecutive bins."""
    by_bin, goodput = {}, {}
    for s in samples:
        by_bin.setdefault(math.floor(s["t_s"] / bin_s), []).append(s)
    for fl in flows:
        key = (math.ceil(fl["t_s"] / bin_s) - 1, fl["flow"])
        goodput.setdefault(key, []).append(fl["goodput_bps"])
    ids = sorted({fl["flow"] for fl in flows})
    rows, prev = [], None
    for b in sorted(by_bin):
        inside = by_bin[b]
        if prev is None:
            prev = inside[0]
        d = delta(prev, inside[-1])
        util, loss = rates(d, possible_bits(rate_nominal_bps, scale, prev, inside[-1]))
        q = [s["qlen_pkts"] for s in inside]
        p = [s["prob"] for s in inside if s["prob"] is not None]
        row = {"t_s": b * bin_s, "utilisation": util, "loss_rate": loss,
               "arrivals": d["arrivals"], "drops": d["drops"], "ecn_marks": d["marks"],
               "qlen_mean_pkts": statistics.fmean(q), "qlen_max_pkts": max(q),
               "delay_mean_ms": statistics.fmean(queue_delay_ms(s, rate_nominal_bps)
                                                 for s in inside),
               "prob_mean": statistics.fmean(p) if p else None}
        for f in ids:
            g = goodput.get((b, f))
            row["goodput_mbps_%d" % f] = statistics.fmean(g) / 1e6 if g else None
        rows.append(row)
        prev = inside[-1]
    return rows


# Student's t, two-sided 95%, by degrees of freedom (1-30); 1.96 beyond
T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def mean_ci(values):
    """Mean and the half-width of its 95% confidence interval over runs
    (Student's t: runs are few); None for values that are None. One value
    has no interval (None)."""
    xs = [x for x in values if x is not None]
    if not xs:
        return {"n": 0, "mean": None, "ci95": None}
    if len(xs) == 1:
        return {"n": 1, "mean": xs[0], "ci95": None}
    t = T95[len(xs) - 2] if len(xs) - 1 <= len(T95) else 1.96
    return {"n": len(xs), "mean": statistics.fmean(xs),
            "ci95": t * statistics.stdev(xs) / math.sqrt(len(xs))}


def jain(xs):
    xs = [x for x in xs if x is not None]
    if not xs or not any(xs):
        return None
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def synchronisation(flows, interval_s):
    """Loss epochs (window cuts of any flow, gaps < EPOCH_GAP_S merged) and
    the fraction of them in which every flow cut its window."""
    ids = sorted({f["flow"] for f in flows})
    cuts = []  # (time, flow)
    for f in ids:
        series = sorted((x for x in flows if x["flow"] == f), key=lambda x: x["t_s"])
        for a, b in zip(series, series[1:]):
            if a["cwnd_pkts"] and b["cwnd_pkts"] < a["cwnd_pkts"] * (1 - CUT_FRACTION):
                cuts.append((b["t_s"], f))
    cuts.sort()
    epochs = []
    for t, f in cuts:
        if epochs and t - epochs[-1]["end"] <= EPOCH_GAP_S + interval_s / 2:
            epochs[-1]["end"] = t
            epochs[-1]["flows"].add(f)
        else:
            epochs.append({"start": t, "end": t, "flows": {f}})
    if not epochs:
        return {"loss_epochs": 0, "all_flows_cut_fraction": None,
                "mean_flows_cut_fraction": None}
    return {"loss_epochs": len(epochs),
            "all_flows_cut_fraction": sum(len(e["flows"]) == len(ids) for e in epochs)
            / len(epochs),
            "mean_flows_cut_fraction": statistics.fmean(len(e["flows"]) / len(ids)
                                                         for e in epochs)}


# fewer backlogged sample intervals than this: too little backlog to judge
MIN_BUSY_INTERVALS = 100


def busy_service(samples, rate_nominal_bps, scale):
    """How fast the shaper served a backlogged queue: bytes sent over what
    the link can send, in the sample intervals that start with at least an
    interval's worth of bytes queued (the link cannot have idled in them).
    Near 1 when the emulation keeps up; below when the machine stalls."""
    sent = capacity = 0.0
    intervals = 0
    for a, b in zip(samples, samples[1:]):
        d = delta(a, b)
        can_send = rate_at(rate_nominal_bps, a["t_s"]) / scale * d["t_emul_s"] / 8
        if d["t_emul_s"] > 0 and a["backlog_bytes"] >= can_send:
            sent += d["bytes"]
            capacity += can_send
            intervals += 1
    return {"intervals": intervals,
            "ratio": sent / capacity if capacity else None}


# a held burst: arrivals under HOLD_FRACTION of the link's rate with no drop
# in the HOLD_QUIET_S before, then over BURST_FRACTION of it within
# BURST_WITHIN_S: packets the senders' path held back and released at once
HOLD_FRACTION = 0.5
BURST_FRACTION = 1.5
HOLD_QUIET_S = 1.0
BURST_WITHIN_S = 0.1


def held_bursts(samples, rate_nominal_bps, scale):
    """Moments when packets arrive at the bottleneck in a lump the senders
    did not send as one: arrivals fall under half the link's rate with no
    drop in the second before (no sender had reason to slow down), then
    come at over 1.5 times the rate within 100 ms. On a machine that keeps
    up there are none; under TCG the emulation's stalls make them. Events,
    events a minute (nominal), and the share of the time the link idled in
    them (what it could have sent and did not, from the hold to the burst)."""
    if len(samples) < 2 or samples[-1]["sent_pkts"] <= samples[0]["sent_pkts"]:
        return {"events": 0, "per_minute": None, "idle_share": None}
    pkt_bytes = ((samples[-1]["sent_bytes"] - samples[0]["sent_bytes"])
                 / (samples[-1]["sent_pkts"] - samples[0]["sent_pkts"]))

    def capacity_pkts(a, b):
        return possible_bits(rate_nominal_bps, scale, a, b) / 8 / pkt_bytes

    events, idle_s, i = 0, 0.0, 1
    last_drop_t = -math.inf
    while i < len(samples):
        a, b = samples[i - 1], samples[i]
        d = delta(a, b)
        if d["drops"]:
            last_drop_t = b["t_s"]
        held = (d["arrivals"] < HOLD_FRACTION * capacity_pkts(a, b)
                and b["t_s"] - last_drop_t > HOLD_QUIET_S)
        burst_at = None
        j = i + 1
        while held and j < len(samples) and samples[j]["t_s"] - b["t_s"] <= BURST_WITHIN_S:
            if delta(samples[j - 1], samples[j])["arrivals"] > \
                    BURST_FRACTION * capacity_pkts(samples[j - 1], samples[j]):
                burst_at = j
                break
            j += 1
        if burst_at is None:
            i += 1
            continue
        events += 1
        # the intervals from the hole to the burst: the link's idle time,
        # and their drops (the outer loop skips past them)
        for m in range(i, burst_at + 1):
            x, y = samples[m - 1], samples[m]
            dm = delta(x, y)
            possible = possible_bits(rate_nominal_bps, scale, x, y) / 8
            if possible > 0:
                idle_s += (y["t_s"] - x["t_s"]) * max(0.0, 1 - dm["bytes"] / possible)
            if dm["drops"]:
                last_drop_t = y["t_s"]
        i = burst_at + 1
    span_s = samples[-1]["t_s"] - samples[0]["t_s"]
    return {"events": events,
            "per_minute": 60 * events / span_s if span_s > 0 else None,
            "idle_share": idle_s / span_s if span_s > 0 else None}


def summary(samples, flows, rate_nominal_bps, scale, window, interval_s, fair_flows=None):
    """Figures over the nominal time window (t0, t1); Jain's index and the
    synchronisation over fair_flows (the long TCP flows; default all)."""
    t0, t1 = window
    inside = [s for s in samples if t0 <= s["t_s"] <= t1]
    if len(inside) < 2:
        return {"error": "fewer than two queue samples in the window"}
    d = delta(inside[0], inside[-1])
    util, loss = rates(d, possible_bits(rate_nominal_bps, scale, inside[0], inside[-1]))
    q = [s["qlen_pkts"] for s in inside]
    delays = [queue_delay_ms(s, rate_nominal_bps) for s in inside]
    # the delay as the qdisc measures it (pi, pie, dualpi2), emulated us
    own = [s["qdelay_us"] / 1e3 / scale for s in inside if s.get("qdelay_us") is not None]
    probs = [s["prob"] for s in inside if s["prob"] is not None]
    goodput = {}
    for f in sorted({fl["flow"] for fl in flows}):
        g = [fl["goodput_bps"] for fl in flows if fl["flow"] == f and t0 < fl["t_s"] <= t1]
        goodput[f] = statistics.fmean(g) if g else None
    fair = set(goodput) if fair_flows is None else set(fair_flows) & set(goodput)
    in_window = [fl for fl in flows if t0 < fl["t_s"] <= t1 and fl["flow"] in fair]
    out = {"window_s": [t0, t1],
           "utilisation": util, "loss_rate": loss,
           "arrivals_pkts": d["arrivals"], "drops_pkts": d["drops"], "ecn_marks": d["marks"],
           "queue_pkts": {"mean": statistics.fmean(q), "std": statistics.pstdev(q),
                          "min": min(q), "max": max(q),
                          **{"p%d" % p: percentile(q, p) for p in (5, 25, 50, 75, 95, 99)}},
           "queue_delay_ms": {"mean": statistics.fmean(delays),
                              "std": statistics.pstdev(delays),
                              **{"p%d" % p: percentile(delays, p) for p in (50, 90, 95, 99)}},
           "qdisc_delay_ms": {"mean": statistics.fmean(own), "std": statistics.pstdev(own),
                              **{"p%d" % p: percentile(own, p) for p in (50, 99)}}
           if own else None,
           "prob_mean": statistics.fmean(probs) if probs else None,
           # how often the law rested at p = 0, and the link went idle
           "prob_zero_share": sum(p == 0 for p in probs) / len(probs) if probs else None,
           "queue_empty_share": sum(x == 0 for x in q) / len(q),
           "goodput_mbps": {str(f): g / 1e6 if g is not None else None
                            for f, g in goodput.items()},
           "jain_index": jain([goodput[f] for f in sorted(fair)]),
           "synchronisation": synchronisation(in_window, interval_s),
           "busy_service": busy_service(inside, rate_nominal_bps, scale),
           "held_bursts": held_bursts(inside, rate_nominal_bps, scale)}
    return out


def probe_summary(probes, lost, window):
    """The latency probe's delay over propagation, nominal ms, in the
    window: what a new flow's packets wait for."""
    t0, t1 = window
    d = [p["delay_ms"] for p in probes if t0 <= p["t_s"] <= t1]
    if not d:
        return {"samples": 0, "lost": lost}
    return {"samples": len(d), "lost": lost, "mean_ms": statistics.fmean(d),
            **{"p%d_ms" % p: percentile(d, p) for p in (50, 90, 99)}}


def short_flow_summary(rows, window):
    """Completion times of the short flows started in the window, nominal
    ms, over all sizes and size by size; a flow not completed counts as
    one (its time is unknown, so it is left out of the percentiles)."""
    t0, t1 = window
    inside = [r for r in rows if t0 <= r["start_s"] <= t1]
    if not inside:
        return {"flows": 0}

    def fcts(rs):
        done = [r["fct_ms"] for r in rs if r["fct_ms"] is not None]
        return {"flows": len(rs), "completed": len(done),
                **{"p%d_ms" % p: percentile(done, p) for p in (50, 90, 99)}}
    return dict(fcts(inside), by_size={str(size): fcts([r for r in inside
                                                         if r["size_bytes"] == size])
                                       for size in sorted({r["size_bytes"] for r in inside})})


def jitter(samples, interval_us):
    """Sampling lateness from the sampler's CSV, microseconds."""
    late = [s["late_us"] for s in samples]
    gaps = [b["t_us"] - a["t_us"] for a, b in zip(samples, samples[1:])]
    return {"interval_us": interval_us, "samples": len(samples),
            "late_p50_us": percentile(late, 50), "late_p99_us": percentile(late, 99),
            "late_max_us": max(late) if late else None,
            "gaps_over_interval": sum(g > interval_us for g in gaps)}


def highspeed_decrease(window_pkts):
    """RFC 3649's decrease b(W): 0.5 at 38 packets down to 0.1 at 83000,
    linear in log W."""
    w = min(max(window_pkts, 38.0), 83000.0)
    return 0.5 - 0.4 * (math.log(w) - math.log(38)) / (math.log(83000) - math.log(38))


def sawtooth_sd_pkts(rate_pkts_s, rtt_s, flows):
    """The queue's standard deviation that HighSpeed TCP's window cuts alone
    make, for a link kept busy: each flow of window W = C RTT / N drops
    b(W) W packets at a loss and climbs back linearly, a sawtooth of that
    height (sd = height / sqrt 12). Flows cut in turn, evenly interleaved,
    make one such sawtooth; independent ones add variances (sqrt N times
    more). Returns (interleaved, independent)."""
    window = rate_pkts_s * rtt_s / flows
    height = highspeed_decrease(window) * window
    one = height / math.sqrt(12)
    return one, one * math.sqrt(flows)
