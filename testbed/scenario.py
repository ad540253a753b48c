"""A scenario as data: the dumbbell's pairs, each with its round trip and
its traffic, the bottleneck's rate and buffer, ECN, the run's length.
experiment.py runs any scenario with any qdisc; the study's network is the
scenario "study", and RFC 7928's are the others (testbed/scenarios.py).

Every value is nominal (experiment.py scales times by k, rates by 1 / k);
units are in the key names. A scenario is a plain dict, JSON-able, kept
whole in each run's summary.json:

    {"name": "rtt-fairness-20ms", "rfc7928": "6",
     "description": "two CUBIC flows, 100 ms and 20 ms",
     "bandwidth_mbit": 100, "buffer_pkts": 1000, "duration_s": 60,
     "bottleneck_delay_ms": 0, "ecn": false, "start_gap_s": 0.1,
     "pairs": [{"rtt_ms": 100, "traffic": [{"type": "bulk", "cc": "cubic"}]},
               {"rtt_ms": 20, "initcwnd": 10,
                "traffic": [{"type": "bulk", "cc": "cubic", "flows": 2},
                            {"type": "udp", "rate_mbit": 10, "start_s": 20},
                            {"type": "probe", "interval_ms": 100}]}]}

The bottleneck's rate may change during the run: "capacity": [{"at_s": 20,
"bandwidth_mbit": 10}, {"at_s": 40, "bandwidth_mbit": 100}] (RFC 7928 8.2's
varying capacity); a --bandwidth given to experiment.py scales every step
in proportion.

A pair's rtt_ms is its two-way propagation delay: the bottleneck's both
ways plus its access link's. Traffic of pair i starts (i - 1) start_gap_s
after the first pair's, plus its own start_s; it stops at stop_s (default:
the end of the run). Traffic types:
- bulk: `flows` long TCP flows of congestion control `cc` (iperf3 -P);
- udp: unresponsive UDP at rate_mbit, packet_bytes a datagram, sent in
  bursts of burst_pkts back to back where given (a bursty CBR);
- short: short TCP flows (the pair's default congestion control) arriving
  at rate_per_s on average (Poisson), in bursts of `burst` at once, each of a
  size drawn from sizes_bytes; each one's completion time is recorded
  (testbed/shortflows.c);
- probe: a ping every interval_ms, the delay a new flow's packets see.
"""

import copy
import json
import os

TRAFFIC_FIELDS = {
    "bulk": {"cc": str, "flows": int, "start_s": float, "stop_s": float},
    "udp": {"rate_mbit": float, "packet_bytes": int, "burst_pkts": int, "start_s": float,
            "stop_s": float},
    "short": {"rate_per_s": float, "sizes_bytes": list, "burst": int, "start_s": float,
              "stop_s": float},
    "probe": {"interval_ms": float, "start_s": float, "stop_s": float},
}
TRAFFIC_DEFAULTS = {
    "bulk": {"flows": 1, "start_s": 0.0, "stop_s": None},
    "udp": {"packet_bytes": 1400, "burst_pkts": None, "start_s": 0.0, "stop_s": None},
    "short": {"burst": 1, "start_s": 0.0, "stop_s": None},
    "probe": {"start_s": 0.0, "stop_s": None},
}
PAIR_FIELDS = {"rtt_ms": float, "initcwnd": int, "traffic": list}
SCENARIO_FIELDS = {"name": str, "rfc7928": str, "description": str, "bandwidth_mbit": float,
                   "buffer_pkts": int, "duration_s": float, "bottleneck_delay_ms": float,
                   "ecn": bool, "start_gap_s": float, "pairs": list, "capacity": list}
SCENARIO_DEFAULTS = {"rfc7928": None, "description": "", "bottleneck_delay_ms": 0.0,
                     "ecn": False, "start_gap_s": 0.1, "capacity": []}
MAX_PAIRS = 16
MAX_FLOWS = 256


class ScenarioError(ValueError):
    """A scenario that cannot run; the message names the field."""


def _typed(where, key, value, kind):
    if value is None:
        return None
    if isinstance(value, bool) != (kind is bool):
        raise ScenarioError("%s%s: %r is not %s" % (where, key, value, kind.__name__))
    if kind is float and isinstance(value, int):
        return float(value)
    if not isinstance(value, kind):
        raise ScenarioError("%s%s: %r is not %s" % (where, key, value, kind.__name__))
    return value


def _fields(where, given, fields, defaults, required):
    if not isinstance(given, dict):
        raise ScenarioError("%s: not an object" % where.rstrip("."))
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise ScenarioError("%s%s: unknown field (known: %s)"
                            % (where, unknown[0], ", ".join(sorted(fields))))
    out = dict(defaults)
    for key, value in given.items():
        out[key] = _typed(where, key, value, fields[key])
    for key in required:
        if out.get(key) is None:
            raise ScenarioError("%s%s: missing" % (where, key))
    return out


def validate(given):
    """The scenario with its defaults filled in; ScenarioError names the
    first field that is wrong."""
    s = _fields("", given, SCENARIO_FIELDS, SCENARIO_DEFAULTS,
                ("name", "bandwidth_mbit", "buffer_pkts", "duration_s", "pairs"))
    if s["bandwidth_mbit"] <= 0:
        raise ScenarioError("bandwidth_mbit: must be above 0")
    if s["buffer_pkts"] < 1:
        raise ScenarioError("buffer_pkts: at least 1")
    if s["duration_s"] <= 0:
        raise ScenarioError("duration_s: must be above 0")
    if s["bottleneck_delay_ms"] < 0 or s["start_gap_s"] < 0:
        raise ScenarioError("bottleneck_delay_ms and start_gap_s: not below 0")
    steps, last = [], 0.0
    for i, step in enumerate(s["capacity"], 1):
        where = "capacity[%d]." % i
        step = _fields(where, step, {"at_s": float, "bandwidth_mbit": float}, {},
                       ("at_s", "bandwidth_mbit"))
        if not last < step["at_s"] < s["duration_s"] or step["bandwidth_mbit"] <= 0:
            raise ScenarioError("%sat_s: after the previous step, before duration_s; "
                                "bandwidth_mbit above 0" % where)
        last = step["at_s"]
        steps.append(step)
    s["capacity"] = steps
    if not 1 <= len(s["pairs"]) <= MAX_PAIRS:
        raise ScenarioError("pairs: 1 to %d" % MAX_PAIRS)
    pairs, flows = [], 0
    for i, given_pair in enumerate(s["pairs"], 1):
        where = "pairs[%d]." % i
        p = _fields(where, given_pair, PAIR_FIELDS, {"initcwnd": None}, ("rtt_ms", "traffic"))
        if p["rtt_ms"] < 2 * s["bottleneck_delay_ms"]:
            raise ScenarioError("%srtt_ms: %g is below the bottleneck's two ways (%g ms)"
                                % (where, p["rtt_ms"], 2 * s["bottleneck_delay_ms"]))
        if p["initcwnd"] is not None and not 1 <= p["initcwnd"] <= 1000:
            raise ScenarioError("%sinitcwnd: 1 to 1000" % where)
        traffic = []
        for j, item in enumerate(p["traffic"], 1):
            twhere = "%straffic[%d]." % (where, j)
            kind = item.get("type") if isinstance(item, dict) else None
            if kind not in TRAFFIC_FIELDS:
                raise ScenarioError("%stype: one of %s" % (twhere, ", ".join(TRAFFIC_FIELDS)))
            body = {key: value for key, value in item.items() if key != "type"}
            t = _fields(twhere, body, TRAFFIC_FIELDS[kind], TRAFFIC_DEFAULTS[kind],
                        [key for key in TRAFFIC_FIELDS[kind]
                         if key not in TRAFFIC_DEFAULTS[kind]])
            stop = t["stop_s"] if t["stop_s"] is not None else s["duration_s"]
            if not 0 <= t["start_s"] < stop <= s["duration_s"]:
                raise ScenarioError("%sstart_s, stop_s: 0 <= start < stop <= duration_s (%g)"
                                    % (twhere, s["duration_s"]))
            if kind == "bulk":
                if not 1 <= t["flows"] <= MAX_FLOWS:
                    raise ScenarioError("%sflows: 1 to %d" % (twhere, MAX_FLOWS))
                flows += t["flows"]
            elif kind == "udp":
                if t["rate_mbit"] <= 0 or not 64 <= t["packet_bytes"] <= 1472:
                    raise ScenarioError("%srate_mbit above 0, packet_bytes 64 to 1472" % twhere)
                if t["burst_pkts"] is not None and not 1 <= t["burst_pkts"] <= 1000:
                    raise ScenarioError("%sburst_pkts: 1 to 1000" % twhere)
                flows += 1
            elif kind == "short":
                sizes = t["sizes_bytes"]
                if (not 1 <= len(sizes) <= 32 or not all(
                        isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 10 ** 9
                        for x in sizes)):
                    raise ScenarioError("%ssizes_bytes: 1 to 32 sizes, 1 to 1e9 bytes each"
                                        % twhere)
                if t["rate_per_s"] <= 0 or not 1 <= t["burst"] <= 1000:
                    raise ScenarioError("%srate_per_s above 0, burst 1 to 1000" % twhere)
            elif t["interval_ms"] <= 0:
                raise ScenarioError("%sinterval_ms: must be above 0" % twhere)
            traffic.append({"type": kind, **t})
        if not traffic:
            raise ScenarioError("%straffic: empty" % where)
        p["traffic"] = traffic
        pairs.append(p)
    if flows > MAX_FLOWS:
        raise ScenarioError("pairs: %d flows in all, at most %d" % (flows, MAX_FLOWS))
    if not any(t["type"] != "probe" for p in pairs for t in p["traffic"]):
        raise ScenarioError("pairs: no traffic but probes")
    s["pairs"] = pairs
    return s


def load(name_or_path):
    """A scenario of the library by name, or a JSON file by path."""
    import scenarios
    if name_or_path in scenarios.LIBRARY:
        return validate(scenarios.LIBRARY[name_or_path])
    if os.path.exists(name_or_path):
        with open(name_or_path) as f:
            try:
                return validate(json.load(f))
            except ValueError as e:
                if isinstance(e, ScenarioError):
                    raise
                raise ScenarioError("%s: not JSON (%s)" % (name_or_path, e))
    raise ScenarioError("%s: no such scenario (scripts/evaluate --list) or file"
                        % name_or_path)


def with_senders(s, cc=None, flows_per_pair=None):
    """s with every bulk item's congestion control and flow count set."""
    s = copy.deepcopy(s)
    for p in s["pairs"]:
        for t in p["traffic"]:
            if t["type"] == "bulk":
                t["cc"] = cc or t["cc"]
                t["flows"] = flows_per_pair or t["flows"]
    return validate(s)


def rate_schedule(s, rate_bps, duration):
    """The bottleneck's nominal rate over a run of `duration` seconds at
    rate_bps: a number, or [(from_s, bit/s), ...] where the capacity
    changes (times stretched with the run, rates in proportion)."""
    if not s["capacity"]:
        return rate_bps
    ratio, stretch = rate_bps / (s["bandwidth_mbit"] * 1e6), duration / s["duration_s"]
    return [(0.0, rate_bps)] + [(step["at_s"] * stretch, step["bandwidth_mbit"] * 1e6 * ratio)
                                for step in s["capacity"]]


def peak_rate_bps(s, rate_bps):
    schedule = rate_schedule(s, rate_bps, s["duration_s"])
    return max(r for _, r in schedule) if isinstance(schedule, list) else schedule


def access_rtt_s(s, pair):
    """The two-way delay of pair's (1-based) access link."""
    return (s["pairs"][pair - 1]["rtt_ms"] - 2 * s["bottleneck_delay_ms"]) / 1e3


def rtt_s(s, pair):
    return s["pairs"][pair - 1]["rtt_ms"] / 1e3


def congestion_controls(s):
    return sorted({t["cc"] for p in s["pairs"] for t in p["traffic"] if t["type"] == "bulk"})


def flow_table(s):
    """Every flow the traffic makes, numbered from 1 in pair and item order:
    [{"flow", "pair", "item", "type", "cc"}]; probes are no flow."""
    out = []
    for i, p in enumerate(s["pairs"], 1):
        for j, t in enumerate(p["traffic"]):
            count = t["flows"] if t["type"] == "bulk" else 1 if t["type"] == "udp" else 0
            for _ in range(count):
                out.append({"flow": len(out) + 1, "pair": i, "item": j, "type": t["type"],
                            "cc": t.get("cc")})
    return out


# Time scaling holds for a sender whose window grows per ACK or per round
# trip: its behaviour in round trips is the same at every k. CUBIC's window
# grows with the wall clock (W = C (t - K)^3 + W_max, t in seconds), k^3
# times too fast in nominal time at time scale k: the testbed runs it as
# tools/scaled-cubic builds it, the kernel's own tcp_cubic.c under another
# name (kernel_cc()) with every wall-clock quantity (t, HyStart's delay
# bounds and ACK spacing, its 1 s and 1/32 s timers) multiplied by its
# time_scale parameter, which experiment.py sets to k (1: the built-in
# cubic's behaviour). BBR's and TCP-LP's timers are in wall time, not
# scaled.
TIME_INVARIANT_CC = {"reno", "highspeed", "scalable", "dctcp"}
KERNEL_CC = {"cubic": "cubic_scaled"}


def kernel_cc(cc):
    """The name the kernel knows a scenario's congestion control by."""
    return KERNEL_CC.get(cc, cc)


# The guest's CPUs busier than this over a run (fidelity check or the run
# itself): the emulation falls behind the network it stands for (under TCG,
# four flows at 200 Mbit/s delivered 91% at 87% busy, 99.8% at 70%), and
# where the link then idles that is the machine, not the qdisc. No valid
# committed run was above 80%.
MAX_CPU_BUSY = 0.85


def cpu_saturated(cpu_busy):
    """Why a run's CPU use makes it not faithful (None if it does not)."""
    if cpu_busy is None or cpu_busy <= MAX_CPU_BUSY:
        return None
    return ("the guest's CPUs were %.0f%% busy, above %.0f%%: the machine could not "
            "carry the run" % (100 * cpu_busy, 100 * MAX_CPU_BUSY))


def unscaled_senders(ccs, k, cubic_time_scale):
    """The congestion controls that do not behave at time scale k as at 1,
    CUBIC's clock running at cubic_time_scale (1: the built-in cubic's):
    {cc: why}; empty when all do."""
    why = {}
    for cc in ccs:
        if k == 1 or cc in TIME_INVARIANT_CC:
            continue
        if cc == "cubic":
            if cubic_time_scale != k:
                why[cc] = ("CUBIC's clock runs at time scale %s, the network at k = %d: its "
                           "window grows %.3g times as fast as nominal"
                           % (cubic_time_scale, k, (k / (cubic_time_scale or 1)) ** 3))
        else:
            why[cc] = "%s's timers run in wall-clock time, not scaled with k" % cc
    return why


def last_option(args, option):
    """The value the last OPTION in a qdisc's arguments gave (tc's parsers
    let a later one win), None if none did."""
    words = args.split()
    values = [words[i + 1] for i, w in enumerate(words[:-1]) if w == option]
    return values[-1] if values else None


def pi_autotuned(kind, args):
    """Whether a qdisc's arguments run pi with autotune (the last of
    autotune and noautotune wins)."""
    toggles = [w for w in args.split() if w in ("autotune", "noautotune")]
    return kind == "pi" and toggles[-1:] == ["autotune"]


def unscaled_aqm_model(kind, args, k):
    """Why a qdisc's own model of the senders does not behave at time scale
    k as at 1, judged on the arguments it ran with (None where it does).
    pi's autotune with CUBIC's response (the default) computes the senders'
    window from RFC 9438's W = (3.0833 C)^0.25 R^0.75 / p^0.75, whose C is in
    wall-clock seconds^-3: at k it must be told the senders' C / k^3
    (cubic_c, which experiment.py's scaling adds). Without it, it takes
    C = 0.4, expects windows k^0.75 times the senders' and designs for fewer
    flows than there are. Reno's and HighSpeed's windows do not depend on R."""
    words = args.split()
    if k == 1 or not pi_autotuned(kind, args) or "cubic_c" in words:
        return None
    if (last_option(args, "response") or "cubic") != "cubic":
        return None
    return ("pi's autotune models CUBIC senders with C = 0.4 in wall-clock seconds: at "
            "k = %d it expects windows %.2f times the senders' (k^0.75), and designs "
            "for fewer flows than there are" % (k, k ** 0.75))


def flows_estimated(args, limit_drops=None):
    """Whether pi ran with flows auto; the limit's drops do not matter."""
    return last_option(args, "flows") == "auto"


def margin_auto_flows_estimated(args, limit_drops=None):
    """Whether pi ran with margin auto and flows auto."""
    return last_option(args, "margin") == "auto" and flows_estimated(args)


def limit_drops_counted(args, limit_drops):
    """Whether counting the limit's drops in flows auto's N changed a run:
    flows auto, and its limit dropped (or the count was not recorded)."""
    return flows_estimated(args) and limit_drops != 0


# autotune's law as it changed, oldest first: from when (UTC), what a run
# made before it measured, which runs it changed (None: every one), and,
# where given, the first date it concerns (a law that ran for a while)
PI_LAW_CHANGES = (
    ("2026-12-05T10:30", "autotuned pi in ns-2's form, made before its positional law", None),
    ("2026-12-05T13:40", "autotuned pi whose integral counted all of an overshoot, made "
     "before it counted the error up to the reference", None),
    ("2026-12-05T21:00", "pi with flows auto whose limit dropped, made before N counted "
     "the limit's drops", limit_drops_counted),
    ("2026-12-06T02:15", "pi with flows auto, made while its design's N rose slower than "
     "the loop from p as well (2026-12-06T00:50)", flows_estimated, "2026-12-06T00:50"),
    ("2026-12-06T02:15", "pi with flows auto whose limit dropped, made before the N the "
     "limit's drops add rose slower than the loop", limit_drops_counted),
    ("2026-12-06T04:45", "pi with flows auto whose limit dropped, made before the N the "
     "limit's drops add rose at once up to the flows counted", limit_drops_counted),
    ("2026-12-06T05:15", "pi with flows auto whose limit dropped, made before the N the "
     "limit's drops add was bounded by the flows counted and their share averaged over "
     "32-64 round trips", limit_drops_counted),
    ("2026-12-06T19:45", "pi with margin auto and flows auto, made while the margin took "
     "the senders' loss events at the design's N (read from p) instead of the flows counted",
     margin_auto_flows_estimated, "2026-12-06T15:00"),
    ("2026-12-06T23:28", "autotuned pi made while its integral went below 0, to -b q_ref "
     "(commit 29bd63a, undone)", None, "2026-12-06T22:45"),
    ("2026-12-07T02:30", "pi with flows auto, made before the design's N read from p was "
     "bounded by the flows counted", flows_estimated),
    ("2026-12-07T07:15", "pi with flows auto, made before p's N was read at operating "
     "points only, and no longer bounded by the flows counted", flows_estimated),
    ("2026-12-07T07:40", "pi with flows auto, made while p's mean did not rise above twice "
     "the reference (the design held at one flow through slow start)", flows_estimated,
     "2026-12-07T07:15"),
)


def superseded_pi_law(kind, args, date, limit_drops=None):
    """Why an autotuned pi run no longer measures pi as it is (None where
    it does): made, by its date, before a change of autotune's law
    (PI_LAW_CHANGES; the first it predates and that applies to it, given
    the drops its limit made, None if not recorded). Gains set by hand keep
    ns-2's form; a run without a date is not judged."""
    if not pi_autotuned(kind, args) or not date:
        return None
    for since, what, applies, *first in PI_LAW_CHANGES:
        if (date < since and (not first or date >= first[0])
                and (applies is None or applies(args, limit_drops))):
            return "%s (%s)" % (what, since)
    return None
