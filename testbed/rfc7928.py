"""The evaluation suite's figures and tables, from the tree scripts/evaluate
writes (OUT/SCENARIO/LABEL/run-I/summary.json and aggregate.json):

- OUT/SCENARIO/delay-goodput.png: RFC 7928 2.7's trade-off, one point per
  valid run (the qdisc's median queueing delay against the flows' summed
  goodput) and, per qdisc with at least two runs, the ellipse of one
  standard deviation around their mean (the axes of the runs' covariance);
  the delay axis is reversed, so that better lies up and to the right;
- OUT/SCENARIO/summary.md: one row per qdisc, mean ± 95% interval;
- OUT/SCENARIO/fidelity-LABEL.md (scripts/evaluate --scales A,B): the same
  point at two time scales, metric by metric, and whether the difference
  of their means lies within the runs' noise (Welch's t-test at 95%).
"""

import glob
import json
import math
import os

import analysis

# (column, metric of aggregate.json)
COLUMNS = (("utilisation %", "utilisation"), ("loss %", "loss rate"),
           ("delay p50 ms", "queue delay p50"), ("delay p99 ms", "queue delay p99"),
           ("probe p99 ms", "probe delay p99"), ("Jain", "Jain's index"),
           ("short FCT p50 ms", "short FCT p50"))


def trade_off(results):
    """One run's point of the delay-goodput figure: the qdisc's median
    queueing delay and the flows' summed goodput."""
    return {"delay_ms": results["queue_delay_ms"]["p50"],
            "goodput_mbps": sum(g for g in results["goodput_mbps"].values() if g)}


def points(scenario_dir):
    """[(label, aggregate, [(delay_ms, goodput_mbps) per valid run])]"""
    out = []
    for path in sorted(glob.glob(os.path.join(scenario_dir, "*", "aggregate.json"))):
        with open(path) as f:
            agg = json.load(f)
        out.append((agg["label"], agg,
                    [(t["delay_ms"], t["goodput_mbps"]) for t in agg["trade_offs"]]))
    return out


def ellipse(xy):
    """Centre, axes (1 sd) and angle (degrees) of the points' covariance."""
    n = len(xy)
    mx, my = sum(x for x, _ in xy) / n, sum(y for _, y in xy) / n
    sxx = sum((x - mx) ** 2 for x, _ in xy) / (n - 1)
    syy = sum((y - my) ** 2 for _, y in xy) / (n - 1)
    sxy = sum((x - mx) * (y - my) for x, y in xy) / (n - 1)
    mean, diff = (sxx + syy) / 2, math.hypot((sxx - syy) / 2, sxy)
    angle = math.degrees(0.5 * math.atan2(2 * sxy, sxx - syy))
    return (mx, my), (2 * math.sqrt(mean + diff), 2 * math.sqrt(max(0.0, mean - diff))), angle


def cell(metric):
    if not metric or metric["mean"] is None:
        return "-"
    if metric["ci95"] is None:
        return "%.3g" % metric["mean"]
    return "%.3g ± %.2g" % (metric["mean"], metric["ci95"])


# what time scaling must preserve: (metric of aggregate.json, unit)
FIDELITY_METRICS = (("utilisation", "%"), ("loss rate", "%"),
                    ("queue delay p50", "ms"), ("queue delay p90", "ms"),
                    ("queue delay p99", "ms"), ("probe delay p50", "ms"),
                    ("probe delay p99", "ms"), ("Jain's index", ""))


def t95(df):
    """Student's t for a two-sided 95% interval, df degrees of freedom
    (the table analysis.mean_ci uses)."""
    return analysis.T95[df - 1] if df <= len(analysis.T95) else 1.96


def welch(a, b):
    """Whether two means ({"n", "mean", "ci95"} of analysis.mean_ci) differ
    by no more than their runs' noise: Welch's t-test at 95%, the standard
    errors recovered from the intervals. (difference, allowed), or None
    where either side has fewer than two runs."""
    if a["mean"] is None or b["mean"] is None or a["ci95"] is None or b["ci95"] is None:
        return None
    se2 = [(m["ci95"] / t95(m["n"] - 1)) ** 2 for m in (a, b)]
    total = sum(se2)
    diff = b["mean"] - a["mean"]
    if total == 0:
        return diff, 0.0
    df = total ** 2 / sum(v ** 2 / (m["n"] - 1) for v, m in zip(se2, (a, b)) if v)
    t = t95(max(1, int(df)))
    return diff, t * math.sqrt(total)


def fidelity(scenario_dir, label, scales):
    """Write SCENARIO/fidelity-LABEL.md from the points LABEL-kA and
    LABEL-kB; its path, or None when either has no aggregate."""
    aggs = []
    for k in scales:
        try:
            with open(os.path.join(scenario_dir, "%s-k%s" % (label, k), "aggregate.json")) as f:
                aggs.append(json.load(f))
        except (OSError, ValueError):
            return None
    a, b = aggs
    lines = ["# %s, %s: k = %s against k = %s" % (
        os.path.basename(os.path.normpath(scenario_dir)), label, scales[0], scales[1]), "",
        "The same nominal point (`%s %s`) at two time scales, %d and %d valid runs. "
        "Mean ± 95%% confidence interval; \"within noise\" when the difference of the "
        "means passes Welch's t-test at 95%% (|difference| at most the allowed); "
        "relative: the difference over the first mean. A metric with almost no "
        "spread fails the test on a difference too small to matter: read both."
        % (a["aqm"], a["aqm_args"], a["valid_runs"], b["valid_runs"]), "",
        "| metric | k = %s | k = %s | difference | relative | allowed | within noise |"
        % tuple(scales), "|---|---|---|---|---|---|---|"]
    for metric, unit in FIDELITY_METRICS:
        ma, mb = a["metrics"].get(metric), b["metrics"].get(metric)
        if not ma or not mb or ma["mean"] is None or mb["mean"] is None:
            continue
        test = welch(ma, mb)
        name = "%s (%s)" % (metric, unit) if unit else metric
        diff = mb["mean"] - ma["mean"]
        relative = "%+.1f%%" % (100 * diff / ma["mean"]) if ma["mean"] else "-"
        if test is None:
            lines.append("| %s | %s | %s | %.3g | %s | - | - |"
                         % (name, cell(ma), cell(mb), diff, relative))
        else:
            lines.append("| %s | %s | %s | %.3g | %s | %.3g | %s |"
                         % (name, cell(ma), cell(mb), diff, relative, test[1],
                            "yes" if abs(diff) <= test[1] else "**no**"))
    path = os.path.join(scenario_dir, "fidelity-%s.md" % label)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


# RFC 7928 4.6: the same AQM over one queue and with flow queueing
FQ_PAIRS = (("codel", "fq_codel"), ("pie", "fq_pie"))
FQ_METRICS = (("utilisation %", "utilisation"), ("delay p99 ms", "queue delay p99"),
              ("probe p99 ms", "probe delay p99"), ("Jain", "Jain's index"))


def fq_comparison(pts):
    """summary.md's lines for RFC 7928 4.6: each single-queue AQM beside its
    flow-queueing form, where the scenario has both."""
    metrics = {label: agg["metrics"] for label, agg, _ in pts}
    pairs = [p for p in FQ_PAIRS if p[0] in metrics and p[1] in metrics]
    if not pairs:
        return []
    lines = ["", "Single queue against flow queueing (RFC 7928 4.6): single vs FQ, "
             "mean ± 95% interval.", "",
             "| AQM | " + " | ".join(c for c, _ in FQ_METRICS) + " |",
             "|---" * (1 + len(FQ_METRICS)) + "|"]
    for single, fq in pairs:
        lines.append("| %s / %s | %s |" % (single, fq, " | ".join(
            "%s vs %s" % (cell(metrics[single].get(m)), cell(metrics[fq].get(m)))
            for _, m in FQ_METRICS)))
    return lines


def render(scenario_dir):
    """Write the scenario's figure and table; their paths."""
    pts = points(scenario_dir)
    if not pts:
        return []
    name = os.path.basename(os.path.normpath(scenario_dir))
    scen = pts[0][1]["scenario"]
    lines = ["# %s" % name, "",
             "%s (RFC 7928 %s), %g Mbit/s nominal, buffer %d packets. Mean ± 95%% "
             "confidence interval over the valid runs (Student's t)."
             % (scen["description"], scen.get("rfc7928") or "-", scen["bandwidth_mbit"],
                scen["buffer_pkts"]), "",
             "| qdisc | arguments | runs | " + " | ".join(c for c, _ in COLUMNS) + " |",
             "|---" * (3 + len(COLUMNS)) + "|"]
    for label, agg, _ in pts:
        m = agg["metrics"]
        lines.append("| %s | `%s` | %d of %d | %s |" % (
            label, agg["aqm"] + (" " + agg["aqm_args"] if agg["aqm_args"] else ""),
            agg["valid_runs"], len(agg["runs"]),
            " | ".join(cell(m.get(metric)) for _, metric in COLUMNS)))
    lines += fq_comparison(pts)
    table = os.path.join(scenario_dir, "summary.md")
    with open(table, "w") as f:
        f.write("\n".join(lines) + "\n")

    os.environ.setdefault("MPLCONFIGDIR", os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "build", "testbed", "matplotlib"))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Ellipse
    fig, ax = plt.subplots(figsize=(8, 6))
    for i, (label, _, runs) in enumerate(pts):
        if not runs:
            continue
        # the suite's 14 qdiscs: 20 colours and 5 markers tell them apart
        colour = plt.get_cmap("tab20")(i % 20)
        ax.scatter([x for x, _ in runs], [y for _, y in runs], color=colour, s=18,
                   marker="os^Dv"[i % 5], label=label)
        if len(runs) >= 2:
            centre, (w, h), angle = ellipse(runs)
            ax.add_patch(Ellipse(centre, w, h, angle=angle, fill=False, color=colour))
    ax.invert_xaxis()
    ax.set_xlabel("queueing delay at the bottleneck, median (ms, nominal)")
    ax.set_ylabel("goodput, all flows (Mbit/s, nominal)")
    ax.set_title("%s: delay against goodput (RFC 7928 2.7)" % name)
    ax.legend(fontsize=7, loc="lower left")
    ax.grid(alpha=0.3)
    figure = os.path.join(scenario_dir, "delay-goodput.png")
    fig.tight_layout()
    fig.savefig(figure, dpi=100)
    plt.close(fig)
    return [table, figure]
