package io.github.twping.session;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Reads the scheduling policy and real-time priority of this process's threads from {@code /proc/self/task}
 * (proc(5): fields 40 rt_priority and 41 policy of {@code stat}), keyed by the thread's name as the kernel
 * holds it (15 characters at most).
 */
final class ThreadPolicies {
    private ThreadPolicies() {
    }

    /** The value {@link #collect} records for a SCHED_FIFO thread at {@code priority}. */
    static int fifo(int priority) {
        return 1 << 8 | priority;
    }

    /** Records policy << 8 | rt_priority of every thread now alive, the last one per name winning. */
    static void collect(Map<String, Integer> into) {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
                    String stat = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
                    // fields after the parenthesised name, which may itself hold spaces
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    int rtPriority = Integer.parseInt(f[40 - 3]);
                    int policy = Integer.parseInt(f[41 - 3]);
                    into.put(name, policy << 8 | rtPriority);
                } catch (IOException | RuntimeException e) {
                    // the thread ended while it was being read
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/task", e);
        }
    }

    /**
     * The scheduler slice ({@code se.slice} of {@code sched}, ns) of every thread now alive, by name; empty where
     * the kernel shows none (before Linux 6.6's EEVDF).
     */
    static void collectSlices(Map<String, Long> into) {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
                    for (String line : Files.readAllLines(task.resolve("sched"), StandardCharsets.UTF_8)) {
                        String[] kv = line.split(":", 2);
                        if (kv.length == 2 && kv[0].strip().equals("se.slice")) {
                            into.put(name, Long.parseLong(kv[1].strip()));
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended while it was being read
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/task", e);
        }
    }
}
