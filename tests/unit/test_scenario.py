#!/usr/bin/python3
"""Unit checks of scenarios as data (testbed/scenario.py, scenarios.py) and
of how experiment.py turns one into what it starts. One "PASS: scenario:
..." or "FAIL: scenario: ..." line per check, like the C unit tests."""

import contextlib
import copy
import io
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "testbed"))
import analysis  # noqa: E402
import campaign  # noqa: E402
import experiment  # noqa: E402
import rfc7928  # noqa: E402
import scenario as sc  # noqa: E402
import scenarios  # noqa: E402
import suite  # noqa: E402
from checks import ROOT, load_script  # noqa: E402

evaluate = load_script("evaluate")

failures = 0


def check(ok, name):
    global failures
    print("%s: scenario: %s" % ("PASS" if ok else "FAIL", name))
    failures += not ok


def refused(given, field):
    """The scenario is refused with a message that names field."""
    try:
        sc.validate(given)
    except sc.ScenarioError as e:
        return field in str(e)
    return False


def test_library():
    bad = []
    for name, s in scenarios.LIBRARY.items():
        try:
            sc.validate(s)
        except sc.ScenarioError as e:
            bad.append("%s: %s" % (name, e))
    check(not bad, "every scenario of the library is valid %s" % bad)
    study = sc.load("study")
    check([sc.rtt_s(study, i) for i in range(1, 5)] == [0.044, 0.048, 0.048, 0.048]
          and [round(sc.access_rtt_s(study, i), 6) for i in range(1, 5)]
          == [0.004, 0.008, 0.008, 0.008]
          and study["bandwidth_mbit"] == 1000 and study["buffer_pkts"] == 2500
          and sc.congestion_controls(study) == ["highspeed"],
          "study: the study's RTTs, access delays, rate, buffer and senders")
    sections = {s["rfc7928"] for s in scenarios.LIBRARY.values()}
    check({"5.1", "5.2", "5.3", "5.4", "6", "8.2"} <= sections,
          "the library holds RFC 7928's sections 5.1-5.4, 6 and 8.2")
    rtt = sc.load("rtt-fairness-5ms-10m")
    check([p["rtt_ms"] for p in rtt["pairs"]] == [100, 5] and rtt["bottleneck_delay_ms"] == 0,
          "rtt-fairness: 100 ms beside the swept RTT, all of it on the access link")


def test_refusals():
    s = copy.deepcopy(scenarios.LIBRARY["tcp-friendly-10m"])
    cases = [
        ({"bandwidth_mbit": 0}, "bandwidth_mbit"),
        ({"buffer_pkts": "many"}, "buffer_pkts"),
        ({"ecn": 1}, "ecn"),
        ({"colour": "red"}, "colour"),
        ({"pairs": []}, "pairs"),
        ({"bottleneck_delay_ms": 60}, "pairs[1].rtt_ms"),
    ]
    for change, field in cases:
        check(refused(dict(s, **change), field), "refused, naming %s: %s" % (field, change))
    for item, field in (({"type": "bulk"}, "pairs[1].traffic[1].cc"),
                        ({"type": "bulk", "cc": "cubic", "flows": 0}, "flows"),
                        ({"type": "udp", "rate_mbit": 5, "packet_bytes": 9000}, "packet_bytes"),
                        ({"type": "probe", "interval_ms": 10, "start_s": 70}, "start_s"),
                        ({"type": "short", "rate_per_s": 1, "sizes_bytes": []},
                         "sizes_bytes"),
                        ({"type": "short", "rate_per_s": 1, "sizes_bytes": [1.5]},
                         "sizes_bytes"),
                        ({"type": "udp", "rate_mbit": 5, "burst_pkts": 0}, "burst_pkts"),
                        ({"type": "tcp"}, "type")):
        t = copy.deepcopy(s)
        t["pairs"][0]["traffic"] = [item]
        check(refused(t, field), "refused, naming %s: %s" % (field, item))
    t = copy.deepcopy(s)
    t["pairs"] = [{"rtt_ms": 50, "traffic": [{"type": "probe", "interval_ms": 100}]}]
    check(refused(t, "no traffic but probes"), "refused: a scenario of probes alone")
    check(sc.validate(copy.deepcopy(s)) == sc.validate(s), "validate leaves its input alone")


def test_capacity():
    s = sc.load("capacity-varying-100m")
    check(sc.rate_schedule(s, 100e6, 60) == [(0.0, 100e6), (20.0, 10e6), (40.0, 100e6)]
          and sc.rate_schedule(s, 50e6, 6) == [(0.0, 50e6), (2.0, 5e6), (4.0, 50e6)]
          and sc.peak_rate_bps(s, 100e6) == 100e6
          and sc.rate_schedule(sc.load("study"), 1e9, 100) == 1e9,
          "capacity: steps stretched with the run, rates in proportion; none is a number")
    for steps, field in (([{"at_s": 0, "bandwidth_mbit": 1}], "capacity[1].at_s"),
                         ([{"at_s": 30, "bandwidth_mbit": 1}, {"at_s": 20, "bandwidth_mbit": 2}],
                          "capacity[2].at_s"),
                         ([{"at_s": 30}], "capacity[1].bandwidth_mbit")):
        check(refused(dict(s, capacity=steps), field), "capacity refused, naming %s" % field)


def test_flows():
    s = sc.load("udp-tcp-100m")
    table = sc.flow_table(s)
    check([(f["flow"], f["pair"], f["type"]) for f in table]
          == [(1, 1, "bulk"), (2, 2, "bulk"), (3, 3, "udp")],
          "flow_table: numbered in pair order, probes are no flow")
    s16 = sc.with_senders(sc.load("study"), "cubic", 4)
    check(len(sc.flow_table(s16)) == 16 and sc.congestion_controls(s16) == ["cubic"]
          and sc.congestion_controls(sc.load("study")) == ["highspeed"],
          "with_senders: 4 CUBIC flows a pair, the library's scenario unchanged")


def test_launches():
    study = sc.load("study")
    plan = experiment.launches(study, 100)
    check([(x["pair"], round(x["start_s"], 9), x["length_s"], x["port"], x["first_flow"])
           for x in plan]
          == [(i, round(0.1 * (i - 1), 9), 100, experiment.BASE_PORT + i, i) for i in range(1, 5)],
          "study: a flow a pair, 0.1 s apart, ports and flow numbers as before scenarios")
    varying = sc.load("congestion-varying-10m")
    plan = experiment.launches(varying, 6)  # a tenth of the scenario's 60 s
    late = [x for x in plan if x["item"]["start_s"] > 0]
    check(len(late) == 2 and all(abs(x["length_s"] - 2) < 1e-9 for x in late)
          and all(abs(x["start_s"] - (2 + 0.1 * (x["pair"] - 1))) < 1e-9 for x in late),
          "a shorter run keeps the scenario's shape (the middle third, stretched)")
    a, b = (experiment.launches(study, 100, seed) for seed in (1, 2))
    again = experiment.launches(study, 100, 1)
    check([x["start_s"] for x in a] != [x["start_s"] for x in b]
          and [x["start_s"] for x in a] == [x["start_s"] for x in again]
          and min(x["start_s"] for x in a) == 0
          and all(0 <= x["start_s"] < 0.1 * x["pair"] + 1e-9 for x in a),
          "seeds: each pair up to a start gap late, the same seed the same starts")
    probe = [x for x in experiment.launches(sc.load("tcp-friendly-10m"), 60)
             if x["item"]["type"] == "probe"][0]
    cmd = experiment.client_command(probe, 5)
    check(cmd[:6] == ["ping", "-n", "-D", "-i", "0.5", "-c"] and cmd[6] == "600",
          "probe: ping every interval * k, for the run's length")


def test_aggregate():
    def result(util, delay, goodputs):
        return {"results": {
            "utilisation": util, "loss_rate": 0.01, "ecn_marks": 0, "arrivals_pkts": 1000,
            "queue_delay_ms": {"p50": delay, "p90": 2 * delay, "p99": 3 * delay},
            "probe": {"samples": 0, "lost": 0}, "jain_index": 1.0,
            "goodput_mbps": {str(f): g for f, g in enumerate(goodputs, 1)}}}
    m = evaluate.aggregate([result(0.97, 10, [4, 5]), result(0.99, 20, [6, 5]),
                            result(0.98, 30, [5])])
    check(m["utilisation"]["n"] == 3 and abs(m["utilisation"]["mean"] - 98) < 1e-9
          and abs(m["utilisation"]["ci95"] - 4.303 / 3 ** 0.5) < 1e-9,
          "aggregate: utilisation in %, mean and Student's t interval over the runs")
    check(m["queue delay p90"]["mean"] == 40 and m["probe delay p50"]["n"] == 0
          and m["goodput flow 2"]["n"] == 2 and m["goodput flow 1"]["mean"] == 5,
          "aggregate: percentiles, a metric no run has, a flow one run lacks")
    check(list(m)[-2:] == ["goodput flow 1", "goodput flow 2"] and "±" in evaluate.table(m),
          "aggregate: flows in order; the table shows mean ± interval")


def test_figures():
    (cx, cy), (w, h), angle = rfc7928.ellipse([(-1, -1), (1, 1), (0, 0)])
    check(abs(cx) + abs(cy) < 1e-12 and abs(w - 2 * 2 ** 0.5) < 1e-9 and abs(h) < 1e-9
          and abs(angle - 45) < 1e-9, "ellipse: points on a diagonal, 1 sd, at 45 degrees")
    _, (w, h), _ = rfc7928.ellipse([(-1, 0), (1, 0), (0, -1), (0, 1)])
    check(abs(w - h) < 1e-9 and abs(w - 2 * (2 / 3) ** 0.5) < 1e-9, "ellipse: a circle")
    with tempfile.TemporaryDirectory() as d:
        scen = sc.load("tcp-friendly-10m")
        for label, base in (("pie", 10.0), ("pfifo", 80.0), ("fq_pie", 5.0)):
            dirs = []
            for i in (1, 2, 3):
                run = os.path.join(d, scen["name"], label, "run-%d" % i)
                os.makedirs(run)
                s = {"valid": True, "scale": 1, "results": {
                    "utilisation": 0.97, "loss_rate": 0.01, "ecn_marks": 0,
                    "arrivals_pkts": 10, "jain_index": 0.9,
                    "queue_delay_ms": {"p50": base + i, "p90": 0, "p99": 0},
                    "goodput_mbps": {"1": 4.0 + i / 10, "2": 5.0}}}
                with open(os.path.join(run, "summary.json"), "w") as f:
                    json.dump(s, f)
                dirs.append(run)
            dirs.append(os.path.join(d, scen["name"], label, "run-4"))  # never ran
            with contextlib.redirect_stdout(io.StringIO()):
                evaluate.write_aggregate(os.path.join(d, scen["name"], label), scen, label,
                                         label, "", dirs)
        with open(os.path.join(d, scen["name"], "pie", "aggregate.json")) as f:
            agg = json.load(f)
        first = agg["trade_offs"][0]
        check(agg["valid_runs"] == 3 and len(agg["trade_offs"]) == 3
              and first["run"] == "run-1" and first["delay_ms"] == 11.0
              and abs(first["goodput_mbps"] - 9.1) < 1e-9,
            "aggregate.json: 3 of 4 runs valid, each valid run's delay-goodput point")
        written = rfc7928.render(os.path.join(d, scen["name"]))
        with open(written[0]) as f:
            text = f.read()
        check(len(written) == 2 and os.path.getsize(written[1]) > 1000
              and "| pie | `pie` | 3 of 4 | 97 ± 0 |" in text and "| pfifo |" in text,
              "figures: the delay-goodput figure and the table, a row per qdisc")
        check("| pie / fq_pie | 97 ± 0 vs 97 ± 0 |" in text and "codel /" not in text,
              "summary.md: RFC 7928 4.6's single queue against FQ, for the pairs present")


def test_fidelity():
    """Welch's test on two points' intervals, and fidelity-LABEL.md."""
    def m(values):
        return analysis.mean_ci(values)
    same = rfc7928.welch(m([96, 97, 98]), m([96.5, 97.5, 98.5]))
    check(abs(same[0] - 0.5) < 1e-12 and same[1] > 0.5,
          "welch: means 0.5 apart with sd 1 in 3 runs each are within noise")
    # sd 1 each, n = 3: se^2 = 2/3, df = 4, allowed = 2.776 * sqrt(2/3)
    apart = rfc7928.welch(m([96, 97, 98]), m([99, 100, 101]))
    check(apart[0] == 3 and abs(apart[1] - 2.776 * (2 / 3) ** 0.5) < 1e-3
          and abs(apart[0]) > apart[1], "welch: 3 apart is not (df from Welch-Satterthwaite)")
    check(rfc7928.welch(m([1]), m([1, 2])) is None, "welch: one run has no interval")
    with tempfile.TemporaryDirectory() as d:
        for k, utils in (("1", [96, 97, 98]), ("5", [99, 100, 101])):
            point = os.path.join(d, "pie-k" + k)
            os.makedirs(point)
            with open(os.path.join(point, "aggregate.json"), "w") as f:
                json.dump({"aqm": "pie", "aqm_args": "", "valid_runs": 3, "metrics": {
                    "utilisation": m(utils), "queue delay p50": m([10, 11, 12])}}, f)
        path = rfc7928.fidelity(d, "pie", ["1", "5"])
        with open(path) as f:
            text = f.read()
        check(path.endswith("fidelity-pie.md") and "| utilisation (%) | 97 ± 2.5 | 100 ± 2.5 | 3 | +3.1% |"
              in text and "**no** |" in text and "| queue delay p50 (ms) |" in text
              and text.count("| yes |") == 1,
              "fidelity-LABEL.md: a row per metric both points have, the verdict per row")
        check(rfc7928.fidelity(d, "pie", ["1", "2"]) is None,
              "fidelity: nothing written while a scale's point is missing")


def test_batches():
    """evaluate's batches: one experiment call for the runs that share a
    scenario and scale; each run's recorded command (experiment.py
    batch_runs) is what evaluate asks for, so the campaign sees it done."""
    class Parser:
        def error(self, message):
            raise ValueError(message)
    with tempfile.TemporaryDirectory() as d:
        opts = type("Opts", (), {"runs": 2, "scale": "auto", "duration": "20s",
                                 "offloads": "off"})
        tasks = []
        for label, kind, args in (("pie", "pie", ""), ("pi-autotune", "pi", "target 15ms")):
            todo, _ = evaluate.point_tasks(os.path.join(d, "tcp-friendly-10m", label),
                                           "tcp-friendly-10m", kind, args, "auto", opts)
            tasks += todo
        labelled = evaluate.batches(tasks, d, 3)
        check(len(labelled) == 2 and [len(json.load(open(a[a.index("--batch") + 1])))
                                      for _, a in labelled] == [3, 1],
              "batches: 4 runs of one scenario in batches of at most 3")
        for _, argv in labelled:
            cfg = type("Cfg", (), {"batch": argv[argv.index("--batch") + 1], "aqm": None,
                                   "aqm_args": "", "seed": None, "out": d})
            saved, sys.argv = sys.argv, ["testbed/experiment.py"] + argv
            try:
                runs = experiment.batch_runs(Parser(), cfg)
            finally:
                sys.argv = saved
            for run in runs:
                os.makedirs(run["out"], exist_ok=True)
                with open(os.path.join(run["out"], "summary.json"), "w") as f:
                    json.dump({"command": run["command"], "valid": True, "scale": 1,
                               "results": {}}, f)
        done = sum(campaign.finished(outdir, args) for outdir, args in tasks)
        check(done == 4, "batches: every run's summary counts as the run asked for (%d of 4)"
              % done)
        cfg = type("Cfg", (), {"batch": None, "aqm": None, "aqm_args": "", "seed": None,
                               "out": d})
        try:
            experiment.batch_runs(Parser(), cfg)
            refused = False
        except ValueError as e:
            refused = "--aqm" in str(e)
        check(refused, "experiment: neither --aqm nor --batch is refused")


def test_suite():
    s = sc.load("rtt-fairness-200ms-100m")
    check(suite.aqm_args("pi-autotune", s)
          == "target 15ms autotune rtt 200ms flows auto margin 75 spacing even"
          and suite.aqm_args("rem", s) == "target 124 bandwidth 100mbit"
          and suite.aqm_args("pie", s) == "",
          "suite: pi's design RTT, rem's 15 ms in packets, pie at its defaults")
    red = suite.aqm_args("red", sc.load("tcp-friendly-10m")).split()
    value = {red[i]: red[i + 1] for i in range(0, len(red) - 1, 2) if red[i] != "adaptive"}
    check(value["limit"] == str(100 * 1514) and value["min"] == str(151400 // 6)
          and value["max"] == str(151400 // 2)
          and value["burst"] == str((2 * 25233 + 75700) // (3 * 1514)),
          "suite: red's limit is the buffer in bytes, min a sixth, max half, tc's burst")
    labels = [q[0] for q in suite.QDISCS]
    check(len(set(labels)) == len(labels) and set(suite.QUICK_QDISCS) <= set(labels)
          and all(n in scenarios.LIBRARY for n in suite.QUICK_SCENARIOS + tuple(suite.SCENARIOS))
          and len(set(suite.SCENARIOS)) == len(suite.SCENARIOS),
          "suite: labels unique, the suite's and the quick mode's qdiscs and scenarios exist")
    with tempfile.TemporaryDirectory() as d:
        plan = subprocess.run([os.path.join(ROOT, "scripts", "evaluate"), "--suite",
                               "--scenario", "tcp-friendly-10m", "--out", d, "--dry-run"],
                              capture_output=True, text=True).stdout.splitlines()
    runs = len(suite.QDISCS) * suite.RUNS
    check(plan[0] == "evaluate: %d points, %d runs, %d to run" % (len(suite.QDISCS), runs, runs)
          and len(plan) == runs + 1
          and all(line.endswith("--duration " + suite.DURATION) for line in plan[1:]),
          "suite: one scenario's part of it is the suite's runs (its count, its length)")


def test_shortflows():
    """The short-flow generator on this machine's loopback: every flow of
    the bursts completes, sizes come from the list, a bad option is named."""
    tool = os.path.join(ROOT, "build", "testbed", "shortflows")
    with tempfile.TemporaryDirectory() as d:
        server = subprocess.Popen([tool, "server", "-p", "6391"])
        try:
            time.sleep(0.3)
            out = subprocess.run([tool, "client", "-s", "127.0.0.1", "-p", "6391", "-t", "1",
                                  "-r", "40", "-b", "4", "-z", "1000,300000", "-S", "3",
                                  "-o", os.path.join(d, "f.csv")],
                                 capture_output=True, text=True, timeout=60)
        finally:
            server.kill()
            server.wait()
        summary = json.loads(out.stdout)
        with open(os.path.join(d, "f.csv")) as f:
            rows = f.read().split()[1:]
    fields = [r.split(",") for r in rows]
    check(out.returncode == 0 and summary["flows"] == len(rows) and 8 <= len(rows) <= 100
          and len(rows) % 4 == 0 and summary["completed"] == len(rows)
          and {f[1] for f in fields} <= {"1000", "300000"} and all(f[3] for f in fields),
          "shortflows: %s flows in bursts of 4, all completed, sizes from the list"
          % summary.get("flows"))
    bad = subprocess.run([tool, "client", "-s", "127.0.0.1", "-p", "6391", "-t", "1",
                          "-r", "fast", "-z", "1000", "-o", "/dev/null"],
                         capture_output=True, text=True)
    check(bad.returncode == 2 and "-r: fast" in bad.stderr,
          "shortflows: a bad option exits 2 naming it")


for test in (test_library, test_refusals, test_capacity, test_flows, test_launches, test_aggregate,
             test_figures, test_fidelity, test_batches, test_suite, test_shortflows):
    test()
sys.exit(1 if failures else 0)
