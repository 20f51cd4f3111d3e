#!/usr/bin/env python3
"""One process's footprint, for testing/footprint.sh: runs a command, samples its threads while it lives,
and prints one JSON line.

    footprint.py [--idle SECONDS] [--ready-file PATH] [--smaps] [--log FILE] -- COMMAND...

The command runs as a child (a launcher that execs java keeps the PID). Every 10 ms the sampler reads
/proc/PID/task/*/schedstat (the CPU time of each thread in ns; the last sample of each thread is kept, so a thread that
ended counts with what it had used 10 ms before its end) and /proc/PID/status (VmRSS, threads). With --smaps
it also reads /proc/PID/smaps_rollup whenever the RSS reaches a new maximum (anonymous against file-backed
pages at the peak). --log: the command's stdout and stderr (else discarded). --idle: a server: sampled for SECONDS after it is ready (its --ready-file is non-empty,
else from its start), then stopped with SIGTERM; the figures are those until the stop. The total CPU and the
maximum RSS come from the kernel (the rusage /usr/bin/time prints), not from the samples.

JSON: cpu_s, user_s, sys_s, wall_s, max_rss_kb, exit, threads_max, rss_at_ready_kb, groups {name: ms}
(threads grouped by name, digits replaced by #), smaps_at_peak {Rss, Anonymous, ...} in KiB.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def read(path):
    try:
        with open(path, "r", encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def thread_times(pid, last):
    """Updates last[tid] = (name, ns on CPU): /proc/PID/task/*/schedstat (the scheduler's run time in ns), else
    utime + stime from .../stat (in ticks of 10 ms, too coarse for a thread that runs 50 ms in all)."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        s = read(f"/proc/{pid}/task/{tid}/stat")
        if not s:
            continue
        l, r = s.find("("), s.rfind(")")
        name = s[l + 1:r]
        f = s[r + 2:].split()
        sched = read(f"/proc/{pid}/task/{tid}/schedstat")
        if sched and sched.split():
            last[tid] = (name, int(sched.split()[0]))
        else:
            last[tid] = (name, (int(f[11]) + int(f[12])) * 1_000_000_000 // TICK)   # utime + stime (fields 14, 15)


def status(pid):
    s = read(f"/proc/{pid}/status") or ""
    out = {}
    for line in s.splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM", "Threads"):
            out[k] = int(v.split()[0])
    return out


def smaps(pid):
    s = read(f"/proc/{pid}/smaps_rollup") or ""
    out = {}
    for line in s.splitlines()[1:]:
        k, _, v = line.partition(":")
        parts = v.split()
        if parts and parts[0].isdigit():
            out[k] = int(parts[0])
    return out


def group(name):
    return re.sub(r"\d+$", "#", name)


def spread(values, fmt):
    v = sorted(x for x in values if x is not None)
    if not v:
        return "–"
    m = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
    if len(v) == 1:
        return fmt % m
    return (fmt + " (" + fmt + "–" + fmt + ")") % (m, v[0], v[-1])


def median(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


SCENARIOS = {
    "help": "`twping -h`",
    "c1": "`twping -c 1`",
    "s2000": "2000 at 500/s",
    "s5000": "5000 at 1000/s exp",
    "twampd": "idle `twampd`",
    "stamp": "idle `twampd --stamp`",
}

# thread groups of ours, in the report's order (the rest are summed as "other")
GROUPS = [
    ("JIT C2", ("C2 CompilerThre",), ()),
    ("JIT C1", ("C1 CompilerThre",), ()),
    ("main", ("java", "main"), ()),
    ("warm-up", ("twping-warmup",), ()),
    ("sender", ("twping-sender", "twping-send"), ()),
    ("receiver", ("twping-receive", "twping-receiver", "twping-recv"), ()),
    ("GC+VM", ("VM Thread", "GC Thread#", "VM Periodic Tas", "Service Thread", "Monitor Deflati"), ()),
]


def classify(name):
    for label, names, _ in GROUPS:
        if name in names:
            return label
    low = name.lower()
    if "warm" in low:
        return "warm-up"
    if "send" in low or "pacer" in low:
        return "sender"
    if "recv" in low or "receiv" in low:
        return "receiver"
    if "reflect" in low:
        return "reflector"
    return "other"


def report(path):
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    order = []
    for r in rows:
        key = (r["scenario"], r["prog"])
        if key not in order:
            order.append(key)
    labels = [g[0] for g in GROUPS] + ["reflector", "other"]
    print("| scenario | program | CPU s | wall s | max RSS MB | threads | CPU by thread, ms: "
          + " / ".join(labels) + " |")
    print("|---|---|---:|---:|---:|---:|---|")
    ratios = []
    for scenario, prog in order:
        rs = [r["r"] for r in rows if r["scenario"] == scenario and r["prog"] == prog]
        cpu = [r["cpu_s"] for r in rs]
        wall = [r["wall_s"] for r in rs]
        rss = [r["max_rss_kb"] / 1024 for r in rs]
        thr = [r["threads_max"] for r in rs]
        by = {l: [] for l in labels}
        for r in rs:
            sums = {l: 0 for l in labels}
            for name, ms in r["groups"].items():
                sums[classify(name)] += ms
            for l in labels:
                by[l].append(sums[l])
        groups = " / ".join("%d" % median(by[l]) for l in labels) if prog == "ours" else ""
        idle = [r["rss_idle_kb"] / 1024 for r in rs if r.get("rss_idle_kb")]
        rss_cell = spread(rss, "%.1f") + (" (idle " + spread(idle, "%.1f") + ")" if idle else "")
        print("| %s | %s | %s | %s | %s | %s | %s |" % (SCENARIOS.get(scenario, scenario), prog, spread(cpu, "%.2f"),
                                                       spread(wall, "%.2f"), rss_cell, spread(thr, "%d"), groups))
        if prog == "C":
            ours = [r["r"] for r in rows if r["scenario"] == scenario and r["prog"] == "ours"]
            if ours:
                def ratio(f):
                    a, b = median([f(r) for r in ours]), median([f(r) for r in rs])
                    return "–" if not a or not b else "%.1f" % (a / b)
                ratios.append("| %s | *ours / C* | %s | %s | %s | %s | |" % (
                    SCENARIOS.get(scenario, scenario), ratio(lambda r: r["cpu_s"]), ratio(lambda r: r["wall_s"]),
                    ratio(lambda r: r["max_rss_kb"]), ratio(lambda r: r["threads_max"])))
                print(ratios[-1])
    failed = [r for r in rows if r["r"]["exit"] not in (0, None) and r["scenario"] not in ("twampd", "stamp")]
    for r in failed:
        print("- %s %s round %d: exit %s: %s" % (r["scenario"], r["prog"], r["round"], r["r"]["exit"],
                                                " | ".join(r["r"]["output_tail"])))
    loads = ", ".join(sorted({r["load"].split()[0] for r in rows}, key=float))
    print()
    print("Load average (1 min) at the end of each run: " + loads + ".")
    return 1 if failed else 0


NMT_KEYS = ["Java Heap", "Class", "Thread", "Code", "GC", "Compiler", "Internal", "Other", "Symbol", "Arena Chunk",
            "Metaspace", "Shared class space", "Native Memory Tracking", "Modules", "Synchronizer", "Serviceability",
            "Module", "Object Monitors", "Safepoint", "Logging", "Arguments", "String Deduplication", "Statistics",
            "Tracing", "Test", "Unknown"]


def diag(scenario, log, gclog, classlog):
    text = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
    def kb(value, unit):
        return int(value) // 1024 if not unit else int(value) * {"KB": 1, "MB": 1024, "GB": 1 << 20}[unit]

    num = r"(\d+)(KB|MB|GB)?"
    nmt = {}
    for m in re.finditer(r"^-\s+([A-Za-z][A-Za-z ]+?) \(reserved=" + num + ", committed=" + num, text, re.M):
        nmt[m.group(1)] = kb(m.group(4), m.group(5))
    total = re.search(r"Total: reserved=" + num + ", committed=" + num, text)
    total = kb(total.group(3), total.group(4)) if total else None
    threads = re.search(r"\(threads #(\d+)\)", text)
    stack = re.search(r"\(stack: reserved=" + num + ", committed=" + num, text)
    stack = kb(stack.group(3), stack.group(4)) if stack else None
    arena = re.search(r"tag=Arena Chunk #\d+\) \(peak=" + num, text)
    arena_peak = kb(arena.group(1), arena.group(2)) if arena else None
    heap_used = None
    if os.path.exists(gclog):
        for line in open(gclog, encoding="utf-8", errors="replace"):
            m = re.search(r"(?:def new generation|tenured generation)\s+total (\d+)K, used (\d+)K", line)
            if m:
                heap_used = (heap_used or 0) + int(m.group(2))
    classes = aot = 0
    if os.path.exists(classlog):
        for line in open(classlog, encoding="utf-8", errors="replace"):
            if " source: " in line:
                classes += 1
                if "shared objects file" in line or "AOT" in line:
                    aot += 1
    c2 = re.search(r"C2 Compile Time:\s+([\d.]+) s", text)
    c1t = re.search(r"C1 Compile Time:\s+([\d.]+) s", text)
    mb = lambda kb: "%.1f" % (kb / 1024)
    parts = []
    if total:
        parts.append("NMT total %s" % mb(total))
    if "Java Heap" in nmt:
        parts.append("heap used %s / committed %s" % (mb(heap_used), mb(nmt["Java Heap"])) if heap_used is not None
                     else "heap committed %s (untouched pages are not resident)" % mb(nmt["Java Heap"]))
    for k in ("Class", "Metaspace", "Shared class space", "Code", "Thread", "Compiler", "GC", "Internal", "Other",
              "Symbol", "Arena Chunk", "Native Memory Tracking"):
        if k in nmt and nmt[k] >= 512:
            label = k
            if k == "Thread" and threads:
                label = "Thread (%s threads%s)" % (threads.group(1), ", stacks %s" % mb(stack) if stack else "")
            if k == "Arena Chunk" and arena_peak:
                label = "Arena Chunk (JIT arenas; peak %s)" % mb(arena_peak)
            parts.append("%s %s" % (label, mb(nmt[k])))
    jit = "JIT: C1 %s s, C2 %s s" % (c1t.group(1) if c1t else "0", c2.group(1) if c2 else "0")
    print("- %s: %s; %s; classes %d / %d" % (SCENARIOS.get(scenario, scenario), ", ".join(parts) or "no NMT output",
                                            jit, classes, aot))
    return 0


def main(argv):
    if argv and argv[0] == "--report":
        return report(argv[1])
    if argv and argv[0] == "--diag":
        return diag(*argv[1:5])
    idle = None
    ready = None
    want_smaps = False
    log = None
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--idle":
            idle = float(argv[i + 1])
            i += 2
        elif argv[i] == "--ready-file":
            ready = argv[i + 1]
            i += 2
        elif argv[i] == "--log":
            log = argv[i + 1]
            i += 2
        elif argv[i] == "--smaps":
            want_smaps = True
            i += 1
        elif argv[i].startswith("--"):
            print(f"footprint.py: unknown option {argv[i]}", file=sys.stderr)
            return 2
        else:
            break
    cmd = argv[i + 1:] if i < len(argv) and argv[i] == "--" else argv[i:]
    if not cmd:
        print("footprint.py: no command", file=sys.stderr)
        return 2
    env = dict(os.environ)
    if ready:
        env["TWAMPD_READY_FILE"] = ready
    t0 = time.monotonic()
    import tempfile
    logf = open(log, "w+b") if log else tempfile.TemporaryFile()
    timef = tempfile.NamedTemporaryFile(prefix="footprint-time.", delete=False)
    timef.close()
    # under /usr/bin/time, as compare-c.sh: the rusage of a child forked from this (large) interpreter would count
    # the interpreter's resident set in ru_maxrss; time's own is about 2 MB
    p = subprocess.Popen(["/usr/bin/time", "-f", "%U %S %M", "-o", timef.name] + cmd, env=env,
                         stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT)
    last = {}
    threads_max = 0
    rss_max = 0
    peak_smaps = {}
    ready_at = None
    rss_at_ready = None
    stop_at = None
    deadline = t0 + 600
    child = None
    code = None
    while True:
        pid, wstatus, r = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            code = os.waitstatus_to_exitcode(wstatus)
            break
        now = time.monotonic()
        if child is None:
            kids = (read(f"/proc/{p.pid}/task/{p.pid}/children") or "").split()
            child = int(kids[0]) if kids else None
            if child is None:
                time.sleep(0.002)
                continue
        thread_times(child, last)
        st = status(child)
        threads_max = max(threads_max, st.get("Threads", 0))
        rss = st.get("VmRSS", 0)
        if want_smaps and rss > rss_max:
            peak_smaps = smaps(child) or peak_smaps
        rss_max = max(rss_max, rss)
        if idle is not None:
            if ready_at is None and (not ready or (os.path.exists(ready) and os.path.getsize(ready) > 0)):
                ready_at = now
                stop_at = now + idle
            if stop_at is not None and now >= stop_at:
                rss_at_ready = rss
                os.kill(child, signal.SIGTERM)
                stop_at = None
        if now > deadline:
            p.kill()
        time.sleep(0.01)
    p.returncode = code
    wall = time.monotonic() - t0
    with open(timef.name, encoding="ascii", errors="replace") as f:
        tl = f.read().strip().splitlines()
    os.unlink(timef.name)
    user, sys_, maxrss = (float(x) for x in tl[-1].split()) if tl else (float("nan"),) * 3
    if tl and tl[0].startswith("Command exited with non-zero status"):
        code = int(tl[0].split()[-1])
    elif tl and tl[0].startswith("Command terminated by signal"):
        code = -int(tl[0].split()[-1])
    logf.seek(0)
    err = logf.read().decode("utf-8", "replace")
    logf.close()
    groups = {}
    for name, ns in last.values():
        g = group(name)
        groups[g] = groups.get(g, 0) + ns // 1_000_000
    out = {
        "cpu_s": round(user + sys_, 3),
        "user_s": user,
        "sys_s": sys_,
        "wall_s": round(wall, 3),
        "max_rss_kb": int(maxrss),
        "exit": code,
        "threads_max": threads_max,
        "rss_idle_kb": rss_at_ready,
        "groups": dict(sorted(groups.items(), key=lambda kv: -kv[1])),
        "smaps_at_peak": {k: peak_smaps[k] for k in ("Rss", "Anonymous", "Shared_Clean", "Private_Clean",
                                                      "Private_Dirty") if k in peak_smaps},
        "output_tail": err.strip().splitlines()[-3:],
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
