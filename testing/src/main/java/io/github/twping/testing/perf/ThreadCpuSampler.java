package io.github.twping.testing.perf;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import com.sun.management.OperatingSystemMXBean;

/**
 * CPU time of the threads with given names (the client's sender and receiver), sampled while they run:
 * a thread's CPU time is readable only while it is alive, so the last sample before it ends is kept
 * (what it used after that sample is missed; sample often).
 */
public final class ThreadCpuSampler {
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Set<String> names;
    private final Map<Long, Long> lastCpuNsByThread = new HashMap<>();
    private final List<Thread> found = new ArrayList<>();

    /** Samples threads named one of {@code names}. */
    public ThreadCpuSampler(Set<String> names) {
        this.names = Set.copyOf(names);
        if (threads.isThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
    }

    /**
     * Reads the CPU time of every live matching thread. Call from a monitoring thread. The thread list is
     * scanned (which allocates) only until one thread per name was found; later samples allocate nothing
     * but boxing, so the sampler itself does not cause the collections it would then measure.
     */
    public void sample() {
        if (found.size() < names.size()) {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (names.contains(t.getName()) && !found.contains(t)) {
                    found.add(t);
                }
            }
        }
        for (Thread t : found) {
            long cpuNs = threads.getThreadCpuTime(t.threadId());
            if (cpuNs >= 0) {
                lastCpuNsByThread.merge(t.threadId(), cpuNs, Math::max);
            }
        }
    }

    /** Sum of the last samples of all matching threads seen so far, ns. */
    public long totalCpuNs() {
        long sum = 0;
        for (long v : lastCpuNsByThread.values()) {
            sum += v;
        }
        return sum;
    }

    /** Number of distinct matching threads seen. */
    public int threadsSeen() {
        return lastCpuNsByThread.size();
    }

    /** CPU time of this whole process (all threads, GC and JIT included), ns, or -1 when unavailable. */
    public static long processCpuNs() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }
}
