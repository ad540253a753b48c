"""The study's figures and table from finished runs (scripts/reproduce).

render(out) reads out/table/NAME/ and out/sweep/RATEmbit/NAME/ as
experiment.py left them and writes into out/:
- fig2_utilisation.png, fig3_loss_rate.png, fig4_queue.png: one panel per
  configuration over time, as the study's Fig. 2-4;
- fig5_bandwidth.png: mean utilisation and mean queue against the
  bottleneck rate, two panels, as its Fig. 5;
- table1.csv and table1.md, and the same table between the markers in
  out/README.md when that file has them;
- noise.md from out/repeat/ when repeated runs exist;
- offloads.md (also between its markers in out/README.md) from
  out/offloads/NAME-I, runs with the offloads on, beside the same
  configuration's run with them off (out/autotune/1000mbit/NAME);
- fig_autotune.png and autotune.md (also between its markers in
  out/README.md) from out/autotune/RATEmbit/NAME: utilisation, queue mean
  and standard deviation against the rate, with issue 8's goals (the
  study's PI at a rate without its own autotune run: its Fig. 5 point);
- fig_cubic.png and cubic.md (also between its markers in out/README.md)
  from out/cubic/RATEmbit/FLOWSflows/NAME-I: CUBIC senders, PI, pie and
  dualpi2 at one delay target; mean and range over the runs, issue 23's
  goals;
- beside every run: run.flent.gz (flent_out.py), for Flent, and plots.png
  (run_plots); `figures.py --runs DIR` draws only these (scripts/experiment).
Invalid runs are left out and listed under the table.
"""

import csv
import glob
import gzip
import json
import os
import statistics

import analysis
import campaign
import flent_out
import study

TABLE_BEGIN = "<!-- table1: written by scripts/reproduce -->"
TABLE_END = "<!-- end of table1 -->"
AUTOTUNE_BEGIN = "<!-- autotune: written by scripts/reproduce -->"
AUTOTUNE_END = "<!-- end of autotune -->"
OFFLOADS_BEGIN = "<!-- offloads: written by scripts/reproduce -->"
OFFLOADS_END = "<!-- end of offloads -->"
CUBIC_BEGIN = "<!-- cubic: written by scripts/reproduce -->"
CUBIC_END = "<!-- end of cubic -->"
# the goal for self-tuning PI: utilisation, queue mean and sd against target
GOAL_UTILISATION = 0.97
GOAL_MEAN_ERROR = 0.15
GOAL_SD = 0.25
COLUMNS = (
    # header, summary key path, format, scale
    ("utilisation %", ("utilisation",), "%.1f", 100),
    ("loss rate %", ("loss_rate",), "%.3f", 100),
    ("queue mean (pkts)", ("queue_pkts", "mean"), "%.0f", 1),
    ("queue sd (pkts)", ("queue_pkts", "std"), "%.0f", 1),
    ("delay p99 (ms)", ("queue_delay_ms", "p99"), "%.1f", 1),
    ("Jain", ("jain_index",), "%.3f", 1),
    ("sync", ("synchronisation", "all_flows_cut_fraction"), "%.2f", 1),
    # how fast the emulated link served a backlogged queue (fidelity)
    ("service %", ("busy_service", "ratio"), "%.1f", 100),
)


def load(rundir):
    """summary.json of a run, or None when there is none."""
    try:
        with open(os.path.join(rundir, "summary.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def usable(summary):
    """A valid run with results, not made stale by a later fidelity rule."""
    return bool(summary and summary.get("valid") and "results" in summary
                and "error" not in summary["results"] and not campaign.stale(summary))


def pick(summary, path):
    value = summary["results"]
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def table_runs(out):
    """(name, label, summary or None) for every configuration, in order."""
    return [(name, label, load(os.path.join(out, "table", name)))
            for name, label, *_ in study.ALL]


def save(plt, fig, path):
    """Lay the figure out, write it as PNG and free it; its path."""
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def pyplot():
    os.environ.setdefault("MPLCONFIGDIR", os.path.join(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))), "build", "testbed", "matplotlib"))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def panels(out, runs, fname, ylabel, series, ymax=None, target=None):
    """One panel per usable run: series(rundir) -> (t, y)."""
    plt = pyplot()
    n = len(runs)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 2.2 * rows + 0.6),
                             sharex=True, squeeze=False)
    for ax, (name, label, summ) in zip(axes.flat, runs):
        t, y = series(os.path.join(out, "table", name))
        ax.plot(t, y, linewidth=0.7)
        if target and target(name):
            ax.axhline(target(name), color="grey", linestyle="--", linewidth=0.7)
        ax.set_title("%s: %s" % (label, summ["emulated"]["aqm"].split(" ", 1)[0]), fontsize=9)
        ax.set_ylabel(ylabel, fontsize=8)
        if ymax:
            ax.set_ylim(0, ymax)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)", fontsize=8)
    first = runs[0][2]
    fig.suptitle("%s nominal, %d HighSpeed TCP flows, k = %s, %s"
                 % (rate_text(first["nominal"]["bandwidth_bps"]), first["topology"]["pairs"],
                    "/".join(sorted({str(r[2]["scale"]) for r in runs})),
                    first["host"]["kernel"]), fontsize=10)
    path = save(plt, fig, os.path.join(out, fname))
    return path


def rate_text(bps):
    return "%g Mbit/s" % (bps / 1e6)


def bin_series(key, scale=1):
    def series(rundir):
        rows = analysis.read_csv(os.path.join(rundir, "bins.csv.gz"))
        return [r["t_s"] for r in rows], [(r[key] or 0) * scale for r in rows]
    return series


def queue_series(rundir):
    rows = analysis.read_csv(os.path.join(rundir, "queue.csv.gz"))
    return [r["t_s"] for r in rows], [r["qlen_pkts"] for r in rows]


def table(out, runs):
    header = ["configuration", "qdisc"] + [c[0] for c in COLUMNS] + ["k"]
    rows = []
    for name, label, summ in runs:
        if not usable(summ):
            continue
        row = [label, summ["emulated"]["aqm"].split(" ", 1)[0]]
        for _, path, fmt, scale in COLUMNS:
            value = pick(summ, path)
            if path[0] == "busy_service" and (pick(summ, ("busy_service", "intervals")) or 0) \
                    < analysis.MIN_BUSY_INTERVALS:
                value = None  # too little backlog to judge
            row.append(fmt % (value * scale) if value is not None else "-")
        row.append(str(summ["scale"]))
        rows.append(row)
    with open(os.path.join(out, "table1.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i < 2 else "--:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    missing = [label for name, label, summ in runs if not usable(summ)]
    if missing:
        lines += ["", "Not run yet or not valid: %s." % ", ".join(missing)]
    usable_runs = [r[2] for r in runs if usable(r[2])]
    if usable_runs:
        s = usable_runs[0]
        lines += ["", "%s nominal, %g s per run (first %g s excluded), kernel %s, dates %s to %s."
                  % (rate_text(s["nominal"]["bandwidth_bps"]), s["nominal"]["duration_s"],
                     s["nominal"]["warmup_s"], s["host"]["kernel"],
                     min(r["date"][:10] for r in usable_runs),
                     max(r["date"][:10] for r in usable_runs))]
    text = "\n".join(lines) + "\n"
    path = os.path.join(out, "table1.md")
    with open(path, "w") as f:
        f.write(text)
    into_readme(out, TABLE_BEGIN, TABLE_END, text)
    return path


def into_readme(out, begin, end, text):
    """Replace what is between two markers of out/README.md, if it has them."""
    readme = os.path.join(out, "README.md")
    if not os.path.exists(readme):
        return
    with open(readme) as f:
        doc = f.read()
    if begin in doc and end in doc:
        head, rest = doc.split(begin, 1)
        _, tail = rest.split(end, 1)
        with open(readme, "w") as f:
            f.write(head + begin + "\n" + text + end + tail)


def cubic_dir(out, rate, flows, name, i):
    return os.path.join(out, "cubic", "%dmbit" % rate, "%dflows" % flows, "%s-%d" % (name, i))


def cubic(out):
    """CUBIC senders: each configuration at each rate and flow count, the
    mean of its valid runs and their range, against issue 23's goal (the
    same numbers as issue 8's, for a delay target)."""
    target_ms = study.CUBIC_TARGET_MS
    rows, stale, invalid = [], {}, {}
    for rate in study.CUBIC_RATES_MBIT:
        for flows in study.CUBIC_FLOWS:
            for name, label, *_ in study.CUBIC:
                runs = []
                for i in range(1, 100):
                    summ = load(cubic_dir(out, rate, flows, name, i))
                    if summ is None:
                        break
                    why_stale = campaign.stale(summ)
                    point = "%s, %d Mbit/s, %d flows" % (label, rate, flows)
                    if usable(summ):
                        runs.append(dict(summ["results"], scale=summ.get("scale"),
                                         offloads=summ.get("offloads", {}).get("mode", "off")))
                    elif summ.get("valid") and why_stale:
                        point += ": " + why_stale
                        stale[point] = stale.get(point, 0) + 1
                    elif not summ.get("valid") and "error" not in summ:
                        failed = [c for c, ok in summ.get("fidelity", {})
                                  .get("checks", {}).items() if not ok]
                        why = summ.get("invalid_reason") or (
                            "fidelity check failed: " + ", ".join(failed) if failed else None)
                        if why:
                            invalid.setdefault(point, []).append(why)
                if runs:
                    rows.append((label, rate, flows, runs))
    if not rows:
        return []

    def cell(runs, get, fmt):
        values = [get(r) for r in runs]
        text = fmt % statistics.fmean(values)
        return text + (" (%s-%s)" % (fmt % min(values), fmt % max(values))
                       if len(values) > 1 else "")

    def misses(r):
        d = r["queue_delay_ms"]
        return [what for what, bad in (
            ("utilisation", r["utilisation"] < GOAL_UTILISATION),
            ("mean", abs(d["mean"] - target_ms) > GOAL_MEAN_ERROR * target_ms),
            ("sd", d["std"] > GOAL_SD * target_ms)) if bad]

    def recorded(values, runs):
        """A cell over the runs that recorded the figure, and how many did
        where not all; "-" where none did."""
        return (cell(values, float, "%.1f")
                + (" (%d runs)" % len(values) if len(values) < len(runs) else "")
                if values else "-")

    def own_delay(runs):
        """The qdisc's own delay figure, over the runs that recorded it."""
        return recorded([r["qdisc_delay_ms"]["mean"] for r in runs if r.get("qdisc_delay_ms")],
                        runs)

    def resting(runs):
        """The share of the samples with the qdisc's p at 0, over the runs
        that recorded it."""
        return recorded([100 * r["prob_zero_share"] for r in runs
                         if r.get("prob_zero_share") is not None], runs)

    def flows_read(runs):
        """pi's flows auto: the N its gains were derived for while the
        traffic ran (the median of its snapshots after the warm-up), over
        the runs that recorded it."""
        read = []
        for r in runs:
            during = [q["tuned_flows"] for q in r.get("leaf_during") or []
                      if q.get("tuned_flows") is not None and q["t_s"] >= r["window_s"][0]]
            if during:
                read.append(statistics.median(during))
        return recorded(read, runs)

    lines = ["| configuration | Mbit/s | flows | runs | k | offloads | utilisation % "
             "| delay mean (ms) | delay sd (ms) | delay p99 (ms) | its own delay mean (ms) "
             "| flows read | p at 0 % | loss % | goal met |",
             "|---|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    for label, rate, flows, runs in rows:
        met = sum(not misses(r) for r in runs)
        missed = sorted({m for r in runs for m in misses(r)})
        lines.append("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                     "| %d of %d%s |" % (
            label, rate, flows, len(runs), ", ".join(str(r["scale"]) for r in runs),
            ", ".join(sorted({r["offloads"] for r in runs})),
            cell(runs, lambda r: 100 * r["utilisation"], "%.1f"),
            cell(runs, lambda r: r["queue_delay_ms"]["mean"], "%.1f"),
            cell(runs, lambda r: r["queue_delay_ms"]["std"], "%.1f"),
            cell(runs, lambda r: r["queue_delay_ms"]["p99"], "%.1f"),
            own_delay(runs), flows_read(runs), resting(runs),
            cell(runs, lambda r: 100 * r["loss_rate"], "%.3f"),
            met, len(runs), " (missed: %s)" % ", ".join(missed) if missed else ""))
    text = ("Goal (issue 23): utilisation >= %d%%, mean queueing delay within %d%% of %s, "
            "its standard deviation within %d%% of it, in every run. Each cell: the mean "
            "over the valid runs (min-max); k: each run's time scale. The delay is the "
            "backlog over the link's rate, sampled every 10 ms; its own: the delay the "
            "qdisc itself measured at the same samples (pi: backlog over its rate estimate; pie: the last packet's sojourn; "
            "dualpi2: the classic queue head's wait so far), where recorded. Flows read: "
            "the N pi's flows auto designed for while the traffic ran (its tc -s at each "
            "tenth of the run after the warm-up, the median), where recorded. P at 0: the "
            "share of the samples with the qdisc's drop probability at 0, where recorded.\n\n"
            % (100 * GOAL_UTILISATION, 100 * GOAL_MEAN_ERROR, study.CUBIC_TARGET,
               100 * GOAL_SD) + "\n".join(lines) + "\n")
    if stale:
        text += ("\nNot shown, made before a fidelity rule they fail (stale): %s.\n"
                 % "; ".join("%s (%d run%s)" % (point, n, "s" if n > 1 else "")
                             for point, n in stale.items()))
    if invalid:
        text += ("\nNot shown, not valid (the fidelity check failed, or the run showed "
                 "the machine fell behind): %s.\n"
                 % "; ".join("%s: %s" % (point, "; ".join(why))
                             for point, why in invalid.items()))
    with open(os.path.join(out, "cubic.md"), "w") as f:
        f.write(text)
    into_readme(out, CUBIC_BEGIN, CUBIC_END, text)

    plt = pyplot()
    # the flow counts with runs so far (a campaign may be part way)
    counts = [f for f in study.CUBIC_FLOWS if any(f == flows for _, _, flows, _ in rows)]
    fig, axes = plt.subplots(len(counts), 2, figsize=(11, 4 * len(counts)), squeeze=False)
    for row, flows in zip(axes, counts):
        for name, label, *_ in study.CUBIC:
            pts = [(rate, runs) for lab, rate, f, runs in rows if lab == label and f == flows]
            for ax, get in zip(row, (lambda r: 100 * r["utilisation"],
                                     lambda r: r["queue_delay_ms"]["mean"])):
                means = [statistics.fmean(get(r) for r in runs) for _, runs in pts]
                lows = [m - min(get(r) for r in runs) for m, (_, runs) in zip(means, pts)]
                highs = [max(get(r) for r in runs) - m for m, (_, runs) in zip(means, pts)]
                ax.errorbar([p[0] for p in pts], means, yerr=[lows, highs], marker="o",
                            capsize=3, label=label)
        row[0].axhline(100 * GOAL_UTILISATION, color="grey", linestyle="--", linewidth=0.7)
        row[1].axhspan(target_ms * (1 - GOAL_MEAN_ERROR), target_ms * (1 + GOAL_MEAN_ERROR),
                       color="grey", alpha=0.2)
        for ax, ylabel in zip(row, ("mean utilisation (%)", "mean queueing delay (ms)")):
            ax.set_xscale("log")
            ax.set_xlabel("bottleneck rate (Mbit/s)")
            ax.set_ylabel("%s, %d flows" % (ylabel, flows))
            ax.grid(alpha=0.3)
        row[0].legend(fontsize=8)
    path = save(plt, fig, os.path.join(out, "fig_cubic.png"))
    return [os.path.join(out, "cubic.md"), path]


def sweep_dir(out, name, rate):
    """The sweep's point at the table's rate is the (longer) table run."""
    if rate == study.TABLE_RATE_MBIT:
        return os.path.join(out, "table", name)
    return os.path.join(out, "sweep", "%dmbit" % rate, name)


def sweep(out):
    """Fig. 5 from out/sweep/ (and out/table/ at the table's rate), when any
    sweep run is usable."""
    points = {}
    for name, label, *_ in study.STUDY:
        for rate in study.SWEEP_RATES_MBIT:
            summ = load(sweep_dir(out, name, rate))
            if usable(summ):
                points.setdefault(label, []).append(
                    (rate, 100 * summ["results"]["utilisation"],
                     summ["results"]["queue_pkts"]["mean"], summ["nominal"]["duration_s"],
                     summ["scale"]))
    if all(p[0] == study.TABLE_RATE_MBIT for pts in points.values() for p in pts):
        return []  # the table alone is no sweep
    plt = pyplot()
    fig, (ax_u, ax_q) = plt.subplots(1, 2, figsize=(11, 4))
    for label, pts in points.items():
        ax_u.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax_q.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", label=label)
    ax_u.set_ylabel("mean utilisation (%)")
    ax_q.set_ylabel("mean queue (packets)")
    for ax in (ax_u, ax_q):
        ax.set_xlabel("bottleneck rate (Mbit/s)")
        ax.grid(alpha=0.3)
    ax_u.legend(fontsize=8)
    lengths = sorted({"%g s" % p[3] for pts in points.values() for p in pts
                      if p[0] != study.TABLE_RATE_MBIT})
    fig.suptitle("nominal run length %s; at %d Mbit/s the Table 1 runs" %
                 (", ".join(lengths), study.TABLE_RATE_MBIT), fontsize=9)
    path = save(plt, fig, os.path.join(out, "fig5_bandwidth.png"))
    with open(os.path.join(out, "fig5.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["configuration", "rate_mbit", "utilisation_pct", "queue_mean_pkts",
                    "duration_nominal_s", "scale"])
        for label, pts in points.items():
            w.writerows([label, *p] for p in pts)
    return [path]


def noise(out):
    """Spread of repeated runs of one configuration (out/repeat/NAME-I plus
    out/table/NAME), per table column."""
    base = os.path.join(out, "repeat")
    if not os.path.isdir(base):
        return []
    groups = {}
    for d in sorted(os.listdir(base)):
        summ = load(os.path.join(base, d))
        if usable(summ):
            groups.setdefault(d.rsplit("-", 1)[0], []).append(summ)
    lines = ["| configuration | runs | " + " | ".join(c[0] for c in COLUMNS) + " |",
             "|---|--:|" + "|".join("--:" for _ in COLUMNS) + "|"]
    for name, summs in groups.items():
        first = load(os.path.join(out, "table", name))
        if usable(first):
            summs = [first] + summs
        cells = []
        for _, path, fmt, scale in COLUMNS:
            vals = [pick(s, path) * scale for s in summs if pick(s, path) is not None]
            cells.append("%s ± %s" % (fmt % statistics.fmean(vals),
                                      fmt % statistics.pstdev(vals)) if vals else "-")
        lines.append("| %s | %d | %s |" % (study.config(name)[1], len(summs), " | ".join(cells)))
    path = os.path.join(out, "noise.md")
    with open(path, "w") as f:
        f.write("Mean ± standard deviation over repeated runs of the same command.\n\n"
                + "\n".join(lines) + "\n")
    return [path]


def sawtooth(summ, rate_mbit):
    """analysis.sawtooth_sd_pkts at a run's rate and mean RTT."""
    rtts = summ["nominal"]["rtts_ms"]
    rtt_s = (statistics.mean(rtts) + summ["results"]["queue_delay_ms"]["mean"]) / 1e3
    return analysis.sawtooth_sd_pkts(rate_mbit * 1e6 / (8 * study.WIRE_BYTES), rtt_s, len(rtts))


def autotune(out):
    """Autotuned PI against the study's PI and pie, at each rate."""
    rows = []
    own_runs = 0
    for rate in study.SWEEP_RATES_MBIT:
        for name in study.AUTOTUNE_RUNS:
            summ = load(os.path.join(out, "autotune", "%dmbit" % rate, name))
            own_runs += usable(summ)
            if not usable(summ) and name in (c[0] for c in study.STUDY):
                # the same configuration's Fig. 5 point (shorter but for 1 Gbit/s)
                summ = load(sweep_dir(out, name, rate))
            if usable(summ):
                r = summ["results"]
                rows.append((name, rate, r["utilisation"], r["queue_pkts"]["mean"],
                             r["queue_pkts"]["std"], r["loss_rate"], summ["scale"],
                             sawtooth(summ, rate), summ["nominal"]["duration_s"]))
    if not own_runs:
        return []       # Fig. 5 points alone are no autotune comparison
    target = study.TARGET_PKTS
    lines = ["| configuration | Mbit/s | s | k | utilisation % | queue mean | queue sd "
             "| window-cut sd (model) | loss % | goal |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    for name, rate, util, mean, sd, loss, k, cut_sd, seconds in rows:
        misses = []
        if util < GOAL_UTILISATION:
            misses.append("utilisation")
        if abs(mean - target) > GOAL_MEAN_ERROR * target:
            misses.append("mean")
        if sd > GOAL_SD * target:
            misses.append("sd")
        lines.append("| %s | %d | %.0f | %s | %.1f | %.0f | %.0f | %.0f-%.0f | %.3f | %s |"
                     % (study.config(name)[1], rate, seconds, k, 100 * util, mean, sd,
                        cut_sd[0], cut_sd[1], 100 * loss,
                        "met" if not misses else "missed: " + ", ".join(misses)))
    text = ("Goal (issue 8): utilisation >= %d%%, queue mean within %d%% of %d packets, "
            "queue sd within %d%% of it. s: nominal seconds; a configuration of the study "
            "without its own run here shows its Fig. 5 point.\n\n"
            % (100 * GOAL_UTILISATION, 100 * GOAL_MEAN_ERROR, target, 100 * GOAL_SD)
            + "\n".join(lines) + "\n\n"
            "Window-cut sd: the queue's standard deviation that HighSpeed TCP's "
            "window cuts alone make at the run's rate and mean RTT (propagation plus "
            "the measured mean queueing delay), for cuts evenly interleaved - "
            "independent (analysis.sawtooth_sd_pkts); a controller can remove "
            "the drift of the mean, not this.\n")
    with open(os.path.join(out, "autotune.md"), "w") as f:
        f.write(text)
    into_readme(out, AUTOTUNE_BEGIN, AUTOTUNE_END, text)

    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for name in study.AUTOTUNE_RUNS:
        pts = [r for r in rows if r[0] == name]
        label = study.config(name)[1]
        for ax, col, scale in zip(axes, (2, 3, 4), (100, 1, 1)):
            ax.plot([p[1] for p in pts], [p[col] * scale for p in pts], marker="o", label=label)
    axes[0].axhline(100 * GOAL_UTILISATION, color="grey", linestyle="--", linewidth=0.7)
    axes[1].axhspan(target * (1 - GOAL_MEAN_ERROR), target * (1 + GOAL_MEAN_ERROR),
                    color="grey", alpha=0.2)
    axes[2].axhline(GOAL_SD * target, color="grey", linestyle="--", linewidth=0.7)
    for ax, ylabel in zip(axes, ("mean utilisation (%)", "queue mean (packets)",
                                 "queue sd (packets)")):
        ax.set_xlabel("bottleneck rate (Mbit/s)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    path = save(plt, fig, os.path.join(out, "fig_autotune.png"))
    return [os.path.join(out, "autotune.md"), path]


def gso_skb_size(rundir):
    """Wire packets per skb in a run's fidelity queue (drop-tail, which
    holds skbs as they come): its backlog bytes over its skb count, in
    full-size packets, over the samples with a queue. None without one."""
    path = os.path.join(rundir, "fidelity", "queue.csv.gz")
    try:
        with gzip.open(path, "rt") as f:
            rows = [r for r in csv.DictReader(f) if int(r["qlen_pkts"]) > 0]
    except OSError:
        return None
    skbs = sum(int(r["qlen_pkts"]) for r in rows)
    return sum(int(r["backlog_bytes"]) for r in rows) / skbs / study.WIRE_BYTES if skbs else None


def mean_sd(values, fmt):
    return "%s ± %s" % (fmt % statistics.fmean(values), fmt % statistics.pstdev(values))


def goal_misses(util, mean, sd):
    target = study.TARGET_PKTS
    return ([m for m, bad in (("utilisation", util < GOAL_UTILISATION),
                              ("mean", abs(mean - target) > GOAL_MEAN_ERROR * target),
                              ("sd", sd > GOAL_SD * target)) if bad])


def offloads(out):
    """Runs with the offloads on against the same configuration with them
    off, at 1 Gbit/s: each run, then the mean and spread of the on runs."""
    base = os.path.join(out, "offloads")
    if not os.path.isdir(base):
        return []
    lines = ["| configuration | offloads | run | k | wire pkts per skb (drop-tail) "
             "| utilisation % | queue mean | queue sd | delay p99 ms | loss % | Jain "
             "| rate estimate / link | goal |",
             "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    spread = []
    for name in study.OFFLOADS_RUNS:
        runs = [("off", "autotune/%dmbit/%s" % (study.TABLE_RATE_MBIT, name))]
        runs += [("on", "offloads/" + d) for d in sorted(os.listdir(base))
                 if d.rsplit("-", 1)[0] == name]
        on = []
        for mode, rel in runs:
            summ = load(os.path.join(out, rel))
            if not usable(summ):
                continue
            r = summ["results"]
            link_pps = study.TABLE_RATE_MBIT * 1e6 / summ["scale"] / 8 / study.WIRE_BYTES
            util, mean = r["utilisation"], r["queue_pkts"]["mean"]
            sd = r["queue_pkts"]["std"]
            misses = goal_misses(util, mean, sd)
            gso = gso_skb_size(os.path.join(out, rel))
            lines.append("| %s | %s | %s | %d | %s | %.1f | %.0f | %.0f | %.1f | %.3f | %.3f "
                         "| %.3f | %s |"
                         % (study.config(name)[1], mode, rel, summ["scale"],
                            "%.2f" % gso if gso else "-", 100 * util, mean, sd,
                            r["queue_delay_ms"]["p99"], 100 * r["loss_rate"], r["jain_index"],
                            r["leaf_final"].get("rate_estimate", 0) / link_pps,
                            "met" if not misses else "missed: " + ", ".join(misses)))
            if mode == "on":
                on.append((util, mean, sd, not misses))
        if on:
            util, mean, sd, met = zip(*on)
            spread.append("%s, offloads on, %d runs (mean ± sd over the runs): utilisation "
                          "%s %%, queue mean %s, queue sd %s; goal met in %d of %d"
                          % (study.config(name)[1], len(on), mean_sd([100 * u for u in util],
                                                                     "%.1f"),
                             mean_sd(mean, "%.0f"), mean_sd(sd, "%.0f"), sum(met), len(on)))
    text = ("Goal (issue 8): utilisation >= %d%%, queue mean within %d%% of %d packets, "
            "queue sd within %d%% of it. Wire packets per skb: what the drop-tail queue of "
            "the run's fidelity check held per skb (bytes over skbs, in %d-byte packets): "
            "how large the GSO skbs reaching the bottleneck were; the AQM itself counts "
            "wire packets. Rate estimate / link: the qdisc's dequeue-rate estimate at the "
            "end of the run over the link's rate in full-size packets.\n\n"
            % (100 * GOAL_UTILISATION, 100 * GOAL_MEAN_ERROR, study.TARGET_PKTS,
               100 * GOAL_SD, study.WIRE_BYTES)
            + "\n".join(lines) + "\n\n" + "".join(line + ".\n" for line in spread))
    path = os.path.join(out, "offloads.md")
    with open(path, "w") as f:
        f.write(text)
    into_readme(out, OFFLOADS_BEGIN, OFFLOADS_END, text)
    return [path]


def run_plots(rundir):
    """RUNDIR/plots.png: utilisation, loss rate, queue and every flow's
    window over the run; its path, or None when the run has no bins."""
    summ = load(rundir)
    try:
        bins = analysis.read_csv(os.path.join(rundir, "bins.csv.gz"))
        flows = analysis.read_csv(os.path.join(rundir, "flows.csv.gz"))
    except OSError:
        return None
    if not summ or not bins:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(4, 1, figsize=(9, 10), sharex=True)
    t = [b["t_s"] for b in bins]
    ax[0].plot(t, [100 * (b["utilisation"] or 0) for b in bins])
    ax[0].set_ylabel("utilisation (%)")
    ax[1].plot(t, [100 * (b["loss_rate"] or 0) for b in bins])
    ax[1].set_ylabel("loss rate (%)")
    ax[2].plot(t, [b["qlen_mean_pkts"] for b in bins], label="mean")
    ax[2].plot(t, [b["qlen_max_pkts"] for b in bins], label="max", alpha=0.6)
    ax[2].set_ylabel("queue (packets)")
    ax[2].legend(loc="upper right")
    for flow in sorted({x["flow"] for x in flows}):
        series = [x for x in flows if x["flow"] == flow]
        ax[3].plot([x["t_s"] for x in series], [x["cwnd_pkts"] for x in series],
                   label="flow %d" % flow)
    ax[3].set_ylabel("cwnd (packets)")
    ax[3].set_xlabel("time (s, nominal)")
    ax[3].legend(loc="upper right")
    nominal = summ["nominal"]
    fig.suptitle("%s %s, %s nominal, k = %d%s%s" % (
        nominal["aqm"], nominal["aqm_args"], rate_text(nominal["bandwidth_bps"]),
        summ["scale"], ", offloads on" if summ.get("offloads", {}).get("mode") == "on" else "",
        "" if summ["valid"] else " (INVALID)"))
    return save(plt, fig, os.path.join(rundir, "plots.png"))


# what is drawn from a run's series beside them: on the host, not in the
# guest that made the run (matplotlib alone takes 20 s a run there under TCG)
RUN_FILES = ((flent_out.FILENAME, flent_out.write), ("plots.png", run_plots))


def run_files(out):
    """Each run's own files (RUN_FILES) under out, where one is missing or
    older than the run's summary; the paths written."""
    written = []
    for summary in sorted(glob.glob(os.path.join(out, "**", "summary.json"), recursive=True)):
        rundir = os.path.dirname(summary)
        if os.path.basename(rundir) == "fidelity":
            continue
        for name, write in RUN_FILES:
            path = os.path.join(rundir, name)
            if os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(summary):
                continue
            if write(rundir):
                written.append(path)
    return written


def render(out):
    """Everything there is data for; the paths written."""
    runs = [r for r in table_runs(out) if usable(r[2])]
    written = [table(out, table_runs(out))]
    if runs:
        written.append(panels(out, runs, "fig2_utilisation.png", "utilisation (%)",
                              bin_series("utilisation", 100), ymax=105))
        written.append(panels(out, runs, "fig3_loss_rate.png", "loss rate",
                              bin_series("loss_rate")))
        written.append(panels(out, runs, "fig4_queue.png", "queue (packets)", queue_series,
                              ymax=2600, target=target_of))
    return (written + sweep(out) + noise(out) + autotune(out) + offloads(out) + cubic(out)
            + run_files(out))


def target_of(name):
    """The configured queue target in packets, where there is one."""
    args = study.config(name)[3].split()
    return int(args[args.index("target") + 1]) if "target" in args and name != "pie" else None


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="Each run's plots.png and run.flent.gz under DIR, "
                                 "where missing or older than its summary.json.")
    ap.add_argument("--runs", required=True, metavar="DIR")
    for written in run_files(ap.parse_args().runs):
        print("figures: wrote %s" % written)
