#!/usr/bin/python3
"""Unit checks of tests/functional/run's suite processes: a suite's results
come back, one that hangs or dies fails by name while the others run on,
and two suites of one kind never run at once. The suites here are stand-in
processes (no VM, no qdisc)."""

import importlib.machinery
import importlib.util
import os
import sys
import time
from types import SimpleNamespace

from checks import ROOT, Checks

check = Checks("functional-run")
path = os.path.join(ROOT, "tests", "functional", "run")
loader = importlib.machinery.SourceFileLoader("functional_run", path)
run = importlib.util.module_from_spec(importlib.util.spec_from_loader("functional_run", loader))
loader.exec_module(run)

# what each stand-in suite does: its kind names it
STAND_INS = {
    "passes": 'import json; print(json.dumps({"results": [[True, "a check", ""]], '
              '"seconds": 0.1}))',
    "fails": 'import json; print(json.dumps({"results": [[False, "a check", "why"]], '
             '"seconds": 0.1}))',
    "hangs": "import faulthandler, signal, time\n"
             "faulthandler.register(signal.SIGUSR1)\n"
             "def wait_forever():\n    time.sleep(600)\n"
             "wait_forever()",
    "dies": "import sys; sys.stderr.write('worker broke\\n'); sys.exit(3)",
    # its check's name is when it ran
    "slow": 'import json, time; t = time.time(); time.sleep(1); print(json.dumps('
            '{"results": [[True, "%f %f" % (t, time.time()), ""]], "seconds": 1}))',
}
run.Worker.command = staticmethod(lambda part, kind: [sys.executable, "-c", STAND_INS[kind]])
run.kernel_clean = lambda report, suite: None


class Recorder:
    """run's Reporter, keeping (suite, ok, name, detail) and notes."""

    def __init__(self):
        self.lines = []

    def __call__(self, suite, ok, name, detail=""):
        self.lines.append((suite, ok, name, detail))

    def note(self, suite, ok, name):
        self.lines.append(("note", suite, ok, name))


def suites(kinds, counts=True, limit=3):
    """run_in_workers on stand-ins, KINDS of traffic or (part, kind) pairs:
    (the lines reported, seconds taken)."""
    recorder = Recorder()
    started = time.time()
    pairs = [kind if isinstance(kind, tuple) else ("traffic", kind) for kind in kinds]
    run.run_in_workers(recorder, SimpleNamespace(jobs=2, suite_limit=limit),
                       [(p, kind, counts) for p, kind in pairs])
    return recorder.lines, time.time() - started


def test_results_come_back():
    lines, _ = suites(["passes", "fails"])
    check(sorted(lines) == [("traffic/fails", False, "a check", "why"),
                            ("traffic/passes", True, "a check", "")],
          "each suite's checks are reported under its name (%r)" % lines)


def test_hang_is_named():
    lines, seconds = suites(["hangs", "passes", "passes"], limit=3)
    hung = [line for line in lines if line[0] == "traffic/hangs"]
    check(len(hung) == 1 and not hung[0][1] and hung[0][2] == "ends within 3 s",
          "a suite past the limit fails as 'ends within 3 s' (%r)" % hung)
    check(hung and "wait_forever" in hung[0][3],
          "... its failure shows the stack it waited in (%r)" % (hung[0][3] if hung else ""))
    check(sum(1 for line in lines if line[:3] == ("traffic/passes", True, "a check")) == 2,
          "... and the other suites run to their end")
    check(seconds < 30, "... the run goes on after the kill (%.0f s)" % seconds)


def test_death_is_named():
    lines, _ = suites(["dies"], counts=False)
    check(len(lines) == 1 and lines[0][0] == "traffic/dies" and not lines[0][1]
          and lines[0][2] == "completes (its process exited 3)"
          and "worker broke" in lines[0][3],
          "a suite whose process dies fails, with its stderr, even where checks "
          "are notes (%r)" % lines)


def test_one_kind_at_a_time():
    lines, _ = suites([("traffic", "slow"), ("lifecycle", "slow"), ("traffic", "passes")])
    spans = {line[0]: [float(t) for t in line[2].split()]
             for line in lines if line[0].endswith("/slow")}
    check(len(spans) == 2 and spans["lifecycle/slow"][0] >= spans["traffic/slow"][1],
          "a kind's lifecycle suite starts after its traffic suite has ended (%r)" % spans)
    check(any(line[:2] == ("traffic/passes", True) for line in lines),
          "... and the suite of another kind runs too (%r)" % lines)


def test_command_words():
    words = run.command("/usr/bin/python3 -c \"print('$NET.2', 1)\" $DEV", "aqmt1")
    check(words == ["/usr/bin/python3", "-c", "print('10.9.2.2', 1)", "aqmt1"],
          "a case's command: quoted words kept whole, $DEV and $NET put in (%r)" % words)
    for line in ("tc qdisc show dev $DEV && true", "tc qdisc show | grep pi",
                 "tc qdisc show dev $DEV > /tmp/x", "tc qdisc show; true"):
        try:
            run.command(line, "aqmt0")
            refused = ""
        except ValueError as exc:
            refused = str(exc)
        check("shell syntax" in refused, "a case's command with shell syntax is refused (%r)"
              % line)


test_results_come_back()
test_one_kind_at_a_time()
test_command_words()
test_hang_is_named()
test_death_is_named()
check.exit()
