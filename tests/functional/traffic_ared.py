"""ARED under real traffic: TCP and UDP through a 10 Mbit/s htb class with
ared as the leaf. Thresholds are scaled to the rate (10 Mbit/s is 826
packets/s of 1514 bytes) so the average and max_p move within seconds."""

import math
import os
import statistics

import netlab
import offloads
from netlab import Lab, SRC, RTR_IF, set_sysctl, sh

RATE_BPS = 10e6 / 8
SHAPER = ("qdisc add dev %s root handle 1: htb default 1; "
          "class add dev %s parent 1: classid 1:1 htb rate 10mbit burst 12500"
          % (RTR_IF, RTR_IF))
ARED = ("qdisc add dev %s parent 1:1 handle 10: ared limit 300 min 20 max 60"
        % RTR_IF)


def shaped_ared(lab, extra=""):
    for cmd in SHAPER.split("; "):
        lab.tc(cmd)
    lab.tc(ARED + " " + extra)


def drops_add_up(check, name, s):
    check(s["drops"] == s["early_drops"] + s["forced_drops"] + s["tail_drops"],
          "%s: qdisc drops = early + forced + tail (%d = %d + %d + %d)"
          % (name, s["drops"], s["early_drops"], s["forced_drops"], s["tail_drops"]))


def test_adaptive_tcp(check):
    """Sustained TCP load: early drops, and the adaptive loop moves max_p."""
    with Lab() as lab:
        shaped_ared(lab, "adaptive interval 250ms bandwidth 10mbit")
        lab.iperf_server()
        client = lab.iperf_client(10, flows=4)
        during = lab.sample("ared", 10, every=0.5)
        client.wait()
        check(client.returncode == 0, "tcp: iperf3 ran", client.err)
        idle = lab.sample("ared", 2, every=0.5)
        last = during[-1]
        trace = " ".join("%.1f/%.3g" % (s["avg"], s["cur_maxp"]) for s in during)
        check(max(s["avg"] for s in during) > 20,
              "tcp: the average queue rises above min (peak %.1f)"
              % max(s["avg"] for s in during), "avg/maxp: " + trace)
        check(last["early_drops"] > 0, "tcp: early drops counted (%d)" % last["early_drops"])
        check(last["maxp_updates"] > 0 and
              len(set(s["cur_maxp"] for s in during)) > 2,
              "tcp: the adaptive loop moves max_p under load (%d updates, %d values)"
              % (last["maxp_updates"], len(set(s["cur_maxp"] for s in during))),
              "avg/maxp: " + trace)
        check(all(0.0001 <= s["cur_maxp"] <= 0.5 for s in during),
              "tcp: max_p stays within [bottom, 0.5]", "avg/maxp: " + trace)
        check(0 < last["max_qlen"] <= 300, "tcp: largest queue within limit (%d)"
              % last["max_qlen"])
        drops_add_up(check, "tcp", last)
        check(idle[-1]["maxp_updates"] == idle[-2]["maxp_updates"],
              "tcp: the timer stops on an idle queue",
              "updates: %s" % [s["maxp_updates"] for s in idle])
        check(idle[-1]["qlen"] == 0 and idle[-1]["backlog"] == 0,
              "tcp: nothing left queued (qlen %d, backlog %d)"
              % (idle[-1]["qlen"], idle[-1]["backlog"]))


def test_forced_udp(check):
    """An unresponsive overload drives avg past max: forced drops."""
    with Lab() as lab:
        shaped_ared(lab, "nogentle bandwidth 10mbit")
        client = netlab.udp_flood(pps=2700, seconds=4)
        during = lab.sample("ared", 3, every=0.5)
        client.wait()
        s = lab.qdisc("ared")
        peak = max(x["avg"] for x in during)
        check(s["forced_drops"] > 0, "udp: avg above max forces drops (%d)" % s["forced_drops"])
        check(peak >= 59, "udp: the average reached max under load (peak %.1f)" % peak)
        drops_add_up(check, "udp", s)


def test_auto_weight(check):
    """No bandwidth given: C comes from the dequeue rate, w from C. The
    estimate is compared with what the link delivered while backlogged (a
    slow host, a debug kernel above all, cannot always keep the queue
    full), its median over the second half with the run's."""
    with Lab() as lab:
        shaped_ared(lab)
        lab.iperf_server()
        recorded = lab.record(6)
        client = lab.iperf_client(6, udp_rate="20M")
        during = lab.sample("ared", 5, every=0.5)
        out, err = client.communicate()
        rows = recorded()
        check(client.returncode == 0, "estimate: iperf3 ran", err + out[-500:])
        settled = during[len(during) // 2:]
        rate = statistics.median(s["link_rate"] for s in settled)
        served = offloads.backlogged_rate(rows, "sent_bytes", rows[-1]["t_us"] / 2)
        check(served > 0 and abs(rate / served - 1) < offloads.RATE_TOLERANCE,
              "estimate: the dequeue rate estimate is the link's (median %.0f B/s; %.0f "
              "delivered while backlogged; htb rate %.0f)" % (rate, served, RATE_BPS),
              "estimates: %s" % [s["link_rate"] for s in during])
        s = during[-1]
        c = s["link_rate"] / 1514.0
        want = -math.expm1(-1 / c)
        check(abs(s["weight"] / want - 1) < 1e-3,
              "estimate: w = 1 - exp(-1/C) follows the estimate (%.4g, want %.4g)"
              % (s["weight"], want))


def test_estimate_offloads(check):
    """With the offloads on: the estimate is the link's rate, C = rate / avpkt
    counts wire packets, and w follows it."""
    tag = "estimate, offloads"
    with Lab(offloads=True) as lab:
        offloads.shaped(lab, "ared", "limit 300 min 20 max 60")
        recorded = lab.record(5)
        during = offloads.tcp_load(check, lab, "ared", tag, seconds=5, every=0.5)
        rows = recorded()
        # one estimate per 500 ms interval, unsmoothed: a stall of the host
        # under TCG can halve one; the median of the second half cannot
        settled = during[len(during) // 2:]
        rate = statistics.median(s["link_rate"] for s in settled)
        served = offloads.backlogged_rate(rows, "sent_bytes", rows[-1]["t_us"] / 2)
        link = offloads.LINK_MBIT * 1e6 / 8
        check(served > 0 and abs(rate / served - 1) < offloads.RATE_TOLERANCE,
              "%s: the dequeue rate estimate is the link's (median %.0f B/s; %.0f delivered "
              "while backlogged; htb rate %.0f)" % (tag, rate, served, link),
              "estimates: %s" % [s["link_rate"] for s in during])
        s = during[-1]
        c = s["link_rate"] / offloads.WIRE_BYTES
        want = -math.expm1(-1 / c)
        check(abs(s["weight"] / want - 1) < 1e-3,
              "%s: w = 1 - exp(-1/C) for C in wire packets (%.4g, want %.4g)"
              % (tag, s["weight"], want))


def test_ecn(check):
    with Lab() as lab:
        set_sysctl(SRC, "net.ipv4.tcp_ecn", 1)
        shaped_ared(lab, "ecn bandwidth 10mbit")
        lab.iperf_server()
        client = lab.iperf_client(6, flows=4)
        client.wait()
        s = lab.qdisc("ared")
        check(s["ecn_marks"] > 0, "ecn: ECN-capable packets are marked (%d)" % s["ecn_marks"])


def test_unload(check):
    kver = os.environ.get("AQM_KERNEL", os.uname().release)
    ko = os.path.join(os.path.dirname(__file__), "..", "..", "build", "kmod", kver,
                      "sch_ared.ko")
    with Lab() as lab:
        shaped_ared(lab, "adaptive")
        lab.iperf_server()
        client = lab.iperf_client(2)
        client.wait()
        lab.tc("qdisc del dev %s root" % RTR_IF)
    res = sh("rmmod sch_ared", check=False)
    check(res.returncode == 0, "sch_ared unloads after use", res.stderr)
    res = sh("insmod %s" % ko, check=False)
    check(res.returncode == 0, "sch_ared loads again", res.stderr)


def run(check):
    test_adaptive_tcp(check)
    test_forced_udp(check)
    test_auto_weight(check)
    test_estimate_offloads(check)
    test_ecn(check)
    offloads.run(check, "ared", "min 15 max 45 bandwidth %dmbit" % offloads.LINK_MBIT,
                 "limit 300 min 20 max 60 ecn bandwidth %dmbit" % offloads.LINK_MBIT)
    test_unload(check)
