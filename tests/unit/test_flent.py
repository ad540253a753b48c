#!/usr/bin/python3
"""The Flent file of a run (testbed/flent_out.py) as Debian's flent reads
it: written from a committed run's data, opened by flent, its plots drawn,
its series read back through flent's CSV output and compared with the
run's bins. One "PASS: flent: ..." or "FAIL: flent: ..." line per check."""

import csv
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "testbed"))
import flent_out  # noqa: E402

RUN = os.path.join(ROOT, "results", "table", "pi")   # 4 HighSpeed flows, 1 Gbit/s
failures = 0


def check(ok, name, detail=""):
    global failures
    print("%s: flent: %s" % ("PASS" if ok else "FAIL", name))
    if not ok and detail:
        print("    " + detail.strip().replace("\n", "\n    ")[-2000:])
    failures += not ok


def flent(*args):
    return subprocess.run(["flent"] + list(args), capture_output=True, text=True)


work = tempfile.mkdtemp(prefix="aqm-flent.")
try:
    for name in ("summary.json", "bins.csv.gz"):
        shutil.copy(os.path.join(RUN, name), work)
    path = flent_out.write(work)
    with open(path, "rb") as f:
        first = f.read()
    flent_out.write(work)
    with open(path, "rb") as f:
        check(f.read() == first, "the same run gives the same file")
    with gzip.open(path, "rt") as f:
        data = json.load(f)
    aqm = data["metadata"]["AQM"]
    check(aqm["qdisc"] == "pi" and aqm["parameters"] == "limit 2500 target 1000 a 1.822e-7 b 1.816e-7"
          and aqm["scale"] == 10 and aqm["valid"] is True,
          "the metadata carries the qdisc, its parameters, the scale and validity "
          "(%s %s, k = %s, valid %s)" % (aqm["qdisc"], aqm["parameters"], aqm["scale"], aqm["valid"]))

    for plot in ("upload", "upload_box", "totals"):
        png = os.path.join(work, plot + ".png")
        res = flent("-i", path, "-p", plot, "-o", png)
        with open(png, "rb") as f:
            ok = res.returncode == 0 and f.read(8) == b"\x89PNG\r\n\x1a\n"
        check(ok, "flent -i run.flent.gz -p %s draws a PNG" % plot, res.stderr)

    res = flent("-i", path, "-p", "upload", "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(res.stdout.split("\n", 1)[1])))
    with gzip.open(os.path.join(RUN, "bins.csv.gz"), "rt") as f:
        bins = [b for b in csv.DictReader(f) if float(b["t_s"]) >= 0]
    worst = 0.0
    for row, b in zip(rows, bins):
        for flow in range(1, 5):
            got, want = row["TCP upload::%d" % flow], b["goodput_mbps_%d" % flow]
            if want:
                worst = max(worst, abs(float(got) - float(want)))
        worst = max(worst, abs(float(row["Queueing delay (ms)"]) - float(b["delay_mean_ms"])))
    check(res.returncode == 0 and len(rows) == len(bins) and worst < 1e-9,
          "flent reads back every bin of the four flows' goodput and the queueing delay "
          "(%d bins, largest difference %.2g)" % (len(rows), worst), res.stderr)

    # a scenario's latency probe: its pings as Flent's ICMP ping series
    with gzip.open(os.path.join(work, "probe.csv.gz"), "wt") as f:
        f.write("t_s,pair,rtt_ms,delay_ms\n")
        for i in range(100):
            f.write("%g,1,%g,%g\n" % (10 + i / 10, 50 + i % 10, 6 + i % 10))
    path = flent_out.write(work)
    png = os.path.join(work, "ping.png")
    res = flent("-i", path, "-p", "ping", "-o", png)
    with open(png, "rb") as f:
        drawn = res.returncode == 0 and f.read(8) == b"\x89PNG\r\n\x1a\n"
    res = flent("-i", path, "-p", "ping", "-f", "csv")
    pings = {round(float(r["Ping (ms) ICMP"]), 6) for r in
             csv.DictReader(io.StringIO(res.stdout.split("\n", 1)[1])) if r["Ping (ms) ICMP"]}
    check(drawn and pings == {54.5}, "a probe's pings: flent -p ping draws them, each 1 s "
          "bin their mean (%s)" % sorted(pings), res.stderr)
finally:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures else 0)
