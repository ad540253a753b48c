"""BLUE under real traffic: a small buffer behind a shaper on the router, overloaded until it
overflows, then lightly loaded. pm must rise while the buffer overflows (no
faster than one increment per freeze time) and fall once the load stops.

BLUE moves pm only on events, and a link with no packets at all has none:
after the overload, a light flow (a tenth of the link) supplies the arrivals
that find the queue empty, each of them an idle event.

Two set-ups, to cover both ways sch_blue sees an idle link:
 - tbf + UDP: tbf peeks its child, so an empty queue is seen at dequeue;
 - htb + TCP with ECN: htb never dequeues an empty leaf, so an empty queue
   is seen by the next arrival; pm marks instead of dropping.
"""

import os
import time

import netlab
import offloads

RATE_MBIT = 10
BURST_BYTES = RATE_MBIT * 1000000 // 8 // 100    # 10 ms at the rate (TCG note)
LIMIT_PKTS = 30
INCREMENT = 0.02
DECREMENT = 0.01
FREEZE_MS = 20
UDP_BYTES = 1400
LINK_PPS = RATE_MBIT * 1000000 // 8 // (UDP_BYTES + 42)
OVERLOAD_PPS = 4 * LINK_PPS     # four times the link
LIGHT_PPS = LINK_PPS // 10      # a tenth of the link
LOAD_S = 5
LIGHT_S = 4
TCP_FLOWS = 4

BLUE_ARGS = "limit %d increment %g decrement %g freeze %dms" % (
    LIMIT_PKTS, INCREMENT, DECREMENT, FREEZE_MS)


def note(text):
    print("# traffic/blue: " + text, flush=True)


def send_udp(pps, seconds):
    out, _ = netlab.udp_flood(pps, seconds, UDP_BYTES).communicate()
    sent = int(out.strip() or 0)
    note("sent %d UDP packets in %g s (%d/s asked)" % (sent, seconds, pps))
    # an overload needs more than the link, not the rate asked: a slow
    # guest (a debug kernel under TCG) sends 4x the link only in part
    return 0 if sent >= min(pps, 2 * LINK_PPS) * seconds * 0.8 else 1


def run_tcp(lab, seconds, flows):
    lab.iperf_server()
    client = lab.iperf_client(seconds, flows=flows)
    client.wait()
    return client.returncode


def overload_then_light(check, tag, lab, created, load, min_increments, min_prob):
    """Drive one set-up whose blue was made at time created; report through
    check and return blue's statistics at the end of the load."""
    rc = load()
    load_s = time.monotonic() - created
    loaded = lab.qdisc("blue")
    time.sleep(1)
    rested = lab.qdisc("blue")
    send_udp(LIGHT_PPS, LIGHT_S)
    light = lab.qdisc("blue")

    note("%s: after the load (%.1f s): pm %.4f, %d increments, %d decrements, "
         "%d tail drops, %d early drops, %d ECN marks, max queue %d"
         % (tag, load_s, loaded["prob"], loaded["increments"], loaded["decrements"],
            loaded["tail_drops"], loaded["early_drops"], loaded["ecn_marks"],
            loaded["max_qlen"]))
    note("%s: 1 s without traffic: pm %.4f; after %d s of light load: pm %.4f, "
         "%d decrements" % (tag, rested["prob"], LIGHT_S, light["prob"],
                            light["decrements"]))

    check(rc == 0, "%s: the load ran (UDP: at twice the link's rate or more)" % tag)
    check(loaded["tail_drops"] > 0 and loaded["max_qlen"] == LIMIT_PKTS,
          "%s: the overload overflows the buffer" % tag,
          "tail drops %d, max queue %d" % (loaded["tail_drops"], loaded["max_qlen"]))
    check(loaded["prob"] >= min_prob and loaded["increments"] >= min_increments,
          "%s: pm rises under the overload" % tag,
          "pm %g after %d increments" % (loaded["prob"], loaded["increments"]))
    # every change of pm is at least one freeze after the previous one
    most = int(load_s * 1000 / FREEZE_MS) + 1
    check(loaded["increments"] + loaded["decrements"] <= most,
          "%s: pm changes at most once per freeze time" % tag,
          "%d changes in %.1f s, at most %d" % (
              loaded["increments"] + loaded["decrements"], load_s, most))
    check(loaded["drops"] == loaded["early_drops"] + loaded["tail_drops"],
          "%s: qdisc drops = early + tail drops" % tag,
          "%d != %d + %d" % (loaded["drops"], loaded["early_drops"], loaded["tail_drops"]))
    check(light["qlen"] == 0 and light["backlog"] == 0,
          "%s: nothing is left queued" % tag,
          "qlen %d, backlog %d" % (light["qlen"], light["backlog"]))
    check(light["prob"] <= loaded["prob"] / 2 and
          light["decrements"] > loaded["decrements"],
          "%s: pm falls once the load stops" % tag,
          "pm %g -> %g, decrements %d -> %d" % (loaded["prob"], light["prob"],
                                                loaded["decrements"],
                                                light["decrements"]))
    return loaded


def udp_behind_tbf(check):
    tag = "udp behind tbf"
    with netlab.Lab() as lab:
        lab.tc("qdisc add dev %s root handle 1: tbf rate %dmbit burst %d latency 100ms"
               % (netlab.RTR_IF, RATE_MBIT, BURST_BYTES))
        created = time.monotonic()
        lab.tc("qdisc add dev %s parent 1:1 handle 10: blue %s"
               % (netlab.RTR_IF, BLUE_ARGS))
        loaded = overload_then_light(
            check, tag, lab, created,
            lambda: send_udp(OVERLOAD_PPS, LOAD_S), 5, 5 * INCREMENT)
        check(loaded["early_drops"] > 0 and loaded["ecn_marks"] == 0,
              "%s: without ecn, pm drops packets early" % tag,
              "early drops %d, marks %d" % (loaded["early_drops"], loaded["ecn_marks"]))


def tcp_ecn_behind_htb(check):
    tag = "tcp+ecn behind htb"
    with netlab.Lab() as lab:
        netlab.set_sysctl(netlab.SRC, "net.ipv4.tcp_ecn", 1)
        lab.tc("qdisc add dev %s root handle 1: htb default 1" % netlab.RTR_IF)
        lab.tc("class add dev %s parent 1: classid 1:1 htb rate %dmbit burst %d"
               % (netlab.RTR_IF, RATE_MBIT, BURST_BYTES))
        created = time.monotonic()
        lab.tc("qdisc add dev %s parent 1:1 handle 10: blue %s ecn"
               % (netlab.RTR_IF, BLUE_ARGS))
        loaded = overload_then_light(
            check, tag, lab, created,
            lambda: run_tcp(lab, LOAD_S, TCP_FLOWS), 2, INCREMENT)
        check(loaded["ecn_marks"] > 0,
              "%s: with ecn, pm marks ECN-capable packets" % tag,
              "marks %d, early drops %d" % (loaded["ecn_marks"], loaded["early_drops"]))


def unload(check):
    kver = os.environ.get("AQM_KERNEL", os.uname().release)
    ko = os.path.join(os.path.dirname(__file__), "..", "..", "build", "kmod", kver,
                      "sch_blue.ko")
    res = netlab.sh("rmmod sch_blue", check=False)
    check(res.returncode == 0, "sch_blue unloads after use", res.stderr)
    res = netlab.sh("insmod %s" % ko, check=False)
    check(res.returncode == 0, "sch_blue loads again", res.stderr)


def run(check):
    udp_behind_tbf(check)
    tcp_ecn_behind_htb(check)
    offloads.run(check, "blue", "increment %g decrement %g freeze %dms"
                 % (INCREMENT, DECREMENT, FREEZE_MS), BLUE_ARGS + " ecn ecn_ceiling 1")
    unload(check)
