"""Three network namespaces in a line, for driving real traffic through a
qdisc in the functional tests: src -> rtr -> dst, the qdisc under test on
the router's egress toward dst. A router, not the sender, holds the queue:
on the sender TCP small queues and local congestion feedback would keep the
qdisc nearly empty.

By default every veth has TSO, GSO and GRO off, so one skb is one wire
packet everywhere. Lab(offloads=True) leaves the veth's own defaults (the
sender's TSO and GSO on) and turns GRO on at the router's ingress, as on a
real router: the qdisc under test then receives GSO skbs of many wire
packets."""

import csv
import json
import os
import signal
import subprocess
import tempfile
import time

# a lab's namespaces (use_name: those of this process's labs)
SRC, RTR, DST = "aqm-src", "aqm-rtr", "aqm-dst"
# the router's two legs; the qdisc under test sits on RTR_IF
SRC_IP, RTR_IN_IP = "10.200.1.1", "10.200.1.254"
RTR_IP, DST_IP = "10.200.0.254", "10.200.0.2"
RTR_IF = "veth-rtr"
# testbed's recorder: one netlink dump per sample, no process forked per sample
SAMPLER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "build", "testbed", "sampler")


# one tc, ip or shell command: under TCG a slow one takes a few seconds
COMMAND_LIMIT_S = 120


def sh(cmd, ns=None, check=True):
    """cmd in a shell, in namespace ns; one that hangs raises
    subprocess.TimeoutExpired (the suite fails, naming it)."""
    if ns:
        cmd = "ip netns exec %s %s" % (ns, cmd)
    res = subprocess.run(cmd, shell=True, capture_output=True, text=True,
                         timeout=COMMAND_LIMIT_S)
    if check and res.returncode:
        raise RuntimeError("%s: %s" % (cmd, res.stderr.strip()))
    return res


def use_name(name):
    """This process's labs get the namespaces NAME-src, NAME-rtr and
    NAME-dst, so that labs of two processes run beside each other. Call it
    before a test module takes SRC, RTR or DST from here."""
    global SRC, RTR, DST
    SRC, RTR, DST = ("%s-%s" % (name, role) for role in ("src", "rtr", "dst"))


class Lab:
    """with Lab() as lab: ... builds the pair and always tears it down."""

    def __init__(self, offloads=False):
        self.offloads = offloads
        self.src, self.rtr, self.dst = SRC, RTR, DST

    def __enter__(self):
        self.close()
        for ns in (self.src, self.rtr, self.dst):
            sh("ip netns add %s" % ns)
            sh("ip link set lo up", ns)
        sh("ip link add eth0 netns %s type veth peer name veth-in netns %s" % (self.src, self.rtr))
        sh("ip link add %s netns %s type veth peer name eth0 netns %s" % (RTR_IF, self.rtr, self.dst))
        sh("sysctl -qw net.ipv4.ip_forward=1", self.rtr)
        for ns, dev, ip in ((self.src, "eth0", SRC_IP), (self.rtr, "veth-in", RTR_IN_IP),
                            (self.rtr, RTR_IF, RTR_IP), (self.dst, "eth0", DST_IP)):
            # no IPv6 chatter (ND, MLD) waking the qdisc under test
            sh("sysctl -qw net.ipv6.conf.all.disable_ipv6=1", ns)
            sh("sysctl -qw net.ipv6.conf.default.disable_ipv6=1", ns)
            sh("ip addr add %s/24 dev %s" % (ip, dev), ns)
            sh("ip link set %s up" % dev, ns)
            if not self.offloads:
                # one skb is one packet: the qdisc counts what the wire carries
                sh("ethtool -K %s tso off gso off gro off" % dev, ns, check=False)
        if self.offloads:
            # on veth, GRO needs NAPI, which "gro on" turns on
            sh("ethtool -K veth-in gro on", self.rtr)
        sh("ip route add default via %s" % RTR_IN_IP, self.src)
        sh("ip route add default via %s" % RTR_IP, self.dst)
        # static neighbours: no ARP crosses the qdisc under test (a slow
        # kernel's re-probes did), so the ledgers can be exact
        for ns, dev, ip, peer_ns, peer_dev in ((self.src, "eth0", RTR_IN_IP, self.rtr, "veth-in"),
                                               (self.rtr, "veth-in", SRC_IP, self.src, "eth0"),
                                               (self.rtr, RTR_IF, DST_IP, self.dst, "eth0"),
                                               (self.dst, "eth0", RTR_IP, self.rtr, RTR_IF)):
            sh("ip neigh replace %s lladdr %s dev %s nud permanent"
               % (ip, link_address(peer_ns, peer_dev), dev), ns)
        self.servers = []
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for proc in getattr(self, "servers", []):
            proc.kill()
            proc.wait()
        self.servers = []
        for ns in (self.src, self.rtr, self.dst):
            sh("ip netns del %s" % ns, check=False)

    def tc(self, args, check=True):
        return sh("tc " + args, self.rtr, check=check)

    def qdiscs(self):
        """tc -s -j qdisc show on the egress, as a list of dicts."""
        out = sh("tc -s -j qdisc show dev %s" % RTR_IF, self.rtr).stdout
        return json.loads(out)

    def qdisc(self, kind):
        for q in self.qdiscs():
            if q["kind"] == kind:
                return q
        raise KeyError(kind)

    def record(self, seconds, handle="10:", interval_us=2000):
        """Record the egress qdisc handle's stats every interval_us for
        seconds in the background (build/testbed/sampler: fast enough to
        catch a queue's peaks, which a tc per sample misses). Returns a
        function that waits for the end and gives the rows as dicts of
        numbers (t_us, qlen_pkts, backlog_bytes, sent_pkts, drops, ...)."""
        fd, out = tempfile.mkstemp(suffix=".csv")
        os.close(fd)
        proc = subprocess.Popen(["ip", "netns", "exec", self.rtr, SAMPLER, "-d", RTR_IF,
                                 "-H", handle, "-i", str(interval_us),
                                 "-t", str(seconds), "-o", out],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)

        def rows():
            _, err = proc.communicate(timeout=seconds + COMMAND_LIMIT_S)
            with open(out) as f:
                got = [{k: float(v) for k, v in row.items() if v != ""}
                       for row in csv.DictReader(f)]
            os.unlink(out)
            if proc.returncode:
                raise RuntimeError("sampler: %s" % err.strip())
            return got
        return rows

    def link_stats(self, ns, dev):
        """ip -s -j link: the device's stats64 ({"rx": {...}, "tx": {...}})."""
        return json.loads(sh("ip -s -j link show dev %s" % dev, ns).stdout)[0]["stats64"]

    def snmp(self, ns):
        """The namespace's IP counters (/proc/net/snmp and netstat) as
        {"Ip.InReceives": n, "IpExt.InCEPkts": n, ...}."""
        lines = sh("cat /proc/net/snmp /proc/net/netstat", ns).stdout.splitlines()
        counters = {}
        for head, values in zip(lines[::2], lines[1::2]):
            proto, names = head.split(":", 1)
            for name, value in zip(names.split(), values.split(":", 1)[1].split()):
                counters[proto + "." + name] = int(value)
        return counters

    def sender_fifo(self):
        """A pfifo on the sender's egress (veth has none): its Sent count is
        in wire packets, GSO segments included (bstats add gso_segs)."""
        sh("tc qdisc add dev eth0 root handle 1: pfifo", self.src)

    def sender_sent(self):
        """Wire packets the sender's pfifo has sent."""
        out = sh("tc -s -j qdisc show dev eth0", self.src).stdout
        return [q for q in json.loads(out) if q["kind"] == "pfifo"][0]["packets"]

    def ce_counter(self):
        """Count CE-marked IPv4 packets arriving at the receiver (a flower
        filter on its ingress; action stats add gso_segs too)."""
        sh("tc qdisc add dev eth0 clsact", self.dst)
        sh("tc filter add dev eth0 ingress protocol ip pref 1 flower ip_tos 0x3/0x3 "
           "action pass", self.dst)

    def ce_received(self):
        """Wire packets the receiver's CE counter has seen."""
        out = sh("tc -s -j filter show dev eth0 ingress", self.dst).stdout
        for f in json.loads(out):
            for act in f.get("options", {}).get("actions", []):
                return act["stats"]["packets"]
        raise KeyError("no CE counter")

    def iperf_server(self, port=5201):
        proc = subprocess.Popen(["ip", "netns", "exec", self.dst, "iperf3", "-s",
                                 "-p", str(port), "-1"],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        self.servers.append(proc)
        # under TCG a cold iperf3 can take over a second to listen; a client
        # started before that fails to connect
        end = time.time() + 10
        while time.time() < end:
            if sh("ss -Hltn sport = :%d" % port, self.dst).stdout.strip():
                break
            time.sleep(0.1)
        return proc

    def iperf_client(self, seconds, port=5201, udp_rate=None, flows=1):
        """Start a client in the background; wait() it when done."""
        cmd = ["ip", "netns", "exec", self.src, "iperf3", "-c", DST_IP, "-p",
               str(port), "-t", str(seconds), "-P", str(flows), "-J"]
        if udp_rate:
            cmd += ["-u", "-b", udp_rate, "-l", "1400"]
        return Source(cmd, seconds)

    def sample(self, kind, seconds, every=0.25):
        """Snapshots of one qdisc's stats over a period, at least three."""
        samples = []
        end = time.time() + seconds
        while time.time() < end or len(samples) < 3:
            samples.append(self.qdisc(kind))
            time.sleep(every)
        return samples


# A paced UDP source with no control connection: iperf3's own TCP control
# connection would cross the qdisc under test and could stall in its drops.
UDP_SENDER = r"""
import socket, sys, time
dst, pps, seconds, size = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
payload = b"x" * size
start = time.monotonic()
sent = 0
while True:
    now = time.monotonic() - start
    if now >= seconds:
        break
    while sent < int(now * pps) + 1:
        try:
            s.sendto(payload, (dst, 9))
        except OSError:
            pass
        sent += 1
    time.sleep(0.001)
print(sent)
"""


def udp_flood(pps, seconds, size=1400):
    """Start a paced UDP flow src -> dst; .wait() it, .out has the count."""
    return Source(["ip", "netns", "exec", SRC, "/usr/bin/python3", "-c",
                   UDP_SENDER, DST_IP, str(pps), str(seconds), str(size)], seconds)


class Source:
    """A traffic source started for a known time. Waiting for it is bounded:
    one still running OVERRUN_S after its end (an iperf3 whose control
    connection stalled, say) is killed, its failure says so, and the run
    goes on. Its output is read while it runs, so a long -J report cannot
    fill the pipe and stall it."""

    OVERRUN_S = 60

    def __init__(self, cmd, seconds):
        self.deadline = time.monotonic() + seconds + self.OVERRUN_S
        # a group of its own, so that a kill reaches anything it started
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
        self.out = self.err = None

    def communicate(self):
        """Wait for the end: (stdout, stderr)."""
        if self.out is None:
            try:
                self.out, self.err = self.proc.communicate(
                    timeout=max(1, self.deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.kill()
                self.out, self.err = self.proc.communicate()
                self.err += "\nkilled: still running %d s after its end: %s" % (
                    self.OVERRUN_S, " ".join(self.proc.args))
        return self.out, self.err

    def kill(self):
        os.killpg(self.proc.pid, signal.SIGKILL)

    def wait(self):
        self.communicate()
        return self.proc.returncode

    @property
    def returncode(self):
        return self.proc.returncode


def link_address(ns, dev):
    return json.loads(sh("ip -j link show dev %s" % dev, ns).stdout)[0]["address"]


def set_sysctl(ns, name, value):
    sh("sysctl -qw %s=%s" % (name, value), ns)
