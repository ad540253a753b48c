"""A raw rtnetlink client for qdisc requests, so tests can send what tc
never would and read the kernel's errno and extack message."""

import errno
import os
import re
import socket
import struct

RTM_NEWQDISC = 36
NLMSG_ERROR = 2
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE = 0x100, 0x200, 0x400
NLM_F_ACK_TLVS = 0x200
NLA_F_NESTED = 0x8000
NLMSGERR_ATTR_MSG = 1
SOL_NETLINK, NETLINK_EXT_ACK = 270, 11
TCA_KIND, TCA_OPTIONS = 1, 2
TC_H_ROOT = 0xFFFFFFFF

OP_FLAGS = {
    "add": NLM_F_CREATE | NLM_F_EXCL,
    "change": 0,
    "replace": NLM_F_CREATE | NLM_F_REPLACE,
}
PACK = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q", "s32": "=i"}
UAPI = os.path.join(os.path.dirname(__file__), "..", "..", "kmod", "include",
                    "uapi", "linux", "pkt_sched_aqm.h")


def uapi_attributes(path=UAPI):
    """Attribute numbers of every TCA_* enum in our uapi header."""
    numbers = {}
    for body in re.findall(r"enum\s*\{(.*?)\};", open(path).read(), re.S):
        value = 0
        for line in body.splitlines():
            m = re.match(r"\s*(TCA_\w+)\s*(?:=\s*(\d+))?\s*,", line)
            if m:
                value = int(m.group(2)) if m.group(2) else value
                numbers[m.group(1)] = value
                value += 1
    return numbers


def _attr(kind, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def encode_attrs(attrs, numbers):
    out = b""
    for name, typ, value in attrs:
        number = numbers[name] if isinstance(name, str) else int(name)
        if typ == "bytes":
            payload = bytes.fromhex(value)
        else:
            payload = struct.pack(PACK[typ], value)
        out += _attr(number, payload)
    return out


def parse_handle(text):
    if text in (None, "root"):
        return TC_H_ROOT
    major, _, minor = text.partition(":")
    return (int(major or "0", 16) << 16) | int(minor or "0", 16)


def qdisc_request(op, dev, kind, attrs=(), parent="root", handle=None,
                  options=True):
    """Send RTM_NEWQDISC; return (errno name or 0, extack message)."""
    numbers = uapi_attributes()
    ifindex = socket.if_nametoindex(dev)
    tcm = struct.pack("=BxxxiIII", socket.AF_UNSPEC, ifindex,
                      parse_handle(handle) if handle else 0,
                      parse_handle(parent), 0)
    body = _attr(TCA_KIND, kind.encode() + b"\0")
    if options:
        body += _attr(TCA_OPTIONS | NLA_F_NESTED, encode_attrs(attrs, numbers))
    flags = NLM_F_REQUEST | NLM_F_ACK | OP_FLAGS[op]
    msg = tcm + body
    msg = struct.pack("=IHHII", 16 + len(msg), RTM_NEWQDISC, flags, 1, 0) + msg

    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                       socket.NETLINK_ROUTE) as sock:
        sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        sock.settimeout(60)  # the kernel answers at once, or never will
        sock.bind((0, 0))
        sock.send(msg)
        reply = sock.recv(65536)
    return parse_ack(reply)


def parse_ack(reply):
    length, typ, flags, _, _ = struct.unpack_from("=IHHII", reply)
    if typ != NLMSG_ERROR:
        raise RuntimeError("unexpected netlink reply type %d" % typ)
    err = -struct.unpack_from("=i", reply, 16)[0]
    message = ""
    if flags & NLM_F_ACK_TLVS:
        orig_len = struct.unpack_from("=I", reply, 20)[0]
        offset = 20 + (orig_len if err else 16)
        while offset + 4 <= length:
            alen, atype = struct.unpack_from("=HH", reply, offset)
            if alen < 4:
                break
            if atype & 0x3FFF == NLMSGERR_ATTR_MSG:
                message = reply[offset + 4:offset + alen].split(b"\0")[0].decode()
            offset += (alen + 3) & ~3
    return (errno.errorcode.get(err, str(err)) if err else 0), message
