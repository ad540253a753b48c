#!/usr/bin/python3
"""Run one experiment on the scaled dumbbell: fidelity check, then the AQM.

    experiment.py --aqm pi --aqm-args "limit 2500 target 1000 a 1.822e-7 b 1.816e-7" \
        --bandwidth 1000mbit --duration 100s --scale auto --out results/pi-1g

Needs root, Mininet, iperf3, tc (TC_LIB_DIR for our plugins), the qdisc
modules loaded and build/testbed/sampler: scripts/experiment arranges all
that. Every value given is nominal (the study's); with time scale k the
emulated network runs rates / k and delays, start gaps, sampling and the
AQM's time constants * k. The fidelity check (drop-tail with a buffer above
the BDP) must pass or the run is marked invalid and no result is printed.
TSO, GSO and GRO are off (one skb is one packet, as in the study's ns-2
model) unless --offloads on.

Writes into --out: queue.csv.gz (raw samples), flows.csv.gz (per-flow
iperf3 intervals), bins.csv.gz (1 s nominal bins), the same three under
fidelity/, and summary.json; scripts/experiment then draws plots.png and
run.flent.gz from them (testbed/figures.py --runs). Exit status: 0 valid,
1 invalid, 2 error.
"""

import argparse
import copy
import csv
import datetime
import gzip
import hashlib
import io
import json
import math
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import analysis  # noqa: E402
import dumbbell as db  # noqa: E402
import scenario as sc  # noqa: E402

SAMPLER = os.path.join(ROOT, "build", "testbed", "sampler")
SHORTFLOWS = os.path.join(ROOT, "build", "testbed", "shortflows")
SAMPLE_INTERVAL_S = 0.010      # nominal
FLOW_INTERVAL_S = 0.1          # nominal, iperf3 -i
SCALES = (1, 2, 5, 10, 20, 50, 100)
# emulated rate <= single-flow TCP rate / this: one flow needs less CPU
# per packet than four with netem and an ACK per packet. Measured under TCG:
# one flow s1 -> r1 about 470 Mbit/s; four flows at 200 Mbit/s delivered 91%
# (guest CPU 87%, not faithful), at 100 Mbit/s 99.8% (CPU 70%). A k too
# small fails fidelity and auto retries with the next larger k.
CALIBRATION_HEADROOM = 4
MIN_UTILISATION = 0.97
MAX_RTT_ERROR = 0.05
# ACKs per data packet once segments Linux merged in a busy socket's backlog
# (TCPBacklogCoalesce: one ACK for the merged skb) are counted as acknowledged
MIN_ACKS_PER_PKT = 0.97
MAX_DELAYED_ACK_FRACTION = 0.001
BASE_PORT = 5201
PROBE_PORT = 5300
RTT_PROBES = 7

# How each AQM's time-valued parameters scale with k, and their defaults
# (which must be scaled too when the user leaves them out). "time" is
# multiplied by k, "freq" and "rate" divided by k. "gain" is a gain on a
# delay error in seconds (pie's alpha and beta, integers): the error is k
# times larger, so the gain is divided by k, rounded and at least 1.
# "time_ms" is a time tc takes as whole milliseconds, no unit (sfb's).
# "per_cubed_time" is in s^-3 (CUBIC's C, which pi models): divided by k^3,
# to tc's 10^-6 and at least that. Where a value is inexact the change says so.
SCALING = {
    "pi": {"freq": ("freq", "170"), "rtt": ("time", "200ms"), "bandwidth": ("rate", None),
           "target": ("time_or_count", None), "cubic_c": ("per_cubed_time", "0.4")},
    "rem": {"interval": ("time", "2ms"), "bandwidth": ("rate", None)},
    "blue": {"freeze": ("time", "100ms")},
    "ared": {"interval": ("time", "500ms"), "bandwidth": ("rate", None)},
    "red": {"bandwidth": ("rate", None)},
    "pie": {"target": ("time", "15ms"), "tupdate": ("time", "15ms"),
            "alpha": ("gain", "2"), "beta": ("gain", "20")},
    "fq_pie": {"target": ("time", "15ms"), "tupdate": ("time", "15ms"),
               "alpha": ("gain", "2"), "beta": ("gain", "20")},
    "codel": {"target": ("time", "5ms"), "interval": ("time", "100ms"),
              "ce_threshold": ("time", None)},
    "fq_codel": {"target": ("time", "5ms"), "interval": ("time", "100ms"),
                 "ce_threshold": ("time", None)},
    "sfb": {"rehash": ("time_ms", "600000"), "db": ("time_ms", "60000")},
    # RFC 9332's defaults; alpha and beta are in Hz
    "dualpi2": {"target": ("time", "15ms"), "tupdate": ("time", "16ms"),
                "alpha": ("freq", "0.16"), "beta": ("freq", "3.2"),
                "step_thresh": ("time_or_count", "1ms"), "max_rtt": ("time", None),
                "typical_rtt": ("time", None)},
}
# CUBIC for the time-scaled testbed (tools/scaled-cubic): its clock runs
# time_scale times slower than the wall clock
SCALED_CUBIC_KO = os.path.join(ROOT, "build", "senders", platform.release(),
                               "tcp_cubic_scaled.ko")
CUBIC_TIME_SCALE = "/sys/module/tcp_cubic_scaled/parameters/time_scale"
# kinds that mark only when told to: a scenario with ECN adds the word (the
# others mark by default: fq_codel, cake, sfb, dualpi2; pfifo cannot)
ECN_FLAG = {"pi", "rem", "blue", "ared", "red", "pie", "fq_pie", "codel"}
# kinds whose "limit" is in packets: the study's buffer is added if absent
# ared's "avpkt auto": the device MTU plus link header (veth: 1500 + 14)
AUTO_AVPKT_BYTES = 1514
PACKET_LIMIT = {"pfifo", "pi", "rem", "blue", "ared", "pie", "fq_pie", "codel", "fq_codel",
                "sfb", "dualpi2"}

TIME_UNITS = {"s": 1, "sec": 1, "secs": 1, "ms": 1e-3, "msec": 1e-3, "msecs": 1e-3,
              "us": 1e-6, "usec": 1e-6, "usecs": 1e-6, "": 1e-6}
RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12,
              "bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9, "": 1}


def split_unit(text):
    i = len(text)
    while i and not (text[i - 1].isdigit() or text[i - 1] == "."):
        i -= 1
    return float(text[:i]), text[i:].lower()


def parse_time(text):
    """tc's time syntax (a bare number is microseconds) -> seconds."""
    value, unit = split_unit(text)
    return value * TIME_UNITS[unit]


def parse_rate(text):
    """tc's rate syntax (a bare number is bit/s) -> bit/s."""
    value, unit = split_unit(text)
    return value * RATE_UNITS[unit]


def parse_duration(text):
    """100, 100s, 2min -> seconds."""
    if text.endswith("min"):
        return float(text[:-3]) * 60
    return float(text.rstrip("s"))


def scale_aqm_args(kind, args, k, buffer_pkts, link_bps, ecn=False):
    """The emulated tc arguments for nominal `args`, and what changed;
    ecn: the scenario's senders use ECN, so the qdisc marks."""
    words = args.split()
    table = SCALING.get(kind, {})
    changes = {}
    out = []
    i = 0
    while i < len(words):
        word = words[i]
        out.append(word)
        if word in table and i + 1 < len(words) and words[i + 1] != "auto":
            how = table[word][0]
            value = words[i + 1]
            out.append(scaled(how, value, k))
            changes[word] = {"nominal": value, "emulated": out[-1]}
            note_inexact(changes[word], how, value, k)
            i += 1
        i += 1
    for word, (how, default) in table.items():
        if word not in words and default is not None and k != 1:
            out += [word, scaled(how, default, k)]
            changes[word] = {"nominal": default + " (default)", "emulated": out[-1]}
            note_inexact(changes[word], how, default, k)
    if kind == "ared" and k != 1 and value_of(words, "weight", "auto") == "auto":
        # ns-2's automatic weight 1 - exp(-1/C) is per packet, from the link
        # rate in packets/s: the nominal rate's, not the emulated one's
        rate = value_of(words, "bandwidth", "auto")
        rate_bps = parse_rate(rate) if rate != "auto" else link_bps
        avpkt = value_of(words, "avpkt", "auto")
        avpkt_bytes = int(avpkt) if avpkt != "auto" else AUTO_AVPKT_BYTES
        weight = "%.6e" % -math.expm1(-avpkt_bytes * 8 / rate_bps)
        if "weight" in words:
            out[out.index("weight") + 1] = weight
        else:
            out += ["weight", weight]
        changes["weight"] = {"nominal": "auto", "emulated": weight}
    if kind in PACKET_LIMIT and "limit" not in words:
        out[:0] = ["limit", str(buffer_pkts)]
    if ecn and kind in ECN_FLAG and "ecn" not in words and "noecn" not in words:
        out.append("ecn")
        changes["ecn"] = {"nominal": "(the scenario's ECN)", "emulated": "ecn"}
    return " ".join(out), changes


def note_inexact(change, how, value, k):
    if how == "gain" and float(change["emulated"]) != float(value) / k:
        change["inexact"] = "wanted %g, tc takes integers" % (float(value) / k)
    if how == "per_cubed_time" and float(change["emulated"]) != float(value) / k ** 3:
        change["inexact"] = "wanted %g, tc takes multiples of 1e-6" % (float(value) / k ** 3)


def value_of(words, name, default):
    """The word after `name` in a tc argument list."""
    if name in words and words.index(name) + 1 < len(words):
        return words[words.index(name) + 1]
    return default


def scaled(how, value, k):
    """A tc value for time scale k: times * k, rates and frequencies / k;
    "time_or_count" is a time if it has a unit (20ms), else a count (20, 20p)."""
    if how == "time_or_count":
        how = "time" if split_unit(value)[1] in TIME_UNITS and split_unit(value)[1] else None
        if how is None:
            return value
    if how == "gain":
        return str(max(1, round(float(value) / k)))
    if how == "per_cubed_time":
        return "%g" % max(1e-6, round(float(value) / k ** 3, 6))
    if how == "time":
        return db.tc_time(parse_time(value) * k)
    if how == "time_ms":
        return str(round(float(value) * k))
    if how == "freq":
        return "%.6g" % (float(value) / k)
    return "%dbit" % round(parse_rate(value) / k)


T0 = time.monotonic()


def log(msg):
    print("[%4.0f s] %s" % (time.monotonic() - T0, msg), flush=True)


# --- the machine -----------------------------------------------------------


def init_namespace(restore, ccs):
    """Every congestion control the senders use loaded (CUBIC as
    tools/scaled-cubic builds it), the first as the default in the initial
    namespace, before Mininet creates any (new namespaces copy it; a
    non-initial one may not set it: EPERM). Big enough backlog queues."""
    for cc in ccs:
        if cc != "cubic":
            subprocess.run(["modprobe", "tcp_" + cc], capture_output=True)
        elif not os.path.exists(CUBIC_TIME_SCALE):
            res = subprocess.run(["insmod", SCALED_CUBIC_KO], capture_output=True, text=True)
            if res.returncode:
                raise SystemExit("experiment: cannot load %s (make senders): %s"
                                 % (SCALED_CUBIC_KO, res.stderr.strip()))
    for name, value in (("net.ipv4.tcp_congestion_control",
                         sc.kernel_cc(ccs[0]) if ccs else "cubic"),
                        ("net.core.netdev_max_backlog", "100000")):
        path = "/proc/sys/" + name.replace(".", "/")
        with open(path) as f:
            restore[path] = f.read().strip()
        try:
            with open(path, "w") as f:
                f.write(value)
        except OSError as e:
            raise SystemExit("experiment: cannot set %s=%s (%s)" % (name, value, e))


def source_version():
    """The project's commit, "-dirty" when the tree has changes."""
    if os.environ.get("AQM_SOURCE_VERSION"):  # scripts/experiment's (git is slow over 9p)
        return os.environ["AQM_SOURCE_VERSION"]
    res = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                         capture_output=True, text=True)
    return res.stdout.strip() or None


def cpu_times():
    """(busy, total) jiffies of all CPUs, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def softnet_drops():
    """Packets dropped by full per-CPU backlog queues, all CPUs."""
    with open("/proc/net/softnet_stat") as f:
        return sum(int(line.split()[1], 16) for line in f)


def module_info(kind, ccs):
    """What is loaded: /sys/module's version fields where the kernel keeps
    them, and the identity of our .ko (Debian's kernel keeps no srcversion
    for modules without MODULE_VERSION)."""
    info = {}
    kver = platform.release()
    for name in ["sch_" + kind] + ["tcp_" + cc for cc in ccs]:
        d = "/sys/module/" + name
        if not os.path.isdir(d):
            continue
        info[name] = {f: open(os.path.join(d, f)).read().strip()
                      for f in ("srcversion", "version", "taint")
                      if os.path.exists(os.path.join(d, f))}
        ko = os.path.join(ROOT, "build", "kmod", kver, name + ".ko")
        if os.path.exists(ko):
            with open(ko, "rb") as f:
                info[name]["ko_sha256"] = hashlib.sha256(f.read()).hexdigest()
            for field in ("srcversion", "vermagic"):
                res = subprocess.run(["modinfo", "-F", field, ko], capture_output=True, text=True)
                if res.stdout.strip():
                    info[name]["ko_" + field] = res.stdout.strip()
    return info


def calibrate(net):
    """Single-flow TCP rate s1 -> r1 with no shaping or delay, bit/s."""
    r1, s1 = net["r1"], net["s1"]
    server = r1.popen(["iperf3", "-s", "-1", "-p", str(BASE_PORT)],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    out = s1.cmd("iperf3 -c %s -p %d -t 3 -O 1 -J" % (db.receiver_ip(1), BASE_PORT))
    server.wait(timeout=10)
    return json.loads(out)["end"]["sum_received"]["bits_per_second"]


def auto_scale(rate_bps, capacity_bps):
    for k in SCALES:
        if rate_bps / k <= capacity_bps / CALIBRATION_HEADROOM:
            return k
    return SCALES[-1]


# --- one run on the dumbbell --------------------------------------------------

PROBE = """import socket, struct, sys, time
deadline = time.monotonic() + 30
for _ in range(int(sys.argv[3])):
    while True:
        try:
            s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
            break
        except ConnectionRefusedError:  # the listener's python is still starting
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    print(struct.unpack_from("I", info, 68)[0])  # tcpi_rtt, us
    s.close()
    time.sleep(0.05)
"""
LISTEN = """import socket, sys, time
s = socket.socket(); s.bind(("", int(sys.argv[1]))); s.listen(64); time.sleep(3600)
"""


def measure_rtts(net, scen, k):
    """Handshake RTT of each pair on the idle network (SYN -> SYN-ACK as
    the sender's first RTT sample), nominal seconds: the least of
    RTT_PROBES, one pair at a time. A stall of the guest only adds to a
    sample, and probes of other pairs running beside it add their own."""
    pairs = len(scen["pairs"])
    listeners = [net["r%d" % i].popen(["python3", "-c", LISTEN, str(PROBE_PORT)])
                 for i in range(1, pairs + 1)]
    time.sleep(0.5)
    rtts = {}
    for i in range(1, pairs + 1):
        probe = net["s%d" % i].popen(["python3", "-c", PROBE, db.receiver_ip(i),
                                      str(PROBE_PORT), str(RTT_PROBES)],
                                     stdout=subprocess.PIPE, text=True)
        out, _ = probe.communicate(timeout=60)
        samples = [int(x) for x in out.split()]
        measured = min(samples) / 1e6 / k if samples else None
        nominal = sc.rtt_s(scen, i)
        rtts[str(i)] = {"nominal_ms": nominal * 1e3,
                        "measured_ms": measured * 1e3 if measured else None,
                        "error": abs(measured - nominal) / nominal if measured else None}
    for p in listeners:
        p.kill()
        p.wait()
    return rtts


def tc_json(node, dev):
    out = node.cmd("tc -s -j qdisc show dev %s" % dev)
    try:
        return json.loads(out)
    except ValueError:
        return []


def other_queue_drops(net):
    """Drops of every qdisc but the bottleneck's (which must be the only one
    that drops), by node:device:kind."""
    drops = {}
    for node in net.hosts:
        for q in json.loads(node.cmd("tc -s -j qdisc show") or "[]"):
            if q.get("drops") and q.get("dev") != db.BOTTLENECK_DEV:
                drops["%s:%s:%s" % (node.name, q.get("dev"), q["kind"])] = q["drops"]
    return drops


def netem_packets(n2):
    """Packets through the ACK path's netem so far."""
    return sum(q["packets"] for q in tc_json(n2, db.REVERSE_DEV) if q["kind"] == "netem")


# what the receivers count beside TCP: the data packets that want no ACK
# (UDP delivered, to no socket, or dropped: InErrors counts the full
# buffers of RcvbufErrors too; ping requests) and the ping replies that
# cross the ACK path
OTHER_COUNTERS = {"Udp:": ("InDatagrams", "NoPorts", "InErrors"),
                  "Icmp:": ("InEchos", "OutEchoReps")}


def receiver_counters(net, pairs):
    """The receivers' TCP counters that tell how they acknowledge, summed;
    InSegs counts what TCP received, a GSO skb (--offloads on) once. UDP's
    and ICMP's, as "Udp.InDatagrams" and so on."""
    total = {"DelayedACKs": 0, "TCPBacklogCoalesce": 0, "InSegs": 0,
             "TCPBacklogDrop": 0, "TCPRcvQDrop": 0, "TCPZeroWindowDrop": 0,
             "PruneCalled": 0, "TCPOFOQueue": 0, "TCPOFODrop": 0, "InErrs": 0}
    for proto, names in OTHER_COUNTERS.items():
        total.update({proto[:-1] + "." + name: 0 for name in names})
    for i in range(1, pairs + 1):
        lines = [line.split() for line in
                 net["r%d" % i].cmd("cat /proc/net/netstat /proc/net/snmp").splitlines()]
        for names, values in zip(lines[::2], lines[1::2]):
            for name, value in zip(names[1:], values[1:]):
                if names[0] in ("TcpExt:", "Tcp:") and name in total:
                    total[name] += int(value)
                elif name in OTHER_COUNTERS.get(names[0], ()):
                    total[names[0][:-1] + "." + name] += int(value)
    return total


def launches(scen, duration, seed=None):
    """What the traffic starts, in start order: {"pair", "item", "start_s"
    (nominal, after the first launch's time), "length_s", "port",
    "first_flow"}. The scenario's times are fractions of its duration_s,
    kept for a run of another length (the fidelity check's). A seed moves
    each pair's start by up to a start gap (runs of one point differ)."""
    stretch = duration / scen["duration_s"]
    rng = random.Random(seed) if seed is not None else None
    out, port, flow = [], BASE_PORT, 1
    for i, pair in enumerate(scen["pairs"], 1):
        jitter = rng.uniform(0, scen["start_gap_s"]) if rng else 0.0
        for item in pair["traffic"]:
            stop = item["stop_s"] if item["stop_s"] is not None else scen["duration_s"]
            launch = {"pair": i, "item": item, "port": None, "first_flow": None,
                      "start_s": (i - 1) * scen["start_gap_s"] + jitter
                      + item["start_s"] * stretch,
                      "length_s": (stop - item["start_s"]) * stretch}
            if item["type"] != "probe":
                port += 1
                launch["port"] = port
            if item["type"] in ("bulk", "udp"):
                launch["first_flow"] = flow
                flow += item["flows"] if item["type"] == "bulk" else 1
            out.append(launch)
    first = min(x["start_s"] for x in out)
    for x in out:
        x["start_s"] -= first
    return sorted(out, key=lambda x: x["start_s"])


def server_command(launch, k):
    if launch["item"]["type"] == "short":
        return [SHORTFLOWS, "server", "-p", str(launch["port"])]
    return ["iperf3", "-s", "-1", "-J", "-i", "%g" % (FLOW_INTERVAL_S * k),
            "-p", str(launch["port"])]


def short_flow_csv(launch, workdir):
    """Where a short-flow client writes its flows' completion times."""
    return os.path.join(workdir or ".", "short-%d.csv" % launch["port"])


def client_command(launch, k, workdir=None, seed=None):
    item, ip = launch["item"], db.receiver_ip(launch["pair"])
    length = "%g" % (launch["length_s"] * k)
    if item["type"] == "short":
        return [SHORTFLOWS, "client", "-s", ip, "-p", str(launch["port"]), "-t", length,
                "-r", "%g" % (item["rate_per_s"] / k), "-b", str(item["burst"]),
                "-z", ",".join(map(str, item["sizes_bytes"])),
                "-S", str(launch["port"] + 1000 * (seed or 0)),
                "-o", short_flow_csv(launch, workdir)]
    if item["type"] == "probe":
        interval_s = item["interval_ms"] / 1e3 * k
        return ["ping", "-n", "-D", "-i", "%g" % interval_s,
                "-c", str(max(1, int(launch["length_s"] * k / interval_s))), ip]
    cmd = ["iperf3", "-c", ip, "-p", str(launch["port"]), "-t", length,
           "-i", "%g" % (FLOW_INTERVAL_S * k), "-J", "--get-server-output"]
    if item["type"] == "bulk":
        return cmd + ["-C", sc.kernel_cc(item["cc"]), "-P", str(item["flows"]), "-Z"]
    rate = "%dbit" % round(item["rate_mbit"] * 1e6 / k)
    if item["burst_pkts"]:
        rate += "/%d" % item["burst_pkts"]
    return cmd + ["-u", "-b", rate, "-l", str(item["packet_bytes"])]


def probe_samples(out, launch, t0, k, scen):
    """ping's replies as {"t_s", "pair", "rtt_ms", "delay_ms"} (nominal;
    delay: over the pair's propagation RTT), and how many were lost."""
    rows = []
    base_ms = sc.rtt_s(scen, launch["pair"]) * 1e3
    for line in out.splitlines():
        if not line.startswith("[") or " time=" not in line:
            continue
        stamp = float(line[1:line.index("]")])
        rtt_ms = float(line.split(" time=")[1].split()[0]) / k
        rows.append({"t_s": (stamp - t0) / k, "pair": launch["pair"], "rtt_ms": rtt_ms,
                     "delay_ms": rtt_ms - base_ms})
    sent = [line for line in out.splitlines() if "packets transmitted" in line]
    sent = int(sent[0].split()[0]) if sent else len(rows)
    return rows, sent - len(rows)


def run_flows(net, name, leaf, cfg, workdir):
    """Drive the scenario's traffic through `leaf` for cfg.duration nominal
    seconds; return the raw series (nominal time) and the checks' figures."""
    k, pairs, scen = cfg.k, cfg.pairs, cfg.scenario
    duration = cfg.fidelity_duration if name == "fidelity" else cfg.duration
    plan = launches(scen, duration, cfg.seed)
    db.set_leaf(net, leaf)
    n1 = net["n1"]
    # the capacity's steps, each at its time (mnexec: a thread must not
    # share the node's shell with this one)
    schedule = sc.rate_schedule(scen, cfg.rate_bps, duration)
    steps = schedule if isinstance(schedule, list) else []
    for _, bps in steps[:1]:
        db.run(n1, db.shaper_class(db.BOTTLENECK_DEV, bps / k, "change"))
    servers = [net["r%d" % x["pair"]].popen(server_command(x, k), stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE)
               for x in plan if x["port"]]
    time.sleep(1)
    qcsv = os.path.join(workdir, name + "-queue.csv")
    sampler = n1.popen([SAMPLER, "-d", db.BOTTLENECK_DEV, "-H", db.LEAF_HANDLE.rstrip(":"),
                        "-i", str(round(SAMPLE_INTERVAL_S * k * 1e6)), "-t", "100000",
                        "-o", qcsv, "-r"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    soft0 = softnet_drops()
    acks0 = netem_packets(net["n2"])
    rcv0 = receiver_counters(net, pairs)
    cpu0 = cpu_times()
    time.sleep(0.5)
    t_first = time.monotonic()
    clients, starts = [], []  # starts: wall clock (ping's stamps), monotonic
    for x in plan:
        delay = t_first + x["start_s"] * k - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        starts.append((time.time(), time.monotonic()))
        clients.append(net["s%d" % x["pair"]].popen(
            client_command(x, k, workdir, cfg.seed), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True))
    t0_wall, t0 = starts[0]
    # each step in effect once tc has returned: when, for the analysis
    stepped = [None] * len(steps)

    def step(i, bps):
        subprocess.run(["mnexec", "-a", str(n1.pid)]
                       + db.shaper_class(db.BOTTLENECK_DEV, bps / k, "change").split())
        stepped[i] = time.monotonic()
    timers = [threading.Timer(max(0.0, t0 + at * k - time.monotonic()), step, (i, bps))
              for i, (at, bps) in enumerate(steps) if i]
    for timer in timers:
        timer.start()
    wall = duration * k
    ticks = 10
    # the AQM's own view while the traffic runs (leaf_final comes after it,
    # when estimates that follow p, such as pi's flows auto, have decayed)
    leaf_during = []
    for tick in range(1, ticks + 1):
        t_next = t_first + wall * tick / ticks
        while time.monotonic() < t_next and any(c.poll() is None for c in clients):
            time.sleep(min(1, max(0, t_next - time.monotonic())))
        q = [x for x in tc_json(n1, db.BOTTLENECK_DEV) if x.get("handle") == db.LEAF_HANDLE]
        if q and any(c.poll() is None for c in clients):
            leaf_during.append(dict(q[0], t_s=(time.monotonic() - t0) / k))
        log("  %s: %3.0f/%g s nominal (%.0f s wall), queue %s pkts, drops %s"
            % (name, (time.monotonic() - t_first) / k, duration,
               time.monotonic() - t_first, q[0].get("qlen") if q else "?",
               q[0].get("drops") if q else "?"))
    cpu1 = cpu_times()
    for timer in timers:
        timer.join()
    if steps:
        schedule = steps[:1] + [((stepped[i] - t0) / k, bps) for i, (_, bps) in
                                enumerate(steps) if i]
    outputs = []
    for x, c in zip(plan, clients):
        out, err = c.communicate(timeout=60 + 10 * k)
        if c.returncode and not (x["item"]["type"] == "probe" and c.returncode == 1):
            raise RuntimeError("%s failed: %s %s" % (c.args[0], err.strip(), out[-300:]))
        outputs.append(out)
    time.sleep(0.2 * k)
    sampler.terminate()
    _, jitter_json = sampler.communicate(timeout=30)
    for s in servers:
        s.kill()
        s.wait()
    jit = json.loads(jitter_json.strip().splitlines()[-1])
    rcv = {key: value - rcv0[key] for key, value in receiver_counters(net, pairs).items()}
    # the ACK path carries ping's replies too; the data path UDP and pings
    acks = netem_packets(net["n2"]) - acks0 - rcv["Icmp.OutEchoReps"]
    leaf_q = [q for q in tc_json(n1, db.BOTTLENECK_DEV) if q.get("handle") == db.LEAF_HANDLE]
    # tc 6.1 prints classes as text only, even with -j
    shaper = [parse_rate(line.split(" rate ")[1].split()[0])
              for line in n1.cmd("tc class show dev %s" % db.BOTTLENECK_DEV).splitlines()
              if line.startswith("class htb 1:1 ") and " rate " in line]

    samples = analysis.read_csv(qcsv)
    for s in samples:
        s["t_s"] = (jit["start_ns"] + s["t_us"] * 1e3 - t0 * 1e9) / 1e9 / k
    flows, probes, probes_lost, wrong_cc, short = [], [], 0, [], []
    for x, out, (_, start) in zip(plan, outputs, starts):
        item = x["item"]
        if item["type"] == "probe":
            rows, lost = probe_samples(out, x, t0_wall, k, scen)
            probes += rows
            probes_lost += lost
            continue
        if item["type"] == "short":
            began = json.loads(out)["start_ns"] / 1e9
            for row in analysis.read_csv(short_flow_csv(x, workdir)):
                short.append({"pair": x["pair"], "size_bytes": row["size_bytes"],
                              "start_s": (began + row["start_us"] / 1e6 - t0) / k,
                              "fct_ms": row["fct_us"] / 1e3 / k if row["completed"] else None})
            continue
        res = json.loads(out)
        ran = res["end"].get("sender_tcp_congestion")
        if item["type"] == "bulk" and ran != sc.kernel_cc(item["cc"]):
            wrong_cc.append(x["pair"])
            log("  pair %d: asked %s, iperf3 ran %s" % (x["pair"], item["cc"], ran))
        offset = start - t0
        recv = res.get("server_output_json", {}).get("intervals", [])
        streams = item["flows"] if item["type"] == "bulk" else 1
        for iv, riv in zip(res["intervals"], recv + [None] * len(res["intervals"])):
            # the server lists its streams in the client's order
            for j, st in enumerate(iv["streams"][:streams]):
                rs = riv["streams"][j] if riv and j < len(riv["streams"]) else None
                flows.append({"flow": x["first_flow"] + j,
                              "t_s": (offset + st["end"]) / k,
                              "cwnd_pkts": st.get("snd_cwnd", 0) / db.MSS_BYTES,
                              "rtt_ms": st.get("rtt", 0) / 1e3 / k,
                              "retransmits": st.get("retransmits", 0),
                              "goodput_bps": (rs["bits_per_second"] if rs else 0) * k})
    sent_pkts = leaf_q[0]["packets"] if leaf_q else 0
    # TCP's data: what left the bottleneck but UDP's datagrams and pings
    tcp_pkts = sent_pkts - sum(rcv["Udp." + name] for name in OTHER_COUNTERS["Udp:"]) \
        - rcv["Icmp.InEchos"]
    initial = [(s - t0) / k for x, (_, s) in zip(plan, starts)
               if x["item"]["start_s"] == 0 and x["item"]["type"] != "probe"]
    return {"samples": samples, "flows": flows, "probes": probes, "short_flows": short,
            "probes_lost": probes_lost, "jitter": jit,
            "softnet_drops": softnet_drops() - soft0,
            "acks_per_data_pkt": acks / tcp_pkts if tcp_pkts > 0 else None,
            "acking": {"acks": acks, "data_pkts": tcp_pkts,
                       "received_skbs": rcv["InSegs"],
                       "delayed_acks": rcv["DelayedACKs"],
                       "backlog_coalesced_pkts": rcv["TCPBacklogCoalesce"],
                       "receiver_counters": rcv},
            "wrong_cc": wrong_cc, "duration_s": duration,
            # the capacity's steps as asked, and as they took effect
            "rate_schedule_planned": steps or None, "rate_schedule": schedule,
            # the shaper's rate at the end, nominal bit/s
            "shaper_final_bps": shaper[0] * k if shaper else None,
            # the AQM's own view at the end, after the traffic: counters,
            # gains, estimates; and at each tenth of the run while it lasted
            "leaf_final": leaf_q[0] if leaf_q else None,
            "leaf_during": leaf_during,
            "cpu_busy": (cpu1[0] - cpu0[0]) / max(1, cpu1[1] - cpu0[1]),
            # when the traffic present from the start had all started
            "start_offsets_s": sorted(initial) or [0.0]}


def write_series(run, bins, outdir):
    os.makedirs(outdir, exist_ok=True)
    for fname, rows in (("queue.csv.gz", run["samples"]), ("flows.csv.gz", run["flows"]),
                        ("bins.csv.gz", bins), ("probe.csv.gz", run["probes"]),
                        ("short_flows.csv.gz", run["short_flows"])):
        if not rows:
            continue
        # mtime 0: the same series give the same bytes
        with gzip.GzipFile(os.path.join(outdir, fname), "wb", mtime=0) as raw, \
                io.TextIOWrapper(raw, newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


def analyse(run, cfg, warmup):
    rate = run["rate_schedule"]
    bins = analysis.bins(run["samples"], run["flows"], rate, cfg.k)
    # every flow sends from a little after its start (iperf3's handshakes)
    # to a little after start + duration: the window keeps all of them on
    window = (warmup + run["start_offsets_s"][-1], run["duration_s"])
    table = sc.flow_table(cfg.scenario)
    bulk = {f["flow"] for f in table if f["type"] == "bulk"}
    summ = analysis.summary(run["samples"], run["flows"], rate, cfg.k,
                            window, FLOW_INTERVAL_S, fair_flows=bulk)
    summ["flow_table"] = table
    summ["probe"] = analysis.probe_summary(run["probes"], run["probes_lost"], window)
    summ["short_flows"] = analysis.short_flow_summary(run["short_flows"], window)
    summ["sampling_jitter"] = run["jitter"]
    summ["sampling_jitter"]["interval_nominal_ms"] = SAMPLE_INTERVAL_S * 1e3
    return bins, summ


def acks_every_packet(acking, offloads):
    """No delayed ACKs, and an ACK for every data packet but those Linux
    merged in a busy receiver's socket backlog. With offloads on, a data
    "packet" is what the receiver's TCP gets: a GSO skb of several wire
    packets is acknowledged once, and counted once."""
    data = acking["received_skbs"] if offloads == "on" else acking["data_pkts"]
    if not data:
        return False
    return (acking["delayed_acks"] <= MAX_DELAYED_ACK_FRACTION * data
            and (acking["acks"] + acking["backlog_coalesced_pkts"]) / data >= MIN_ACKS_PER_PKT)


def scale_senders(ccs, k):
    """CUBIC's clock set to time scale k; the scale it runs at now (None
    without CUBIC)."""
    if "cubic" not in ccs:
        return None
    with open(CUBIC_TIME_SCALE, "w") as f:
        f.write(str(k))
    with open(CUBIC_TIME_SCALE) as f:
        return int(f.read())


def fidelity_verdict(fid, rtts, offloads):
    checks = {
        "utilisation >= %g" % MIN_UTILISATION:
            (fid.get("utilisation") or 0) >= MIN_UTILISATION,
        "RTT error <= %g" % MAX_RTT_ERROR:
            all(r["error"] is not None and r["error"] <= MAX_RTT_ERROR for r in rtts.values()),
        "only the AQM drops": not fid["other_queue_drops"] and not fid["softnet_drops"],
        "every flow runs the congestion control asked": fid["wrong_cc"] == [],
        "receivers ACK every packet": acks_every_packet(fid["acking"], offloads),
        "the senders behave at k as at 1": not fid.get("unscaled_senders"),
        "guest CPU busy <= %g" % sc.MAX_CPU_BUSY: not sc.cpu_saturated(fid["cpu_busy"]),
    }
    return all(checks.values()), checks


# --- main -------------------------------------------------------------------------


def batch_runs(ap, cfg):
    """The runs to make: --aqm's one into --out, or --batch's list, each
    with the command line that would make it alone (what its summary.json
    records, so that a campaign can tell whether it is done)."""
    if not cfg.batch:
        if not cfg.aqm:
            ap.error("--aqm (or --batch)")
        return [{"aqm": cfg.aqm, "aqm_args": cfg.aqm_args, "seed": cfg.seed, "out": cfg.out,
                 "command": sys.argv}]
    if cfg.aqm or cfg.aqm_args or cfg.seed is not None:
        ap.error("--batch: the runs' --aqm, --aqm-args and --seed are in its file")
    try:
        with open(cfg.batch) as f:
            plan = json.load(f)
    except (OSError, ValueError) as e:
        ap.error("--batch: %s" % e)
    argv = list(sys.argv)
    for option in ("--batch", "--out"):
        i = argv.index(option)
        del argv[i:i + 2]
    root = os.path.realpath(cfg.out)
    runs = []
    for i, run in enumerate(plan if isinstance(plan, list) else [None], 1):
        if (not isinstance(run, dict) or set(run) - {"aqm", "aqm_args", "seed", "out"}
                or not isinstance(run.get("aqm"), str) or not isinstance(run.get("out"), str)):
            ap.error("--batch: run %d: an object with aqm, out, and aqm_args, seed if any" % i)
        out = os.path.join(cfg.out, run["out"])
        if os.path.commonpath([root, os.path.realpath(out)]) != root:
            ap.error("--batch: run %d: %s is not under --out %s" % (i, out, cfg.out))
        aqm_args, seed = run.get("aqm_args", ""), run.get("seed")
        runs.append({"aqm": run["aqm"], "aqm_args": aqm_args, "seed": seed, "out": out,
                     "command": argv + ["--aqm", run["aqm"], "--aqm-args", aqm_args]
                     + (["--seed", str(seed)] if seed is not None else []) + ["--out", out]})
    if not runs:
        ap.error("--batch: no runs")
    return runs


def fidelity_check(net, cfg, summary, workdir):
    """The drop-tail check at cfg.k (auto: the next larger k while it
    fails); its series, for every run's fidelity/."""
    scen = cfg.scenario
    ccs = sc.congestion_controls(scen)
    tries = 3 if cfg.scale == "auto" else 1
    for attempt in range(tries):
        k = cfg.k
        # the runs after it keep k, and with it CUBIC's clock
        cubic_scale = scale_senders(ccs, k)
        # fidelity: drop-tail, buffer above the BDP of the longest RTT
        bdp_pkts = sc.peak_rate_bps(scen, cfg.rate_bps) \
            * max(sc.rtt_s(scen, i) for i in range(1, cfg.pairs + 1)) \
            / 8 / (db.MSS_BYTES + 66)
        fid_leaf = "pfifo limit %d" % (2 * bdp_pkts)
        if cfg.offloads == "on":
            # pfifo counts GSO skbs: the same buffer in bytes instead
            fid_leaf = "bfifo limit %d" % (2 * bdp_pkts * (db.MSS_BYTES + 66))
        db.configure(net, k, fid_leaf, cfg.rate_bps, scen)
        log("experiment: fidelity check at k = %d (%.4g Mbit/s, %g s wall)"
            % (k, cfg.rate_bps / k / 1e6, cfg.fidelity_duration * k))
        rtts = measure_rtts(net, scen, k)
        run = run_flows(net, "fidelity", fid_leaf, cfg, workdir)
        bins, fid = analyse(run, cfg, warmup=0.3 * cfg.fidelity_duration)
        fid.update({"leaf": fid_leaf, "rtts": rtts, "scale": k,
                    "other_queue_drops": other_queue_drops(net),
                    **{key: run[key] for key in ("softnet_drops", "acks_per_data_pkt",
                                                 "acking", "wrong_cc", "cpu_busy")}})
        fid["cubic_time_scale"] = cubic_scale
        fid["unscaled_senders"] = sc.unscaled_senders(ccs, k, cubic_scale)
        fid["valid"], fid["checks"] = fidelity_verdict(fid, rtts, cfg.offloads)
        summary["fidelity"] = fid
        for check, ok in fid["checks"].items():
            log("  %s: %s" % ("ok  " if ok else "FAIL", check))
        for cc, why in fid["unscaled_senders"].items():
            log("  %s" % why)
        unmeasured = [pair for pair, r in rtts.items() if r["error"] is None]
        log("  utilisation %.2f%%, RTT error %s, sampling late p99 %.0f us of %d, "
            "CPU busy %.0f%%"
            % (100 * (fid.get("utilisation") or 0),
               "not measured for pair %s" % ", ".join(unmeasured) if unmeasured
               else "max %.2f%%" % (100 * max(r["error"] for r in rtts.values())),
               fid["sampling_jitter"]["late_p99_us"], fid["sampling_jitter"]["interval_us"],
               100 * fid["cpu_busy"]))
        if fid["valid"] or attempt + 1 == tries:
            break
        # only to a scale where the senders can behave as at k = 1 (a
        # larger k never makes them: their timers run in wall time)
        bigger = [x for x in SCALES if x > k and not sc.unscaled_senders(ccs, x, x)]
        if not bigger:
            log("experiment: no larger k at which the senders behave as at k = 1")
            break
        cfg.k = bigger[0]
        log("experiment: not faithful at k = %d, trying k = %d" % (k, cfg.k))
    return run, bins


def one_run(net, cfg, spec, summary, ccs, warmup, workdir):
    """One qdisc's run on the network the fidelity check has set up."""
    scen, k = cfg.scenario, cfg.k
    cfg.aqm, cfg.aqm_args, cfg.seed = spec["aqm"], spec["aqm_args"], spec["seed"]
    leaf_args, changes = scale_aqm_args(cfg.aqm, cfg.aqm_args, k, cfg.buffer, cfg.rate_bps,
                                        scen["ecn"])
    summary.update({
        "valid": summary["fidelity"]["valid"],
        "scale": k,
        "nominal": {"bandwidth_bps": cfg.rate_bps, "duration_s": cfg.duration,
                    "warmup_s": warmup, "aqm": cfg.aqm, "aqm_args": cfg.aqm_args,
                    "buffer_pkts": cfg.buffer,
                    "rtts_ms": [sc.rtt_s(scen, i) * 1e3 for i in range(1, cfg.pairs + 1)],
                    "start_gap_s": scen["start_gap_s"], "start_jitter_seed": cfg.seed,
                    "sample_interval_s": SAMPLE_INTERVAL_S,
                    "flow_interval_s": FLOW_INTERVAL_S, "rto_min_s": db.RTO_MIN_S},
        "emulated": {"bandwidth_bps": cfg.rate_bps / k, "duration_s": cfg.duration * k,
                     "aqm": "%s %s" % (cfg.aqm, leaf_args), "scaled_parameters": changes,
                     "shaper_burst_s_wall": db.SHAPER_BURST_S,
                     "rto_min_s": db.RTO_MIN_S * k},
        "scenario": scen,
        "topology": {"pairs": cfg.pairs, "bottleneck_delay_s": scen["bottleneck_delay_ms"] / 1e3,
                     "access_rtts_s": [sc.access_rtt_s(scen, i)
                                       for i in range(1, cfg.pairs + 1)],
                     "access_rate_bps": db.ACCESS_RATE_BPS, "window_pkts": db.WINDOW_PKTS,
                     "congestion_control": ",".join(ccs),
                     "flows": len(sc.flow_table(scen)), "ecn": scen["ecn"]},
        "modules": module_info(cfg.aqm, ccs)})
    if not summary["valid"]:
        log("experiment: FIDELITY CHECK FAILED: this machine cannot emulate the network "
            "faithfully at k = %d; results are INVALID" % k)
    model = sc.unscaled_aqm_model(cfg.aqm, leaf_args, k)
    summary["emulated"]["unscaled_model"] = model
    if model:
        summary["valid"] = False
        summary["invalid_reason"] = model
        log("experiment: THE QDISC'S MODEL DOES NOT SCALE: %s; results are INVALID" % model)
    if cfg.no_experiment or not (summary["valid"] or cfg.run_anyway):
        log("experiment: not run%s" % ("" if cfg.no_experiment else " (--run-anyway runs it)"))
        return
    log("experiment: %s %s at k = %d, %g s nominal (%g s wall)"
        % (cfg.aqm, leaf_args, k, cfg.duration, cfg.duration * k))
    run = run_flows(net, "experiment", "%s %s" % (cfg.aqm, leaf_args), cfg, workdir)
    bins, res = analyse(run, cfg, warmup)
    res.update({"other_queue_drops": other_queue_drops(net),
                **{key: run[key] for key in ("softnet_drops", "acks_per_data_pkt",
                                             "acking", "wrong_cc", "start_offsets_s",
                                             "cpu_busy", "leaf_final", "leaf_during",
                                             "rate_schedule",
                                             "rate_schedule_planned",
                                             "shaper_final_bps")}})
    summary["results"] = res
    why = run_not_faithful(res)
    if why:
        summary["valid"] = False
        summary["invalid_reason"] = why
        log("experiment: RUN NOT FAITHFUL: %s; results are INVALID" % why)
    write_series(run, bins, spec["out"])


def run_not_faithful(res):
    """Why the run itself shows the machine fell behind (None if it does
    not): a backlogged link that sent less than its rate, or CPUs too busy
    to carry the run (a link left idle then may be the machine's doing)."""
    busy = res.get("busy_service", {})
    if (busy.get("intervals", 0) >= analysis.MIN_BUSY_INTERVALS
            and busy["ratio"] < MIN_UTILISATION):
        return ("the backlogged bottleneck sent only %.1f%% of its rate during the run "
                "(the machine fell behind)" % (100 * busy["ratio"]))
    return sc.cpu_saturated(res.get("cpu_busy"))


def write_summary(summary, out, wall0):
    summary["wall_time_s"] = time.monotonic() - wall0
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
    report(summary, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--aqm", help="qdisc kind: pi, rem, blue, ared, pfifo, pie...")
    ap.add_argument("--aqm-args", default="", help="its tc arguments, nominal values")
    ap.add_argument("--batch", default=None,
                    help="a JSON list of runs, [{\"aqm\", \"aqm_args\", \"seed\", \"out\"}], "
                    "made one after another on one network after one fidelity check; each "
                    "out lies under --out (relative: from --out)")
    ap.add_argument("--scenario", default="study",
                    help="a scenario's name (testbed/scenarios.py) or a JSON file "
                    "(testbed/scenario.py): pairs, RTTs, traffic (default: the study's)")
    ap.add_argument("--bandwidth", default=None,
                    help="bottleneck rate, nominal (default: the scenario's)")
    ap.add_argument("--duration", default=None,
                    help="run length, nominal (default: the scenario's)")
    ap.add_argument("--warmup", default=None,
                    help="nominal time excluded from the summary (default 10%% of duration)")
    ap.add_argument("--scale", default="auto", help="time scale k, or auto")
    ap.add_argument("--buffer", type=int, default=None,
                    help="limit in packets added when --aqm-args has none "
                    "(default: the scenario's buffer)")
    ap.add_argument("--fidelity-duration", default="10s", help="nominal")
    ap.add_argument("--no-experiment", action="store_true", help="fidelity check only")
    ap.add_argument("--run-anyway", action="store_true",
                    help="run the experiment (marked invalid) after a failed fidelity check")
    ap.add_argument("--offloads", choices=("on", "off"), default="off",
                    help="on: the veth's TSO and GSO, GRO at the routers (GSO skbs reach "
                    "the bottleneck); off (default): one skb is one packet")
    ap.add_argument("--cc", default=None,
                    help="every long flow's congestion control instead of the scenario's "
                    "(the study's: highspeed; cubic, reno...)")
    ap.add_argument("--flows-per-pair", type=int, default=None,
                    help="parallel TCP flows in each long-flow item instead of the "
                    "scenario's (iperf3 -P)")
    ap.add_argument("--seed", type=int, default=None,
                    help="start each pair up to a start gap late, drawn from this seed "
                    "(repeated runs of one point; default: no jitter)")
    ap.add_argument("--tc", default=None,
                    help="the tc to run (default: the system's); a kernel root's DIR/tc "
                    "(tools/kernel-root) knows qdiscs the system's does not, such as dualpi2")
    ap.add_argument("--out", required=True, help="directory for this run (the batch's runs)")
    cfg = ap.parse_args()
    runs = batch_runs(ap, cfg)
    try:
        cfg.scenario = sc.with_senders(sc.load(cfg.scenario), cfg.cc, cfg.flows_per_pair)
    except sc.ScenarioError as e:
        ap.error("--scenario: %s" % e)
    scen = cfg.scenario
    cfg.rate_bps = parse_rate(cfg.bandwidth) if cfg.bandwidth else scen["bandwidth_mbit"] * 1e6
    cfg.bandwidth = cfg.bandwidth or "%gmbit" % scen["bandwidth_mbit"]
    cfg.duration = parse_duration(cfg.duration) if cfg.duration else scen["duration_s"]
    cfg.buffer = cfg.buffer or scen["buffer_pkts"]
    ccs = sc.congestion_controls(scen)
    cfg.fidelity_duration = parse_duration(cfg.fidelity_duration)
    warmup = parse_duration(cfg.warmup) if cfg.warmup else 0.1 * cfg.duration
    cfg.pairs = len(scen["pairs"])
    if os.geteuid():
        sys.exit("experiment: needs root (Mininet)")
    for tool in (SAMPLER, SHORTFLOWS):
        if not os.access(tool, os.X_OK):
            sys.exit("experiment: no %s (make -C testbed)" % tool)

    from mininet.log import setLogLevel
    from mininet.net import Mininet
    setLogLevel("warning")
    wall0 = time.monotonic()
    restore = {}
    workdir = tempfile.mkdtemp(prefix="aqm-exp.")
    if cfg.tc:
        # first in PATH for us, Mininet and every node's shell
        os.makedirs(os.path.join(workdir, "bin"))
        os.symlink(os.path.abspath(cfg.tc), os.path.join(workdir, "bin", "tc"))
        os.environ["PATH"] = os.path.join(workdir, "bin") + os.pathsep + os.environ["PATH"]
    tc_version = subprocess.run(["tc", "-V"], capture_output=True, text=True).stdout.strip()
    base = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "valid": False, "source": source_version(),
            "offloads": {"mode": cfg.offloads},
            "host": {"kernel": platform.release(), "machine": platform.machine(),
                     "in_vm": os.environ.get("AQM_IN_VM") == "1", "cpus": os.cpu_count(),
                     # the machine it ran on (the VM's host), for campaigns
                     "node": os.environ.get("AQM_HOST", platform.node()),
                     "accel": os.environ.get("AQM_ACCEL", "native"),
                     "tc": tc_version}}
    net, summary, valid = None, None, []
    try:
        init_namespace(restore, ccs)
        net = Mininet(topo=db.Dumbbell(pairs=cfg.pairs), controller=None, autoSetMacs=True)
        net.start()
        db.set_offloads(net, cfg.offloads == "on")
        base["offloads"]["features"] = db.offload_features(net)
        log("experiment: network up, offloads %s" % cfg.offloads)
        if cfg.scale == "auto":
            capacity = calibrate(net)
            cfg.k = auto_scale(sc.peak_rate_bps(scen, cfg.rate_bps), capacity)
            log("experiment: single-flow TCP here %.0f Mbit/s: scale k = %d"
                % (capacity / 1e6, cfg.k))
            base["calibration_single_flow_mbps"] = capacity / 1e6
        else:
            cfg.k = int(cfg.scale)
        fid_run, fid_bins = fidelity_check(net, cfg, base, workdir)
        for i, spec in enumerate(runs, 1):
            run_wall0 = time.monotonic() if i > 1 else wall0
            summary = copy.deepcopy(base)
            summary["command"] = spec["command"]
            if cfg.batch:
                summary["batch"] = {"index": i, "runs": len(runs), "plan": cfg.batch}
                log("experiment: batch run %d of %d into %s" % (i, len(runs), spec["out"]))
            write_series(fid_run, fid_bins, os.path.join(spec["out"], "fidelity"))
            one_run(net, cfg, spec, summary, ccs, warmup, workdir)
            write_summary(summary, spec["out"], run_wall0)
            valid.append(summary["valid"])
    except Exception as e:  # the summaries say what went wrong
        base["error"] = "%s: %s" % (type(e).__name__, e)
        log("experiment: error: %s\n%s" % (base["error"], traceback.format_exc()))
    finally:
        if net:
            net.stop()
        for path, value in restore.items():
            with open(path, "w") as f:
                f.write(value)
        shutil.rmtree(workdir, ignore_errors=True)
    if "error" in base:
        # the run that failed keeps what it had; those after it, the error
        for i, spec in enumerate(runs[len(valid):]):
            failed = summary if i == 0 and summary is not None else copy.deepcopy(base)
            failed.update(error=base["error"], command=spec["command"])
            write_summary(failed, spec["out"], wall0)
        return 2
    return 0 if all(valid) else 1


def report(summary, out):
    res = summary.get("results")
    if not summary["valid"]:
        log("experiment: INVALID run (see %s/summary.json: %s)"
            % (out, summary.get("invalid_reason", "fidelity")))
        return
    if not res or "error" in res:
        return
    q, d = res["queue_pkts"], res["queue_delay_ms"]
    log("experiment: valid; utilisation %.2f%%, loss rate %.3g%%, queue mean %.0f pkts "
        "(sd %.0f, p99 %.0f), delay p50 %.2f ms p99 %.2f ms, Jain %.3f, sync %s, "
        "backlogged service %s, held bursts %d"
        % (100 * res["utilisation"], 100 * res["loss_rate"], q["mean"], q["std"], q["p99"],
           d["p50"], d["p99"], res["jain_index"] or 0,
           res["synchronisation"]["all_flows_cut_fraction"], res["busy_service"]["ratio"],
           res["held_bursts"]["events"]))
    log("experiment: %s/summary.json, bins.csv.gz (%.0f s wall)"
        % (out, summary["wall_time_s"]))


if __name__ == "__main__":
    sys.exit(main())
