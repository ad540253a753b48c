"""Lifecycle of each qdisc under traffic, the same for all four kinds:

- every parameter changed, one at a time, while a UDP overload crosses it,
  then the packet ledger: arrivals counted by the qdisc (sent + dropped +
  queued) equal the packets the router received, and what it sent equals
  what the receiver got (independent counts from the interfaces);
- deleted while packets flow, then its module unloaded and loaded again
  (the flow crossing the device's default qdisc meanwhile), then created
  anew and forwarding;
- under mq, one instance per queue of a 4-queue device;
- 100 instances on 100 devices at once, each forwarding.
"""

import json
import os
import subprocess
import time

from netlab import COMMAND_LIMIT_S, RTR_IF, Lab, sh, udp_flood

# One valid change at a time, applied in order to the initial configuration.
INITIAL = {
    "pi": "limit 1000 target 100",
    "rem": "limit 1000 target 100",
    "blue": "limit 1000",
    "ared": "limit 1000 min 100 max 300",
}
CHANGES = {
    "pi": ("limit 500", "target 200", "b 9e-7", "a 1e-6", "freq 100", "ecn", "ecn_ceiling 0.5",
           "ecn_ceiling 1", "noecn", "ecn_ceiling 0.1",
           "autotune", "rtt 50ms", "flows 8", "bandwidth 10mbit", "response highspeed",
           "bandwidth auto", "response reno", "margin 60", "margin 0", "target 20ms",
           "response cubic", "cubic_c 0.05", "flows auto", "cubic_c 0.4", "noautotune",
           "bandwidth 10mbit", "target 100", "bandwidth auto",
           "spacing even", "spacing random",
           "limit 1000"),
    "rem": ("limit 500", "target 200", "gamma 0.01", "phi 1.01", "alpha 0.5",
            "interval 5ms", "inw 0.5", "bandwidth 10mbit", "bandwidth auto", "ecn",
            "ecn_ceiling 0.5", "ecn_ceiling 1", "noecn", "ecn_ceiling 0.1", "limit 1000"),
    "blue": ("limit 500", "threshold 300", "increment 0.01", "decrement 0.001",
             "freeze 10ms", "ecn", "ecn_ceiling 0.5", "ecn_ceiling 1", "noecn",
             "ecn_ceiling 0.1", "threshold limit", "limit 1000"),
    "ared": ("limit 500", "min 50", "max 150", "maxp 0.2", "weight 0.01", "weight auto",
             "nogentle", "gentle", "nowait", "wait", "adaptive", "interval 100ms",
             "target-low 0.3", "target-high 0.7", "noadaptive", "bandwidth 10mbit",
             "bandwidth auto", "avpkt 1000", "bytemode", "nobytemode", "ecn", "noecn",
             "harddrop", "noharddrop", "limit 1000"),
}
FLOOD_PPS = 2000


def link_packets(ns, dev, direction):
    out = sh("ip -s -j link show dev %s" % dev, ns).stdout
    return json.loads(out)[0]["stats64"][direction]["packets"]


def leaf(lab):
    for q in lab.qdiscs():
        if q.get("handle") == "10:":
            return q
    raise KeyError("10:")


def drained(lab, seconds):
    """The leaf once its queue is empty, or as it is after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        q = leaf(lab)
        if q["qlen"] == 0 or time.monotonic() > deadline:
            time.sleep(0.5)  # the last packets out reach the receiver
            return leaf(lab)
        time.sleep(0.25)


def test_changes(kind, check):
    with Lab() as lab:
        lab.tc("qdisc add dev %s root handle 1: htb default 1" % RTR_IF)
        # 2 Mbit/s (173 packets/s of the flood's size): a debug kernel under
        # TCG sends the flood at a few hundred packets/s, still an overload
        lab.tc("class add dev %s parent 1: classid 1:1 htb rate 2mbit burst 3000" % RTR_IF)
        lab.tc("qdisc add dev %s parent 1:1 handle 10: %s %s" % (RTR_IF, kind, INITIAL[kind]))
        rx0 = link_packets(lab.rtr, "veth-in", "rx")
        got0 = link_packets(lab.dst, "eth0", "rx")
        flood = udp_flood(pps=FLOOD_PPS, seconds=4)
        time.sleep(1)
        refused = []
        for change in CHANGES[kind]:
            res = lab.tc("qdisc change dev %s parent 1:1 handle 10: %s %s"
                         % (RTR_IF, kind, change), check=False)
            if res.returncode:
                refused.append("%s: %s" % (change, res.stderr.strip()))
            time.sleep(0.1)
        check(not refused, "every parameter changes under load (%d changes)"
              % len(CHANGES[kind]), "; ".join(refused))
        flood.wait()
        q = drained(lab, seconds=15)  # a full queue of 1000 takes 5.8 s
        received = link_packets(lab.rtr, "veth-in", "rx") - rx0
        delivered = link_packets(lab.dst, "eth0", "rx") - got0
        arrivals = q["packets"] + q["drops"] + q["qlen"]
        check(q["drops"] > 0 and q["qlen"] == 0 and q["backlog"] == 0,
              "overloaded, then drained to empty (drops %d, qlen %d, backlog %d)"
              % (q["drops"], q["qlen"], q["backlog"]))
        check(arrivals == received,
              "ledger: sent + dropped + queued = packets in (%d + %d + %d = %d, router got %d)"
              % (q["packets"], q["drops"], q["qlen"], arrivals, received))
        check(q["packets"] == delivered,
              "ledger: sent = received downstream (%d, receiver got %d)"
              % (q["packets"], delivered))


def test_delete_then_unload(kind, check):
    kver = os.environ.get("AQM_KERNEL", os.uname().release)
    ko = os.path.join(os.path.dirname(__file__), "..", "..", "build", "kmod", kver,
                      "sch_%s.ko" % kind)
    with Lab() as lab:
        lab.tc("qdisc add dev %s root %s" % (RTR_IF, kind))
        flood = udp_flood(pps=FLOOD_PPS, seconds=4)
        time.sleep(1)
        lab.tc("qdisc del dev %s root" % RTR_IF)
        res = sh("rmmod sch_%s" % kind, check=False)
        check(res.returncode == 0, "%s deleted while packets flow, then sch_%s unloaded"
              % (kind, kind), res.stderr)
        res = sh("insmod %s" % ko, check=False)
        check(res.returncode == 0, "sch_%s loaded again while packets flow through the "
              "default qdisc" % kind, res.stderr)
        res = lab.tc("qdisc add dev %s root %s" % (RTR_IF, kind), check=False)
        check(res.returncode == 0, "a new %s created while packets flow" % kind, res.stderr)
        flood.wait()
        before = lab.qdisc(kind)["packets"]
        probe = udp_flood(pps=1000, seconds=0.2)
        sent = int(probe.communicate()[0])
        time.sleep(0.5)
        q = lab.qdisc(kind)
        check(q["packets"] - before >= sent and q["qlen"] == 0,
              "the new instance forwards (%d of %d packets, qlen %d)"
              % (q["packets"] - before, sent, q["qlen"]))


def test_mq(kind, check):
    with Lab() as lab:
        sh("ip link add mq0 numtxqueues 4 type veth peer name mq1 netns %s" % lab.dst, lab.rtr)
        sh("ip addr add 10.201.0.1/24 dev mq0", lab.rtr)
        sh("ip link set mq0 up", lab.rtr)
        sh("ip addr add 10.201.0.2/24 dev mq1", lab.dst)
        sh("ip link set mq1 up", lab.dst)
        sh("tc qdisc add dev mq0 root handle 1: mq", lab.rtr)
        for i in range(1, 5):
            sh("tc qdisc add dev mq0 parent 1:%d %s" % (i, kind), lab.rtr)
        sender = subprocess.run(["ip", "netns", "exec", lab.rtr, "/usr/bin/python3", "-c",
                                 "import socket\ns = socket.socket(socket.AF_INET, "
                                 "socket.SOCK_DGRAM)\n"
                                 "for p in range(400):\n"
                                 "    s.sendto(b'x' * 100, ('10.201.0.2', 9 + p % 16))\n"],
                                capture_output=True, text=True, timeout=COMMAND_LIMIT_S)
        time.sleep(0.5)
        qs = json.loads(sh("tc -s -j qdisc show dev mq0", lab.rtr).stdout)
        leaves = [q for q in qs if q["kind"] == kind]
        sent = sum(q["packets"] for q in leaves)
        check(sender.returncode == 0 and len(leaves) == 4 and sent >= 400,
              "one instance per queue under mq (%d instances sent %d of 400)"
              % (len(leaves), sent), sender.stderr)
        sh("tc qdisc del dev mq0 root", lab.rtr)


def test_many(kind, check, count=100):
    with Lab() as lab:
        batch = "".join("link add d%d type dummy\nlink set d%d up\n"
                        "address add 10.%d.%d.1/24 dev d%d\n"
                        % (i, i, 60 + i // 256, i % 256, i) for i in range(count))
        sh_batch(lab.rtr, "ip", batch)
        res = sh_batch(lab.rtr, "tc", "".join("qdisc add dev d%d root %s\n" % (i, kind)
                                              for i in range(count)), check=False)
        check(res.returncode == 0, "%d instances on %d devices" % (count, count), res.stderr)
        subprocess.run(["ip", "netns", "exec", lab.rtr, "/usr/bin/python3", "-c",
                        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                        "for i in range(%d):\n"
                        "    for _ in range(5):\n"
                        "        s.sendto(b'x', ('10.%%d.%%d.2' %% (60 + i // 256, i %% 256), 9))\n"
                        % count], check=True, timeout=COMMAND_LIMIT_S)
        qs = json.loads(sh("tc -s -j qdisc show", lab.rtr).stdout)
        busy = [q for q in qs if q["kind"] == kind and q["packets"] >= 5 and q["qlen"] == 0]
        check(len(busy) == count, "each of them forwards (%d of %d)" % (len(busy), count))
        sh_batch(lab.rtr, "ip", "".join("link del d%d\n" % i for i in range(count)))


def sh_batch(ns, tool, lines, check=True):
    """One tool process for many commands (each costs ~0.1 s under TCG)."""
    res = subprocess.run(["ip", "netns", "exec", ns, tool, "-batch", "-"], input=lines,
                         capture_output=True, text=True, timeout=COMMAND_LIMIT_S)
    if check and res.returncode:
        raise RuntimeError("%s -batch: %s" % (tool, res.stderr.strip()))
    return res


def run(kind, check):
    test_changes(kind, check)
    test_delete_then_unload(kind, check)
    test_mq(kind, check)
    test_many(kind, check)

