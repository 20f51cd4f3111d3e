#!/usr/bin/env python3
"""A minimal STAMP / TWAMP-Light Session-Sender, written from RFC 8762 section 4.2 / 4.3, RFC 8972 section 3
and RFC 5357 section 4.1.2 / 4.2.1 alone, to check the Java reflector's byte layout with a second implementation.

It sends COUNT test packets to HOST:PORT, one at a time, waits for each reply and checks every field of it.
Output: one line per reply, then a summary line "ok SENT RECEIVED"; exit 0 when every reply passed all checks,
1 on a failed check (the line says which field), 2 on bad arguments.
Formats: --format stamp (44-byte unauthenticated), stamp-auth (112-byte, HMAC-SHA-256/128 over octets 0..95,
key given in hex with --key-hex), light (TWAMP-Light: 14-byte sender packet, 41-byte reflector packet),
light-auth (authenticated TWAMP-Light, RFC 5357 section 4.1.2 / 4.2.1 with configured keys: 48-octet sender packet
plus 64 octets of padding, 112-octet reflector packet; --key-hex gives 48 octets, the AES-128 key (octets 0..15)
then the HMAC-SHA1 key (16..47); block 0, the sequence number and 12 MBZ octets, is AES-128-ECB encrypted and
HMAC-SHA1/128 is taken over its plaintext, in both directions, as perfSONAR's TWAMP does it in authenticated
mode). AES-128 is written here from FIPS 197 (no cryptography package needed); --self-test checks it against the
FIPS 197 appendix C.1 vector.
--tlvs (STAMP formats) adds the RFC 8972 section 4 TLVs after the padding: Timestamp Information, Class of Service
(DSCP1 46, EC1 ECT(0) in the bits draft-ietf-ippm-stamp-cos-ecn takes from Reserved), Direct Measurement, Access Report, Follow-Up Telemetry, one TLV of an unassigned type, and with
stamp-auth the HMAC TLV (section 4.8) last; every header has U = 1 as section 4 asks of a Session-Sender, and the
reply's answers are checked (U cleared on the known ones and kept on the unknown one, the reflector's fields).
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


# ---- AES-128 from FIPS 197 (encryption and decryption of single 16-octet blocks) ----------------------------


def _xtime(a):
    a <<= 1
    return (a ^ 0x11B) & 0xFF if a & 0x100 else a


def _gmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = _xtime(a)
        b >>= 1
    return r


def _make_sbox():
    # S-box (FIPS 197 section 5.1.1): multiplicative inverse in GF(2^8), then the affine transformation
    sbox = [0] * 256
    for x in range(256):
        inv = 0
        if x:
            inv = next(y for y in range(1, 256) if _gmul(x, y) == 1)
        b = inv
        s = b
        for _ in range(4):
            b = ((b << 1) | (b >> 7)) & 0xFF
            s ^= b
        sbox[x] = s ^ 0x63
    inverse = [0] * 256
    for x, v in enumerate(sbox):
        inverse[v] = x
    return sbox, inverse


SBOX, INV_SBOX = _make_sbox()


def aes128_round_keys(key):
    # key expansion (section 5.2): 44 words, 11 round keys of 16 octets
    assert len(key) == 16
    words = [list(key[i:i + 4]) for i in range(0, 16, 4)]
    rcon = 1
    for i in range(4, 44):
        t = list(words[i - 1])
        if i % 4 == 0:
            t = t[1:] + t[:1]
            t = [SBOX[b] for b in t]
            t[0] ^= rcon
            rcon = _xtime(rcon)
        words.append([a ^ b for a, b in zip(words[i - 4], t)])
    return [sum(words[4 * r:4 * r + 4], []) for r in range(11)]


def _add(state, round_key):
    return [a ^ b for a, b in zip(state, round_key)]


def _shift(state, inverse=False):
    # the state is column-major: octet r + 4c is row r, column c; row r rotates left by r (right to invert)
    out = [0] * 16
    for r in range(4):
        for c in range(4):
            src = (c + r) % 4 if not inverse else (c - r) % 4
            out[r + 4 * c] = state[r + 4 * src]
    return out


def _mix(state, m):
    out = []
    for c in range(4):
        col = state[4 * c:4 * c + 4]
        for r in range(4):
            v = 0
            for k in range(4):
                v ^= _gmul(m[r][k], col[k])
            out.append(v)
    return out


MIX = [[2, 3, 1, 1], [1, 2, 3, 1], [1, 1, 2, 3], [3, 1, 1, 2]]
INV_MIX = [[14, 11, 13, 9], [9, 14, 11, 13], [13, 9, 14, 11], [11, 13, 9, 14]]


def aes128_encrypt_block(round_keys, block):
    state = _add(list(block), round_keys[0])
    for r in range(1, 11):
        state = _shift([SBOX[b] for b in state])
        if r != 10:
            state = _mix(state, MIX)
        state = _add(state, round_keys[r])
    return bytes(state)


def aes128_decrypt_block(round_keys, block):
    state = _add(list(block), round_keys[10])
    for r in range(9, -1, -1):
        state = [INV_SBOX[b] for b in _shift(state, inverse=True)]
        state = _add(state, round_keys[r])
        if r != 0:
            state = _mix(state, INV_MIX)
    return bytes(state)


def self_test():
    # FIPS 197 appendix C.1
    keys = aes128_round_keys(bytes(range(16)))
    plain = bytes.fromhex("00112233445566778899aabbccddeeff")
    cipher = aes128_encrypt_block(keys, plain)
    check(cipher.hex() == "69c4e0d86a7b0430d8cdb78070b4c55a", "AES-128 FIPS 197 C.1 encryption: " + cipher.hex())
    check(aes128_decrypt_block(keys, cipher) == plain, "AES-128 FIPS 197 C.1 decryption")


def light_auth_seal(keys, packet):
    # RFC 5357 4.1.2 (authenticated): HMAC-SHA1/128 over the plaintext of block 0 at octet 32 (sender) or 96
    # (reflector), then block 0 encrypted
    aes_keys, hmac_key, hmac_at = keys
    tag = hmac.new(hmac_key, packet[:16], hashlib.sha1).digest()[:16]
    packet = packet[:hmac_at] + tag + packet[hmac_at + 16:]
    return aes128_encrypt_block(aes_keys, packet[:16]) + packet[16:]


TLV_TS, TLV_COS, TLV_DM, TLV_AR, TLV_FUT, TLV_HMAC, TLV_UNASSIGNED = 3, 4, 5, 6, 7, 8, 150
COS_EC1 = 2                                                        # ECT(0): the ECN the reply is to carry
FLAG_U, FLAG_M, FLAG_I = 0x80, 0x40, 0x20
SENT_DSCP = 10


def tlv(tlv_type, value):
    # RFC 8972 section 4: Flags(1) Type(1) Length(2, value octets), U = 1 from the Session-Sender
    return struct.pack("!BBH", FLAG_U, tlv_type, len(value)) + value


def extension_tlvs(seq, key):
    body = tlv(TLV_TS, bytes(4))
    body += tlv(TLV_COS, struct.pack("!HH", 46 << 10, COS_EC1 << 14))  # DSCP1 DSCP2 EC2 RPD | EC1 RPE Reserved
    body += tlv(TLV_DM, struct.pack("!III", seq + 1, 0, 0))        # S_TxC, R_RxC, R_TxC
    body += tlv(TLV_AR, struct.pack("!BBH", 1 << 4, 1, 0))         # ID 3GPP, Return Code 1
    body += tlv(TLV_FUT, bytes(16))                                # Sequence Number, Timestamp, Mode, Reserved
    body += tlv(TLV_UNASSIGNED, b"\x01\x02\x03\x04")
    return body


def hmac_tlv(key, packet, tlv_from):
    # RFC 8972 section 4.8: over the Sequence Number and the TLVs before the HMAC TLV
    return tlv(TLV_HMAC, hmac.new(key, packet[:4] + packet[tlv_from:], hashlib.sha256).digest()[:16])


def walk(reply, base):
    tlvs = []
    at = base
    while at + 4 <= len(reply):
        flags, tlv_type, length = struct.unpack("!BBH", reply[at:at + 4])
        check(at + 4 + length <= len(reply), "TLV at %d runs past the reply" % at)
        tlvs.append((at, flags, tlv_type, reply[at + 4:at + 4 + length]))
        at += 4 + length
    return tlvs


def build(fmt, seq, ts, err, ssid, key, tlv_padding, extensions=False):
    if fmt == "light-auth":
        # RFC 5357 4.1.2: seq MBZ(12) timestamp error estimate MBZ(6) HMAC(16), then 64 octets of padding
        packet = struct.pack("!I12sQH6s16s", seq, bytes(12), ts, err, bytes(6), bytes(16)) + bytes(range(64))
        return light_auth_seal((aes128_round_keys(key[:16]), key[16:], 32), packet)
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
        packet += struct.pack("!BBH", FLAG_U, 1, tlv_padding) + bytes(tlv_padding)
    if extensions:
        base = 44 if fmt == "stamp" else 112
        packet += extension_tlvs(seq, key)
        if fmt == "stamp-auth":
            packet += hmac_tlv(key, packet, base)
    return packet


def check(cond, what):
    if not cond:
        print("FAIL " + what)
        sys.exit(1)


def parse_reply(fmt, reply, key):
    if fmt == "light-auth":
        check(len(reply) >= 112, "length %d < 112" % len(reply))
        block0 = aes128_decrypt_block(aes128_round_keys(key[:16]), reply[:16])
        expected = hmac.new(key[16:], block0, hashlib.sha1).digest()[:16]
        check(hmac.compare_digest(expected, reply[96:112]), "reply HMAC-SHA1 over the decrypted block 0")
        plain = block0 + reply[16:96]
        (seq, m1, ts, err, m2, rts, m3, sseq, m4, sts, serr, m5, sttl, m6) = struct.unpack(
            "!I12sQH6sQ8sI12sQH6sB15s", plain)
        mbz = sum(int.from_bytes(m, "big") for m in (m1, m2, m3, m4, m5, m6))
        return dict(seq=seq, ts=ts, err=err, ssid=0, rts=rts, sseq=sseq, sts=sts, serr=serr, sttl=sttl, mbz=mbz)
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


def check_extensions(args, key, reply, base, seq, previous):
    seen = {}
    for at, flags, tlv_type, value in walk(reply, base):
        seen[tlv_type] = (at, flags, value)
        if tlv_type == TLV_UNASSIGNED:
            check(flags & FLAG_U, "unknown TLV reflected with U")
            check(value == b"\x01\x02\x03\x04", "unknown TLV value copied")
        else:
            check(flags & 0xE0 == 0, "TLV type %d flags 0x%02x (U, M, I clear)" % (tlv_type, flags))
    for tlv_type in (TLV_TS, TLV_COS, TLV_DM, TLV_AR, TLV_FUT, TLV_UNASSIGNED):
        check(tlv_type in seen, "TLV type %d reflected" % tlv_type)
    sync_in, method_in, sync_out, method_out = seen[TLV_TS][2][:4]
    check(sync_in in (1, 2, 3, 4, 5) and sync_out in (1, 2, 3, 4, 5), "Timestamp Information sync sources")
    check(method_in != 0 and method_out != 0, "Timestamp Information methods")
    word, reserved = struct.unpack("!HH", seen[TLV_COS][2])
    check(word >> 10 == 46, "Class of Service DSCP1 kept")
    check((word >> 4) & 0x3F == SENT_DSCP, "Class of Service DSCP2 %d != %d" % ((word >> 4) & 0x3F, SENT_DSCP))
    check(reserved & 0x0FFF == 0, "Class of Service Reserved")
    check(reserved >> 14 == COS_EC1, "Class of Service EC1 kept")
    check((reserved >> 12) & 3 in (2, 3), "Class of Service RPE %d (0b11 set, 0b10 not)" % ((reserved >> 12) & 3))
    s_txc, r_rxc, r_txc = struct.unpack("!III", seen[TLV_DM][2])
    check(s_txc == seq + 1, "Direct Measurement S_TxC copied")
    check(r_rxc == seq + 1 and r_txc == seq + 1, "Direct Measurement R_RxC %d R_TxC %d" % (r_rxc, r_txc))
    check(seen[TLV_AR][2] == struct.pack("!BBH", 1 << 4, 1, 0), "Access Report copied")
    fut_seq, fut_ts, fut_mode = struct.unpack("!IQB", seen[TLV_FUT][2][:13])
    if previous is None:
        check(fut_ts == 0, "Follow-Up Telemetry: no previous reply")
    elif fut_ts != 0:
        check(fut_seq == previous["seq"], "Follow-Up Telemetry sequence %d != %d" % (fut_seq, previous["seq"]))
        to_seconds = ptp_to_seconds if previous["err"] & 0x4000 else ntp_to_seconds
        lag = to_seconds(fut_ts) - to_seconds(previous["ts"])
        check(0 <= lag < 1, "Follow-Up Telemetry stamp %.6f s after the previous reply's timestamp" % lag)
        check(fut_mode in (1, 2), "Follow-Up Telemetry timestamp mode %d" % fut_mode)
    if args.format == "stamp-auth":
        at, flags, value = seen[TLV_HMAC]
        expected = hmac.new(key, reply[:4] + reply[base:at], hashlib.sha256).digest()[:16]
        check(hmac.compare_digest(expected, value), "reply HMAC TLV over the sequence number and TLVs")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--format", choices=["stamp", "stamp-auth", "light", "light-auth"], default="stamp")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--ssid", type=int, default=0)
    ap.add_argument("--key-hex", default="")
    ap.add_argument("--tlv-padding", type=int, default=0)
    ap.add_argument("--ttl", type=int, default=64)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--tlvs", action="store_true")
    ap.add_argument("--self-test", action="store_true", help="check AES-128 against FIPS 197 and exit")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        print("ok self-test")
        return 0
    try:
        key = bytes.fromhex(args.key_hex)
    except ValueError:
        print("--key-hex is not hexadecimal")
        return 2
    if args.format == "light-auth" and len(key) != 48:
        print("--format light-auth needs --key-hex of 48 octets (AES key 16, HMAC key 32)")
        return 2
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
    if args.tlvs:
        if args.format.startswith("light"):
            print("--tlvs needs a STAMP format")
            return 2
        if family == socket.AF_INET:
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, SENT_DSCP << 2)
        else:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, SENT_DSCP << 2)
    previous = None
    received = 0
    for seq in range(args.count):
        err = 0x0001  # S=0 (unsynchronised), Z=0 (NTP), scale 0, multiplier 1
        ts = ntp_now()
        request = build(args.format, seq, ts, err, args.ssid, key, args.tlv_padding, args.tlvs)
        sock.sendto(request, (args.host, args.port))
        try:
            reply, _ = sock.recvfrom(65535)
        except socket.timeout:
            check(False, "no reply to seq %d within %.1f s" % (seq, args.timeout))
        after = ntp_to_seconds(ntp_now())
        r = parse_reply(args.format, reply, key)
        if args.format == "light-auth":
            check(len(reply) == max(len(request), 112), "reply length %d for a %d-octet request"
                  % (len(reply), len(request)))
        elif args.format == "light":
            check(len(reply) == max(len(request), 41), "reply length %d for a %d-octet request"
                  % (len(reply), len(request)))
            check(reply[41:] == request[14:14 + len(reply) - 41], "padding copied from the sender's")
        else:
            check(len(reply) == len(request), "reply length %d != request %d" % (len(reply), len(request)))
            base = 44 if args.format == "stamp" else 112
            if args.tlv_padding:
                flags, tlv_type, length = struct.unpack("!BBH", reply[base:base + 4])
                check(tlv_type == 1 and length == args.tlv_padding, "Extra Padding TLV header")
                check(flags & 0xE0 == 0, "Extra Padding TLV U/M/I flags 0x%02x" % flags)
            if args.tlvs:
                check_extensions(args, key, reply, base, seq, previous)
                previous = r
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
