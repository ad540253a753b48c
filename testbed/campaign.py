"""Running a campaign's experiments: one after another, N at a time, or as
a Slurm job array. A task is one scripts/experiment call with its --out; the
campaign command (scripts/reproduce) decides which tasks are missing, and
finds what each wrote in the same tree whichever way it ran.

Slurm: the plan (every task's arguments) is written beside the results, in
OUT/.campaign/STAMP/plan.json; `sbatch --array=0-(N-1) --wrap` runs this
file once per task, which picks its arguments by SLURM_ARRAY_TASK_ID and
logs to OUT/.campaign/STAMP/logs/INDEX.log. Nothing is built on the compute
nodes: the submitting command builds first (AQM_NO_BUILD=1 in every task)."""

import json
import os
import subprocess
import sys
import time

import scenario as sc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPERIMENT = os.path.join(ROOT, "scripts", "experiment")


def options(argv):
    """An experiment command line as {option: value} (a flag's value is
    True), the paths of this machine aside (--out's directory; --tc, which
    scripts/experiment adds for a kernel root's tc, whose version the
    summary records): the order of options does not matter, and a tree moved
    or cloned elsewhere (another checkout, a cluster's shared filesystem)
    keeps its runs."""
    out, i = {}, 0
    while i < len(argv):
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            out[argv[i]] = argv[i + 1]
            i += 2
        else:
            out[argv[i]] = True
            i += 1
    out.pop("--out", None)
    out.pop("--tc", None)
    return out


def finished(outdir, args):
    """A valid, complete run made with the same experiment arguments, the
    scale and the output's path aside: --scale auto takes a run made at any
    scale that passed its fidelity check, --scale K one that ran at k = K
    (auto's choice too)."""
    try:
        with open(os.path.join(outdir, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return False
    made, asked = options(s.get("command", [])[1:]), options(args)
    if "--scale" in made and asked.get("--scale") in ("auto", str(s.get("scale"))):
        made["--scale"] = asked["--scale"]
    return bool(s.get("valid") and "results" in s and "error" not in s and made == asked
                and not stale(s))


def stale(summary):
    """Why a run made before a later fidelity rule is not valid now (None
    if it is): senders that do not scale at its k (CUBIC unscaled), a
    qdisc whose model of the senders does not, CPUs too busy to carry the
    run, or a qdisc whose law has changed since (autotuned pi)."""
    saturated = sc.cpu_saturated(summary.get("results", {}).get("cpu_busy"))
    if saturated:
        return saturated
    checks = summary.get("fidelity", {}).get("checks", {})
    k = summary.get("scale", 1)
    if "the senders behave at k as at 1" not in checks:
        ccs = summary.get("topology", {}).get("congestion_control", "highspeed").split(",")
        # made with the built-in cubic, its clock unscaled
        if sc.unscaled_senders(ccs, k, 1):
            return "CUBIC unscaled at k > 1"
    nominal, emulated = summary.get("nominal", {}), summary.get("emulated", {})
    # judged on the arguments it ran with where recorded ("KIND ARGS")
    args = emulated.get("aqm", "").partition(" ")[2] or nominal.get("aqm_args", "")
    if "unscaled_model" not in emulated and \
            sc.unscaled_aqm_model(nominal.get("aqm", ""), args, k):
        return "pi's CUBIC model unscaled at k > 1"
    limit_drops = summary.get("results", {}).get("leaf_final", {}).get("tail_drops")
    return sc.superseded_pi_law(nominal.get("aqm", ""), args, summary.get("date"), limit_drops)


def build(tasks, env):
    """Everything the tasks need, built once before any starts: what
    scripts/experiment builds for the first task of each qdisc kind."""
    kinds = {}
    for _, argv in tasks:
        kinds.setdefault(argv[argv.index("--aqm") + 1] if "--aqm" in argv else "", argv)
    for argv in kinds.values():
        subprocess.run([EXPERIMENT] + argv, check=True, env=dict(env, AQM_BUILD_ONLY="1"))


def run_local(tasks, jobs, env, log_dir):
    """Run tasks [(label, argv)], `jobs` at a time. With one job each task's
    output goes to the terminal; with more, to log_dir/LABEL.log. Returns
    the labels of the tasks that exited non-zero."""
    env = dict(env, AQM_NO_BUILD="1")
    failed, running, pending = [], [], list(enumerate(tasks, 1))
    t0 = time.monotonic()
    ended = 0
    while pending or running:
        while pending and len(running) < jobs:
            i, (label, argv) = pending.pop(0)
            print("campaign: [%d/%d] %s (%s)"
                  % (i, len(tasks), label, progress(time.monotonic() - t0, ended, len(tasks))),
                  flush=True)
            out = None
            if jobs > 1:
                os.makedirs(log_dir, exist_ok=True)
                out = open(os.path.join(log_dir, log_name(label)), "w")
            proc = subprocess.Popen([EXPERIMENT] + argv, env=env, stdout=out,
                                    stderr=subprocess.STDOUT if out else None)
            running.append((label, proc, out))
        time.sleep(0.5)
        for entry in list(running):
            label, proc, out = entry
            if proc.poll() is None:
                continue
            running.remove(entry)
            ended += 1
            if out:
                out.close()
            if proc.returncode:
                failed.append(label)
                print("campaign: %s: exit status %d%s" % (
                    label, proc.returncode,
                    "; log %s" % out.name if out else ""), flush=True)
    return failed


def progress(elapsed_s, ended, total):
    """Time so far and, once a task has ended, the time left at the mean
    pace so far."""
    text = "%.0f min elapsed" % (elapsed_s / 60)
    if ended:
        text += ", about %.0f min left" % (elapsed_s / ended * (total - ended) / 60)
    return text


def log_name(label):
    return label.replace("/", "_") + ".log"


def write_plan(tasks, out, env):
    """OUT/.campaign/STAMP/plan.json: the tasks and the environment they
    share (the kernel root). Returns the plan's directory."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    plan_dir = os.path.join(out, ".campaign", stamp)
    os.makedirs(os.path.join(plan_dir, "logs"))
    shared = {k: env[k] for k in ("AQM_KERNEL_ROOT", "AQM_KERNEL", "AQM_EXPERIMENT_TIMEOUT")
              if env.get(k)}
    with open(os.path.join(plan_dir, "plan.json"), "w") as f:
        json.dump({"tasks": [{"label": label, "argv": argv} for label, argv in tasks],
                   "env": shared}, f, indent=1)
    return plan_dir


def submit_slurm(tasks, out, env, sbatch_args=(), throttle=0, wait=False):
    """Submit tasks as one job array. Returns (job id, plan directory); with
    wait, returns once every task has ended (sbatch --wait)."""
    plan_dir = write_plan(tasks, out, env)
    array = "0-%d%s" % (len(tasks) - 1, "%%%d" % throttle if throttle else "")
    cmd = ["sbatch", "--parsable", "--job-name", "aqm-campaign", "--array", array,
           "--output", os.path.join(plan_dir, "logs", "%a.log"),
           "--chdir", ROOT] + list(sbatch_args)
    if wait:
        cmd.append("--wait")
    cmd += ["--wrap", "%s %s %s" % (sys.executable, os.path.abspath(__file__),
                                    os.path.join(plan_dir, "plan.json"))]
    print("campaign: %s" % " ".join(cmd), flush=True)
    res = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
    job = res.stdout.strip().split(";")[0]
    # with --wait, sbatch's status is the array's worst; each run is
    # judged by its own summary afterwards
    if not job:
        raise RuntimeError("sbatch failed (exit status %d)" % res.returncode)
    return job, plan_dir


def task_logs(plan_dir):
    """{label: log path} of a submitted plan."""
    with open(os.path.join(plan_dir, "plan.json")) as f:
        plan = json.load(f)
    return {t["label"]: os.path.join(plan_dir, "logs", "%d.log" % i)
            for i, t in enumerate(plan["tasks"])}


def run_task(plan_path, index):
    """One array task: the plan's task `index`, as scripts/experiment."""
    with open(plan_path) as f:
        plan = json.load(f)
    task = plan["tasks"][index]
    env = dict(os.environ, AQM_NO_BUILD="1", **plan["env"])
    print("campaign task %d: %s on %s" % (index, task["label"], os.uname().nodename),
          flush=True)
    return subprocess.call([EXPERIMENT] + task["argv"], env=env)


if __name__ == "__main__":
    # the array task: campaign.py PLAN [INDEX] (INDEX: SLURM_ARRAY_TASK_ID)
    idx = int(sys.argv[2] if len(sys.argv) > 2 else os.environ["SLURM_ARRAY_TASK_ID"])
    sys.exit(run_task(sys.argv[1], idx))
