"""The evaluation suite (scripts/evaluate --suite): which qdiscs run which
scenarios, with which arguments. Mainline's qdiscs run at their defaults,
as a user would first run them; ours at the same delay target where they
take one (pie's default, 15 ms), the others at their automatic settings;
autotuned pi as the README configures it for CUBIC senders, counting the
flows itself (flows auto), as the other qdiscs are not told them either.
The buffer is the scenario's (experiment.py adds it as a packet limit;
red's is in bytes, below; cake has only a memory limit, its default).

Arguments are templates filled from the scenario: {rate} the bottleneck
rate, {rtt} the longest propagation RTT, {target_pkts} 15 ms of full-size
packets at the rate, {buffer_bytes}, and mainline red's thresholds
{red_min} and {red_max} (a sixth and half of the buffer, in bytes) with
tc's burst {red_burst}.
"""

TARGET_MS = 15
WIRE_BYTES = 1514

# label, kind, arguments
QDISCS = (
    ("pfifo", "pfifo", ""),
    ("red", "red", "limit {buffer_bytes} min {red_min} max {red_max} avpkt 1514 "
     "burst {red_burst} bandwidth {rate} adaptive"),
    ("pie", "pie", ""),
    ("codel", "codel", ""),
    ("fq_codel", "fq_codel", ""),
    ("fq_pie", "fq_pie", ""),
    ("cake", "cake", ""),
    ("sfb", "sfb", ""),
    ("pi", "pi", "target %dms a 1.822e-7 b 1.816e-7" % TARGET_MS),
    ("pi-autotune", "pi", "target %dms autotune rtt {rtt} flows auto margin 75 spacing even"
     % TARGET_MS),
    ("rem", "rem", "target {target_pkts} bandwidth {rate}"),
    ("blue", "blue", ""),
    ("ared-gentle", "ared", "gentle noadaptive bandwidth {rate}"),
    ("ared-adaptive", "ared", "gentle adaptive bandwidth {rate}"),
)

# The whole suite (scripts/evaluate --suite): every RFC 7928 scenario at
# 10 Mbit/s, the ones where the rate matters at 100 Mbit/s too, and ECN on
# where marking changes what a flow sees; RUNS runs of DURATION each. The
# budget (24 hours on 2 cores under TCG) sets the length: with batches, a
# run costs its length at k plus about 20 s, a batch of 16 about 80 s more.
RUNS = 3
DURATION = "30s"
SCENARIOS = (
    [name + "-10m" for name in (
        "tcp-friendly", "tcp-friendly-iw", "aggressive", "aggressive-bbr", "udp-alone",
        "udp-tcp", "lbe",
        "rtt-fairness-5ms", "rtt-fairness-20ms", "rtt-fairness-50ms", "rtt-fairness-100ms",
        "rtt-fairness-200ms", "rtt-fairness-560ms", "bursts-short", "bursts-mix",
        "congestion-1flows", "congestion-8flows", "congestion-64flows", "congestion-varying",
        "capacity-varying")]
    + [name + "-100m" for name in ("tcp-friendly", "udp-tcp", "rtt-fairness-20ms",
                                   "bursts-mix", "congestion-64flows", "capacity-varying")]
    + [name + "-10m-ecn" for name in ("tcp-friendly", "bursts-mix", "congestion-64flows",
                                      "dctcp-cubic")])

# the quick mode: one scenario, four qdiscs, one short run each; about 10
# minutes under TCG (a smoke run of the whole path, not a result)
QUICK_SCENARIOS = ("tcp-friendly-10m",)
QUICK_QDISCS = ("pfifo", "pie", "fq_codel", "pi-autotune")
QUICK_RUNS = 1
QUICK_DURATION = "20s"


def qdisc(label):
    for entry in QDISCS:
        if entry[0] == label:
            return entry
    raise KeyError(label)


def aqm_args(label, scen):
    """The qdisc's tc arguments for scenario scen (nominal values)."""
    template = qdisc(label)[2]
    rate_bps = scen["bandwidth_mbit"] * 1e6
    buffer_bytes = scen["buffer_pkts"] * WIRE_BYTES
    red_min, red_max = buffer_bytes // 6, buffer_bytes // 2
    return template.format(
        rate="%gmbit" % scen["bandwidth_mbit"],
        rtt="%gms" % max(p["rtt_ms"] for p in scen["pairs"]),
        target_pkts=max(1, round(rate_bps * TARGET_MS / 1e3 / (8 * WIRE_BYTES))),
        buffer_bytes=buffer_bytes, red_min=red_min, red_max=red_max,
        red_burst=max(1, (2 * red_min + red_max) // (3 * WIRE_BYTES)))
