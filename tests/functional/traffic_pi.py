"""PI under real traffic: TCP through a 10 Mbit/s htb class with pi as the
leaf. Gains are larger than the study's so the controller acts within a few
seconds of a short test."""

import math
import os
import statistics
import time

import offloads
from netlab import Lab, SRC, RTR_IF, set_sysctl, sh, udp_flood

SHAPER = ("qdisc add dev %s root handle 1: htb default 1; "
          "class add dev %s parent 1: classid 1:1 htb rate 10mbit burst 12500"
          % (RTR_IF, RTR_IF))
PI_ARGS = "limit 400 target 40 a 5e-4 b 4.9e-4"


def shaped_pi(lab, extra="", args=PI_ARGS):
    """pi with ARGS (and EXTRA) as the leaf of the 10 Mbit/s htb class."""
    for cmd in SHAPER.split("; "):
        lab.tc(cmd)
    lab.tc("qdisc add dev %s parent 1:1 handle 10: pi %s %s" % (RTR_IF, args, extra))


def load_then_idle(check, lab, name):
    lab.iperf_server()
    client = lab.iperf_client(6, flows=4)
    during = lab.sample("pi", 6)
    client.wait()
    check(client.returncode == 0, "%s: iperf3 ran" % name, client.err)
    idle = lab.sample("pi", 3, every=0.5)
    return during, idle


def test_drops(check):
    with Lab() as lab:
        shaped_pi(lab)
        during, idle = load_then_idle(check, lab, "drop mode")
        peak = max(s["prob"] for s in during)
        last = during[-1]
        check(peak > 0, "probability rises under load (peak %.4g)" % peak)
        trace = " ".join("%.3g/%d" % (s["prob"], s["qlen"]) for s in during)
        check(last["early_drops"] > 0, "early drops counted (%d)" % last["early_drops"],
              "prob/qlen: " + trace)
        check(last["updates"] > 0, "the controller runs (%d updates)" % last["updates"])
        check(last["ecn_marks"] == 0, "no ECN marks in drop mode")
        check(last["drops"] == last["early_drops"] + last["tail_drops"],
              "qdisc drops = early + tail (%d = %d + %d)"
              % (last["drops"], last["early_drops"], last["tail_drops"]))
        check(0 < last["max_qlen"] <= 400, "largest queue within limit (%d)" % last["max_qlen"])
        check(idle[-1]["prob"] == 0, "probability drains to 0 once idle (%g)" % idle[-1]["prob"])
        check(idle[-1]["updates"] == idle[-2]["updates"],
              "the timer stops on an idle settled queue",
              "updates: %s" % [s["updates"] for s in idle])
        check(idle[-1]["qlen"] == 0 and idle[-1]["backlog"] == 0,
              "nothing left queued (qlen %d, backlog %d)" % (idle[-1]["qlen"], idle[-1]["backlog"]))


def test_ecn(check):
    with Lab() as lab:
        set_sysctl(SRC, "net.ipv4.tcp_ecn", 1)
        shaped_pi(lab, "ecn")
        during, _ = load_then_idle(check, lab, "ecn mode")
        last = during[-1]
        check(last["ecn_marks"] > 0, "ECN-capable packets are marked (%d)" % last["ecn_marks"])
        check(last["early_drops"] <= 2,
              "ECN-capable packets are not dropped early (%d)" % last["early_drops"])


def test_even_spacing(check):
    with Lab() as lab:
        shaped_pi(lab, "spacing even")
        during, _ = load_then_idle(check, lab, "even spacing")
        last = during[-1]
        check(max(s["prob"] for s in during) > 0 and last["early_drops"] > 0,
              "even spacing drops early (%d)" % last["early_drops"])
        check(last["drops"] == last["early_drops"] + last["tail_drops"],
              "qdisc drops = early + tail (%d = %d + %d)"
              % (last["drops"], last["early_drops"], last["tail_drops"]))


def design_a(pps, flows, rtt_s, target_pkts, period_s):
    """Gain a of the PI paper's rules for Reno senders (see kmod/core/pi.h),
    R being the path's round trip plus the target queue's delay."""
    rtt_s += target_pkts / pps
    z = 2 * flows / (rtt_s ** 2 * pps)
    k = z * z * math.sqrt(1 + (z * rtt_s) ** 2) * 2 * flows / (rtt_s * pps ** 2)
    return k * (1 / z + period_s / 2)


def test_autotune(check):
    """Gains from the dequeue rate, re-derived when the link rate changes."""
    with Lab() as lab:
        shaped_pi(lab, args="limit 400 target 40 autotune rtt 20ms flows 4 response reno")
        q = lab.qdisc("pi")
        check(q["gains_source"] == "autotune-pending" and q["gain_a"] == 0,
              "autotune before any traffic: gains 0, waiting for an estimate (%s)"
              % q["gains_source"])
        lab.iperf_server()
        client = lab.iperf_client(5, flows=4)
        during = lab.sample("pi", 5)
        client.wait()
        last = during[-1]
        first_tuned = last["tuned_capacity"]
        pps = 10e6 / 8 / 1514
        # the gains follow the estimate within the 12.5% that re-derives
        # them; how close the estimate is to what the link delivers is
        # autotuned()'s check (one snapshot here can catch a host stall)
        est = last["rate_estimate"]
        check(last["gains_source"] == "autotune-estimate" and
              0 < est <= 1.1 * pps and
              abs(last["tuned_capacity"] / est - 1) <= 0.126,
              "gains derive from the estimated rate (derived at %.0f packets/s, "
              "estimate %.0f, link %.0f)" % (last["tuned_capacity"], est, pps))
        want = design_a(last["tuned_capacity"], 4, 0.020, 40, 1 / 170)
        check(abs(last["gain_a"] / want - 1) < 1e-3,
              "gain a follows the rules (%.4g, rules %.4g)" % (last["gain_a"], want))
        check(max(s["prob"] for s in during) > 0 and last["early_drops"] > 0,
              "the autotuned controller acts (%d early drops)" % last["early_drops"])

        lab.tc("class change dev %s parent 1: classid 1:1 htb rate 20mbit burst 25000"
               % RTR_IF)
        lab.iperf_server(5202)
        client = lab.iperf_client(5, flows=4, port=5202)
        client.wait()
        q = lab.qdisc("pi")
        # htb under TCG delivers somewhat below its rate: the estimate
        # follows what the link does, not what it was told
        check(1.5 * first_tuned < q["tuned_capacity"] <= 2.2 * pps,
              "the link rate doubles: gains re-derived at %.0f packets/s (was %.0f)"
              % (q["tuned_capacity"], first_tuned))

        lab.tc("qdisc change dev %s parent 1:1 handle 10: pi bandwidth 10mbit" % RTR_IF)
        q = lab.qdisc("pi")
        check(q["gains_source"] == "autotune-bandwidth" and
              abs(q["tuned_capacity"] - pps) < 0.01,
              "a configured bandwidth replaces the estimate (%.3f packets/s)"
              % q["tuned_capacity"])


def test_delay_target(check):
    """A delay target: the reference is the delay's worth of the measured
    rate, the delay shown is the queue over that rate, and the law holds
    the queue's delay near the target."""
    with Lab() as lab:
        shaped_pi(lab, args="limit 400 target 50ms a 5e-4 b 4.9e-4")
        q = lab.qdisc("pi")
        check(q["options"].get("target_delay") == 50000 and "target_in_use" not in q and
              "qdelay" not in q,
              "delay target 50 ms: no reference and no delay shown before the rate is known",
              str(q))
        lab.iperf_server()
        client = lab.iperf_client(10, flows=4)
        during = lab.sample("pi", 10)
        client.wait()
        # a loaded host may answer tc only a few times a second
        settled = [s for s in during[len(during) // 3:] if s.get("rate_estimate")]
        check(len(settled) >= 3, "the rate is measured under load (%d of %d samples)"
              % (len(settled), len(during)))
        if len(settled) < 3:
            return
        # the estimate moves a little between the last update and the dump
        off = max(abs(s["target_in_use"] - 0.05 * s["rate_estimate"]) for s in settled)
        check(off <= 2 + 0.05 * 0.05 * max(s["rate_estimate"] for s in settled),
              "the reference is 50 ms of the measured rate (largest difference %.1f "
              "packets; e.g. %d packets at %.0f packets/s)"
              % (off, settled[-1]["target_in_use"], settled[-1]["rate_estimate"]))
        shown = statistics.median(s["qdelay"] for s in settled)
        derived = statistics.median(1e6 * s["qlen"] / s["rate_estimate"] for s in settled)
        check(abs(shown - derived) <= 0.25 * derived + 2e6 / settled[-1]["rate_estimate"],
              "tc shows the queue over the rate (median %.1f ms; the samples' queue over "
              "their estimate %.1f ms)" % (shown / 1e3, derived / 1e3))
        mean = statistics.mean(s["qdelay"] for s in settled)
        check(25000 <= mean <= 75000,
              "the law holds the delay near 50 ms (mean %.1f ms after the first third)"
              % (mean / 1e3),
              "qdelay/qlen/prob: %s" % " ".join(
                  "%d/%d/%.3g" % (s["qdelay"], s["qlen"], s["prob"]) for s in settled))


def autotuned(check, with_offloads):
    """Autotune at the 10 Mbit/s link under four TCP flows: the medians of
    the rate estimate and of the derived capacity over the second half of the
    run (one snapshot can catch a stall of the host under TCG), and what the
    link delivered meanwhile while backlogged."""
    tag = "autotune, offloads %s" % ("on" if with_offloads else "off")
    pps = 10e6 / 8 / offloads.WIRE_BYTES
    with Lab(offloads=with_offloads) as lab:
        shaped_pi(lab, args="limit 400 target 40 autotune rtt 20ms flows 4")
        recorded = lab.record(5)
        during = offloads.tcp_load(check, lab, "pi", tag, seconds=5, every=0.25)
        rows = recorded()
        settled = during[len(during) // 2:]
        served = offloads.backlogged_rate(rows, since_us=rows[-1]["t_us"] / 2)
        # tc shows no estimate (0) and no capacity while autotune waits for one
        est = statistics.median(s.get("rate_estimate", 0) for s in settled)
        tuned = statistics.median(s.get("tuned_capacity", 0) for s in settled)
        check(all(s["gains_source"] == "autotune-estimate" for s in settled) and
              served > 0 and abs(est / served - 1) < offloads.RATE_TOLERANCE,
              "%s: the rate estimate is the link's in wire packets (median %.0f packets/s; "
              "%.0f delivered while backlogged; htb rate %.0f)" % (tag, est, served, pps),
              "estimate/source/qlen: %s" % " ".join(
                  "%.0f/%s/%d" % (s.get("rate_estimate", 0), s["gains_source"], s["qlen"])
                  for s in during))
        # C is re-derived only when the estimate leaves a 12.5% band around
        # the rate it was derived at
        check(est > 0 and abs(tuned / est - 1) <= 0.126,
              "%s: C follows the estimate (median C %.0f, estimate %.0f packets/s)"
              % (tag, tuned, est))
        return est, tuned, served


def test_autotune_offloads(check):
    """The gains come from the link in wire packets, GSO skbs or not."""
    off, off_c, off_link = autotuned(check, False)
    on, on_c, on_link = autotuned(check, True)
    # C comes from the estimate, and follows it within the 12.5% band that
    # re-derives it (checked above), so two runs' Cs may differ by up to
    # twice that by design: the estimates they derive from agree within
    # 12.5%, each against what its own run's link delivered, as the host's
    # stalls slow the two runs apart
    check(off > 0 and off_link > 0 and on_link > 0 and
          abs((on / on_link) / (off / off_link) - 1) <= 0.125,
          "autotune: the same capacity for the link with the offloads on as off (median "
          "estimates %.0f and %.0f packets/s, C %.0f and %.0f, the link delivering %.0f "
          "and %.0f)" % (on, off, on_c, off_c, on_link, off_link))


def test_flows_counted(check):
    """flows auto counts the flows in its arrivals (tc -s shows the count):
    eight TCP flows read as eight, with the offloads on (GSO skbs, one
    arrival each) and off. A design round trip of 70 ms makes a window of
    about 80 packets at 10 Mbit/s, ten a flow; with 40 ms (half as many)
    a flow in recovery missed whole windows and eight read as 6-8."""
    for with_offloads in (False, True):
        tag = "flows auto, offloads %s" % ("on" if with_offloads else "off")
        with Lab(offloads=with_offloads) as lab:
            shaped_pi(lab, args="limit 400 target 20ms autotune rtt 50ms flows auto")
            lab.iperf_server()
            client = lab.iperf_client(8, flows=8)
            during = lab.sample("pi", 8)
            client.wait()
            check(client.returncode == 0, "%s: iperf3 ran" % tag, client.err)
            counts = [s.get("counted_flows", 0) for s in during[len(during) // 2:]]
            median = statistics.median(counts)
            check(6 <= median <= 10,
                  "%s: 8 flows counted as %g (median of the second half; %s)"
                  % (tag, median, " ".join(str(c) for c in counts)))


def test_limit_trim(check):
    with Lab() as lab:
        lab.tc("qdisc add dev %s root handle 1: htb default 1" % RTR_IF)
        lab.tc("class add dev %s parent 1: classid 1:1 htb rate 2mbit burst 3000" % RTR_IF)
        lab.tc("qdisc add dev %s parent 1:1 handle 10: pi limit 1000 target 900 a 0 b 0"
               % RTR_IF)
        client = udp_flood(pps=2000, seconds=5)
        time.sleep(3)
        before = lab.qdisc("pi")
        lab.tc("qdisc change dev %s parent 1:1 handle 10: pi limit 100 target 50" % RTR_IF)
        after = lab.qdisc("pi")
        htb = lab.qdisc("htb")
        client.wait()
        time.sleep(3)
        idle = lab.qdisc("pi")
        check(before["qlen"] > 500, "a UDP overload fills the queue (%d)" % before["qlen"])
        check(before["tail_drops"] > 0, "a full queue tail-drops (%d)" % before["tail_drops"])
        check(after["qlen"] <= 100, "lowering the limit trims the queue (%d)" % after["qlen"])
        check(after["drops"] >= before["drops"] + before["qlen"] - 100,
              "trimmed packets are counted as drops")
        check(htb["qlen"] <= 100, "the parent's queue length follows (%d)" % htb["qlen"])
        check(idle["qlen"] == 0 and idle["backlog"] == 0,
              "backlog accounting returns to 0 (qlen %d, backlog %d)"
              % (idle["qlen"], idle["backlog"]))


def test_unload(check):
    kver = os.environ.get("AQM_KERNEL", os.uname().release)
    ko = os.path.join(os.path.dirname(__file__), "..", "..", "build", "kmod", kver, "sch_pi.ko")
    with Lab() as lab:
        shaped_pi(lab)
        lab.iperf_server()
        client = lab.iperf_client(2)
        client.wait()
        lab.tc("qdisc del dev %s root" % RTR_IF)
    res = sh("rmmod sch_pi", check=False)
    check(res.returncode == 0, "sch_pi unloads after use", res.stderr)
    res = sh("insmod %s" % ko, check=False)
    check(res.returncode == 0, "sch_pi loads again", res.stderr)


def run(check):
    test_drops(check)
    test_ecn(check)
    test_even_spacing(check)
    test_autotune(check)
    test_delay_target(check)
    test_autotune_offloads(check)
    test_flows_counted(check)
    offloads.run(check, "pi", "target 20 a 5e-4 b 4.9e-4",
                 "limit 400 target 40 a 5e-4 b 4.9e-4 ecn ecn_ceiling 1")
    test_limit_trim(check)
    test_unload(check)
