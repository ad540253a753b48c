#!/usr/bin/python3
"""Unit checks of testbed/vm/console-report: a failed guest's first kernel
report is shown with its trace, from the panic's replay of the log where
there is one, and the console's end after it."""

import os
import subprocess
import sys
import tempfile

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "testbed", "vm", "console-report")
failures = 0


def check(ok, name):
    global failures
    print("%s: console-report: %s" % ("PASS" if ok else "FAIL", name))
    failures += not ok


def report(lines):
    with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        return subprocess.run([REPORT, f.name, "3"], capture_output=True,
                              text=True).stdout.splitlines()


lockup = "[ 563.1] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [iperf3:7167]"
console = (["[ 0.1] booting", "[ 1.2] Spectre V2 : WARNING: Unprivileged eBPF is enabled",
            lockup, "[ 590.0] Kernel panic - not syncing: softlockup: hung tasks",
            "[ 0.1] booting", lockup, "[ 563.1] Call Trace:", "[ 563.1]  pi_timer+0x1/0x2 [sch_pi]",
            "[ 563.1]  __hrtimer_run_queues", "[ 590.0] ---[ end Kernel panic ]---"])
out = report(console)
check(out[:4] == ["the first kernel report (console line 6):", lockup, "[ 563.1] Call Trace:",
                  "[ 563.1]  pi_timer+0x1/0x2 [sch_pi]"],
      "the first report from the panic's replay, with its trace, not the advisory before it")
check(out[4] == "the console ended:" and out[-1] == console[-1],
      "then the console's last lines")
out = report(["[ 0.1] booting", "[ 2.0] all fine"])
check(out == ["[ 0.1] booting", "[ 2.0] all fine"], "no report: the console's last lines alone")
sys.exit(1 if failures else 0)
