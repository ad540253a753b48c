"""Three network namespaces in a line, for driving real traffic through a
qdisc in the functional tests: src -> rtr -> dst, the qdisc under test on
the router's egress toward dst. A router, not the sender, holds the queue:
on the sender TCP small queues and local congestion feedback would keep the
qdisc nearly empty."""

import json
import subprocess
import time

SRC, RTR, DST = "aqm-src", "aqm-rtr", "aqm-dst"
# the router's two legs; the qdisc under test sits on RTR_IF
SRC_IP, RTR_IN_IP = "10.200.1.1", "10.200.1.254"
RTR_IP, DST_IP = "10.200.0.254", "10.200.0.2"
RTR_IF = "veth-rtr"


def sh(cmd, ns=None, check=True):
    if ns:
        cmd = "ip netns exec %s %s" % (ns, cmd)
    res = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if check and res.returncode:
        raise RuntimeError("%s: %s" % (cmd, res.stderr.strip()))
    return res


class Lab:
    """with Lab() as lab: ... builds the pair and always tears it down."""

    def __enter__(self):
        self.close()
        for ns in (SRC, RTR, DST):
            sh("ip netns add %s" % ns)
            sh("ip link set lo up", ns)
        sh("ip link add eth0 netns %s type veth peer name veth-in netns %s" % (SRC, RTR))
        sh("ip link add %s netns %s type veth peer name eth0 netns %s" % (RTR_IF, RTR, DST))
        sh("sysctl -qw net.ipv4.ip_forward=1", RTR)
        for ns, dev, ip in ((SRC, "eth0", SRC_IP), (RTR, "veth-in", RTR_IN_IP),
                            (RTR, RTR_IF, RTR_IP), (DST, "eth0", DST_IP)):
            # no IPv6 chatter (ND, MLD) waking the qdisc under test
            sh("sysctl -qw net.ipv6.conf.all.disable_ipv6=1", ns)
            sh("sysctl -qw net.ipv6.conf.default.disable_ipv6=1", ns)
            sh("ip addr add %s/24 dev %s" % (ip, dev), ns)
            sh("ip link set %s up" % dev, ns)
            # one skb is one packet: the qdisc counts what the wire carries
            sh("ethtool -K %s tso off gso off gro off" % dev, ns, check=False)
        sh("ip route add default via %s" % RTR_IN_IP, SRC)
        sh("ip route add default via %s" % RTR_IP, DST)
        self.servers = []
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for proc in getattr(self, "servers", []):
            proc.kill()
            proc.wait()
        self.servers = []
        for ns in (SRC, RTR, DST):
            sh("ip netns del %s" % ns, check=False)

    def tc(self, args, check=True):
        return sh("tc " + args, RTR, check=check)

    def qdiscs(self):
        """tc -s -j qdisc show on the egress, as a list of dicts."""
        out = sh("tc -s -j qdisc show dev %s" % RTR_IF, RTR).stdout
        return json.loads(out)

    def qdisc(self, kind):
        for q in self.qdiscs():
            if q["kind"] == kind:
                return q
        raise KeyError(kind)

    def iperf_server(self, port=5201):
        proc = subprocess.Popen(["ip", "netns", "exec", DST, "iperf3", "-s",
                                 "-p", str(port), "-1"],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        self.servers.append(proc)
        time.sleep(0.3)
        return proc

    def iperf_client(self, seconds, port=5201, udp_rate=None, flows=1):
        """Start a client in the background; wait() it when done."""
        cmd = ["ip", "netns", "exec", SRC, "iperf3", "-c", DST_IP, "-p",
               str(port), "-t", str(seconds), "-P", str(flows), "-J"]
        if udp_rate:
            cmd += ["-u", "-b", udp_rate, "-l", "1400"]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

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
    """Start a paced UDP flow src -> dst; .wait() it, stdout has the count."""
    return subprocess.Popen(["ip", "netns", "exec", SRC, "/usr/bin/python3", "-c",
                             UDP_SENDER, DST_IP, str(pps), str(seconds), str(size)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def set_sysctl(ns, name, value):
    sh("sysctl -qw %s=%s" % (name, value), ns)
