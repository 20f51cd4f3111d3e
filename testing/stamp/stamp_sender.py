#!/usr/bin/env python3
"""A minimal STAMP / TWAMP-Light Session-Sender, written from RFC 8762 section 4.2 / 4.3, RFC 8972 section 3
and RFC 5357 section 4.1.2 / 4.2.1 alone, to check the Java reflector's byte layout with a second implementation.

It sends COUNT test packets to HOST:PORT, one at a time, waits for each reply and checks every field of it.
Output: one line per reply, then a summary line "ok SENT RECEIVED"; exit 0 when every reply passed all checks,
1 on a failed check (the line says which field), 2 on bad arguments.
Formats: --format stamp (44-byte unauthenticated), stamp-auth (112-byte, HMAC-SHA-256/128 over octets 0..95,
key given in hex with --key-hex), light (TWAMP-Light: 14-byte sender packet, 41-byte reflector packet).
"""
import argparse
import hashlib
import hmac
import socket
import struct
import sys
import time

NTP_UNIX_OFFSET = 2208988800  # seconds from 1900-01-01 to 1970-01-01


def ntp_now():
    t = time.time_ns()
    seconds = t // 1_000_000_000 + NTP_UNIX_OFFSET
    fraction = ((t % 1_000_000_000) << 32) // 1_000_000_000
    return ((seconds & 0xFFFFFFFF) << 32) | fraction


def ntp_to_seconds(ts):
    return (ts >> 32) + (ts & 0xFFFFFFFF) / 2**32


def ptp_to_seconds(ts):
    return (ts >> 32) + NTP_UNIX_OFFSET + (ts & 0xFFFFFFFF) / 1e9


def build(fmt, seq, ts, err, ssid, key, tlv_padding):
    if fmt == "light":
        # RFC 5357 4.1.2, unauthenticated: seq(4) timestamp(8) error estimate(2), then padding
        return struct.pack("!IQH", seq, ts, err) + bytes(range(27))
    if fmt == "stamp":
        # RFC 8762 4.2.1 with the SSID of RFC 8972 section 3: seq ts err ssid MBZ(28)
        packet = struct.pack("!IQHH", seq, ts, err, ssid) + bytes(28)
    else:
        # RFC 8762 4.2.2: seq MBZ(12) ts err ssid MBZ(68) HMAC(16)
        head = struct.pack("!I12sQHH68s", seq, bytes(12), ts, err, ssid, bytes(68))
        packet = head + hmac.new(key, head, hashlib.sha256).digest()[:16]
    if tlv_padding:
        # RFC 8972 4.1 Extra Padding TLV: flags(1) type=1 length(2), value
        packet += struct.pack("!BBH", 0, 1, tlv_padding) + bytes(tlv_padding)
    return packet


def check(cond, what):
    if not cond:
        print("FAIL " + what)
        sys.exit(1)


def parse_reply(fmt, reply, key):
    if fmt == "light":
        check(len(reply) >= 41, "length %d < 41" % len(reply))
        seq, ts, err, mbz, rts, sseq, sts, serr, mbz2, sttl = struct.unpack("!IQHHQIQHHB", reply[:41])
        return dict(seq=seq, ts=ts, err=err, ssid=0, rts=rts, sseq=sseq, sts=sts, serr=serr, sttl=sttl,
                    mbz=mbz | mbz2)
    if fmt == "stamp":
        check(len(reply) >= 44, "length %d < 44" % len(reply))
        seq, ts, err, ssid, rts, sseq, sts, serr, mbz, sttl, mbz2 = struct.unpack("!IQHHQIQHHB3s", reply[:44])
        return dict(seq=seq, ts=ts, err=err, ssid=ssid, rts=rts, sseq=sseq, sts=sts, serr=serr, sttl=sttl,
                    mbz=mbz | int.from_bytes(mbz2, "big"))
    check(len(reply) >= 112, "length %d < 112" % len(reply))
    expected = hmac.new(key, reply[:96], hashlib.sha256).digest()[:16]
    check(hmac.compare_digest(expected, reply[96:112]), "reply HMAC over octets 0..95")
    (seq, m1, ts, err, ssid, m2, rts, m3, sseq, m4, sts, serr, m5, sttl, m6) = struct.unpack(
        "!I12sQHH4sQ8sI12sQH6sB15s", reply[:96])
    mbz = sum(int.from_bytes(m, "big") for m in (m1, m2, m3, m4, m5, m6))
    return dict(seq=seq, ts=ts, err=err, ssid=ssid, rts=rts, sseq=sseq, sts=sts, serr=serr, sttl=sttl, mbz=mbz)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--format", choices=["stamp", "stamp-auth", "light"], default="stamp")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--ssid", type=int, default=0)
    ap.add_argument("--key-hex", default="")
    ap.add_argument("--tlv-padding", type=int, default=0)
    ap.add_argument("--ttl", type=int, default=64)
    ap.add_argument("--timeout", type=float, default=5.0)
    args = ap.parse_args()
    key = bytes.fromhex(args.key_hex)
    if args.format == "stamp-auth" and not key:
        print("--format stamp-auth needs --key-hex")
        return 2
    if args.count < 1 or args.count > 100000:
        print("--count must be 1..100000")
        return 2
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    if family == socket.AF_INET:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, args.ttl)
    else:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, args.ttl)
    sock.settimeout(args.timeout)
    received = 0
    for seq in range(args.count):
        err = 0x0001  # S=0 (unsynchronised), Z=0 (NTP), scale 0, multiplier 1
        ts = ntp_now()
        request = build(args.format, seq, ts, err, args.ssid, key, args.tlv_padding)
        sock.sendto(request, (args.host, args.port))
        reply, _ = sock.recvfrom(65535)
        after = ntp_to_seconds(ntp_now())
        r = parse_reply(args.format, reply, key)
        if args.format == "light":
            check(len(reply) == max(len(request), 41), "reply length %d for a %d-octet request"
                  % (len(reply), len(request)))
            check(reply[41:] == request[14:14 + len(reply) - 41], "padding copied from the sender's")
        else:
            check(len(reply) == len(request), "reply length %d != request %d" % (len(reply), len(request)))
            base = 44 if args.format == "stamp" else 112
            if args.tlv_padding:
                flags, tlv_type, length = struct.unpack("!BBH", reply[base:base + 4])
                check(tlv_type == 1 and length == args.tlv_padding, "Extra Padding TLV header")
                check(flags & 0xC0 == 0, "Extra Padding TLV U/M flags 0x%02x" % flags)
        check(r["sseq"] == seq, "sender sequence %d != %d" % (r["sseq"], seq))
        check(r["sts"] == ts, "sender timestamp copied")
        check(r["serr"] == err, "sender error estimate copied")
        check(r["sttl"] == args.ttl, "Sender TTL %d != %d" % (r["sttl"], args.ttl))
        check(r["ssid"] == args.ssid, "SSID %d != %d" % (r["ssid"], args.ssid))
        check(r["mbz"] == 0, "MBZ octets are zero")
        check(r["err"] & 0xFF != 0, "reflector error estimate multiplier is not 0")
        to_seconds = ptp_to_seconds if r["err"] & 0x4000 else ntp_to_seconds
        rts = to_seconds(r["rts"])
        rsend = to_seconds(r["ts"])
        sent = ntp_to_seconds(ts)
        check(rts <= rsend, "receive timestamp <= reflector send timestamp")
        check(abs(rts - sent) < 5 and abs(rsend - after) < 5, "reflector timestamps within 5 s of ours")
        received += 1
        print("seq=%d rseq=%d ttl=%d turn=%.1fus" % (seq, r["seq"], r["sttl"], (rsend - rts) * 1e6))
    print("ok %d %d" % (args.count, received))
    return 0


if __name__ == "__main__":
    sys.exit(main())
