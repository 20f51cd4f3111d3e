#!/usr/bin/env python3
"""Misbehaving peers for the stand's fault scenarios (testing/netns-stand.sh). Every mode ends by itself.

  fault_peers.py silent-server ADDR PORT SECONDS   accept connections, send a Server-Greeting (open mode),
                                                   then stay silent; exit after SECONDS
  fault_peers.py idle HOST PORT COUNT SECONDS      open COUNT control connections and hold them SECONDS
  fault_peers.py flood HOST PORTLO PORTHI SECONDS RATE
                                                   UDP datagrams (1..100 bytes) at RATE/s to every port of
                                                   PORTLO..PORTHI in turn, for SECONDS; prints the count
Only for the documentation address ranges inside the stand's namespaces.
"""
import os
import select
import socket
import struct
import sys
import time


def greeting():
    # RFC 4656 3.1: 12 unused, Modes, Challenge(16), Salt(16), Count, 12 MBZ
    return bytes(12) + struct.pack("!I", 1) + os.urandom(16) + os.urandom(16) + struct.pack("!I", 1024) + bytes(12)


def silent_server(addr, port, seconds):
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    srv = socket.socket(family, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(16)
    held = []
    end = time.monotonic() + seconds
    print("listening", flush=True)
    while time.monotonic() < end:
        ready, _, _ = select.select([srv], [], [], 0.5)
        if ready:
            c, _ = srv.accept()
            c.sendall(greeting())
            held.append(c)  # never read, never answered
    for c in held:
        c.close()


def idle(host, port, count, seconds):
    socks = []
    for _ in range(count):
        s = socket.create_connection((host, port), timeout=10)
        socks.append(s)
    print("open %d" % len(socks), flush=True)
    time.sleep(seconds)
    for s in socks:
        s.close()


def flood(host, lo, hi, seconds, rate):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.setblocking(False)
    sent = 0
    start = time.monotonic()
    end = start + seconds
    port = lo
    payload = os.urandom(100)
    while True:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - start) * rate)
        while sent < due:
            try:
                s.sendto(payload[: 1 + sent % 100], (host, port))
            except (BlockingIOError, OSError):
                pass
            sent += 1
            port = lo if port >= hi else port + 1
        time.sleep(0.001)
    print("sent %d" % sent, flush=True)


def main(argv):
    mode = argv[1]
    if mode == "silent-server":
        silent_server(argv[2], int(argv[3]), float(argv[4]))
    elif mode == "idle":
        idle(argv[2], int(argv[3]), int(argv[4]), float(argv[5]))
    elif mode == "flood":
        flood(argv[2], int(argv[3]), int(argv[4]), float(argv[5]), float(argv[6]))
    else:
        sys.exit("fault_peers.py: unknown mode " + mode)


if __name__ == "__main__":
    main(sys.argv)
