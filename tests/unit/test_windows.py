#!/usr/bin/python3
"""Unit checks of scripts/windows on a made-up run: windows of the 1 s
bins, the tc -s snapshots, and a bad --width refused. One "PASS: windows:
..." or "FAIL: windows: ..." line per check."""

import csv
import gzip
import json
import os
import subprocess
import tempfile

from checks import Checks, load_script, script_path

windows = load_script("windows")
check = Checks("windows")


def make_run(d):
    """Bins at -1..9 s: utilisation 0.5 before 5 s and 1.0 after, delay
    t ms, one drop a bin, p only from 5 s; two snapshots and the end."""
    with gzip.open(os.path.join(d, "bins.csv.gz"), "wt", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t_s", "utilisation", "delay_mean_ms", "prob_mean", "drops"])
        for t in range(-1, 10):
            w.writerow([float(t), 0.5 if t < 5 else 1.0, float(t), "" if t < 5 else 1e-3, 1])
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"date": "2026-12-05T00:00:00+00:00", "scale": 2, "valid": True,
                   "results": {"leaf_during": [{"t_s": 3.0, "tuned_flows": 4.2,
                                                "tail_drops": 7, "prob": 0.001},
                                               {"t_s": 6.0, "early_drops": 2}],
                               "leaf_final": {"tail_drops": 9}}}, f)


with tempfile.TemporaryDirectory() as d:
    make_run(d)
    rows = windows.windows(windows.read_bins(d), 5, 0, None)
    check([r["from_s"] for r in rows] == [0, 5], "5 s windows from 0: two, the bin at -1 s left out")
    check(rows[0]["utilisation"] == 0.5 and rows[1]["utilisation"] == 1.0
          and rows[0]["delay_mean_ms"] == 2.0 and rows[1]["delay_max_of_means_ms"] == 9.0
          and rows[0]["drops"] == 5,
          "a window's utilisation and delay are its bins' means, its drops their sum")
    check(rows[0]["prob_mean"] is None and rows[1]["prob_mean"] == 1e-3,
          "a window without a probability has none, not 0")
    rows = windows.windows(windows.read_bins(d), 2, 3, 7)
    check([(r["from_s"], r["drops"]) for r in rows] == [(3, 2), (5, 2)],
          "--from 3 --to 7 in 2 s windows: bins 3-6 only")
    snaps = windows.snapshots(json.load(open(os.path.join(d, "summary.json"))))
    check(snaps == [(3.0, {"N": 4.2, "tail": 7, "p": 0.001}), (6.0, {"early": 2}),
                    (None, {"tail": 9})],
          "the snapshots taken during the traffic, then the end, with what each recorded")
    out = subprocess.run([script_path("windows"), "--width", "5", d], capture_output=True, text=True)
    check(out.returncode == 0 and "     5.0          100.0" in out.stdout
          and "tc -s at 3.0 s: N 4.2, tail 7, p 0.001" in out.stdout
          and "tc -s at the end: tail 9" in out.stdout,
          "the command prints the windows and the snapshots")
    out = subprocess.run([script_path("windows"), "--width", "0", d], capture_output=True, text=True)
    check(out.returncode == 2 and "--width" in out.stderr and not out.stdout,
          "--width 0 is refused with a message that names it, nothing printed")

check.exit()
