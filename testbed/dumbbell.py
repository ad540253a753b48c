"""The dumbbell as a Mininet topology, and the path set-up that makes the
AQM the only queue that builds. A scenario (testbed/scenario.py) gives the
pairs, their round trips and the bottleneck's delay; the study's is four
pairs of 44-48 ms.

    S1..Sn -- N1 ==bottleneck==> N2 -- R1..Rn

Hosts are wired straight to two LinuxRouter-style nodes: no switch, no Open
vSwitch, no controller. Dumbbell.build() only wires; configure() then sets,
for a time scale k (rates / k, delays * k, packet counts unchanged):

- N1's egress toward N2: htb at the bottleneck rate (burst: 10 ms of the
  rate, enough for late htb timers under TCG) with the AQM as its one leaf,
  handle 10:. htb never queues in front of the leaf.
- Propagation delay only on the ACK path, with netem on router egresses
  that carry no data: N2 -> N1 holds the bottleneck's two-way delay, N1 -> Si
  the rest of pair i's round trip. netem can neither hold data
  behind the AQM nor drop it (its limit is far above any window).
- TSO, GSO and GRO off everywhere (one skb is one packet; with
  set_offloads(net, on=True) the veth's defaults instead, and GRO on at
  the routers), IPv6 off,
  receivers acknowledge every packet (route quickack, and no SACK
  compression during recovery), socket buffers sized
  for a window of about WINDOW_PKTS, no cached TCP metrics between runs, and
  the senders' minimum RTO scaled with k; a pair's initial window and ECN
  as the scenario says.

- Each sender's egress: htb at the access rate (1 Gbit/s nominal, scaled
  like the bottleneck), so a window leaves a sender no faster than its
  access link would carry it, as in ns-2. TCP small queues keep that
  queue short; it must never drop (the fidelity check verifies).

Use from a Mininet script:
    net = Mininet(topo=Dumbbell(), controller=None); net.start()
    set_offloads(net, on=False)
    configure(net, scale=10, leaf="pi limit 2500 target 1000",
              rate_bps=1e9, scen=scenario.load("study"))
"""

import json

from mininet.node import Node
from mininet.topo import Topo

ACCESS_RATE_BPS = 1e9
WINDOW_PKTS = 8000                    # receiver window (ns-2 window_)
MSS_BYTES = 1448
RTO_MIN_S = 0.2
SHAPER_BURST_S = 0.010                # htb burst, in wall time (not scaled)
NETEM_LIMIT_PKTS = 1000000

BOTTLENECK_DEV = "n1-n2"              # the AQM's device, on N1
REVERSE_DEV = "n2-n1"                 # N2 -> N1: ACKs only
LEAF_HANDLE = "10:"


def sender_ip(i):
    return "10.0.%d.1" % i


def receiver_ip(i):
    return "10.1.%d.1" % i


class LinuxRouter(Node):
    """A node that forwards IPv4 and carries static routes."""

    def config(self, routes=(), **params):
        super().config(**params)
        self.cmd("sysctl -qw net.ipv4.ip_forward=1")
        for route in routes:
            self.cmd("ip route add " + route)


class Dumbbell(Topo):
    """Si on N1, Ri on N2, N1-N2 the bottleneck. Wiring only."""

    def build(self, pairs):
        # ip: each router's first interface (Mininet would invent one)
        n1 = self.addNode("n1", cls=LinuxRouter, ip="10.255.0.1/30",
                          routes=["10.1.0.0/16 via 10.255.0.2"])
        n2 = self.addNode("n2", cls=LinuxRouter, ip="10.255.0.2/30",
                          routes=["10.0.0.0/16 via 10.255.0.1"])
        self.addLink(n1, n2, intfName1=BOTTLENECK_DEV, intfName2=REVERSE_DEV,
                     params1={"ip": "10.255.0.1/30"},
                     params2={"ip": "10.255.0.2/30"})
        for i in range(1, pairs + 1):
            for name, router, ip in (("s%d" % i, n1, sender_ip(i)),
                                     ("r%d" % i, n2, receiver_ip(i))):
                gateway = ip.rsplit(".", 1)[0] + ".254"
                host = self.addHost(name, ip=ip + "/24",
                                    defaultRoute="via " + gateway)
                self.addLink(host, router, intfName1=name + "-eth0",
                             intfName2="%s-%s" % (router, name),
                             params1={"ip": ip + "/24"},
                             params2={"ip": gateway + "/24"})


def run(node, cmd):
    """Run cmd in node's namespace; raise with its output if it fails."""
    out = node.cmd(cmd + "; echo rc=$?")
    text, _, rc = out.rstrip().rpartition("rc=")
    if rc.strip() != "0":
        raise RuntimeError("%s: %s: %s" % (node.name, cmd, text.strip()))
    return text


def tc_time(seconds):
    return "%dus" % round(seconds * 1e6)


def configure(net, scale, leaf, rate_bps, scen):
    """Set up every node for time scale `scale` with `leaf` (a tc qdisc
    spec, "pfifo limit 8000") as the bottleneck's AQM at rate_bps (nominal)
    and scenario scen's round trips. Call set_offloads() once before."""
    # 2 * window * MSS: Linux advertises half the receive buffer (6.1)
    rmem_bytes = 2 * WINDOW_PKTS * MSS_BYTES
    sysctls = ("net.ipv6.conf.all.disable_ipv6=1",
               "net.ipv6.conf.default.disable_ipv6=1",
               "net.ipv4.tcp_no_metrics_save=1",
               # a duplicate ACK per packet in recovery too, as ns-2 sends
               "net.ipv4.tcp_comp_sack_nr=0",
               "net.ipv4.tcp_rmem='4096 131072 %d'" % rmem_bytes,
               "net.ipv4.tcp_wmem='4096 131072 %d'" % (2 * rmem_bytes),
               # 1: ask for ECN; 2 (Linux's default): only accept it
               "net.ipv4.tcp_ecn=%d" % (1 if scen["ecn"] else 2))
    for node in net.hosts:
        run(node, "sysctl -qw " + " ".join(sysctls))
    n1, n2 = net["n1"], net["n2"]
    pairs = len(scen["pairs"])
    for i, pair in enumerate(scen["pairs"], 1):
        s, r = net["s%d" % i], net["r%d" % i]
        run(r, "ip route change default via 10.1.%d.254 quickack 1" % i)
        initcwnd = " initcwnd %d" % pair["initcwnd"] if pair.get("initcwnd") else ""
        run(s, "ip route change default via 10.0.%d.254 rto_min %dms%s"
            % (i, round(RTO_MIN_S * scale * 1e3), initcwnd))
        access_rtt_s = (pair["rtt_ms"] - 2 * scen["bottleneck_delay_ms"]) / 1e3
        run(n1, "tc qdisc replace dev n1-s%d root netem delay %s limit %d"
            % (i, tc_time(access_rtt_s * scale), NETEM_LIMIT_PKTS))
    run(n2, "tc qdisc replace dev %s root netem delay %s limit %d"
        % (REVERSE_DEV, tc_time(2 * scen["bottleneck_delay_ms"] / 1e3 * scale),
           NETEM_LIMIT_PKTS))
    for i in range(1, pairs + 1):
        shaper(net["s%d" % i], "s%d-eth0" % i, ACCESS_RATE_BPS / scale)
    shaper(n1, BOTTLENECK_DEV, rate_bps / scale)
    set_leaf(net, leaf)


def shaper_class(dev, rate_bps, verb="add"):
    """The tc command of htb's class 1:1 at rate_bps; its burst is 10 ms
    of the rate, enough for htb timers that fire late under TCG."""
    burst_bytes = max(3000, round(rate_bps / 8 * SHAPER_BURST_S))
    return ("tc class %s dev %s parent 1: classid 1:1 htb rate %dbit ceil %dbit "
            "burst %d cburst %d quantum 1514"
            % (verb, dev, rate_bps, rate_bps, burst_bytes, burst_bytes))


def shaper(node, dev, rate_bps):
    """htb at rate_bps on dev's egress, class 1:1."""
    # a new shaper each time (htb cannot change its root parameters)
    node.cmd("tc qdisc del dev %s root" % dev)
    run(node, "tc qdisc add dev %s root handle 1: htb default 1" % dev)
    run(node, shaper_class(dev, rate_bps))


def set_offloads(net, on):
    """off: TSO, GSO and GRO off on every interface, one skb is one packet
    (the study's model). on: the veth's own defaults (TSO and GSO on, GRO
    off) but GRO on at the routers' ingress, as on a real router; veth's
    GRO merges only what comes from a peer without TSO."""
    for node in net.hosts:
        for intf in node.intfNames():
            if intf == "lo":
                continue
            if not on:
                run(node, "ethtool -K %s tso off gso off gro off" % intf)
            elif isinstance(node, LinuxRouter):
                run(node, "ethtool -K %s gro on" % intf)


OFFLOAD_FEATURES = {"tso": "tcp-segmentation-offload", "gso": "generic-segmentation-offload",
                    "gro": "generic-receive-offload"}


def offload_features(net):
    """What each interface has in use, as ethtool -k reports it:
    {"node:intf": {"tso": bool, "gso": bool, "gro": bool}}."""
    features = {}
    for node in net.hosts:
        for intf in node.intfNames():
            if intf != "lo":
                k = json.loads(run(node, "ethtool --json -k %s" % intf))[0]
                features["%s:%s" % (node.name, intf)] = {
                    short: k[name]["active"] for short, name in OFFLOAD_FEATURES.items()}
    return features


def set_leaf(net, leaf):
    """Put `leaf` under the shaper (replacing the previous leaf)."""
    n1 = net["n1"]
    n1.cmd("tc qdisc del dev %s parent 1:1 handle %s" % (BOTTLENECK_DEV, LEAF_HANDLE))
    run(n1, "tc qdisc add dev %s parent 1:1 handle %s %s"
        % (BOTTLENECK_DEV, LEAF_HANDLE, leaf))
