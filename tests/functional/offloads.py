"""Every kind with the offloads on, as a real router runs: netlab's
Lab(offloads=True) leaves the sender's TSO and GSO on and turns GRO on at
the router's ingress, so the qdisc under test receives GSO skbs of many wire
packets. Every kind judges each segment as one arrival, and queues the skb
whole where it keeps them all, else cuts it (kmod/aqm_qdisc.h): its queue,
limit, drop and mark counts are in wire packets (the sampler's qlen_pkts is
the xstats' wire_qlen). The tests here
are the same for every kind; traffic_<kind>.py calls them with its own
qdisc arguments, and checks its rate estimate with the helpers.

Independent counts of wire packets, not the qdisc's own:
 - a pfifo on the sender's egress (veth has no qdisc): tc's Sent count adds
   gso_segs for a GSO skb;
 - the router's IP counters: ip_rcv counts skbs after GRO, and its ECN
   counters count segments; their ratio is the wire packets per skb that
   reach the qdisc (1 with the offloads off);
 - a flower filter on the receiver's ingress counts CE-marked packets (its
   action's stats add gso_segs too)."""

import math
import time

from netlab import DST, Lab, RTR, RTR_IF, SRC, set_sysctl

LINK_MBIT = 20
WIRE_BYTES = 1514       # a full-size TCP segment on the veth: MTU + Ethernet header
MSS_BYTES = 1448        # its payload: MTU - IP and TCP headers with timestamps
LINK_PPS = LINK_MBIT * 1e6 / 8 / WIRE_BYTES
# one GSO skb carries at most 64 KB of TCP payload
GSO_MAX_WIRE_BYTES = math.ceil(65536 / MSS_BYTES) * WIRE_BYTES
SMALL_LIMIT_PKTS = 50
FLOWS = 4
LOAD_S = 4
# A rate estimate against what the link delivered while backlogged: the
# estimate averages the last ~100 ms, the reference whole seconds, and under
# TCG the host's stalls slow the link unevenly (a loaded host can take a
# third off the htb rate for a while, so the nominal rate is no reference)
RATE_TOLERANCE = 0.15


def shaped(lab, kind, args, mbit=LINK_MBIT):
    """kind as the leaf of an htb class of mbit (burst: 10 ms at the rate)."""
    lab.tc("qdisc add dev %s root handle 1: htb default 1" % RTR_IF)
    lab.tc("class add dev %s parent 1: classid 1:1 htb rate %dmbit burst %d"
           % (RTR_IF, mbit, mbit * 1000000 // 8 // 100))
    lab.tc("qdisc add dev %s parent 1:1 handle 10: %s %s" % (RTR_IF, kind, args))


def tcp_load(check, lab, kind, tag, seconds=LOAD_S, every=0.0):
    """FLOWS TCP flows for seconds; kind's stats sampled meanwhile."""
    lab.iperf_server()
    client = lab.iperf_client(seconds, flows=FLOWS)
    during = lab.sample(kind, seconds, every=every)
    client.wait()
    check(client.returncode == 0, "%s: iperf3 ran" % tag, client.err)
    return during


def settled(lab, kind, seconds=5):
    """(kind's stats, the sender's wire packets) once the queue has emptied
    and neither count moved between two readings (or after seconds): the
    connections' closing segments can still be on their way to the router
    when iperf3 has exited, so a ledger read on the first empty queue can
    find the sender one packet ahead."""
    end = time.time() + seconds
    last = None
    while True:
        q = lab.qdisc(kind)
        now = (q, lab.sender_sent())
        seen = (q["packets"], q["drops"], now[1])
        if q["qlen"] == 0 and last == seen or time.time() > end:
            return now
        last = seen if q["qlen"] == 0 else None
        time.sleep(0.3)


def backlogged_rate(rows, key="sent_pkts", since_us=0):
    """key per second over the recorded intervals (Lab.record) that began
    and ended with a queue, from since_us on: what the link delivered while
    the qdisc was backlogged, from its sent counters (in wire packets)."""
    num = span = 0
    for a, b in zip(rows, rows[1:]):
        if a["t_us"] >= since_us and a["qlen_pkts"] > 0 and b["qlen_pkts"] > 0:
            num += b[key] - a[key]
            span += b["t_us"] - a["t_us"]
    return num * 1e6 / span if span else 0.0


def drop_counts(q):
    """kind's own drop counters: early, tail, and ared's forced."""
    return {k: v for k, v in q.items() if k.endswith("_drops")}


def forwarded_toward_dst(lab):
    """(skbs, wire packets) the router's IP layer forwarded toward dst, after
    its GRO: ip_rcv counts InReceives per skb and the IpExt ECN counters per
    segment. The ACKs coming back, one wire packet per skb (no GRO on that
    leg), are the router's other IP arrivals: what veth-rtr received."""
    ip = lab.snmp(RTR)
    back = lab.link_stats(RTR, RTR_IF)["rx"]["packets"]
    wire = sum(ip["IpExt." + n] for n in ("InNoECTPkts", "InECT1Pkts", "InECT0Pkts",
                                          "InCEPkts"))
    return ip["Ip.InReceives"] - back, wire - back


def check_gso(check, tag, lab):
    skbs, wire = forwarded_toward_dst(lab)
    # counted per skb, a ledger or a mark count would be off by wire - skbs
    check(wire > skbs,
          "%s: the qdisc receives GSO skbs: %d wire packets in %d skbs forwarded "
          "(%.1f per skb)" % (tag, wire, skbs, wire / max(skbs, 1)))


def check_ledger(check, tag, sender_pkts, q):
    arrived = q["packets"] + q["drops"] + q["qlen"]
    # exact: the lab's static neighbours keep ARP off both counters
    check(sender_pkts == arrived,
          "%s: drops count wire packets: sender's %d = sent %d + dropped %d + queued %d"
          % (tag, sender_pkts, q["packets"], q["drops"], q["qlen"]),
          "differ by %d; drop counters %s" % (sender_pkts - arrived, drop_counts(q)))
    check(q["drops"] == sum(drop_counts(q).values()),
          "%s: qdisc drops = the sum of its drop counters (%d, %s)"
          % (tag, q["drops"], drop_counts(q)))


def test_small_limit(check, kind, args):
    """TCP overloads a limit of 50: the limit holds in wire packets."""
    tag = "offloads, limit %d" % SMALL_LIMIT_PKTS
    with Lab(offloads=True) as lab:
        lab.sender_fifo()
        shaped(lab, kind, "limit %d %s" % (SMALL_LIMIT_PKTS, args))
        recorded = lab.record(LOAD_S)
        tcp_load(check, lab, kind, tag, every=1)
        during = recorded()
        q, sender = settled(lab, kind)
        parent = lab.qdisc("htb")

        check_gso(check, tag, lab)
        check(q["tail_drops"] > 0 and q["max_qlen"] == SMALL_LIMIT_PKTS,
              "%s: TCP overloads the limit (%d tail drops, largest queue %d)"
              % (tag, q["tail_drops"], q["max_qlen"]))
        bound = SMALL_LIMIT_PKTS * WIRE_BYTES + GSO_MAX_WIRE_BYTES
        most = max(s["backlog_bytes"] for s in during)
        full = sum(1 for s in during if s["qlen_pkts"] >= SMALL_LIMIT_PKTS - 1)
        check(most <= bound,
              "%s: the backlog never exceeds limit MTU-sized packets plus one GSO skb "
              "(largest %d bytes in %d samples, %d of them with a full queue, bound %d)"
              % (tag, most, len(during), full, bound))
        most = max([s["qlen_pkts"] for s in during] + [q["max_qlen"]])
        check(most <= SMALL_LIMIT_PKTS,
              "%s: the queue never holds more than limit packets (%d)" % (tag, most))
        # tighter, as each segment meets the limit before it adds its bytes
        # (a dump reads qlen and backlog unlocked, at different moments, so
        # the two are not compared sample by sample)
        most = max(s["backlog_bytes"] for s in during)
        check(most <= SMALL_LIMIT_PKTS * WIRE_BYTES,
              "%s: the queue holds wire packets: the backlog never exceeds limit "
              "MTU-sized packets (largest %d bytes, bound %d)"
              % (tag, most, SMALL_LIMIT_PKTS * WIRE_BYTES))
        check_ledger(check, tag, sender, q)
        check(parent["qlen"] == 0 and parent["backlog"] == 0,
              "%s: the parent's queue accounting returns to 0 (qlen %d, backlog %d)"
              % (tag, parent["qlen"], parent["backlog"]))


def test_ecn_ledger(check, kind, args):
    """TCP with ECN: marks count wire packets, as the receiver sees them."""
    tag = "offloads, ecn"
    with Lab(offloads=True) as lab:
        for ns in (SRC, DST):
            set_sysctl(ns, "net.ipv4.tcp_ecn", 1)
        lab.sender_fifo()
        lab.ce_counter()
        shaped(lab, kind, args)
        tcp_load(check, lab, kind, tag, every=0.5)
        q, sender = settled(lab, kind)
        ce = lab.ce_received()

        check_gso(check, tag, lab)
        check(q["ecn_marks"] > 0, "%s: ECN-capable packets are marked (%d)"
              % (tag, q["ecn_marks"]))
        check_ledger(check, tag, sender, q)
        check(q["ecn_marks"] == ce,
              "%s: marks count wire packets: %d marks, %d CE-marked packets received"
              % (tag, q["ecn_marks"], ce))
        decided = q["ecn_marks"] + q["drops"] - q["tail_drops"]
        check(q["overlimits"] == decided,
              "%s: overlimits = marks + drops other than tail drops (%d = %d + %d)"
              % (tag, q["overlimits"], q["ecn_marks"], q["drops"] - q["tail_drops"]))


def run(check, kind, small_limit_args, ecn_args):
    test_small_limit(check, kind, small_limit_args)
    test_ecn_ledger(check, kind, ecn_args)
