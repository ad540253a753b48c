"""The study's configurations, and the mainline AQMs a Linux user would pick
today beside them. Every value is nominal (the study's 1 Gbit/s network);
experiment.py scales it. "{rate}" stands for the bottleneck rate of the run.

Where the study says "ns-2 defaults otherwise" we pass what ns-2 2.35 would
have used and our qdiscs cannot know by themselves: the link rate (ns-2
takes it from the link) and RED's mean_pktsize_ (500 bytes, which sets its
automatic weight and idle-time decay).
"""

import scenarios

# name, label, qdisc kind, tc arguments
STUDY = (
    ("droptail", "Drop-Tail", "pfifo", "limit 2500"),
    ("red", "RED", "ared", "limit 2500 min 625 max 1875 avpkt 500 bandwidth {rate}"),
    ("pi", "PI", "pi", "limit 2500 target 1000 a 1.822e-7 b 1.816e-7"),
    ("rem", "REM", "rem", "limit 2500 target 1000 bandwidth {rate}"),
    ("blue", "BLUE", "blue", "limit 2500"),
)

# Linux's own, at their defaults but for the study's buffer. Mainline red
# takes bytes: the study's RED thresholds in 1514-byte packets, its maxp,
# and tc's default burst ((2 min + max) / 3 packets).
MAINLINE = (
    ("pie", "pie (Linux)", "pie", "limit 2500"),
    ("fq_codel", "fq_codel (Linux)", "fq_codel", "limit 2500"),
    ("red-linux", "red (Linux)", "red",
     "limit 3785000 min 946250 max 2838750 avpkt 1514 burst 1042 probability 0.1 "
     "bandwidth {rate}"),
)

# PI deriving its own gains: with ns-2's random drops, with evenly spaced
# ones, and with the crossover placed by a phase margin of 87 degrees (about
# 4 times the paper's crossover: one HighSpeed window cut then moves p by
# about half its operating value) or of 60 degrees (the textbook choice,
# some 35 times faster); beside the study's fixed gains ("pi") and mainline
# pie with a delay target worth the same 1000 packets. {rtt} is the design's
# largest round trip without the queue: the dumbbell's longest propagation
# RTT (the kernel adds the target queue's delay at the rate it measures, the
# PI paper's R = Tp + q0 / C); the gains come from the rules.
AUTOTUNE = (
    ("pi-autotune", "PI, autotuned", "pi",
     "limit 2500 target 1000 autotune rtt {rtt} flows 4 response highspeed"),
    ("pi-autotune-even", "PI, autotuned, even spacing", "pi",
     "limit 2500 target 1000 autotune rtt {rtt} flows 4 response highspeed spacing even"),
    ("pi-autotune-margin87", "PI, autotuned, even spacing, margin 87", "pi",
     "limit 2500 target 1000 autotune rtt {rtt} flows 4 response highspeed spacing even "
     "margin 87"),
    ("pi-autotune-margin60", "PI, autotuned, even spacing, margin 60", "pi",
     "limit 2500 target 1000 autotune rtt {rtt} flows 4 response highspeed spacing even "
     "margin 60"),
    ("pie-1000", "pie, target 1000 packets", "pie", "limit 2500 target {target_delay}"),
)
AUTOTUNE_RUNS = ("pi", "pi-autotune", "pi-autotune-even", "pi-autotune-margin87",
                 "pi-autotune-margin60", "pie-1000")
# run again with offloads on (GSO skbs at the bottleneck; issue 21)
OFFLOADS_RUNS = ("pi-autotune-margin87",)

# Issue 23: today's senders (CUBIC) and a delay target. PI autotuned for
# CUBIC (its default response) with a 20 ms delay target, beside mainline
# pie and dualpi2 at the same target, 4 and 16 flows; all on unstable's
# kernel (AQM_KERNEL_ROOT), where dualpi2 is mainline (Debian's config
# leaves it out: tools/mainline-qdisc builds it from Debian's source).
# The design assumes at least 4 flows and the dumbbell's longest path RTT
# ({rtt}); margin 87 is the crossover that met the HighSpeed goal.
CUBIC_TARGET_MS = 20
CUBIC_TARGET = "%dms" % CUBIC_TARGET_MS
CUBIC = (
    ("pi-delay", "PI, autotuned for 4 flows, 20 ms", "pi",
     "target {target} autotune rtt {rtt} flows 4 margin 87 spacing even"),
    # the same, its gains designed for the 16 flows there are: is the
    # 16-flow point's miss the design's flow count?
    ("pi-delay-n16", "PI, autotuned for 16 flows, 20 ms", "pi",
     "target {target} autotune rtt {rtt} flows 16 margin 87 spacing even"),
    # the flow count estimated from p: the design for the flows there are
    ("pi-delay-auto", "PI, autotuned, flows auto, 20 ms", "pi",
     "target {target} autotune rtt {rtt} flows auto margin 87 spacing even"),
    # the same with a crossover 5 times faster: at 1 Gbit/s the buffer
    # (2500 packets) is 1.5 times the target, and at margin 87 the limit's
    # synchronised drops carry the loss (results/README.md item 10)
    ("pi-delay-auto-margin75", "PI, autotuned, flows auto, margin 75, 20 ms", "pi",
     "target {target} autotune rtt {rtt} flows auto margin 75 spacing even"),
    # the crossover from the flows' loss events: one cut takes at most p
    # (man tc-pi, margin auto), slow for 4 flows and fast for 16
    ("pi-delay-auto-margin-auto", "PI, autotuned, flows auto, margin auto, 20 ms", "pi",
     "target {target} autotune rtt {rtt} flows auto margin auto spacing even"),
    ("pie-delay", "pie (Linux), 20 ms", "pie", "target {target}"),
    ("dualpi2", "dualpi2 (Linux), 20 ms", "dualpi2", "target {target}"),
)
CUBIC_RATES_MBIT = (100, 400, 1000)
CUBIC_FLOWS = (4, 16)
CUBIC_RUNS = 3
CUBIC_SUITE = "sid"

ALL = STUDY + MAINLINE
SWEEP_RATES_MBIT = (200, 400, 600, 800, 1000)
TABLE_RATE_MBIT = 1000
TARGET_PKTS = 1000
WIRE_BYTES = 1514                     # a full-size packet on the veth links


def config(name):
    for entry in ALL + AUTOTUNE + CUBIC:
        if entry[0] == name:
            return entry
    raise KeyError(name)


def target_delay_s(rate_mbit):
    """How long TARGET_PKTS full-size packets take to leave at the rate."""
    return TARGET_PKTS * WIRE_BYTES * 8 / (rate_mbit * 1e6)


def design_rtt_s():
    """The study network's longest propagation round trip."""
    return max(p["rtt_ms"] for p in scenarios.STUDY["pairs"]) / 1e3


def aqm_args(name, rate_mbit):
    text = config(name)[3]
    fields = {"rate": "%dmbit" % rate_mbit}
    if "{rtt}" in text:
        fields["rtt"] = "%.1fms" % (1e3 * design_rtt_s())
    if "{target_delay}" in text:
        fields["target_delay"] = "%.2fms" % (1e3 * target_delay_s(rate_mbit))
    if "{target}" in text:
        fields["target"] = CUBIC_TARGET
    return text.format(**fields)
