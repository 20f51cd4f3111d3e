#!/usr/bin/env python3
"""The wire witness of the netns stand (testing/lib/witness.sh, docs/TESTING.md "Witness").

Reads two nanosecond pcap files written by tcpdump --time-stamp-precision=nano (one on the client's
interface, one on the reflector's), decodes the TWAMP test packets (RFC 5357 4.1.2 and 4.2.1,
unauthenticated) or STAMP packets (RFC 8762 4.2.1 and 4.3.1, unauthenticated: the same offsets) from
the bytes, matches them by sequence number with the `-R` raw records of a twping run (ours or the C
one, the same format) and prints the error of each reported timestamp against the capture:

    t1 (sender stamp)          - capture of the request on the client's interface (egress)
    t2 (reflector receive)     - capture of the request on the reflector's interface (ingress)
    t3 (reflector send)        - capture of the reply on the reflector's interface (egress)
    t4 (client receive)        - capture of the reply on the client's interface (ingress)
    RTT = (t4-t1)-(t3-t2)      - the same from the four captures

Consistency checks (always): every answered record has its request and reply in both captures; the
Receive Timestamp and Timestamp fields of the reply on the wire equal t2 and t3 of its record (a reply
attached to the wrong record fails here); the reply's sender sequence number equals its own record's.
With --smoke-interval-us, bounds far above honest error and far below one packet interval: p50 |error|
of each timestamp <= interval/10 and p90 <= interval/4 (an off-by-one in a TX-timestamp error queue shifts
every t1 by one interval; a clock-domain mix-up by seconds), and at most half of each timestamp's stamps
nearer to the capture of the previous or next packet than to their own (an off-by-one from a late sender
that sends in bursts is only microseconds off, but on the wrong side).

Python 3 standard library only.  `witness.py self-test` checks the checker on synthetic captures.
Exit status: 0 fine, 1 a check failed, 2 bad input.
"""
import argparse
import json
import os
import struct
import sys
import tempfile

NTP_UNIX_OFFSET = 2208988800
TS_NAMES = ("t1", "t2", "t3", "t4", "rtt")
# t1k: t1 of the records whose t1 is not the packet's own Timestamp field (a kernel TX stamp, when the
# client asks for them; the others fell back to the user-space stamp)


class BadInput(Exception):
    pass


def ntp_to_ns(v):
    """64-bit NTP timestamp (RFC 5905) as nanoseconds since the Unix epoch, rounded; 0 stays None."""
    if v == 0:
        return None
    sec = v >> 32
    frac = v & 0xFFFFFFFF
    return (sec - NTP_UNIX_OFFSET) * 1_000_000_000 + ((frac * 1_000_000_000 + (1 << 31)) >> 32)


def ns_to_ntp(ns):
    sec, rem = divmod(ns, 1_000_000_000)
    return ((sec + NTP_UNIX_OFFSET) << 32) | ((rem << 32) // 1_000_000_000)


# --- pcap --------------------------------------------------------------------------------------
def read_pcap(path):
    """Yields (time_ns, frame bytes, linktype) of a pcap file; nanosecond or microsecond magic."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise BadInput(f"{path}: not a pcap file ({len(data)} bytes)")
    magic = data[:4]
    table = {b"\x4d\x3c\xb2\xa1": ("<", 1), b"\xa1\xb2\x3c\x4d": (">", 1),
             b"\xd4\xc3\xb2\xa1": ("<", 1000), b"\xa1\xb2\xc3\xd4": (">", 1000)}
    if magic not in table:
        raise BadInput(f"{path}: not a pcap file (magic {magic.hex()}; pcapng is not read)")
    endian, scale = table[magic]
    linktype = struct.unpack_from(endian + "I", data, 20)[0] & 0x0FFFFFFF
    off = 24
    rec = struct.Struct(endian + "IIII")
    while off + 16 <= len(data):
        sec, frac, incl, _orig = rec.unpack_from(data, off)
        off += 16
        if off + incl > len(data):
            break  # a capture cut short by the stop signal
        yield sec * 1_000_000_000 + frac * scale, data[off:off + incl], linktype
        off += incl


def udp_payload(frame, linktype):
    """(src ip, dst ip, src port, dst port, payload) of a UDP datagram in an Ethernet, Linux cooked or raw
    IP frame, or None."""
    if linktype == 1:  # Ethernet
        if len(frame) < 14:
            return None
        etype, off = struct.unpack_from(">H", frame, 12)[0], 14
        while etype in (0x8100, 0x88A8) and len(frame) >= off + 4:
            etype, off = struct.unpack_from(">H", frame, off + 2)[0], off + 4
    elif linktype == 113:  # Linux cooked v1
        if len(frame) < 16:
            return None
        etype, off = struct.unpack_from(">H", frame, 14)[0], 16
    elif linktype == 276:  # Linux cooked v2
        if len(frame) < 20:
            return None
        etype, off = struct.unpack_from(">H", frame, 0)[0], 20
    elif linktype in (12, 101):  # raw IP
        etype = 0x0800 if frame and frame[0] >> 4 == 4 else 0x86DD
        off = 0
    else:
        raise BadInput(f"link type {linktype} is not read")
    if etype == 0x0800:
        if len(frame) < off + 20 or frame[off + 9] != 17:
            return None
        ihl = (frame[off] & 0x0F) * 4
        frag = struct.unpack_from(">H", frame, off + 6)[0]
        if frag & 0x1FFF:
            return None
        src, dst = frame[off + 12:off + 16], frame[off + 16:off + 20]
        off += ihl
    elif etype == 0x86DD:
        if len(frame) < off + 40 or frame[off + 6] != 17:
            return None
        src, dst = frame[off + 8:off + 24], frame[off + 24:off + 40]
        off += 40
    else:
        return None
    if len(frame) < off + 8:
        return None
    sport, dport, ulen = struct.unpack_from(">HHH", frame, off)
    return bytes(src), bytes(dst), sport, dport, frame[off + 8:off + max(ulen, 8)]


def ip_bytes(text):
    import ipaddress
    return ipaddress.ip_address(text).packed


def capture(path, client_ip, server_ip):
    """Requests (client -> server) and replies (server -> client) of one pcap:
    requests {sender seq: (time_ns, the packet's own Timestamp field)}, replies {sender seq: (time_ns, reflector seq, t3 ntp, t2 ntp)},
    and the counts of duplicates and undecodable test-port datagrams."""
    requests, replies = {}, {}
    dup = short = 0
    for t, frame, lt in read_pcap(path):
        u = udp_payload(frame, lt)
        if u is None:
            continue
        src, dst, _sp, _dp, p = u
        if src == client_ip and dst == server_ip:
            if len(p) < 14:
                short += 1
                continue
            seq, stamp = struct.unpack_from(">IQ", p, 0)
            if seq in requests:
                dup += 1
            else:
                requests[seq] = (t, stamp)
        elif src == server_ip and dst == client_ip:
            if len(p) < 41:
                short += 1
                continue
            rseq, t3 = struct.unpack_from(">IQ", p, 0)
            t2, sseq = struct.unpack_from(">QI", p, 16)
            if sseq in replies:
                dup += 1
            else:
                replies[sseq] = (t, rseq, t3, t2)
    return requests, replies, dup, short


# --- -R records --------------------------------------------------------------------------------
def read_raw(path):
    """-R lines: SSEQ STIME SS SERR SRTIME SRS SRERR STTL RSEQ RSTIME RSS RSERR RTIME RS RERR RTTL
    -> list of (seq, t1, t2, t3, t4, rseq) with NTP integers (0 = absent)."""
    out = []
    with open(path) as f:
        for line in f:
            fs = line.split()
            if len(fs) != 16 or not fs[0].isdigit():
                continue
            out.append((int(fs[0]), int(fs[1]), int(fs[4]), int(fs[9]), int(fs[12]), int(fs[8])))
    return out


# --- the analysis ------------------------------------------------------------------------------
def pct(sorted_vals, p):
    """Nearest-rank percentile of a sorted list."""
    if not sorted_vals:
        return None
    k = max(0, min(len(sorted_vals) - 1, -(-len(sorted_vals) * p // 100) - 1))
    return sorted_vals[int(k)]


def pct_frac(sorted_vals, num, den):
    if not sorted_vals:
        return None
    k = -(-len(sorted_vals) * num // den) - 1
    return sorted_vals[max(0, min(len(sorted_vals) - 1, k))]


def analyse(client_pcap, server_pcap, raw, client_ip, server_ip):
    creq, crep, cdup, cshort = capture(client_pcap, client_ip, server_ip)
    sreq, srep, sdup, sshort = capture(server_pcap, client_ip, server_ip)
    records = read_raw(raw)
    errors = {n: [] for n in TS_NAMES + ("t1k",)}
    signed = {n: [] for n in TS_NAMES + ("t1k",)}
    problems = []
    answered = unmatched = bytes_bad = seq_bad = t1_packet = 0
    worst = []
    nearer = {n: 0 for n in TS_NAMES[:4]}
    judged = {n: 0 for n in TS_NAMES[:4]}
    for seq, t1, t2, t3, t4, rseq in records:
        if t2 == 0 or t4 == 0:
            continue  # lost
        answered += 1
        if seq not in creq or seq not in sreq or seq not in crep or seq not in srep:
            unmatched += 1
            continue
        wire_t = srep[seq]
        if wire_t[2] != t3 or wire_t[3] != t2:
            bytes_bad += 1
        if wire_t[1] != rseq or crep[seq][1] != rseq:
            seq_bad += 1
        kernel_t1 = creq[seq][1] != t1
        if not kernel_t1:
            t1_packet += 1  # t1 is the stamp written into the packet: a user-space send stamp
        c1, c2, c3, c4 = creq[seq][0], sreq[seq][0], srep[seq][0], crep[seq][0]
        r1, r2, r3, r4 = ntp_to_ns(t1), ntp_to_ns(t2), ntp_to_ns(t3), ntp_to_ns(t4)
        # Is the stamp nearer to a neighbour's capture at the same point than to its own? Honest stamps
        # rarely are; a stamp of the previous or next packet (an off-by-one) nearly always is, even when
        # a late sender sends in bursts and the intervals collapse.
        for n, r, point in (("t1", r1, creq), ("t2", r2, sreq), ("t3", r3, srep), ("t4", r4, crep)):
            own = abs(r - point[seq][0])
            for other in (seq - 1, seq + 1):
                if other in point and abs(r - point[other][0]) < own:
                    nearer[n] += 1
                    break
            judged[n] += 1
        e = {"t1": r1 - c1, "t2": r2 - c2, "t3": r3 - c3, "t4": r4 - c4,
             "rtt": ((r4 - r1) - (r3 - r2)) - ((c4 - c1) - (c3 - c2))}
        for n in TS_NAMES:
            signed[n].append(e[n])
            errors[n].append(abs(e[n]))
        if kernel_t1:
            signed["t1k"].append(e["t1"])
            errors["t1k"].append(abs(e["t1"]))
        worst.append((max(abs(e[n]) for n in TS_NAMES[:4]), seq, e))
    if answered == 0:
        problems.append("no answered records in the -R output")
    if unmatched:
        problems.append(f"{unmatched} answered records without their request and reply in both captures")
    if bytes_bad:
        problems.append(f"{bytes_bad} records whose t2/t3 differ from the reply on the wire (wrong packet)")
    if seq_bad:
        problems.append(f"{seq_bad} records whose reflector sequence number differs from the reply on the wire")
    stats = {}
    for n in TS_NAMES + ("t1k",):
        v = sorted(errors[n])
        s = sorted(signed[n])
        stats[n] = {"count": len(v), "p50": pct(v, 50), "p90": pct(v, 90), "p99": pct(v, 99),
                    "p999": pct_frac(v, 999, 1000), "max": v[-1] if v else None,
                    "signed_p50": pct(s, 50),
                    "nearer_neighbour": nearer.get(n, 0), "judged": judged.get(n, 0)}
    worst.sort(key=lambda w: -w[0])
    return {"records": len(records), "answered": answered, "matched": answered - unmatched,
            "wire": {"client_requests": len(creq), "client_replies": len(crep),
                     "reflector_requests": len(sreq), "reflector_replies": len(srep)},
            "t1_is_packet_stamp": t1_packet,
            "worst": [{"seq": w[1], "errors_ns": w[2]} for w in worst[:5]],
            "duplicates_on_wire": cdup + sdup, "short_on_wire": cshort + sshort,
            "stats": stats, "problems": problems}


def smoke_check(result, interval_us):
    """Bounds far above honest error and far below one interval (the module docstring)."""
    problems = []
    for n in ("t1", "t2", "t3", "t4"):
        st = result["stats"][n]
        if st["count"] == 0:
            continue
        if st["p50"] > interval_us * 100:
            problems.append(f"{n}: p50 |error| {st['p50'] / 1000:.1f} us > a tenth of the {interval_us} us interval "
                            f"(median signed error {st['signed_p50'] / 1000:.1f} us)")
        if st["judged"] and st["nearer_neighbour"] * 2 > st["judged"]:
            problems.append(f"{n}: {st['nearer_neighbour']} of {st['judged']} stamps lie nearer to a neighbour's "
                            f"capture than to their own packet's")
        if st["p90"] > interval_us * 250:
            problems.append(f"{n}: p90 |error| {st['p90'] / 1000:.1f} us > a quarter of the "
                            f"{interval_us} us interval")
    return problems


def us(ns):
    return "-" if ns is None else f"{ns / 1000:.2f}"


def summary_line(result):
    parts = []
    for n in TS_NAMES:
        st = result["stats"][n]
        parts.append(f"{n} {us(st['p50'])}/{us(st['p99'])}/{us(st['p999'])}/{us(st['max'])}")
    w = result["wire"]
    return (f"{result['matched']}/{result['answered']} matched (wire: {w['client_requests']} requests, "
            f"{w['client_replies']} replies at the client); t1 = the packet's own stamp in "
            f"{result['t1_is_packet_stamp']}; |error| us p50/p99/p99.9/max: " + ", ".join(parts))


# --- self-test ---------------------------------------------------------------------------------
def _write_pcap(path, packets):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for t, frame in sorted(packets, key=lambda x: x[0]):
            sec, ns = divmod(t, 1_000_000_000)
            f.write(struct.pack("<IIII", sec, ns, len(frame), len(frame)))
            f.write(frame)


def _frame(src, dst, sport, dport, payload):
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, src, dst)
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + udp


def self_test():
    """Synthetic session, sent in bursts: honest stamps pass; each injected fault fails the checks."""
    cip, sip = ip_bytes("192.0.2.10"), ip_bytes("198.51.100.20")
    base, interval, n = 1_796_000_000_000_000_000, 5_000_000, 200
    tmp = tempfile.mkdtemp(prefix="witness-selftest.")
    cpk, spk, honest = [], [], []
    for i in range(n):
        # a late sender's bursts: ten packets 15 us apart every ten intervals (the mean rate stays one per
        # interval), so an off-by-one is only 15 us off for nine in ten packets
        c1 = base + (i // 10) * 10 * interval + (i % 10) * 15_000
        s2, s3, c4 = c1 + 40_000, c1 + 55_000, c1 + 95_000
        r1, r2, r3, r4 = c1 + 300, s2, s3 - 4_000, c4  # kernel TX just after the tap; user t3 before it
        req = struct.pack(">IQH", i, ns_to_ntp(c1 - 2_000), 1) + bytes(27)
        rep = struct.pack(">IQHHQIQHHB", i, ns_to_ntp(r3), 1, 0, ns_to_ntp(r2), i, ns_to_ntp(c1 - 2_000), 1, 0, 255)
        cpk += [(c1, _frame(cip, sip, 40000, 18800, req)), (c4, _frame(sip, cip, 18800, 40000, rep))]
        spk += [(s2, _frame(cip, sip, 40000, 18800, req)), (s3, _frame(sip, cip, 18800, 40000, rep))]
        honest.append([i, ns_to_ntp(r1), ns_to_ntp(r2), ns_to_ntp(r3), ns_to_ntp(r4), i])
    cpath, spath = os.path.join(tmp, "c.pcap"), os.path.join(tmp, "s.pcap")
    _write_pcap(cpath, cpk)
    _write_pcap(spath, spk)

    def run(records):
        rpath = os.path.join(tmp, "r.txt")
        with open(rpath, "w") as f:
            for s, t1, t2, t3, t4, rs in records:
                f.write(f"{s} {t1:020d} 0 2.32831e-10 {t2:020d} 0 2.32831e-10 255 {rs} {t3:020d} 0 "
                        f"2.32831e-10 {t4:020d} 0 2.32831e-10 255\n")
        r = analyse(cpath, spath, rpath, cip, sip)
        return r["problems"] + smoke_check(r, interval // 1000), r

    failures = []
    p, r = run(honest)
    if p or r["matched"] != n or r["stats"]["t1"]["max"] != 300 or r["stats"]["t3"]["max"] != 4_000:
        failures.append(f"honest session: {p or summary_line(r)}")
    faults = {
        "off-by-one in the TX error queue (t1 of the previous packet)":
            [[s, honest[s - 1][1] if s else honest[0][1]] + rec[2:] for s, rec in ((x[0], x) for x in honest)],
        "clock-domain mix-up (t4 37 s ahead: TAI for UTC)":
            [rec[:4] + [ns_to_ntp(ntp_to_ns(rec[4]) + 37_000_000_000), rec[5]] for rec in honest],
        "clock-domain mix-up (t1 from CLOCK_MONOTONIC)":
            [[rec[0], ns_to_ntp(ntp_to_ns(rec[1]) - base + 12_345_000_000)] + rec[2:] for rec in honest],
        "reply attached to the wrong record (t2/t3 of the next packet)":
            [rec[:2] + honest[min(rec[0] + 1, n - 1)][2:4] + rec[4:] for rec in honest],
    }
    for name, recs in faults.items():
        p, _ = run(recs)
        if not p:
            failures.append(f"not detected: {name}")
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)
    if failures:
        for f in failures:
            print(f"witness self-test: FAIL {f}")
        return 1
    print(f"witness self-test: honest session passes; {len(faults)} injected faults detected")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description="timestamp errors of a twping -R run against two captures")
    ap.add_argument("mode", choices=["analyse", "self-test"])
    ap.add_argument("--client-pcap")
    ap.add_argument("--server-pcap")
    ap.add_argument("--raw", help="the -R output of the run")
    ap.add_argument("--client-ip")
    ap.add_argument("--server-ip")
    ap.add_argument("--smoke-interval-us", type=int, default=0)
    ap.add_argument("--json", help="write the result as JSON here")
    a = ap.parse_args(argv)
    if a.mode == "self-test":
        return self_test()
    for k in ("client_pcap", "server_pcap", "raw", "client_ip", "server_ip"):
        if not getattr(a, k):
            print(f"witness.py: --{k.replace('_', '-')} is needed", file=sys.stderr)
            return 2
    try:
        r = analyse(a.client_pcap, a.server_pcap, a.raw, ip_bytes(a.client_ip), ip_bytes(a.server_ip))
    except (BadInput, OSError, ValueError) as e:
        print(f"witness.py: {e}", file=sys.stderr)
        return 2
    if a.smoke_interval_us:
        r["problems"] += smoke_check(r, a.smoke_interval_us)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    print(summary_line(r))
    for p in r["problems"]:
        print(f"problem: {p}")
    return 1 if r["problems"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
