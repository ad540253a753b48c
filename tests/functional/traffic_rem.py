"""REM under real traffic: a 4 Mbit/s htb class with rem as the leaf on the
router's egress of netlab. The gains are larger than ns-2's so that the price
reaches its equilibrium within a few seconds of a short test under TCG.

The law: price += gamma (alpha (q - b) + x - c) every interval, p = 1 -
phi^-price. Under a constant overload the price can only stop moving where
alpha (q - b) = c - x: with TCP (x close to c) the queue settles near the
target b; with an unresponsive UDP overload (x counts every arrival, also
the dropped ones) it settles at b - (x - c) / alpha, and p at 1 - c / x."""

import os
import statistics
import time

import netlab
import offloads
from netlab import Lab, RTR_IF, SRC, set_sysctl, sh

RATE_MBIT = 4
TARGET_PKTS = 30
ALPHA = 0.1
# the UDP test's offered load, in multiples of the capacity: at most 3 keeps
# the fluid equilibrium's queue, b - (x - c) / alpha, above 0 (17 packets)
OVERLOAD = 3
SHAPER = ("qdisc add dev %s root handle 1: htb default 1; "
          "class add dev %s parent 1: classid 1:1 htb rate %dmbit burst 15k"
          % (RTR_IF, RTR_IF, RATE_MBIT))
REM = ("qdisc add dev %s parent 1:1 handle 10: rem limit 1000 target %d gamma 0.01 "
       "phi 1.01 alpha %g" % (RTR_IF, TARGET_PKTS, ALPHA))
WIRE_BYTES = offloads.WIRE_BYTES


def shaped_rem(lab, extra=""):
    for cmd in SHAPER.split("; "):
        lab.tc(cmd)
    lab.tc(REM + " " + extra)


def second_half(samples):
    return samples[len(samples) // 2:]


def timed_samples(lab, seconds, every=0.25):
    """(time, stats) pairs of the rem qdisc over a period."""
    out = []
    end = time.time() + seconds
    while time.time() < end or len(out) < 3:
        out.append((time.time(), lab.qdisc("rem")))
        time.sleep(every)
    return out


def per_second(timed, key):
    (t0, s0), (t1, s1) = timed[len(timed) // 2], timed[-1]
    return (s1[key] - s0[key]) / (t1 - t0)


def test_tcp_overload(check, with_offloads=False):
    """Four TCP flows: price and p rise, the queue settles near the target;
    with the offloads on too, the queue and the rate in wire packets."""
    tag = "tcp, offloads" if with_offloads else "tcp"
    with Lab(offloads=with_offloads) as lab:
        shaped_rem(lab)
        lab.iperf_server()
        client = lab.iperf_client(12, flows=4)
        recorded = lab.record(12) if with_offloads else None
        timed = timed_samples(lab, 12)
        during = [s for _, s in timed]
        client.wait()
        check(client.returncode == 0, "%s: iperf3 ran" % tag, client.err)
        idle = lab.sample("rem", 3, every=0.5)

        last = during[-1]
        settled = second_half(during)
        q_median = statistics.median(s["qlen"] for s in settled)
        served_pps = per_second(timed, "packets")
        check(max(s["price"] for s in during) > 0 and max(s["prob"] for s in during) > 0,
              "%s: price and probability rise under load (peak price %.3g, p %.3g)"
              % (tag, max(s["price"] for s in during), max(s["prob"] for s in during)))
        check(last["early_drops"] > 0, "%s: early drops counted (%d)"
              % (tag, last["early_drops"]))
        check(last["tail_drops"] == 0, "%s: no tail drops, REM keeps the queue short (%d)"
              % (tag, last["tail_drops"]))
        check(TARGET_PKTS / 3 <= q_median <= TARGET_PKTS * 2,
              "%s: the queue settles near target %d (median %.1f over the last 6 s)"
              % (tag, TARGET_PKTS, q_median))
        check(max(s["max_qlen"] for s in during) < 1000,
              "%s: the queue never reaches the limit (max %d)" % (tag, last["max_qlen"]))
        check(last["capacity_mode"] == "estimated",
              "%s: capacity estimated from the dequeue rate (%s)"
              % (tag, last["capacity_mode"]))
        # the rate while backlogged: near the average served rate (above it
        # when the queue is sometimes empty), not above the shaper's. The
        # lower bound is loose: on a loaded TCG host the shaper's dequeues
        # stall in bursts and the estimate's latest samples can sit below
        # the run's average (seen: 216 pps against 262 served).
        shaper_pps = RATE_MBIT * 1e6 / 8 / WIRE_BYTES
        check(0.7 * served_pps <= last["rate_estimate"] <= 1.1 * shaper_pps,
              "%s: dequeue-rate estimate %.0f pps between the served %.0f pps and the "
              "htb rate %.0f pps (%.0f updates/s)"
              % (tag, last["rate_estimate"], served_pps, shaper_pps,
                 per_second(timed, "updates")))
        if with_offloads:
            rows = recorded()
            est = statistics.median(s["rate_estimate"] for s in settled)
            served = offloads.backlogged_rate(rows, since_us=rows[-1]["t_us"] / 2)
            check(served > 0 and abs(est / served - 1) < offloads.RATE_TOLERANCE,
                  "%s: the rate estimate is the link's in wire packets (median %.0f pps over "
                  "the last 6 s; %.0f delivered while backlogged; htb rate %.0f)"
                  % (tag, est, served, shaper_pps))
        check(last["drops"] == last["early_drops"] + last["tail_drops"],
              "%s: qdisc drops = early + tail (%d = %d + %d)"
              % (tag, last["drops"], last["early_drops"], last["tail_drops"]))
        check(idle[-1]["price"] == 0 and idle[-1]["prob"] == 0,
              "%s: price and probability drain to 0 once idle (%g, %g)"
              % (tag, idle[-1]["price"], idle[-1]["prob"]))
        check(idle[-1]["updates"] == idle[-2]["updates"],
              "%s: the timer stops on an idle settled queue" % tag)
        check(idle[-1]["qlen"] == 0 and idle[-1]["backlog"] == 0,
              "%s: nothing left queued (qlen %d, backlog %d)"
              % (tag, idle[-1]["qlen"], idle[-1]["backlog"]))


def test_udp_equilibrium(check):
    """An unresponsive 3x overload: the price climbs until the law balances."""
    with Lab() as lab:
        shaped_rem(lab, "bandwidth %dmbit" % RATE_MBIT)
        client = netlab.udp_flood(pps=OVERLOAD * RATE_MBIT * 1000000 // (8 * 1400), seconds=14)
        timed = timed_samples(lab, 14)
        during = [s for _, s in timed]
        _, err = client.communicate()
        check(client.returncode == 0, "udp: the paced sender ran", err)

        prices = [s["price"] for s in during]
        rising = prices[:len(prices) // 3]
        settled = second_half(during)
        x = statistics.mean(s["arrivals"] for s in settled)
        c = statistics.mean(s["capacity"] for s in settled)
        q_eq = TARGET_PKTS - (x - c) / ALPHA
        q_median = statistics.median(s["qlen"] for s in settled)
        p_median = statistics.median(s["prob"] for s in settled)
        check(during[-1]["capacity_mode"] == "fixed", "udp: capacity fixed by bandwidth")
        check(rising[-1] > rising[0] and max(prices) > 0,
              "udp: the price rises under overload (%.3g -> %.3g)" % (rising[0], rising[-1]))
        # The sender offers 3c; a starved guest delivers much less of it to
        # the router (of 2c offered: 1.24c in one CI run, 1.13c in another),
        # and what follows holds for any real overload: p is checked against
        # this run's c/x.
        check(x > c * 1.15, "udp: arrivals x = %.3g exceed capacity c = %.3g per interval "
              "(%.0f updates/s, %.0f packets/s served)"
              % (x, c, per_second(timed, "updates"), per_second(timed, "packets")))
        # Under TCG the sender's packets arrive in bursts that the 2 ms
        # updates catch mid-queue, so the price overshoots the fluid
        # equilibrium (alpha (q - b) = c - x, p = 1 - c/x): its direction is
        # checked, the equilibrium itself by the TCP test. The measured
        # excess itself moves with the sender's pacing: 0.53 to 0.66 over
        # four runs here, with p at 0.55 to 0.65 and the queue near empty.
        check(p_median >= (1 - c / x) - 0.15,
              "udp: p rises at least to the excess fraction 1 - c/x = %.3f (median %.3f, "
              "median queue %.1f, fluid equilibrium %.1f)"
              % (1 - c / x, p_median, q_median, q_eq))
        check(during[-1]["tail_drops"] == 0 and during[-1]["early_drops"] > 0,
              "udp: the excess is dropped early, not at the tail (%d early, %d tail)"
              % (during[-1]["early_drops"], during[-1]["tail_drops"]))


def test_ecn(check):
    with Lab() as lab:
        set_sysctl(SRC, "net.ipv4.tcp_ecn", 1)
        # ceiling 1: marks at any p, so no ECN-capable packet is dropped
        # early (the default ceiling, 0.1, drops above it by design)
        shaped_rem(lab, "ecn ecn_ceiling 1")
        lab.iperf_server()
        client = lab.iperf_client(6, flows=2)
        client.wait()
        last = lab.qdisc("rem")
        check(last["ecn_marks"] > 0, "ecn: ECN-capable packets are marked (%d)" % last["ecn_marks"])
        check(last["early_drops"] <= 2,
              "ecn, ceiling 1: ECN-capable packets are not dropped early (%d)"
              % last["early_drops"])


def test_limit_trim(check):
    with Lab() as lab:
        lab.tc("qdisc add dev %s root handle 1: htb default 1" % RTR_IF)
        lab.tc("class add dev %s parent 1: classid 1:1 htb rate 2mbit burst 3000" % RTR_IF)
        # a price that hardly moves: the queue fills as drop-tail would
        lab.tc("qdisc add dev %s parent 1:1 handle 10: rem limit 1000 target 900 "
               "gamma 1e-12" % RTR_IF)
        client = netlab.udp_flood(pps=2000, seconds=5)
        time.sleep(3)
        before = lab.qdisc("rem")
        lab.tc("qdisc change dev %s parent 1:1 handle 10: rem limit 100 target 50" % RTR_IF)
        after = lab.qdisc("rem")
        htb = lab.qdisc("htb")
        client.wait()
        time.sleep(3)
        idle = lab.qdisc("rem")
        check(before["qlen"] > 500, "trim: a UDP overload fills the queue (%d)" % before["qlen"])
        check(after["qlen"] <= 100, "trim: lowering the limit trims the queue (%d)" % after["qlen"])
        check(after["drops"] >= before["drops"] + before["qlen"] - 100,
              "trim: trimmed packets are counted as drops")
        check(htb["qlen"] <= 100, "trim: the parent's queue length follows (%d)" % htb["qlen"])
        check(idle["qlen"] == 0 and idle["backlog"] == 0,
              "trim: backlog accounting returns to 0 (qlen %d, backlog %d)"
              % (idle["qlen"], idle["backlog"]))


def test_unload(check):
    kver = os.environ.get("AQM_KERNEL", os.uname().release)
    ko = os.path.join(os.path.dirname(__file__), "..", "..", "build", "kmod", kver, "sch_rem.ko")
    with Lab() as lab:
        shaped_rem(lab)
        lab.iperf_server()
        client = lab.iperf_client(2)
        client.wait()
        lab.tc("qdisc del dev %s root" % RTR_IF)
    res = sh("rmmod sch_rem", check=False)
    check(res.returncode == 0, "sch_rem unloads after use", res.stderr)
    res = sh("insmod %s" % ko, check=False)
    check(res.returncode == 0, "sch_rem loads again", res.stderr)


def run(check):
    test_tcp_overload(check)
    test_tcp_overload(check, with_offloads=True)
    test_udp_equilibrium(check)
    test_ecn(check)
    offloads.run(check, "rem", "target 20 gamma 0.01 phi 1.01 alpha %g" % ALPHA,
                 "limit 1000 target %d gamma 0.01 phi 1.01 alpha %g ecn ecn_ceiling 1"
                 % (TARGET_PKTS, ALPHA))
    test_limit_trim(check)
    test_unload(check)
