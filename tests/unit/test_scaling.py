#!/usr/bin/python3
"""Unit checks of the testbed's time scaling of tc arguments
(testbed/experiment.py scale_aqm_args): times * k, rates and frequencies
/ k, counts unchanged. One "PASS: scaling: ..." or "FAIL: scaling: ..."
line per check, like the C unit tests."""

import importlib
import os
import sys
import types

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "testbed"))
try:
    importlib.import_module("mininet.node")
except ImportError:  # only the topology needs Mininet, not the scaling
    for name in ("mininet", "mininet.node", "mininet.topo", "mininet.link"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules["mininet.node"].Node = object
    sys.modules["mininet.topo"].Topo = object
    sys.modules["mininet.link"].TCLink = sys.modules["mininet.link"].Link = object
import experiment  # noqa: E402

failures = 0


def check(ok, name):
    global failures
    print("%s: scaling: %s" % ("PASS" if ok else "FAIL", name))
    failures += not ok


def scaled(kind, args, k):
    return experiment.scale_aqm_args(kind, args, k, 2500, 1e9)[0]


check(scaled("pi", "target 20ms autotune rtt 48ms", 10) ==
      "limit 2500 target 200000us autotune rtt 480000us freq 17 cubic_c 0.0004",
      "pi: a delay target and rtt * k, freq / k, CUBIC's C / k^3, the buffer added")
check(scaled("pi", "autotune cubic_c 0.8", 2) == "limit 2500 autotune cubic_c 0.1 freq 85 rtt 400000us"
      and scaled("pi", "autotune", 1) == "limit 2500 autotune",
      "pi: a given cubic_c / k^3; at k = 1 nothing added")
pi_changes = experiment.scale_aqm_args("pi", "autotune", 3, 2500, 1e9)[1]
tiny = experiment.scale_aqm_args("pi", "autotune", 100, 2500, 1e9)
check(pi_changes["cubic_c"]["emulated"] == "0.014815" and "inexact" in pi_changes["cubic_c"]
      and "cubic_c 1e-06" in tiny[0] and "inexact" in tiny[1]["cubic_c"]
      and "inexact" not in experiment.scale_aqm_args("pi", "autotune", 2, 2500, 1e9)[1]["cubic_c"],
      "pi: cubic_c to tc's 1e-6, at least 1e-6, inexact ones noted (0.4 / 27, 0.4 / 10^6)")
model = experiment.sc.unscaled_aqm_model
check(model("pi", scaled("pi", "target 20ms autotune", 2), 2) is None
      and model("pi", "target 40000us autotune", 2)
      and model("pi", "target 40000us autotune response reno", 2) is None
      and model("pi", "target 40000us autotune response reno response cubic", 2),
      "pi's model of CUBIC scales with the scaled cubic_c (refused without it at k = 2; "
      "the last response wins, as in tc)")
check(scaled("pi", "limit 2500 target 1000", 10).startswith("limit 2500 target 1000 freq 17 "),
      "pi: a packet target is a count, not scaled")
check(scaled("pi", "target 50p", 10).startswith("limit 2500 target 50p "),
      "pi: a packet target with its unit is a count")
check(scaled("dualpi2", "target 20ms", 10) ==
      "limit 2500 target 200000us tupdate 160000us alpha 0.016 beta 0.32 step_thresh 10000us",
      "dualpi2: target * k, RFC 9332's tupdate and step * k and alpha, beta (Hz) / k")
check(scaled("dualpi2", "target 20ms", 1) == "limit 2500 target 20000us",
      "dualpi2 at k = 1: only the buffer added")
check(scaled("pie", "target 20ms", 5).startswith("limit 2500 target 100000us "),
      "pie: target * k")
ecn = experiment.scale_aqm_args
check(ecn("pie", "target 20ms", 1, 100, 1e7, ecn=True)[0] == "limit 100 target 20000us ecn"
      and ecn("pie", "target 20ms noecn", 1, 100, 1e7, ecn=True)[0].endswith("noecn")
      and ecn("fq_codel", "", 1, 100, 1e7, ecn=True)[0] == "limit 100"
      and ecn("pi", "ecn", 1, 100, 1e7, ecn=True)[0] == "limit 100 ecn"
      and ecn("pie", "", 1, 100, 1e7)[0] == "limit 100",
      "ECN scenario: the kind's ecn word added once, a user's noecn kept, "
      "fq_codel (marks by default) unchanged")
check(ecn("sfb", "", 1, 100, 1e7)[0] == "limit 100" and ecn("cake", "", 1, 100, 1e7)[0] == "",
      "the scenario's buffer is sfb's limit (packets, as pfifo's); cake's is memory: none")
check(ecn("sfb", "", 2, 100, 1e7)[0] == "limit 100 rehash 1200000 db 120000"
      and ecn("sfb", "rehash 1000", 5, 100, 1e7)[0] == "limit 100 rehash 5000 db 300000",
      "sfb: rehash and db * k in whole milliseconds, the unit tc takes")
unscaled = experiment.sc.unscaled_senders
check(unscaled(["cubic", "bbr"], 1, 1) == {}
      and unscaled(["reno", "highspeed", "scalable", "dctcp"], 10, None) == {},
      "senders: any at k = 1; ACK-clocked ones (Reno, HighSpeed, Scalable, DCTCP) at any k")
check(unscaled(["cubic"], 5, 5) == {} and unscaled(["cubic"], 2, 2) == {}
      and "window grows 8 times as fast" in unscaled(["cubic"], 2, 1)["cubic"]
      and "cubic" in unscaled(["cubic"], 5, None),
      "senders: CUBIC at k with its clock at k; at k = 2 with the built-in's clock it "
      "grows k^3 too fast; without the scaled module it does not scale")
check(set(unscaled(["bbr", "lp", "reno"], 2, 2)) == {"bbr", "lp"},
      "senders: BBR and LP run wall-clock timers")
check(experiment.sc.kernel_cc("cubic") == "cubic_scaled"
      and experiment.sc.kernel_cc("reno") == "reno",
      "senders: CUBIC runs as tools/scaled-cubic builds it; the others by their own names")
fid = {"utilisation": 0.99, "other_queue_drops": {}, "softnet_drops": 0, "wrong_cc": [],
       "acking": {"data_pkts": 100, "received_skbs": 100, "acks": 100, "delayed_acks": 0,
                  "backlog_coalesced_pkts": 0}, "unscaled_senders": {"cubic": "why"},
       "cpu_busy": 0.5}
ok, checks = experiment.fidelity_verdict(fid, {}, "off")
check(not ok and checks["the senders behave at k as at 1"] is False
      and sum(not v for v in checks.values()) == 1,
      "fidelity: a sender that does not scale fails the run")
fid.update(unscaled_senders={}, cpu_busy=0.9)
ok, checks = experiment.fidelity_verdict(fid, {}, "off")
check(not ok and [c for c, v in checks.items() if not v] == ["guest CPU busy <= 0.85"],
      "fidelity: CPUs 90%% busy fail the check (%s)" % checks)
backlogged = {"busy_service": {"intervals": 500, "ratio": 1.0}}
check(experiment.run_not_faithful(dict(backlogged, cpu_busy=0.8)) is None
      and "96% busy" in experiment.run_not_faithful(dict(backlogged, cpu_busy=0.96))
      and "90.0% of its rate" in experiment.run_not_faithful(
          {"busy_service": {"intervals": 500, "ratio": 0.9}, "cpu_busy": 0.5}),
      "the run: CPUs 96% busy or a backlogged link short of its rate make it not "
      "faithful; 80% busy at full rate does not")
check(experiment.run_not_faithful({"busy_service": {"intervals": 0, "ratio": None},
                                   "cpu_busy": 0.96}) is not None,
      "the run: an idle link (no backlogged interval) with CPUs 96% busy is not faithful")
sys.exit(1 if failures else 0)
