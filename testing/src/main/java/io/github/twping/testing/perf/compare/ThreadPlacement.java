package io.github.twping.testing.perf.compare;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where the threads of a process ran: samples {@code /proc/PID/task/TID/stat} (the CPU each thread last
 * ran on, and its CPU time) while the process lives. Threads are grouped by name with digits replaced by
 * {@code #} ({@code reflector-9001} and {@code reflector-9002} are one group). Not thread-safe: one
 * sampling thread.
 */
public final class ThreadPlacement {
    /** Per thread group: samples per CPU, and the CPU time (ticks) of the last sample of each thread. */
    public static final class Group {
        private final TreeMap<Integer, Long> samplesByCpu = new TreeMap<>();
        private final Map<Long, Long> ticksByThread = new TreeMap<>();

        /** Samples on each CPU (the CPU the thread last ran on at the sample). */
        public Map<Integer, Long> samplesByCpu() {
            return samplesByCpu;
        }

        /** CPU time of the group's threads in clock ticks (usually 10 ms). */
        public long cpuTicks() {
            return ticksByThread.values().stream().mapToLong(Long::longValue).sum();
        }

        /** "cpu0 80%, cpu1 20%". */
        public String describe() {
            long total = samplesByCpu.values().stream().mapToLong(Long::longValue).sum();
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<Integer, Long> e : samplesByCpu.entrySet()) {
                if (!sb.isEmpty()) {
                    sb.append(", ");
                }
                sb.append("cpu").append(e.getKey()).append(' ').append(Math.round(100.0 * e.getValue() / total)).append('%');
            }
            return sb.toString();
        }
    }

    private final TreeMap<String, Group> groups = new TreeMap<>();

    /** Samples every thread of {@code pid} once; a vanished process or thread is skipped. */
    public void sample(long pid) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
            for (Path task : dir) {
                try {
                    record(Files.readString(task.resolve("stat")));
                } catch (IOException | RuntimeException e) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    /** Adds one {@code /proc/.../stat} line. */
    void record(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new IllegalArgumentException("not a stat line: " + stat);
        }
        long tid = Long.parseLong(stat.substring(0, open).trim());
        String name = groupName(stat.substring(open + 1, close));
        String[] f = stat.substring(close + 2).split(" ");
        // f[0] is field 3 (state): utime is field 14, stime 15, processor 39
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        int cpu = Integer.parseInt(f[36]);
        Group g = groups.computeIfAbsent(name, k -> new Group());
        g.samplesByCpu.merge(cpu, 1L, Long::sum);
        g.ticksByThread.merge(tid, ticks, Math::max);
    }

    /** The thread name with every run of digits replaced by {@code #}. */
    static String groupName(String comm) {
        return comm.replaceAll("[0-9]+", "#");
    }

    /** The groups seen, by name. */
    public Map<String, Group> groups() {
        return groups;
    }
}
