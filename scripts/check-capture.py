#!/usr/bin/env python3
"""check-capture.py - decode a capture of the mlx5-hca fabric with tshark and check it.

Usage:
  scripts/check-capture.py [--serial LOGDIR/serial-0.log] [--expect-opcodes LIST]
                           [--summary N] [--quiet] PCAP [PCAP...]

The capture comes from QEMU's `-object filter-dump,netdev=fab0,file=PCAP` on a fabric link
(guest-tests/capture.sh, run by scripts/capture-test.py). Frames are RoCEv2-shaped (see
docs/fabric.md), so Wireshark's own InfiniBand dissector decodes them. Checks, per PCAP:

  * every frame decodes as Ethernet/IPv4 or IPv6/UDP 4791/InfiniBand with a BTH; no frame is
    malformed and no InfiniBand or IP frame carries an expert info of severity warning or
    error; IPv4 header checksums are good (tshark validates them);
  * the LRH fields carried in the addresses agree: MAC 02:49:42:00:DLID / 02:49:42:SL:SLID and,
    without a GRH, IPv4 10.73.SLID -> 10.73.DLID; UDP destination 4791, source 0xc000|QPN;
    BTH P_Key 0xffff, TVer 0; the ICRC (recomputed here from the raw frame, RoCEv2 rules)
    matches the one on the wire; tshark's BTH fields equal the raw header bytes;
  * RC (opcodes 0x00-0x1f), per direction and destination QP: request PSNs are consecutive
    (+1 mod 2^24, no gap, no duplicate); SEND/WRITE messages are well formed (FIRST MIDDLE*
    LAST or ONLY; FIRST and MIDDLE carry exactly one path MTU, LAST and ONLY at most one);
    every ACKNOWLEDGE is a positive ACK of a request PSN already sent to the acking QP, ACK
    PSNs never go back, the last one acknowledges the last request, and its MSN counts the
    messages completed up to that PSN; requests and responses of one connection name each
    other's QPs (BTH DestQP of one side = UDP source QPN of the other);
  * the opcodes of --expect-opcodes (default: RC SEND_ONLY, SEND_FIRST, SEND_MIDDLE,
    SEND_LAST and ACKNOWLEDGE) all occur;
  * with --serial: the ibv_rc_pingpong runs logged there ("local address: LID .., QPN ..,
    PSN ..", "remote address: ...", "N bytes in", "N iters in") each appear as one RC
    connection: requests from each side go to the QPN the other side printed, start at the PSN
    the sender printed, and carry exactly ITERS messages of SIZE bytes each way; no RC traffic
    belongs to no run.
With --roce the capture is of an Ethernet port (link-type=eth) running RoCE v2: frames that are
not RoCE v2 (ARP, IP traffic of the network interface) are counted and skipped; the RoCE frames
must carry real (not 02:49:42) MACs, the same pair for each pair of IP addresses, a good IPv4
header checksum, a UDP source port in 0xc000-0xffff (the kernel's flow-label hash, not the QPN);
each host is named by the last two bytes of its IP address where the checks above say LID, and
the pingpong runs are matched by the GIDs they print ("GID ::ffff:a.b.c.d").
With several PCAPs (e.g. both ends of one link) each is checked, and then every frame sent by
one end must appear, bytes identical and in the same order, in the other end's capture.

Prints a short decoded summary (the first --summary packets, then one line per RC flow).
Exit status 0 if all checks pass, 1 otherwise (also when tshark is missing and cannot be
installed), 2 on bad usage. tshark is Debian's `tshark` package; when it is missing,
scripts/host-deps.sh installs it (group 'capture').
"""

import argparse
import ipaddress
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from collections import Counter, OrderedDict
from pathlib import Path

RC_OPCODES = {
    0x00: "SEND_FIRST", 0x01: "SEND_MIDDLE", 0x02: "SEND_LAST", 0x03: "SEND_LAST_IMM",
    0x04: "SEND_ONLY", 0x05: "SEND_ONLY_IMM", 0x06: "RDMA_WRITE_FIRST",
    0x07: "RDMA_WRITE_MIDDLE", 0x08: "RDMA_WRITE_LAST", 0x09: "RDMA_WRITE_LAST_IMM",
    0x0a: "RDMA_WRITE_ONLY", 0x0b: "RDMA_WRITE_ONLY_IMM", 0x0c: "RDMA_READ_REQUEST",
    0x0d: "RDMA_READ_RESPONSE_FIRST", 0x0e: "RDMA_READ_RESPONSE_MIDDLE",
    0x0f: "RDMA_READ_RESPONSE_LAST", 0x10: "RDMA_READ_RESPONSE_ONLY", 0x11: "ACKNOWLEDGE",
    0x12: "ATOMIC_ACKNOWLEDGE", 0x13: "COMPARE_SWAP", 0x14: "FETCH_ADD",
    0x16: "SEND_LAST_INV", 0x17: "SEND_ONLY_INV",
}
TRANSPORTS = {0: "RC", 1: "UC", 2: "RD", 3: "UD", 4: "CNP", 5: "XRC"}
RC_RESPONSES = {0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12}
FIRST, MIDDLE, LAST, ONLY = "first", "middle", "last", "only"
# RC request opcode -> (message kind, position in message)
RC_MSG = {0x00: ("SEND", FIRST), 0x01: ("SEND", MIDDLE), 0x02: ("SEND", LAST),
          0x03: ("SEND", LAST), 0x04: ("SEND", ONLY), 0x05: ("SEND", ONLY),
          0x16: ("SEND", LAST), 0x17: ("SEND", ONLY),
          0x06: ("WRITE", FIRST), 0x07: ("WRITE", MIDDLE), 0x08: ("WRITE", LAST),
          0x09: ("WRITE", LAST), 0x0a: ("WRITE", ONLY), 0x0b: ("WRITE", ONLY)}
DEFAULT_OPCODES = "SEND_ONLY,SEND_FIRST,SEND_MIDDLE,SEND_LAST,ACKNOWLEDGE"
PSN_MOD = 1 << 24
ROCE_PORT = 4791
SEV_WARN = 0x00600000        # _ws.expert.severity: comment 1, chat 2, note 4, warn 6, error 8 << 20

FIELDS = [
    "frame.number", "frame.time_relative", "frame.protocols", "eth.src", "eth.dst",
    "ip.src", "ip.dst", "ip.checksum.status", "ipv6.src", "ipv6.dst", "udp.srcport",
    "udp.dstport", "infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.padcnt",
    "infiniband.bth.tver", "infiniband.bth.p_key", "infiniband.bth.destqp",
    "infiniband.bth.a", "infiniband.bth.psn", "infiniband.aeth.syndrome",
    "infiniband.aeth.msn", "infiniband.invariant.crc", "_ws.malformed",
    "_ws.expert.severity", "_ws.expert.message", "_ws.col.Protocol", "_ws.col.Info",
]


def opname(op):
    if op is None:
        return "?"
    t = TRANSPORTS.get(op >> 5, f"T{op >> 5}")
    if op >> 5 in (0, 1, 3, 5):
        name = RC_OPCODES.get(op & 0x1f)
        if name:
            return f"{t} {name}"
    return f"{t} opcode 0x{op:02x}"


# ---- tshark --------------------------------------------------------------------------------------
def ensure_tshark():
    """tshark, installed through scripts/host-deps.sh (group 'capture') when it is missing."""
    path = shutil.which("tshark")
    if path:
        return path
    deps = Path(__file__).resolve().parent / "host-deps.sh"
    print("check-capture: tshark is missing; scripts/host-deps.sh capture", file=sys.stderr)
    subprocess.run(["bash", str(deps), "capture"], stdin=subprocess.DEVNULL)
    return shutil.which("tshark")


def tshark_fields(tshark, pcap):
    cmd = [tshark, "-r", pcap, "-n", "-o", "ip.check_checksum:TRUE", "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,", "-E", "quote=n"]
    for f in FIELDS:
        cmd += ["-e", f]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"tshark failed (exit {r.returncode}): {r.stderr.strip()[-800:]}")
    rows = []
    for line in r.stdout.splitlines():
        vals = line.split("\t")
        vals += [""] * (len(FIELDS) - len(vals))
        rows.append(dict(zip(FIELDS, vals)))
    return rows


def num(s, base=0):
    """First value of a tshark field (ints in decimal or 0x-hex; booleans as 1/0, True/False)."""
    if s is None or s == "":
        return None
    s = s.split(",")[0].strip()
    if s in ("True", "true"):
        return 1
    if s in ("False", "false"):
        return 0
    try:
        return int(s, base)
    except ValueError:
        return None


# ---- raw pcap ------------------------------------------------------------------------------------
def read_pcap(path):
    """-> list of (ts_seconds, frame bytes); classic pcap, either byte order, us or ns stamps."""
    data = open(path, "rb").read()
    if len(data) < 24:
        raise ValueError(f"{path}: too short for a pcap header ({len(data)} bytes)")
    magic = data[:4]
    table = {b"\xd4\xc3\xb2\xa1": ("<", 1e-6), b"\xa1\xb2\xc3\xd4": (">", 1e-6),
             b"\x4d\x3c\xb2\xa1": ("<", 1e-9), b"\xa1\xb2\x3c\x4d": (">", 1e-9)}
    if magic not in table:
        raise ValueError(f"{path}: not a classic pcap file (magic {magic.hex()})")
    e, unit = table[magic]
    linktype = struct.unpack(e + "I", data[20:24])[0]
    if linktype != 1:
        raise ValueError(f"{path}: link type {linktype}, expected 1 (Ethernet)")
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(e + "IIII", data[off:off + 16])
        off += 16
        frame = data[off:off + incl]
        if len(frame) < incl:
            raise ValueError(f"{path}: truncated record at offset {off - 16}")
        if orig != incl:
            raise ValueError(f"{path}: frame at offset {off - 16} was cut ({incl} of {orig} bytes)")
        out.append((sec + frac * unit, frame))
        off += incl
    if off != len(data):
        raise ValueError(f"{path}: {len(data) - off} trailing bytes after the last record")
    return out


def ext_header_len(op):
    """Bytes of extension headers after the BTH for a BTH opcode (None: unknown)."""
    t, o = op >> 5, op & 0x1f
    if t not in (0, 1, 3):
        return None
    n = 8 if t == 3 else 0                                    # DETH
    if o in (0x06, 0x0a, 0x0c):
        n += 16                                               # RETH
    elif o == 0x0b:
        n += 16 + 4                                           # RETH + ImmDt
    elif o in (0x03, 0x05, 0x09):
        n += 4                                                # ImmDt
    elif o in (0x0d, 0x0f, 0x10, 0x11):
        n += 4                                                # AETH
    elif o == 0x12:
        n += 4 + 8                                            # AETH + AtomicAckETH
    elif o in (0x13, 0x14):
        n += 28                                               # AtomicETH
    elif o in (0x16, 0x17):
        n += 4                                                # IETH
    elif o not in (0x00, 0x01, 0x02, 0x04, 0x07, 0x08, 0x0e):
        return None
    return n


def parse_raw(frame):
    """Decode one frame by hand (independently of tshark). -> dict or raises ValueError."""
    if len(frame) < 14:
        raise ValueError("shorter than an Ethernet header")
    d = {"dmac": frame[0:6], "smac": frame[6:12]}
    etype = struct.unpack(">H", frame[12:14])[0]
    d["etype"] = etype
    if etype == 0x0800:
        ip = frame[14:]
        if len(ip) < 20 or ip[0] != 0x45:
            raise ValueError("IPv4 header is not version 4 / IHL 5")
        tot = struct.unpack(">H", ip[2:4])[0]
        if tot > len(ip):
            raise ValueError(f"IPv4 total length {tot} > {len(ip)} bytes captured")
        ip = ip[:tot]
        if ip[9] != 17:
            raise ValueError(f"IPv4 protocol {ip[9]}, not UDP")
        iphdr, udp = ip[:20], ip[20:]
        d["ipsrc"], d["ipdst"] = ip[12:16], ip[16:20]
        masked = bytearray(iphdr)
        masked[1] = 0xff                       # TOS
        masked[8] = 0xff                       # TTL
        masked[10:12] = b"\xff\xff"            # header checksum
    elif etype == 0x86dd:
        ip = frame[14:]
        if len(ip) < 40 or ip[0] >> 4 != 6:
            raise ValueError("IPv6 header is not version 6")
        plen = struct.unpack(">H", ip[4:6])[0]
        if 40 + plen > len(ip):
            raise ValueError(f"IPv6 payload length {plen} > captured")
        ip = ip[:40 + plen]
        if ip[6] != 17:
            raise ValueError(f"IPv6 next header {ip[6]}, not UDP")
        iphdr, udp = ip[:40], ip[40:]
        masked = bytearray(iphdr)
        masked[0] |= 0x0f                      # traffic class (low nibble of byte 0) ...
        masked[1:4] = b"\xff\xff\xff"          # ... and flow label
        masked[7] = 0xff                       # hop limit
        d["ipsrc"], d["ipdst"] = ip[8:24], ip[24:40]
    else:
        raise ValueError(f"ethertype 0x{etype:04x} is neither IPv4 nor IPv6")
    if len(udp) < 8 + 12 + 4:
        raise ValueError("UDP datagram too short for BTH + ICRC")
    sport, dport, ulen = struct.unpack(">HHH", udp[0:6])
    if ulen != len(udp):
        raise ValueError(f"UDP length {ulen} != {len(udp)} bytes in the IP packet")
    d["sport"], d["dport"] = sport, dport
    ib = udp[8:]
    bth = ib[:12]
    d["opcode"] = bth[0]
    d["se"] = bth[1] >> 7
    d["padcnt"] = (bth[1] >> 4) & 3
    d["tver"] = bth[1] & 0xf
    d["pkey"] = struct.unpack(">H", bth[2:4])[0]
    d["destqp"] = struct.unpack(">I", bth[4:8])[0] & 0xffffff
    d["ack_req"] = bth[8] >> 7
    d["psn"] = struct.unpack(">I", bth[8:12])[0] & 0xffffff
    ext = ext_header_len(bth[0])
    d["ext"] = ext
    d["body"] = bytes(ib[12:-4])                      # extension headers, payload, pad
    if ext is not None:
        d["payload_len"] = len(ib) - 12 - ext - d["padcnt"] - 4
        if d["payload_len"] < 0:
            raise ValueError(f"packet too short for opcode 0x{bth[0]:02x} headers")
        if bth[0] & 0x1f in (0x0d, 0x0f, 0x10, 0x11, 0x12):
            aeth = ib[12 + (8 if bth[0] >> 5 == 3 else 0):][:4]
            d["syndrome"] = aeth[0]
            d["msn"] = struct.unpack(">I", aeth)[0] & 0xffffff
    # RoCEv2 ICRC: CRC-32 over 8 bytes of ones (the masked LRH), the IP header and UDP header
    # with their variant fields set to ones, the BTH with its reserved byte set to ones, the rest
    udp_m = bytearray(udp[:8])
    udp_m[6:8] = b"\xff\xff"
    bth_m = bytearray(bth)
    bth_m[4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + bytes(masked) + bytes(udp_m) + bytes(bth_m) + ib[12:-4])
    d["icrc_calc"] = crc
    d["icrc_wire"] = struct.unpack("<I", ib[-4:])[0]      # transmitted little-endian
    return d


# ---- serial log: the pingpong runs ---------------------------------------------------------------
ADDR_RE = re.compile(r"(local|remote) address:\s+LID 0x([0-9a-fA-F]+), QPN 0x([0-9a-fA-F]+), "
                     r"PSN 0x([0-9a-fA-F]+)(?:[,:]\s+GID ([0-9a-fA-F:.]+))?")


def addr_lid(ip):
    """RoCE: the pseudo-LID that names a host, from its IP address (bytes or text)."""
    if isinstance(ip, str):
        ip = ipaddress.ip_address(ip).packed
    return (ip[-2] << 8) | ip[-1]


def is_roce_frame(frame):
    """An IPv4/IPv6 UDP datagram to port 4791 (a cheap look; parse_raw checks the rest)."""
    if len(frame) < 14:
        return False
    etype = struct.unpack(">H", frame[12:14])[0]
    if etype == 0x0800 and len(frame) >= 14 + 20 + 8 and frame[23] == 17:
        ihl = (frame[14] & 0xf) * 4
        return len(frame) >= 14 + ihl + 4 and struct.unpack(">H", frame[14 + ihl + 2:14 + ihl + 4])[0] == ROCE_PORT
    if etype == 0x86dd and len(frame) >= 14 + 40 + 8 and frame[20] == 17:
        return struct.unpack(">H", frame[14 + 42:14 + 44])[0] == ROCE_PORT
    return False


def parse_runs(path):
    """ibv_*_pingpong runs in a serial log -> list of dicts (local/remote lid, qpn, psn, bytes,
    iters, size, title)."""
    runs, cur, title = [], None, None
    for line in open(path, errors="replace").read().replace("\r", "").splitlines():
        m = re.match(r"^=== (.*)$", line)
        if m:
            title = m.group(1)
            continue
        m = ADDR_RE.search(line)
        if m:
            side, lid, qpn, psn = m.group(1), int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)
            if m.group(5):
                try:
                    lid = addr_lid(m.group(5).rstrip(":."))    # RoCE: the GID names the host
                except ValueError:
                    pass
            if side == "local":
                cur = {"title": title, "local": (lid, qpn, psn)}
                runs.append(cur)
            elif cur is not None:
                cur["remote"] = (lid, qpn, psn)
            continue
        if cur is None:
            continue
        m = re.search(r"^(\d+) bytes in [0-9.]+ seconds", line)
        if m:
            cur["bytes"] = int(m.group(1))
        m = re.search(r"^(\d+) iters in [0-9.]+ seconds", line)
        if m:
            cur["iters"] = int(m.group(1))
    good = []
    for r in runs:
        if "remote" in r and "bytes" in r and r.get("iters"):
            r["size"] = r["bytes"] // (2 * r["iters"])
            good.append(r)
    return good, len(runs) - len(good)


# ---- checks --------------------------------------------------------------------------------------
class Checker:
    def __init__(self, name, max_errors=40):
        self.name = name
        self.errors = []
        self.max_errors = max_errors
        self.notes = []

    def fail(self, msg):
        self.errors.append(msg)

    def lid_of_mac(self, mac, dst):
        if mac[:3] != b"\x02\x49\x42" or (dst and mac[3] != 0):
            return None
        return (mac[4] << 8) | mac[5]


def psn_delta(a, b):
    """b - a in PSN space (mod 2^24), as a signed value."""
    d = (b - a) % PSN_MOD
    return d - PSN_MOD if d >= PSN_MOD // 2 else d


def check_pcap(pcap, tshark, args, runs):
    ck = Checker(pcap)
    try:
        raw = read_pcap(pcap)
    except (OSError, ValueError) as e:
        ck.fail(str(e))
        return ck, [], []
    try:
        rows = tshark_fields(tshark, pcap)
    except RuntimeError as e:
        ck.fail(str(e))
        return ck, [], raw
    if len(rows) != len(raw):
        ck.fail(f"tshark decoded {len(rows)} frames, the pcap holds {len(raw)}")
    if not raw:
        ck.fail("the capture is empty")
        return ck, [], raw

    pkts = []
    other = 0
    macs = {}
    for i, (row, (ts, frame)) in enumerate(zip(rows, raw)):
        n = i + 1
        where = f"frame {n}"
        protos = row["frame.protocols"].split(":")
        if args.roce and not is_roce_frame(frame):
            other += 1                  # the network interface's own traffic
            continue
        if "infiniband" not in protos or num(row["infiniband.bth.opcode"]) is None:
            ck.fail(f"{where}: not decoded as InfiniBand with a BTH (protocols {row['frame.protocols']};"
                    f" {row['_ws.col.Info']})")
            continue
        if row["_ws.malformed"] or "_ws.malformed" in protos:
            ck.fail(f"{where}: tshark marks it malformed: {row['_ws.col.Info']}")
        try:
            p = parse_raw(frame)
        except ValueError as e:
            ck.fail(f"{where}: {e}")
            continue
        p["n"], p["ts"], p["row"] = n, ts - raw[0][0], row
        # tshark's decode vs ours
        for fld, key in (("infiniband.bth.opcode", "opcode"), ("infiniband.bth.psn", "psn"),
                         ("infiniband.bth.destqp", "destqp"), ("infiniband.bth.padcnt", "padcnt"),
                         ("infiniband.bth.p_key", "pkey"), ("infiniband.bth.a", "ack_req"),
                         ("udp.srcport", "sport"), ("udp.dstport", "dport")):
            if num(row[fld]) != p[key]:
                ck.fail(f"{where}: tshark {fld}={row[fld]!r}, raw header says {p[key]}")
        if "msn" in p and num(row["infiniband.aeth.msn"]) not in (None, p["msn"]):
            ck.fail(f"{where}: tshark AETH MSN {row['infiniband.aeth.msn']}, raw {p['msn']}")
        tcrc = num(row["infiniband.invariant.crc"])
        if tcrc is not None and tcrc not in (p["icrc_wire"], int.from_bytes(
                p["icrc_wire"].to_bytes(4, "little"), "big")):
            ck.fail(f"{where}: tshark ICRC 0x{tcrc:08x} differs from the raw trailer 0x{p['icrc_wire']:08x}")
        sev = [num(s) for s in row["_ws.expert.severity"].split(",") if s]
        if any(s is not None and s >= SEV_WARN for s in sev):
            ck.fail(f"{where}: tshark expert info: {row['_ws.expert.message']} ({row['_ws.col.Info']})")
        if args.roce:
            # RoCE v2: real MACs, one pair per pair of addresses; hosts named by their address
            if p["dmac"][:3] == b"\x02\x49\x42" or p["smac"][:3] == b"\x02\x49\x42":
                ck.fail(f"{where}: MACs {p['dmac'].hex(':')} <- {p['smac'].hex(':')} are IB-mode addresses")
            if p["dmac"][0] & 1:
                ck.fail(f"{where}: RC/UD unicast to a group MAC {p['dmac'].hex(':')}")
            pair = (bytes(p["ipsrc"]), bytes(p["ipdst"]))
            if macs.setdefault(pair, (p["smac"], p["dmac"])) != (p["smac"], p["dmac"]):
                ck.fail(f"{where}: MACs {p['smac'].hex(':')} -> {p['dmac'].hex(':')} differ from the "
                        f"earlier frames between the same addresses")
            p["slid"], p["dlid"], p["sl"] = addr_lid(p["ipsrc"]), addr_lid(p["ipdst"]), 0
            if p["etype"] == 0x0800 and num(row["ip.checksum.status"]) != 1:
                ck.fail(f"{where}: IPv4 header checksum status {row['ip.checksum.status']!r} (1 = good)")
        # the wire format of docs/fabric.md
        if not args.roce:
            dlid = ck.lid_of_mac(p["dmac"], True)
            slid = ck.lid_of_mac(p["smac"], False)
            if dlid is None or slid is None:
                ck.fail(f"{where}: MACs {p['dmac'].hex(':')} <- {p['smac'].hex(':')} do not carry LIDs"
                        " (02:49:42:00:DLID / 02:49:42:SL:SLID)")
                continue
            p["dlid"], p["slid"], p["sl"] = dlid, slid, p["smac"][3]
            if p["etype"] == 0x0800:
                want_src, want_dst = bytes([10, 73, slid >> 8, slid & 0xff]), bytes([10, 73, dlid >> 8, dlid & 0xff])
                if p["ipsrc"] != want_src or p["ipdst"] != want_dst:
                    ck.fail(f"{where}: IPv4 {row['ip.src']} -> {row['ip.dst']} does not match LIDs "
                            f"0x{slid:04x} -> 0x{dlid:04x}")
                if num(row["ip.checksum.status"]) != 1:
                    ck.fail(f"{where}: IPv4 header checksum status {row['ip.checksum.status']!r} (1 = good)")
        if p["dport"] != ROCE_PORT:
            ck.fail(f"{where}: UDP destination port {p['dport']}, expected {ROCE_PORT}")
        if p["sport"] & 0xc000 != 0xc000:
            ck.fail(f"{where}: UDP source port 0x{p['sport']:04x} is not 0xc000|QPN")
        if p["pkey"] != 0xffff or p["tver"] != 0:
            ck.fail(f"{where}: BTH P_Key 0x{p['pkey']:04x} TVer {p['tver']} (want 0xffff, 0)")
        if p["icrc_calc"] != p["icrc_wire"]:
            ck.fail(f"{where}: bad ICRC: wire 0x{p['icrc_wire']:08x}, computed 0x{p['icrc_calc']:08x}")
        if p["ext"] is None:
            ck.fail(f"{where}: unexpected BTH opcode 0x{p['opcode']:02x} ({opname(p['opcode'])})")
        pkts.append(p)
    if args.roce:
        ck.notes.append(f"{other} frame(s) of other traffic (not RoCE v2) skipped")
        if not pkts:
            ck.fail("no RoCE v2 frame in the capture")

    check_rc(ck, pkts, args, runs)
    return ck, pkts, raw


def check_rc(ck, pkts, args, runs):
    rc = [p for p in pkts if p["opcode"] >> 5 == 0 and p["ext"] is not None]
    # flows: (slid, dlid, destqp, 'req'|'resp') in capture order
    flows = OrderedDict()
    for p in rc:
        kind = "resp" if p["opcode"] in RC_RESPONSES else "req"
        flows.setdefault((p["slid"], p["dlid"], p["destqp"], kind), []).append(p)
    ck.flows = flows
    ck.flow_info = {}

    for key, ps in flows.items():
        slid, dlid, qp, kind = key
        fname = f"{kind} 0x{slid:04x}->0x{dlid:04x} QP 0x{qp:06x}"
        sports = {p["sport"] for p in ps}
        if len(sports) != 1:
            ck.fail(f"{fname}: UDP source port changes within the flow: {sorted(sports)}")
        info = {"name": fname, "sport": ps[0]["sport"], "n": len(ps), "first_psn": ps[0]["psn"],
                "last_psn": ps[-1]["psn"], "ops": Counter(p["opcode"] for p in ps)}
        ck.flow_info[key] = info
        if kind != "req":
            continue
        # consecutive PSNs. A go-back-N retransmission (after a timeout under heavy host load)
        # is legitimate: a packet whose PSN was already sent, with the same opcode, headers and
        # payload as the original, is counted as a replay, not as a PSN error.
        firsts, replays, sent = [], [], {}
        nxt = ps[0]["psn"]
        for p in ps:
            if p["psn"] == nxt:
                firsts.append(p)
                sent[p["psn"]] = p
                nxt = (nxt + 1) % PSN_MOD
            elif p["psn"] in sent and psn_delta(p["psn"], nxt) > 0:
                o = sent[p["psn"]]
                if (o["opcode"], o["body"]) != (p["opcode"], p["body"]):
                    ck.fail(f"{fname}: frame {p['n']} resends PSN 0x{p['psn']:06x} (first sent in frame "
                            f"{o['n']}) with different headers or payload")
                replays.append(p)
            else:
                prev = firsts[-1]
                ck.fail(f"{fname}: PSN 0x{prev['psn']:06x} (frame {prev['n']}) followed by "
                        f"0x{p['psn']:06x} (frame {p['n']}): not consecutive")
                firsts.append(p)
                sent[p["psn"]] = p
                nxt = (p["psn"] + 1) % PSN_MOD
        info["replays"] = replays
        if replays:
            ck.notes.append(f"{fname}: {len(replays)} retransmitted packet(s) (go-back-N), first at frame "
                            f"{replays[0]['n']} PSN 0x{replays[0]['psn']:06x}")
        # message structure (first transmissions only)
        msgs, cur, pmtu = [], None, None
        for p in firsts:
            kindm, pos = RC_MSG.get(p["opcode"], (None, None))
            if kindm is None:        # READ request / atomics: single-packet requests
                if cur is not None:
                    ck.fail(f"{fname}: frame {p['n']} {opname(p['opcode'])} inside a multi-packet message")
                    cur = None
                msgs.append({"kind": opname(p["opcode"]), "size": 0, "last_psn": p["psn"], "npkts": 1})
                continue
            if pos in (FIRST, ONLY) and cur is not None:
                ck.fail(f"{fname}: frame {p['n']} {opname(p['opcode'])} before the previous message "
                        f"(from frame {cur['first']}) ended")
                cur = None
            if pos in (MIDDLE, LAST) and cur is None:
                ck.fail(f"{fname}: frame {p['n']} {opname(p['opcode'])} without a FIRST")
                continue
            if pos in (MIDDLE, LAST) and cur["kind"] != kindm:
                ck.fail(f"{fname}: frame {p['n']} {opname(p['opcode'])} continues a {cur['kind']}")
            if pos in (FIRST, MIDDLE):
                if pmtu is None:
                    pmtu = p["payload_len"]
                    if pmtu not in (256, 512, 1024, 2048, 4096):
                        ck.fail(f"{fname}: frame {p['n']} FIRST/MIDDLE payload {pmtu} is not a path MTU")
                elif p["payload_len"] != pmtu:
                    ck.fail(f"{fname}: frame {p['n']} {opname(p['opcode'])} payload {p['payload_len']} "
                            f"!= path MTU {pmtu} of earlier FIRST/MIDDLE packets")
            elif pmtu is not None and p["payload_len"] > pmtu:
                ck.fail(f"{fname}: frame {p['n']} {opname(p['opcode'])} payload {p['payload_len']} > MTU {pmtu}")
            if p["padcnt"] != (-p["payload_len"]) % 4:
                ck.fail(f"{fname}: frame {p['n']} pad count {p['padcnt']} for {p['payload_len']} bytes")
            if pos == FIRST:
                cur = {"kind": kindm, "size": p["payload_len"], "first": p["n"], "npkts": 1}
            elif pos == MIDDLE:
                cur["size"] += p["payload_len"]
                cur["npkts"] += 1
            elif pos == LAST:
                cur["size"] += p["payload_len"]
                cur["npkts"] += 1
                cur["last_psn"] = p["psn"]
                msgs.append(cur)
                cur = None
            else:
                msgs.append({"kind": kindm, "size": p["payload_len"], "first": p["n"],
                             "last_psn": p["psn"], "npkts": 1})
            if pos in (LAST, ONLY) and not p["ack_req"]:
                ck.notes.append(f"{fname}: frame {p['n']} ends a message without AckReq")
        if cur is not None:
            ck.fail(f"{fname}: capture ends inside a message (from frame {cur['first']})")
        info["msgs"] = msgs
        info["pmtu"] = pmtu

    # responses: pair each response flow with the request flow it acknowledges
    for key, ps in flows.items():
        slid, dlid, qp, kind = key
        if kind != "resp":
            continue
        fname = ck.flow_info[key]["name"]
        # requests answered here: from dlid to slid, sent by QP `qp` (UDP source port) to the
        # QP that sends these responses (its UDP source port)
        sport = ps[0]["sport"]
        if args.roce:
            # the UDP source port is a flow-label hash: the runs say which QPs talk (both ends
            # of a pingpong send requests, to each other's QP); without them, the one flow back
            # (host, QPN) -> the peer's (host, QPN); hosts by their addresses' pseudo-LIDs
            peer = {r["local"][:2]: r["remote"][:2] for r in runs}
            peer.update({r["remote"][:2]: r["local"][:2] for r in runs})
            want = peer.get((dlid, qp))
            cands = [k for k in flows if k[3] == "req" and k[0] == dlid and k[1] == slid
                     and (want is None or want == (slid, k[2]))]
        else:
            cands = [k for k in flows if k[3] == "req" and k[0] == dlid and k[1] == slid
                     and (k[2] & 0x3fff) == (sport & 0x3fff)
                     and (flows[k][0]["sport"] & 0x3fff) == (qp & 0x3fff)]
        if len(cands) != 1:
            ck.fail(f"{fname}: {len(cands)} request flows match it (want exactly 1): "
                    f"{[ck.flow_info[k]['name'] for k in cands]}")
            continue
        req = flows[cands[0]]
        rinfo = ck.flow_info[cands[0]]
        rinfo["resp"] = key
        ck.flow_info[key]["req"] = cands[0]
        base = req[0]["psn"]
        sent_upto = {}                     # frame number -> highest request offset sent by then
        hi, j = -1, 0
        last_off = -1
        # message end offsets -> completed-message count
        ends = sorted(psn_delta(base, m["last_psn"]) for m in rinfo.get("msgs", []))
        for p in ps:
            while j < len(req) and req[j]["n"] < p["n"]:
                hi = max(hi, psn_delta(base, req[j]["psn"]))
                j += 1
            if p["opcode"] != 0x11:
                continue                   # READ responses / atomic ACKs: not produced by SEND tests
            syn = p.get("syndrome", 0)
            if syn >> 5 != 0:
                what = {1: "RNR NAK", 3: "NAK"}.get(syn >> 5, "reserved syndrome")
                ck.fail(f"{fname}: frame {p['n']} is a {what} (syndrome 0x{syn:02x}), PSN 0x{p['psn']:06x}")
                continue
            off = psn_delta(base, p["psn"])
            if off < 0 or off > hi:
                ck.fail(f"{fname}: frame {p['n']} ACKs PSN 0x{p['psn']:06x}, not yet sent "
                        f"(requests so far 0x{base:06x}..0x{(base + hi) % PSN_MOD:06x})")
            done = sum(1 for e in ends if e <= off)
            if not rinfo.get("replays"):
                if off < last_off:
                    ck.fail(f"{fname}: frame {p['n']} ACK PSN 0x{p['psn']:06x} goes back")
                if p.get("msn") != done % PSN_MOD:
                    ck.fail(f"{fname}: frame {p['n']} ACK PSN 0x{p['psn']:06x} has MSN {p.get('msn')}, "
                            f"{done} messages completed by then")
            else:
                # duplicates were sent: a duplicate is ACKed with its own PSN and the current MSN
                top = sum(1 for e in ends if e <= max(off, last_off))
                if p.get("msn") is None or not done <= p["msn"] <= top:
                    ck.fail(f"{fname}: frame {p['n']} ACK PSN 0x{p['psn']:06x} has MSN {p.get('msn')}, "
                            f"expected {done}..{top} messages completed")
            last_off = max(last_off, off)
        if req and last_off != psn_delta(base, req[-1]["psn"]):
            ck.fail(f"{fname}: last ACK covers PSN offset {last_off}, last request is at "
                    f"{psn_delta(base, req[-1]['psn'])} (0x{req[-1]['psn']:06x})")
    for key, info in ck.flow_info.items():
        if key[3] == "req" and "resp" not in info:
            ck.fail(f"{info['name']}: no ACKs from the responder in the capture")

    # expected opcodes (RC only, by name)
    seen = Counter(opname(p["opcode"]) for p in pkts)
    for want in args.expect_opcodes.split(","):
        want = want.strip().upper()
        if want and f"RC {want}" not in seen:
            ck.fail(f"expected opcode RC {want} does not occur (seen: {dict(seen)})")
    ck.seen = seen

    # the pingpong runs from the serial log
    used = set()
    for r in runs:
        (l_lid, l_qpn, l_psn), (r_lid, r_qpn, r_psn) = r["local"], r["remote"]
        what = f"run '{r['title']}' (LID 0x{l_lid:04x} QPN 0x{l_qpn:06x} <-> LID 0x{r_lid:04x} QPN 0x{r_qpn:06x})"
        for src, dst, dq, sq, psn in ((l_lid, r_lid, r_qpn, l_qpn, l_psn), (r_lid, l_lid, l_qpn, r_qpn, r_psn)):
            key = (src, dst, dq, "req")
            info = ck.flow_info.get(key)
            if info is None:
                ck.fail(f"{what}: no requests 0x{src:04x}->0x{dst:04x} to QP 0x{dq:06x} in the capture")
                continue
            used.add(key)
            if info.get("resp"):
                used.add(info["resp"])
            if not args.roce and info["sport"] != 0xc000 | (sq & 0x3fff):
                ck.fail(f"{what}: {info['name']} has UDP source port 0x{info['sport']:04x}, "
                        f"sender QPN 0x{sq:06x}")
            if info["first_psn"] != psn:
                ck.fail(f"{what}: {info['name']} starts at PSN 0x{info['first_psn']:06x}, "
                        f"the sender announced 0x{psn:06x}")
            sizes = Counter(m["size"] for m in info.get("msgs", []))
            if sizes != Counter({r["size"]: r["iters"]}):
                ck.fail(f"{what}: {info['name']} carries messages {dict(sizes)} (size: count), "
                        f"expected {r['iters']} x {r['size']} bytes")
    if runs:
        for key, info in ck.flow_info.items():
            if key not in used:
                ck.fail(f"{info['name']}: RC traffic that belongs to no logged pingpong run")


# ---- output --------------------------------------------------------------------------------------
def describe(p):
    s = (f"{p['n']:5d} {p['ts']:9.6f}  0x{p['slid']:04x} -> 0x{p['dlid']:04x}  "
         f"{opname(p['opcode']):<20} PSN 0x{p['psn']:06x}  DestQP 0x{p['destqp']:06x}")
    if p["ack_req"]:
        s += "  A"
    if p.get("payload_len"):
        s += f"  {p['payload_len']}B"
    if "msn" in p:
        s += f"  AETH 0x{p['syndrome']:02x} MSN {p['msn']}"
    return s


def summarise(ck, pkts, nfirst):
    print(f"--- {ck.name}: {len(pkts)} InfiniBand frames")
    shown = [p for p in pkts if p["opcode"] >> 5 == 0] or pkts     # RC first: the data path
    if shown:
        print(f"first {min(nfirst, len(shown))} {'RC ' if shown is not pkts else ''}packets (frame, "
              "time, SLID -> DLID, opcode, PSN, DestQP, AckReq, payload, AETH):")
        for p in shown[:nfirst]:
            print("  " + describe(p))
        print(f"  tshark on frame {shown[0]['n']}: " + shown[0]["row"]["_ws.col.Protocol"] + " | "
              + shown[0]["row"]["_ws.col.Info"])
    print("opcodes: " + ", ".join(f"{k} x{v}" for k, v in sorted(getattr(ck, "seen", {}).items())))
    for key, info in getattr(ck, "flow_info", {}).items():
        if key[3] == "req":
            msgs = info.get("msgs", [])
            sizes = Counter(m["size"] for m in msgs)
            rp = f" ({len(info['replays'])} retransmitted)" if info.get("replays") else ""
            print(f"  {info['name']}: {info['n']} packets{rp}, PSN 0x{info['first_psn']:06x}.."
                  f"0x{info['last_psn']:06x}, {len(msgs)} messages "
                  f"({', '.join(f'{c} x {s} B' for s, c in sorted(sizes.items()))}), MTU {info.get('pmtu')}")
        else:
            print(f"  {info['name']}: {info['n']} ACKs, PSN 0x{info['first_psn']:06x}..0x{info['last_psn']:06x}")
    other = [p for p in pkts if p["opcode"] >> 5 != 0]
    if other:
        print(f"  non-RC: {len(other)} frames: " + ", ".join(
            f"{k} x{v}" for k, v in Counter(f"{opname(p['opcode'])} to QP 0x{p['destqp']:x}"
                                           for p in other).items()))


def compare_ends(results):
    """Frames one end sent (SLID = its own) must appear identically and in order at the other."""
    errs = []
    ends = []
    for ck, pkts, raw in results:
        frames = {p["n"]: raw[p["n"] - 1][1] for p in pkts}
        ends.append((ck.name, pkts, frames))
    for (na, pa, fa), (nb, pb, fb) in zip(ends, ends[1:]):
        lids_a = Counter(p["slid"] for p in pa)
        lids_b = Counter(p["slid"] for p in pb)
        for lid in sorted(set(lids_a) | set(lids_b)):
            sa = [fa[p["n"]] for p in pa if p["slid"] == lid and p["dlid"] != 0xffff]
            sb = [fb[p["n"]] for p in pb if p["slid"] == lid and p["dlid"] != 0xffff]
            if sa != sb:
                k = next((i for i, (x, y) in enumerate(zip(sa, sb)) if x != y), min(len(sa), len(sb)))
                errs.append(f"frames from LID 0x{lid:04x}: {len(sa)} in {na}, {len(sb)} in {nb}; "
                            f"first difference at the {k + 1}th")
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("pcap", nargs="+")
    ap.add_argument("--serial", help="serial log with the ibv_rc_pingpong output of instance 0")
    ap.add_argument("--expect-opcodes", default=DEFAULT_OPCODES,
                    help=f"comma-separated RC opcode names that must occur (default {DEFAULT_OPCODES})")
    ap.add_argument("--summary", type=int, default=10, help="decoded packets to print (default 10)")
    ap.add_argument("--quiet", action="store_true", help="print only the verdict and failures")
    ap.add_argument("--roce", action="store_true",
                    help="an Ethernet port's capture: RoCE v2 frames among other traffic")
    args = ap.parse_args()

    tshark = ensure_tshark()
    if not tshark:
        print("check-capture: FAIL: tshark is not installed (apt-get install tshark)", file=sys.stderr)
        return 1
    runs = []
    if args.serial:
        try:
            runs, incomplete = parse_runs(args.serial)
        except OSError as e:
            print(f"check-capture: FAIL: {e}", file=sys.stderr)
            return 1
        if not runs:
            print(f"check-capture: FAIL: no complete pingpong run in {args.serial}", file=sys.stderr)
            return 1
        if incomplete:
            print(f"check-capture: FAIL: {incomplete} pingpong run(s) in {args.serial} without a result")
            return 1
        if not args.quiet:
            print(f"pingpong runs in {args.serial}:")
            for r in runs:
                print(f"  {r['title']}: LID 0x{r['local'][0]:04x} QPN 0x{r['local'][1]:06x} PSN "
                      f"0x{r['local'][2]:06x} <-> LID 0x{r['remote'][0]:04x} QPN 0x{r['remote'][1]:06x} "
                      f"PSN 0x{r['remote'][2]:06x}: {r['iters']} x {r['size']} B each way")

    results, ok = [], True
    for pcap in args.pcap:
        ck, pkts, raw = check_pcap(pcap, tshark, args, runs)
        results.append((ck, pkts, raw))
        if not args.quiet:
            summarise(ck, pkts, args.summary)
        for n in ck.notes[:5]:
            print(f"  note: {n}")
        if ck.errors:
            ok = False
            print(f"check-capture: {pcap}: {len(ck.errors)} problem(s):")
            for e in ck.errors[:ck.max_errors]:
                print(f"  FAIL {e}")
            if len(ck.errors) > ck.max_errors:
                print(f"  ... and {len(ck.errors) - ck.max_errors} more")
    if len(results) > 1:
        errs = compare_ends(results)
        for e in errs:
            print(f"  FAIL both ends: {e}")
        if errs:
            ok = False
        elif not args.quiet:
            print(f"both ends: every frame of {len(args.pcap)} captures appears bytes-identical, in order,"
                  " at the other end")
    print(f"check-capture: {'PASS' if ok else 'FAIL'} ({', '.join(args.pcap)})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
