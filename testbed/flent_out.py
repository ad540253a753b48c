"""A run's series in Flent's data format (RUN/run.flent.gz), so that Flent
(flent -i RUN/run.flent.gz -p upload ...) and its GUI can plot it beside
other Flent results.

The file is the one Flent itself writes for its tcp_nup test (N TCP
uploads): gzipped JSON, format version 4, with metadata, x_values (the
run's 1 s bins, nominal seconds from the first flow's start), results (one
list per series, None where a bin has no value) and raw_values. The flows
are "TCP upload::I" in Mbit/s with their sum and average; the bottleneck
queue is there too, as series Flent's own plots do not draw but its
metadata and any custom plot can use: "Queueing delay (ms)", "Queue
(packets)", "Utilisation (%)", "Loss rate (%)" and the AQM's mean drop
probability. A scenario with a latency probe gives "Ping (ms) ICMP" too,
as in Flent's own tests: the mean round trip of the pings in each bin
(probe.csv.gz, nominal ms). The metadata carries the scenario, the qdisc
and its parameters (nominal and emulated), the time scale k, the
congestion controls, the kernel and the run's validity.
"""

import csv
import datetime
import gzip
import json
import math
import os
import statistics

FORMAT_VERSION = 4        # Flent 2.x's data file format
FILENAME = "run.flent.gz"


def _float(text):
    return float(text) if text not in ("", None) else None


def write(rundir):
    """RUNDIR/run.flent.gz from RUNDIR/summary.json and bins.csv.gz; its
    path, or None when the run has no bins (no experiment ran)."""
    try:
        with open(os.path.join(rundir, "summary.json")) as f:
            summary = json.load(f)
        with gzip.open(os.path.join(rundir, "bins.csv.gz"), "rt") as f:
            bins = [row for row in csv.DictReader(f) if float(row["t_s"]) >= 0]
    except OSError:
        return None
    if not bins:
        return None
    flows = sorted(int(key.rsplit("_", 1)[1]) for key in bins[0] if key.startswith("goodput_mbps_"))
    x_values = [float(b["t_s"]) for b in bins]
    results = {"TCP upload::%d" % f: [_float(b["goodput_mbps_%d" % f]) for b in bins]
               for f in flows}
    per_bin = [[results["TCP upload::%d" % f][i] for f in flows
                if results["TCP upload::%d" % f][i] is not None] for i in range(len(bins))]
    results["TCP upload sum"] = [sum(v) if v else None for v in per_bin]
    results["TCP upload avg"] = [sum(v) / len(v) if v else None for v in per_bin]
    bin_s = x_values[1] - x_values[0] if len(x_values) > 1 else 1.0
    pings, raw_pings = {}, []
    try:
        with gzip.open(os.path.join(rundir, "probe.csv.gz"), "rt") as f:
            for row in csv.DictReader(f):
                t, rtt = float(row["t_s"]), float(row["rtt_ms"])
                pings.setdefault(math.floor(t / bin_s), []).append(rtt)
                raw_pings.append((t, rtt))
    except OSError:
        pass
    if pings:
        results["Ping (ms) ICMP"] = [statistics.fmean(pings[i]) if i in pings else None
                                     for i in (round(x / bin_s) for x in x_values)]
    for name, column, scale in (("Queueing delay (ms)", "delay_mean_ms", 1),
                                ("Queue (packets)", "qlen_mean_pkts", 1),
                                ("Utilisation (%)", "utilisation", 100),
                                ("Loss rate (%)", "loss_rate", 100),
                                ("Drop probability", "prob_mean", 1)):
        values = (_float(b[column]) for b in bins)
        results[name] = [None if v is None else v * scale for v in values]

    start = datetime.datetime.fromisoformat(summary["date"]).astimezone(datetime.timezone.utc)
    t0 = start.timestamp()
    stamp = start.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    nominal = summary.get("nominal", {})
    topology = summary.get("topology", {})
    metadata = {
        "NAME": "tcp_nup",
        "TITLE": "%s %s, %g Mbit/s nominal, k = %s" % (
            nominal.get("aqm", "?"), nominal.get("aqm_args", ""),
            nominal.get("bandwidth_bps", 0) / 1e6, summary.get("scale")),
        "TIME": stamp,
        "T0": stamp,
        "LENGTH": nominal.get("duration_s"),
        "TOTAL_LENGTH": x_values[-1],
        "STEP_SIZE": bin_s,
        "TEST_PARAMETERS": {"upload_streams": str(len(flows))},
        "HOST": "classic-aqm dumbbell",
        "LOCAL_HOST": "senders s1-s%d" % topology.get("pairs", 0),
        "HOSTS": ["r%d" % i for i in range(1, topology.get("pairs", 0) + 1)],
        "NOTE": "classic-aqm testbed run (nominal time; %s)"
                % ("valid" if summary.get("valid") else "INVALID: " +
                   summary.get("invalid_reason", "fidelity check failed")),
        "AQM": {"scenario": summary.get("scenario", {}).get("name", "study"),
                "qdisc": nominal.get("aqm"), "parameters": nominal.get("aqm_args"),
                "emulated": summary.get("emulated", {}).get("aqm"),
                "bandwidth_bps": nominal.get("bandwidth_bps"),
                "buffer_pkts": nominal.get("buffer_pkts"),
                "scale": summary.get("scale"), "valid": summary.get("valid"),
                "congestion_control": topology.get("congestion_control"),
                "flows": len(flows), "kernel": summary.get("host", {}).get("kernel"),
                "source": summary.get("source"), "date": summary.get("date")},
    }
    raw_values = {name: [{"t": t0 + x, "val": v} for x, v in zip(x_values, series)
                         if v is not None]
                  for name, series in results.items() if name.startswith("TCP upload::")}
    if raw_pings:
        raw_values["Ping (ms) ICMP"] = [{"t": t0 + t, "val": v} for t, v in raw_pings]
    path = os.path.join(rundir, FILENAME)
    # mtime 0: the same run gives the same bytes
    with gzip.GzipFile(path, "wb", mtime=0) as raw:
        raw.write(json.dumps({"version": FORMAT_VERSION, "metadata": metadata,
                              "x_values": x_values, "results": results,
                              "raw_values": raw_values},
                             indent=1, sort_keys=True).encode())
    return path
