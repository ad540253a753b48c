"""The VM runner's kernel log check (testbed/vm/kcheck.sh's klog_check) from
inside a test: every kernel report since the previous check (oops, warning,
KASAN, lockdep, UBSAN, a KCSAN race in our modules, ...) and, on a debug
kernel with kmemleak, a scan for unreferenced objects. In the VM the checks
share one mark (KCHECK_STATE), so each report is shown once."""

import os
import subprocess

KCHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "testbed", "vm", "kcheck.sh")


def check(when):
    """(clean, the report) for the kernel log since the previous check;
    when says what ran meanwhile."""
    # a kmemleak scan on a debug kernel takes a minute or two
    res = subprocess.run(["bash", "-c", '. "$0" && klog_check "$1"', KCHECK, when],
                         capture_output=True, text=True, timeout=900)
    return res.returncode == 0, res.stderr.strip()[-4000:]
