#!/usr/bin/python3
"""Unit checks of scripts/reproduce's resume rule: which committed runs
count as done. One "PASS: reproduce: ..." or "FAIL: reproduce: ..." line
per check, like the C unit tests."""

import json
import os
import tempfile

from checks import load_script

reproduce = load_script("reproduce")

failures = 0


def check(ok, name):
    global failures
    print("%s: reproduce: %s" % ("PASS" if ok else "FAIL", name))
    failures += not ok


def args(scale, duration="30s"):
    return ["--aqm", "pi", "--aqm-args", "limit 2500", "--bandwidth", "800mbit",
            "--duration", duration, "--scale", scale, "--out", "/r/sweep/800mbit/pi"]


def run(directory, made_scale, k, valid=True, **extra):
    """A summary.json as testbed/experiment.py writes it (the fields read)."""
    summary = {"command": ["testbed/experiment.py"] + args(made_scale), "scale": k,
               "valid": valid, "results": {}}
    summary.update(extra)
    with open(os.path.join(directory, "summary.json"), "w") as f:
        json.dump(summary, f)


def test_finished():
    with tempfile.TemporaryDirectory() as d:
        check(not reproduce.campaign.finished(d, args("10")), "no summary: not done")
        run(d, "10", 10)
        check(reproduce.campaign.finished(d, args("10")), "same arguments: done")
        moved = [a if a != "/r/sweep/800mbit/pi" else "/elsewhere/sweep/800mbit/pi"
                 for a in args("10")]
        check(reproduce.campaign.finished(d, moved), "the tree moved (another --out path): done")
        a = args("10")
        reordered = a[4:8] + a[:4] + a[8:]
        check(reproduce.campaign.finished(d, reordered),
              "the same options in another order (a batch's run): done")
        check(not reproduce.campaign.finished(d, a + ["--seed", "2"]), "another option: not done")
        run(d, "10", 10, command=["testbed/experiment.py"] + args("10")
            + ["--tc", "/root/.cache/classic-aqm/kernels/sid/tc"])
        check(reproduce.campaign.finished(d, args("10")),
              "a kernel root's --tc, added by scripts/experiment: done")
        check(not reproduce.campaign.finished(d, args("10", "100s")), "another duration: not done")
        check(reproduce.campaign.finished(d, args("auto")), "--scale auto takes a run at k = 10")
        check(not reproduce.campaign.finished(d, args("5")), "--scale 5 refuses a run at k = 10")
        run(d, "auto", 10)
        check(reproduce.campaign.finished(d, args("10")), "--scale 10 takes auto's run at k = 10")
        check(not reproduce.campaign.finished(d, args("20")), "--scale 20 refuses auto's run at k = 10")
        check(reproduce.campaign.finished(d, args("auto")), "--scale auto takes auto's run")
        run(d, "10", 10, valid=False)
        check(not reproduce.campaign.finished(d, args("10")), "a run that failed fidelity: not done")
        run(d, "10", 10, results={"cpu_busy": 0.96})
        check(not reproduce.campaign.finished(d, args("10")),
              "a run made before the CPU rule, its CPUs 96% busy: stale, not done")
        run(d, "10", 10, results={"cpu_busy": 0.8})
        check(reproduce.campaign.finished(d, args("10")), "a run with CPUs 80% busy: done")
        run(d, "10", 10, error="interrupted")
        check(not reproduce.campaign.finished(d, args("10")), "a run with an error: not done")
        old_checks = {"fidelity": {"checks": {"utilisation >= 0.97": True}}}
        run(d, "10", 10, topology={"congestion_control": "cubic"}, **old_checks)
        check(not reproduce.campaign.finished(d, args("10")),
              "CUBIC at k = 10, made before the senders' check: stale, not done")
        run(d, "10", 1, topology={"congestion_control": "cubic"}, **old_checks)
        check(reproduce.campaign.finished(d, args("auto")),
              "CUBIC at k = 1, made before the senders' check: done")
        run(d, "10", 10, topology={"congestion_control": "highspeed"}, **old_checks)
        check(reproduce.campaign.finished(d, args("10")),
              "HighSpeed TCP at k = 10, made before the senders' check: done")
        senders_checked = {"fidelity": {"checks": {"the senders behave at k as at 1": True}},
                           "topology": {"congestion_control": "cubic"}}
        for aqm_args, k, is_stale, what in (
                ("target 20ms autotune rtt 48ms flows auto", 2, True,
                 "pi autotuned for CUBIC (the default response) at k = 2"),
                ("target 20ms autotune response cubic", 2, True, "response cubic at k = 2"),
                ("target 20ms autotune rtt 48ms", 1, False, "autotuned for CUBIC at k = 1"),
                ("limit 2500 target 1000 autotune response highspeed", 10, False,
                 "response highspeed at k = 10"),
                ("target 20ms autotune noautotune a 1e-6 b 1e-6", 2, False,
                 "autotune turned off again"),
                ("limit 2500 target 1000 a 1.822e-7 b 1.816e-7", 10, False, "manual gains")):
            run(d, "10", k, nominal={"aqm": "pi", "aqm_args": aqm_args}, **senders_checked)
            check(bool(reproduce.campaign.stale(json.load(open(os.path.join(d, "summary.json")))))
                  == is_stale, "the qdisc's model of the senders: %s: %s"
                  % (what, "stale" if is_stale else "not stale"))
        run(d, "10", 2, nominal={"aqm": "pi", "aqm_args": "target 20ms autotune"},
            emulated={"aqm": "pi limit 2500 target 40000us autotune freq 85 cubic_c 0.05"},
            **senders_checked)
        check(not reproduce.campaign.stale(json.load(open(os.path.join(d, "summary.json")))),
              "pi autotuned for CUBIC at k = 2, run with a scaled cubic_c: not stale")
        run(d, "10", 2, nominal={"aqm": "pi", "aqm_args": "autotune"},
            emulated={"unscaled_model": None}, **senders_checked)
        check(not reproduce.campaign.stale(json.load(open(os.path.join(d, "summary.json")))),
              "a run made under the model rule is judged by its own verdict")
        for date, aqm_args, is_stale, what in (
                ("2026-12-05T09:59:50+00:00", "target 20ms autotune flows auto", True,
                 "autotuned, before the positional law"),
                ("2026-12-05T12:00:00+00:00", "target 20ms autotune flows auto", True,
                 "autotuned, after it, before the integral counted the error up to the "
                 "reference"),
                ("2026-12-05T14:00:00+00:00", "target 20ms autotune flows 16", False,
                 "autotuned for 16 flows, after both"),
                ("2026-12-05T14:00:00+00:00", "target 20ms autotune flows auto", True,
                 "flows auto, after both, its limit's drops not recorded, before N "
                 "counted them"),
                ("2026-12-01T12:00:00+00:00", "limit 2500 target 1000 a 1.822e-7 b 1.816e-7",
                 False, "gains set by hand (ns-2's form still), before it"),
                ("2026-12-01T12:00:00+00:00", "autotune noautotune", False,
                 "autotune turned off again, before it"),
                ("2026-12-06T16:00:00+00:00", "target 20ms autotune flows auto margin auto",
                 True, "margin auto with flows auto, before the margin took the flows counted"),
                ("2026-12-06T16:00:00+00:00", "target 20ms autotune flows 16 margin auto",
                 False, "margin auto for 16 flows, before it (the count places nothing)"),
                ("2026-12-06T16:00:00+00:00", "target 20ms autotune flows auto margin 87",
                 "bounded by the flows counted", "flows auto with margin 87, before it "
                 "(only p's N's bound applies)"),
                ("2026-12-06T20:00:00+00:00", "target 20ms autotune flows auto margin auto",
                 "bounded by the flows counted", "margin auto with flows auto, after it "
                 "(only p's N's bound applies)"),
                ("2026-12-06T23:00:00+00:00", "target 1000 autotune flows 4", True,
                 "made while the integral went below 0"),
                ("2026-12-06T23:00:00+00:00", "limit 2500 target 1000 a 1.822e-7 b 1.816e-7",
                 False, "gains set by hand, while the integral went below 0"),
                ("2026-12-06T23:45:00+00:00", "target 20ms autotune flows auto margin auto",
                 True, "margin auto with flows auto, after the integral's floor was 0 again, "
                 "before p's N was bounded by the count"),
                ("2026-12-06T23:45:00+00:00", "target 20ms autotune flows 4 margin auto",
                 False, "margin auto for 4 flows, after the integral's floor was 0 again"),
                ("2026-12-07T03:00:00+00:00", "target 20ms autotune flows auto margin auto",
                 "operating points", "margin auto with flows auto, while p's N was bounded by "
                 "the count"),
                ("2026-12-07T03:00:00+00:00", "target 20ms autotune flows 16", False,
                 "autotuned for 16 flows, while p's N was bounded by the count"),
                ("2026-12-07T07:20:00+00:00", "target 20ms autotune flows auto",
                 "did not rise above", "flows auto, while p's mean did not rise above "
                 "twice the reference"),
                ("2026-12-07T07:20:00+00:00", "target 20ms autotune flows 4", False,
                 "autotuned for 4 flows, while p's mean did not rise above twice the "
                 "reference"),
                ("2026-12-07T08:00:00+00:00", "target 20ms autotune flows auto margin auto",
                 False, "margin auto with flows auto, after p's mean rose above twice the "
                 "reference up to the flows counted")):
            run(d, "10", 1, date=date, nominal={"aqm": "pi", "aqm_args": aqm_args})
            why = reproduce.campaign.stale(json.load(open(os.path.join(d, "summary.json"))))
            # a string: the change that must be the reason
            check(is_stale in (why or "") if isinstance(is_stale, str) else bool(why) == is_stale,
                  "pi's law: %s: %s" % (what, "stale" if is_stale else "not stale"))
        for date, limit_drops, change, what in (
                ("2026-12-05T14:00:00+00:00", 0, "bounded by the flows counted", "before N "
                 "counted the limit's drops, the limit dropping none"),
                ("2026-12-05T14:00:00+00:00", 2594, "counted the limit", "before N counted "
                 "the limit's drops, the limit dropping 2594"),
                ("2026-12-05T22:00:00+00:00", 2594, "limit's drops add", "after N counted the "
                 "limit's drops, before the N they add rose slower than the loop"),
                ("2026-12-05T22:00:00+00:00", 0, "bounded by the flows counted", "after N "
                 "counted the limit's drops, the limit dropping none"),
                ("2026-12-06T01:00:00+00:00", 0, "from p as well", "while N rose slowly from "
                 "p as well, the limit dropping none"),
                ("2026-12-06T03:00:00+00:00", 2594, "flows counted", "after the N the limit's "
                 "drops add rose slower, before it rose at once up to the flows counted"),
                ("2026-12-06T03:00:00+00:00", 0, "bounded by the flows counted",
                 "the same, the limit dropping none"),
                ("2026-12-06T05:00:00+00:00", 2594, "share averaged", "while the limit's N "
                 "rose at once up to the count, the limit dropping 2594"),
                ("2026-12-06T05:20:00+00:00", 2594, "bounded by the flows counted",
                 "after the limit's, before p's N was bounded by the count"),
                ("2026-12-06T05:20:00+00:00", 0, "bounded by the flows counted",
                 "the same, the limit dropping none"),
                ("2026-12-07T03:00:00+00:00", 2594, "operating points", "while p's N was "
                 "bounded by the count"),
                ("2026-12-07T08:00:00+00:00", 2594, None, "after all")):
            run(d, "10", 1, date=date, results={"leaf_final": {"tail_drops": limit_drops}},
                nominal={"aqm": "pi", "aqm_args": "target 20ms autotune flows auto"})
            why = reproduce.campaign.stale(json.load(open(os.path.join(d, "summary.json"))))
            check(change in why if change else not why,
                  "flows auto: %s: %s" % (what, "stale (%s)" % change if change else "not stale"))
        with open(os.path.join(d, "summary.json"), "w") as f:
            f.write('{"command": [')
        check(not reproduce.campaign.finished(d, args("10")), "a truncated summary: not done")


FAKE_EXPERIMENT = """#!/bin/sh
# stands in for scripts/experiment: says what it got, fails on --fail
echo "args: $* build: ${AQM_NO_BUILD:-}"
[ "$1" != --fail ]
"""


def test_campaign():
    campaign = reproduce.campaign
    real = campaign.EXPERIMENT
    with tempfile.TemporaryDirectory() as d:
        campaign.EXPERIMENT = os.path.join(d, "experiment")
        with open(campaign.EXPERIMENT, "w") as f:
            f.write(FAKE_EXPERIMENT)
        os.chmod(campaign.EXPERIMENT, 0o755)
        tasks = [("sweep/200mbit/pi", ["--ok", "1"]), ("sweep/200mbit/rem", ["--fail"]),
                 ("table/blue", ["--ok", "3"])]
        logs = os.path.join(d, "logs")
        failed = campaign.run_local(tasks, 2, {"PATH": os.environ["PATH"]}, logs)
        check(failed == ["sweep/200mbit/rem"], "--jobs 2: the failing task is named (%s)" % failed)
        with open(os.path.join(logs, "table_blue.log")) as f:
            text = f.read()
        check(text == "args: --ok 3 build: 1\n",
              "--jobs 2: each task's output in its own log, built nothing (%r)" % text)
        plan_dir = campaign.write_plan(tasks, d, {"AQM_KERNEL_ROOT": "/k", "HOME": "/h"})
        with open(os.path.join(plan_dir, "plan.json")) as f:
            plan = json.load(f)
        check(plan["env"] == {"AQM_KERNEL_ROOT": "/k"} and len(plan["tasks"]) == 3,
              "the plan holds the tasks and the kernel root, not the whole environment")
        check(campaign.task_logs(plan_dir)["table/blue"]
              == os.path.join(plan_dir, "logs", "2.log"), "task i logs to logs/i.log")
        status = [campaign.run_task(os.path.join(plan_dir, "plan.json"), i) for i in range(3)]
        check(status == [0, 1, 0], "an array task runs the plan's task of its index (%s)" % status)
    campaign.EXPERIMENT = real


def test_figures():
    """Figures and tables leave out the runs the resume rule would redo."""
    usable = reproduce.figures.usable
    old_checks = {"checks": {"utilisation >= 0.97": True}}
    cubic = {"valid": True, "results": {}, "topology": {"congestion_control": "cubic"},
             "fidelity": old_checks}
    check(not usable(dict(cubic, scale=2)), "figures: CUBIC unscaled at k = 2 left out")
    check(usable(dict(cubic, scale=1)), "figures: CUBIC at k = 1 shown")
    check(usable(dict(cubic, scale=2, fidelity={"checks": {
        "the senders behave at k as at 1": True}})),
        "figures: CUBIC at k = 2 that passed the senders' check shown")


if __name__ == "__main__":
    test_finished()
    test_figures()
    test_campaign()
    raise SystemExit(1 if failures else 0)
