package io.github.twping.ffm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;

import static io.github.twping.ffm.SocketConstants.PR_GET_TIMERSLACK;
import static io.github.twping.ffm.SocketConstants.PR_SET_TIMERSLACK;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Scheduling knobs of the calling thread, through libc: its CPU affinity ({@code sched_setaffinity(2)}), the
 * CPU it runs on ({@code sched_getcpu(3)}) and its timer slack ({@code prctl(PR_SET_TIMERSLACK)}: how late
 * the kernel may fire its sleeps, 50 µs by default). The calls act on the calling thread (the slice also on
 * another thread of the process); they are for set-up, not per packet (each call allocates a little native memory, from a shared arena like the
 * sockets' own, so that the JIT's profiles of the shared libc call paths stay those of the sockets).
 */
public final class ThreadTuning {
    /** Size of the CPU mask passed to the kernel: 1024 CPUs, glibc's cpu_set_t. */
    static final int MASK_BYTES = 128;

    private ThreadTuning() {
    }

    /** True when the libc calls are available (Linux, native access granted). */
    public static boolean available() {
        return NativeSupport.isAvailable();
    }

    /**
     * Restricts the calling thread to {@code cpus}.
     *
     * @throws SocketException with the errno (EINVAL: none of the CPUs exists or is allowed)
     * @throws IllegalArgumentException when {@code cpus} is empty or names a CPU above 1023
     * @throws UnsupportedOperationException when native calls are unavailable
     */
    public static void pinCurrentThread(BitSet cpus) throws SocketException {
        requireAvailable();
        if (cpus.isEmpty() || cpus.length() > MASK_BYTES * 8) {
            throw new IllegalArgumentException("CPU set must name CPUs 0.." + (MASK_BYTES * 8 - 1) + ": " + cpus);
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            long[] words = cpus.toLongArray();
            for (int i = 0; i < words.length; i++) {
                mask.set(JAVA_LONG, i * 8L, words[i]);
            }
            int rc = Libc.schedSetaffinity(Libc.allocateCallState(arena), 0, mask);
            if (rc < 0) {
                throw SocketException.of("sched_setaffinity " + format(cpus), rc);
            }
        }
    }

    /** The CPUs the calling thread may run on. */
    public static BitSet allowedCpus() throws SocketException {
        requireAvailable();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            int rc = Libc.schedGetaffinity(Libc.allocateCallState(arena), 0, mask);
            if (rc < 0) {
                throw SocketException.of("sched_getaffinity", rc);
            }
            return BitSet.valueOf(mask.toArray(JAVA_LONG));
        }
    }

    /**
     * Checks a CPU set before pinning to it: null when every CPU of {@code cpus} may be used by the calling
     * thread, else a one-line reason ("CPU 3 not available (this process may use 0-1)").
     */
    public static String unavailableReason(BitSet cpus) {
        if (!available()) {
            return "CPU pinning needs native access: " + NativeSupport.unavailableReason();
        }
        BitSet allowed;
        try {
            allowed = allowedCpus();
        } catch (SocketException e) {
            return e.getMessage();
        }
        BitSet outside = (BitSet) cpus.clone();
        outside.andNot(allowed);
        return outside.isEmpty() ? null
                : "CPU " + format(outside) + " not available (this process may use " + format(allowed) + ")";
    }

    /** The CPU the calling thread runs on now, or -1 when unknown. */
    public static int currentCpu() {
        return available() ? Libc.schedGetcpu() : -1;
    }

    /**
     * Sets the calling thread's timer slack: sleeps (parkNanos) may wake up to this much after their time.
     * 1 ns is the smallest; 0 restores the process default.
     */
    public static void timerSlackNs(long slackNs) throws SocketException {
        requireAvailable();
        if (slackNs < 0) {
            throw new IllegalArgumentException("timer slack must be >= 0: " + slackNs);
        }
        try (Arena arena = Arena.ofShared()) {
            int rc = Libc.prctl(Libc.allocateCallState(arena), PR_SET_TIMERSLACK, slackNs);
            if (rc < 0) {
                throw SocketException.of("prctl(PR_SET_TIMERSLACK)", rc);
            }
        }
    }

    /** The calling thread's timer slack, ns. */
    public static long timerSlackNs() throws SocketException {
        requireAvailable();
        try (Arena arena = Arena.ofShared()) {
            int rc = Libc.prctl(Libc.allocateCallState(arena), PR_GET_TIMERSLACK, 0);
            if (rc < 0) {
                throw SocketException.of("prctl(PR_GET_TIMERSLACK)", rc);
            }
            return rc;
        }
    }

    /** Size of the {@code struct sched_attr} passed (SCHED_ATTR_SIZE_VER1: with the utilisation clamps). */
    static final int SCHED_ATTR_BYTES = 56;
    private static final long SCHED_ATTR_POLICY = 4;
    private static final long SCHED_ATTR_FLAGS = 8;
    private static final long SCHED_ATTR_RUNTIME = 24;
    /** The kernel's shortest slice for a time-shared thread, ns (it clamps a request to 0.1-100 ms). */
    public static final long MIN_SLICE_NS = 100_000;
    /** The kernel's longest slice for a time-shared thread, ns. */
    public static final long MAX_SLICE_NS = 100_000_000;

    /**
     * Asks the scheduler for a short time slice for the calling thread ({@code sched_setattr(2)} with
     * {@code sched_runtime} under its time-sharing policy): from Linux 6.12 the EEVDF scheduler gives a thread with
     * a shorter slice an earlier virtual deadline, so when it wakes it preempts a thread running a longer one
     * instead of waiting for that thread's slice to end. That is what a sender waking for its next send wants on a
     * host whose CPUs are busy. No privilege is needed; the thread's policy and nice value are kept (read first
     * with {@code sched_getattr(2)}). Older kernels accept the call and ignore the value ({@link #sliceNs()} then
     * reads 0). 0 restores the kernel's default slice.
     *
     * @param sliceNs 0, or the slice in ns; the kernel clamps it to 0.1-100 ms
     * @throws SocketException with the errno (ENOSYS: the call is unknown here)
     * @throws IllegalStateException when the thread does not run under SCHED_OTHER or SCHED_BATCH
     * @throws IllegalArgumentException when {@code sliceNs} is negative
     */
    public static void sliceNs(long sliceNs) throws SocketException {
        threadSliceNs(0, sliceNs);
    }

    /**
     * {@link #sliceNs(long)} for thread {@code tid} of this process (0: the calling thread). Setting another
     * thread's slice needs no privilege either when both belong to the same user.
     *
     * @param tid     the thread's id (as in /proc/self/task), or 0
     * @param sliceNs 0, or the slice in ns
     * @throws SocketException with the errno (ESRCH: no such thread; ENOSYS: the call is unknown here)
     * @throws IllegalStateException when the thread does not run under SCHED_OTHER or SCHED_BATCH
     */
    public static void threadSliceNs(int tid, long sliceNs) throws SocketException {
        requireAvailable();
        if (sliceNs < 0) {
            throw new IllegalArgumentException("slice must be >= 0: " + sliceNs);
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment attr = arena.allocate(SCHED_ATTR_BYTES, 8);
            MemorySegment callState = Libc.allocateCallState(arena);
            int rc = Libc.schedGetattr(callState, tid, attr);
            if (rc < 0) {
                throw SocketException.of("sched_getattr", rc);
            }
            int policy = attr.get(JAVA_INT, SCHED_ATTR_POLICY);
            if (policy != SCHED_OTHER && policy != SCHED_BATCH) {
                throw new IllegalStateException("a slice applies to time-shared threads, not to policy " + policy);
            }
            attr.set(JAVA_INT, 0, SCHED_ATTR_BYTES);
            attr.set(JAVA_LONG, SCHED_ATTR_FLAGS, 0L);
            attr.set(JAVA_LONG, SCHED_ATTR_RUNTIME, sliceNs);
            rc = Libc.schedSetattr(callState, tid, attr);
            if (rc < 0) {
                throw SocketException.of("sched_setattr slice " + sliceNs + " ns", rc);
            }
        }
    }

    /**
     * The calling thread's slice, ns: the one {@link #sliceNs(long)} set, else the kernel's default (its base slice,
     * scaled by the number of CPUs); 0 on kernels before 6.12, which have no slice per thread.
     */
    public static long sliceNs() throws SocketException {
        return threadSliceNs(0);
    }

    /** The slice of thread {@code tid} of this process (0: the calling thread), ns, as {@link #sliceNs()}. */
    public static long threadSliceNs(int tid) throws SocketException {
        requireAvailable();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment attr = arena.allocate(SCHED_ATTR_BYTES, 8);
            int rc = Libc.schedGetattr(Libc.allocateCallState(arena), tid, attr);
            if (rc < 0) {
                throw SocketException.of("sched_getattr", rc);
            }
            return attr.get(JAVA_LONG, SCHED_ATTR_RUNTIME);
        }
    }

    /**
     * The ids of this process's threads whose name (as the kernel keeps it, at most 15 characters:
     * {@code /proc/self/task/TID/comm}) starts with one of {@code prefixes}; a thread that ends while they are
     * read is left out. Empty where /proc cannot be read.
     */
    public static int[] threadIdsNamed(String... prefixes) {
        Path tasks = Path.of("/proc/self/task");
        int[] ids = new int[0];
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
            for (Path task : dir) {
                String name;
                try {
                    name = Files.readString(task.resolve("comm")).strip();
                } catch (IOException ended) {
                    continue;
                }
                for (String prefix : prefixes) {
                    if (name.startsWith(prefix)) {
                        ids = Arrays.copyOf(ids, ids.length + 1);
                        ids[ids.length - 1] = Integer.parseInt(task.getFileName().toString());
                        break;
                    }
                }
            }
        } catch (IOException | NumberFormatException unreadable) {
            return new int[0];
        }
        return ids;
    }

    /** Linux's SCHED_OTHER policy (the default time-sharing scheduler). */
    public static final int SCHED_OTHER = 0;
    /** Linux's SCHED_FIFO policy (real-time, first in first out). */
    public static final int SCHED_FIFO = 1;
    /** Linux's SCHED_BATCH policy (time-sharing, for CPU-bound work). */
    public static final int SCHED_BATCH = 3;

    /**
     * Runs the calling thread under SCHED_FIFO at {@code priority} (1..99): it then preempts every time-shared
     * thread the moment it becomes runnable, and the kernel fires its sleeps with no timer slack. Needs
     * CAP_SYS_NICE or an RLIMIT_RTPRIO of at least {@code priority} (EPERM otherwise). The kernel's real-time
     * throttling ({@code /proc/sys/kernel/sched_rt_runtime_us}, 95 % by default) still leaves the CPU to the
     * rest of the system for a while each second when such a thread never sleeps.
     *
     * @throws SocketException with the errno (EPERM: not permitted)
     * @throws IllegalArgumentException when {@code priority} is outside 1..99
     */
    public static void fifoPriority(int priority) throws SocketException {
        requireAvailable();
        if (priority < 1 || priority > 99) {
            throw new IllegalArgumentException("SCHED_FIFO priority must be 1..99: " + priority);
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment param = arena.allocate(JAVA_INT);
            param.set(JAVA_INT, 0, priority);
            int rc = Libc.schedSetscheduler(Libc.allocateCallState(arena), 0, SCHED_FIFO, param);
            if (rc < 0) {
                throw SocketException.of("sched_setscheduler SCHED_FIFO " + priority, rc);
            }
        }
    }

    /**
     * Checks whether threads of this process may run under SCHED_FIFO at {@code priority}, by trying it on a
     * short-lived thread of its own (the calling thread is left as it is).
     *
     * @return null when permitted, else a one-line reason
     *         ("sched_setscheduler SCHED_FIFO 50: Operation not permitted (needs CAP_SYS_NICE or RLIMIT_RTPRIO)")
     */
    public static String fifoRefusal(int priority) {
        if (!available()) {
            return "real-time scheduling needs native access: " + NativeSupport.unavailableReason();
        }
        String[] reason = new String[1];
        Thread probe = Thread.ofPlatform().name("twping-rt-probe").daemon(true).unstarted(() -> {
            try {
                fifoPriority(priority);
            } catch (SocketException e) {
                reason[0] = e.getMessage() + (e.errno() == Errno.EPERM ? " (needs CAP_SYS_NICE or RLIMIT_RTPRIO)" : "");
            } catch (IllegalArgumentException e) {
                reason[0] = e.getMessage();
            }
        });
        probe.start();
        try {
            probe.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        return reason[0];
    }

    /** The calling thread's scheduling policy ({@link #SCHED_OTHER}, {@link #SCHED_FIFO}, ...). */
    public static int schedulingPolicy() throws SocketException {
        requireAvailable();
        try (Arena arena = Arena.ofShared()) {
            int rc = Libc.schedGetscheduler(Libc.allocateCallState(arena), 0);
            if (rc < 0) {
                throw SocketException.of("sched_getscheduler", rc);
            }
            return rc;
        }
    }

    /**
     * Parses a CPU list as taskset and /sys use it: {@code 0}, {@code 0,2}, {@code 1-3}, {@code 0,4-5}.
     *
     * @throws IllegalArgumentException with the offending part
     */
    public static BitSet parseCpuList(String list) {
        BitSet cpus = new BitSet();
        if (list == null || list.isBlank()) {
            throw new IllegalArgumentException("empty CPU list");
        }
        for (String part : list.split(",", -1)) {
            int dash = part.indexOf('-');
            int low = cpuNumber(dash < 0 ? part : part.substring(0, dash), list);
            int high = dash < 0 ? low : cpuNumber(part.substring(dash + 1), list);
            if (high < low) {
                throw new IllegalArgumentException("bad CPU range '" + part + "' in '" + list + "'");
            }
            cpus.set(low, high + 1);
        }
        return cpus;
    }

    /** The CPU list form of {@code cpus}: {@code 0,2-3}. */
    public static String format(BitSet cpus) {
        StringBuilder sb = new StringBuilder();
        for (int low = cpus.nextSetBit(0); low >= 0; ) {
            int high = cpus.nextClearBit(low) - 1;
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(low);
            if (high > low) {
                sb.append('-').append(high);
            }
            low = cpus.nextSetBit(high + 1);
        }
        return sb.toString();
    }

    private static int cpuNumber(String s, String list) {
        if (s.isEmpty() || s.length() > 4 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("bad CPU number '" + s + "' in '" + list + "'");
        }
        int n = Integer.parseInt(s);
        if (n >= MASK_BYTES * 8) {
            throw new IllegalArgumentException("CPU " + n + " above " + (MASK_BYTES * 8 - 1) + " in '" + list + "'");
        }
        return n;
    }

    private static void requireAvailable() {
        if (!available()) {
            throw new UnsupportedOperationException("native calls unavailable: " + NativeSupport.unavailableReason());
        }
    }
}
