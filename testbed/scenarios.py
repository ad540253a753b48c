"""The scenarios experiment.py and scripts/evaluate know by name: the study's
network, and RFC 7928's (section numbers are the RFC's) at access rates.
Each is plain data (testbed/scenario.py says what the fields mean).

Every scenario with TCP senders has an ECN twin, NAME-ecn: the senders ask
for ECN and the qdisc marks (experiment.py adds the kind's "ecn" word).

RFC 7928's scenarios here share one network: every pair's round trip is
BASE_RTT_MS, all of it on the access links (so that section 6 can sweep one
pair's RTT down to 5 ms), the buffer one bandwidth-delay product at that
RTT (at least MIN_BUFFER_PKTS): a drop-tail queue then holds up to one RTT
of delay, which an AQM is there to remove. Senders run CUBIC, Linux's
default, unless the section asks for another.
"""

ACCESS_RATES_MBIT = (10, 100)
BASE_RTT_MS = 100
MIN_BUFFER_PKTS = 100
WIRE_BYTES = 1514
DURATION_S = 60
# RFC 7928 section 6: the second flow's RTT, the first's is 100 ms
RTT_SWEEP_MS = (5, 10, 20, 50, 100, 200, 560)
# section 8.2: light, medium and heavy congestion, in flows
CONGESTION_FLOWS = (1, 8, 64)

STUDY = {
    "name": "study", "rfc7928": None,
    "description": "the study: 4 HighSpeed TCP senders, 1 Gbit/s, 2500-packet buffer",
    "bandwidth_mbit": 1000, "buffer_pkts": 2500, "duration_s": 100,
    "bottleneck_delay_ms": 20, "ecn": False, "start_gap_s": 0.1,
    "pairs": [{"rtt_ms": rtt, "traffic": [{"type": "bulk", "cc": "highspeed"}]}
              for rtt in (44, 48, 48, 48)],
}


def bulk(cc="cubic", flows=1, **when):
    return {"type": "bulk", "cc": cc, "flows": flows, **when}


def probe():
    return {"type": "probe", "interval_ms": 100}


def access(name, section, description, rate_mbit, pairs, rtts=None):
    """A scenario on the access network; pairs: each pair's traffic
    (a list) or (traffic, initcwnd); a probe rides on the first pair."""
    buffer = max(MIN_BUFFER_PKTS,
                 round(rate_mbit * 1e6 * BASE_RTT_MS / 1e3 / (8 * WIRE_BYTES)))
    out = []
    for i, p in enumerate(pairs):
        traffic, initcwnd = p if isinstance(p, tuple) else (p, None)
        pair = {"rtt_ms": (rtts or {}).get(i, BASE_RTT_MS),
                "traffic": traffic + ([probe()] if i == 0 else [])}
        if initcwnd:
            pair["initcwnd"] = initcwnd
        out.append(pair)
    return {"name": "%s-%dm" % (name, rate_mbit), "rfc7928": section,
            "description": description, "bandwidth_mbit": rate_mbit, "buffer_pkts": buffer,
            "duration_s": DURATION_S, "bottleneck_delay_ms": 0, "ecn": False,
            "start_gap_s": 0.1, "pairs": out}


def access_scenarios(rate):
    yield access("tcp-friendly", "5.1", "4 CUBIC flows, initial window 10", rate,
                 [[bulk()]] * 4)
    # Reno's growth is counted in ACKs, so it scales with time exactly
    # (CUBIC's grows with the wall clock): the fidelity of time scaling is
    # proven with these senders
    yield access("tcp-friendly-reno", "5.1", "4 Reno flows, initial window 10", rate,
                 [[bulk("reno")]] * 4)
    yield access("tcp-friendly-iw", "5.1",
                 "4 CUBIC flows, initial windows 3, 3, 10 and 10", rate,
                 [([bulk()], 3), ([bulk()], 3), ([bulk()], 10), ([bulk()], 10)])
    yield access("aggressive", "5.2", "3 CUBIC flows beside one Scalable TCP flow",
                 rate, [[bulk()]] * 3 + [[bulk("scalable")]])
    yield access("aggressive-bbr", "5.2", "3 CUBIC flows beside one BBR flow",
                 rate, [[bulk()]] * 3 + [[bulk("bbr")]])
    yield access("udp-alone", "5.3", "unresponsive UDP at 1.2 times the bottleneck rate",
                 rate, [[{"type": "udp", "rate_mbit": 1.2 * rate}]])
    yield access("udp-tcp", "5.3",
                 "unresponsive UDP at half the bottleneck rate beside 2 CUBIC flows",
                 rate, [[bulk()], [bulk()], [{"type": "udp", "rate_mbit": 0.5 * rate}]])
    yield access("lbe", "5.4", "a TCP-LP (less than best effort) flow beside a CUBIC flow",
                 rate, [[bulk()], [bulk("lp")]])
    for rtt in RTT_SWEEP_MS:
        yield access("rtt-fairness-%dms" % rtt, "6",
                     "2 CUBIC flows, RTT 100 ms and %d ms" % rtt, rate,
                     [[bulk()], [bulk()]], rtts={1: rtt})
    for flows in CONGESTION_FLOWS:
        pairs = min(flows, 4)
        yield access("congestion-%dflows" % flows, "8.2",
                     "%d CUBIC flow%s" % (flows, "s" if flows > 1 else ""), rate,
                     [[bulk(flows=flows // pairs)]] * pairs)
    ten_segments = 10 * 1448  # fits an initial window of 10
    yield access("bursts-short", "7",
                 "2 CUBIC flows; bursts of 10 short flows (10 segments each), 1 a second",
                 rate, [[bulk()], [bulk()],
                        [{"type": "short", "rate_per_s": 10, "burst": 10,
                          "sizes_bytes": [ten_segments]}]])
    yield access("bursts-mix", "7",
                 "2 CUBIC flows, bursts of short flows, and UDP at a tenth of the rate "
                 "in bursts of 20 packets", rate,
                 [[bulk()], [bulk()],
                  [{"type": "short", "rate_per_s": 10, "burst": 10,
                    "sizes_bytes": [ten_segments]}],
                  [{"type": "udp", "rate_mbit": 0.1 * rate, "burst_pkts": 20}]])
    third = DURATION_S / 3
    yield dict(access("capacity-varying", "8.2",
                      "4 CUBIC flows; the capacity drops to a tenth for the middle third",
                      rate, [[bulk()]] * 4),
               capacity=[{"at_s": third, "bandwidth_mbit": rate / 10},
                         {"at_s": 2 * third, "bandwidth_mbit": rate}])
    yield access("congestion-varying", "8.2",
                 "2 CUBIC flows throughout, 6 more in the middle third", rate,
                 [[bulk()], [bulk()], [bulk(flows=3, start_s=third, stop_s=2 * third)],
                  [bulk(flows=3, start_s=third, stop_s=2 * third)]])


def with_ecn(s):
    """s with its senders and the qdisc using ECN (RFC 7928 4.5)."""
    return dict(s, name=s["name"] + "-ecn", ecn=True, description=s["description"] + ", ECN")


def tcp_senders(s):
    return any(t["type"] in ("bulk", "short") for p in s["pairs"] for t in p["traffic"])


def dctcp_scenario(rate):
    """DCTCP (it needs ECN: only the ECN twin) beside CUBIC in one queue:
    a single-queue AQM marks both alike, and DCTCP answers a mark with a
    cut in proportion to the marks, CUBIC with a cut by 30%."""
    return with_ecn(access("dctcp-cubic", "5.2", "2 DCTCP flows beside 2 CUBIC flows",
                           rate, [[bulk("dctcp")]] * 2 + [[bulk()]] * 2))


_ACCESS = [s for rate in ACCESS_RATES_MBIT for s in access_scenarios(rate)]
LIBRARY = {s["name"]: s for s in
           [STUDY] + _ACCESS + [with_ecn(s) for s in _ACCESS if tcp_senders(s)]
           + [dctcp_scenario(rate) for rate in ACCESS_RATES_MBIT]}
