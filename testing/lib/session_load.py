#!/usr/bin/env python3
"""Session load against a running twampd (testing/session-load.sh): what many sessions cost the server.

  session_load.py PID HOST PORT CONNECTIONS SESSIONS [--start] [--trim]

Opens CONNECTIONS open-mode control connections to HOST:PORT, requests SESSIONS test sessions on each
(RFC 5357 3.5; sender address = this host, as the server requires), optionally starts them (Start-Sessions,
RFC 5357 3.7), then closes every connection at once. Samples the server process PID from /proc
(threads, resident memory) at each phase and prints one line of key=value figures:

  threads_base rss_base_kb fds_base accepted refused threads_held rss_held_kb fds_held
  [threads_started rss_started_kb] release_ms threads_after rss_after_kb fds_after rss_settled_kb

release_ms: from closing the connections until the thread count and the open file descriptors (one UDP
socket per session) are back to their base (polled every 20 ms, at most 120 s; -1 if not). rss_settled_kb: 5 s later. rss_trimmed_kb (--trim, needs gdb): after the server called glibc's
malloc_trim(0), i.e. what the allocator had kept of the freed memory. No test packet is sent. Loopback only; every loop bounded.
"""
import socket
import struct
import subprocess
import sys
import time

NTP_OFFSET = 2208988800


def open_fds(pid):
    import os
    return len(os.listdir("/proc/%d/fd" % pid))


def proc_status(pid):
    threads = rss = -1
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("Threads:"):
                threads = int(line.split()[1])
            elif line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return threads, rss


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise IOError("server closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def ntp_now(offset_s):
    t = time.time() + offset_s
    sec = int(t) + NTP_OFFSET
    frac = int((t - int(t)) * (1 << 32))
    return (sec << 32) | frac


def open_control(host, port):
    s = socket.create_connection((host, port), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    greeting = read_exact(s, 64)
    modes = struct.unpack("!I", greeting[12:16])[0]
    if not modes & 1:
        raise IOError("server does not offer open mode")
    s.sendall(struct.pack("!I", 1) + bytes(160))          # Set-Up-Response, open mode
    start = read_exact(s, 48)
    if start[15] != 0:
        raise IOError("Server-Start Accept %d" % start[15])
    return s


def request_session(s, sender, sender_port):
    # RFC 5357 3.5 Request-TW-Session, IPv4, open mode (HMAC field zero)
    msg = struct.pack("!BBBBII", 5, 4, 0, 0, 0, 0)
    msg += struct.pack("!HH", sender_port, 0)
    msg += socket.inet_aton(sender) + bytes(12)
    msg += socket.inet_aton(sender) + bytes(12)
    msg += bytes(16)                                      # SID
    msg += struct.pack("!I", 0)                           # padding
    msg += struct.pack("!Q", ntp_now(10))                 # start time
    msg += struct.pack("!Q", 2 << 32)                     # timeout 2 s
    msg += struct.pack("!I", 0) + bytes(8) + bytes(16)
    assert len(msg) == 112
    s.sendall(msg)
    reply = read_exact(s, 48)
    return reply[0]


def start_sessions(s):
    s.sendall(struct.pack("!B", 2) + bytes(31))
    ack = read_exact(s, 32)
    return ack[0]


def main(argv):
    if len(argv) < 6 or any(f not in ("--start", "--trim") for f in argv[6:]):
        print(__doc__, file=sys.stderr)
        return 2
    pid, host, port, conns, sessions = int(argv[1]), argv[2], int(argv[3]), int(argv[4]), int(argv[5])
    flags = argv[6:]
    start = "--start" in flags
    trim = "--trim" in flags
    out = {}
    # one small round first, so that threads the server keeps once made (carriers of its virtual threads,
    # timers) are in the base
    w = open_control(host, port)
    request_session(w, w.getsockname()[0], 19999)
    if start:
        start_sessions(w)
    w.close()
    time.sleep(2)
    out["threads_base"], out["rss_base_kb"] = proc_status(pid)
    out["fds_base"] = open_fds(pid)
    controls = []
    accepted = refused = 0
    for c in range(conns):
        s = open_control(host, port)
        controls.append(s)
        local = s.getsockname()[0]
        for i in range(sessions):
            if request_session(s, local, 20000 + i) == 0:
                accepted += 1
            else:
                refused += 1
    out["accepted"], out["refused"] = accepted, refused
    out["threads_held"], out["rss_held_kb"] = proc_status(pid)
    out["fds_held"] = open_fds(pid)
    if start:
        for s in controls:
            if start_sessions(s) != 0:
                raise IOError("Start-Ack refused")
        deadline = time.monotonic() + 30
        threads, rss = proc_status(pid)
        # the reflector threads start while the server answers: wait (bounded) until their number is stable
        while time.monotonic() < deadline:
            time.sleep(0.2)
            t2, rss = proc_status(pid)
            if t2 == threads:
                break
            threads = t2
        out["threads_started"], out["rss_started_kb"] = threads, rss
    t0 = time.monotonic()
    for s in controls:
        s.close()
    deadline = t0 + 120
    threads, rss = proc_status(pid)
    fds = open_fds(pid)
    while (threads > out["threads_base"] or fds > out["fds_base"]) and time.monotonic() < deadline:
        time.sleep(0.02)
        threads, rss = proc_status(pid)
        fds = open_fds(pid)
    released = threads <= out["threads_base"] and fds <= out["fds_base"]
    out["release_ms"] = int((time.monotonic() - t0) * 1000) if released else -1
    out["threads_after"], out["rss_after_kb"], out["fds_after"] = threads, rss, fds
    time.sleep(5)
    out["rss_settled_kb"] = proc_status(pid)[1]
    if trim:
        # what glibc keeps of the freed session buffers: have the server call malloc_trim(0) (gdb attached
        # for the call only)
        subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "call (int)malloc_trim(0)"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False)
        out["rss_trimmed_kb"] = proc_status(pid)[1]
    print(" ".join("%s=%s" % (k, v) for k, v in out.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
