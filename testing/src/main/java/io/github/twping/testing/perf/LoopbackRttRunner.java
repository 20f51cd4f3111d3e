package io.github.twping.testing.perf;

import io.github.twping.ffm.Timestamping;
import io.github.twping.server.EmbeddedServer;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * End-to-end loopback measurement of our client against our embedded server in one process, printed as
 * Markdown tables (see docs/PERFORMANCE.md, "End to end").
 *
 * <pre>
 * LoopbackRttRunner [loopback|highrate] [--rates 1000,10000] [--seconds 3] [--rate 20000] [--count N]
 *                   [--clients kernel,user,nio] [--spin MICROS] [--loss-timeout SECONDS]
 *                   [--deadline SECONDS] [--no-baseline]
 * </pre>
 *
 * {@code loopback} (default): for each rate, a session per client socket kind ({@code kernel}: FFM with
 * {@link Timestamping#RX_TX_SOFTWARE} as twping uses; {@code user}: FFM with {@link Timestamping#NONE};
 * {@code nio}: the NIO fallback) of rate × seconds packets, and the ping-pong baseline at the same rate.
 * {@code highrate}: one kernel-stamped session of {@code --count} (100 000) packets at {@code --rate}
 * (20 000) packets/s. Exit status 0, 1 when a run failed or timed out, 2 on bad arguments.
 */
public final class LoopbackRttRunner {
    private static final int EXIT_OK = 0;
    private static final int EXIT_FAILED = 1;
    private static final int EXIT_USAGE = 2;

    private LoopbackRttRunner() {
    }

    /** Entry point. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs as {@link #main} does and returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        RunnerOptions options;
        try {
            options = RunnerOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("perftest: " + e.getMessage());
            err.println(RunnerOptions.USAGE);
            return EXIT_USAGE;
        }
        try {
            return measure(options, out, err);
        } catch (IOException e) {
            err.println("perftest: " + e.getMessage());
            return EXIT_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("perftest: interrupted");
            return EXIT_FAILED;
        }
    }

    private static int measure(RunnerOptions o, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        out.println("# perftest " + o.mode() + " at " + Instant.now() + ", " + Runtime.version() + ", "
                + Runtime.getRuntime().availableProcessors() + " CPUs, load average " + loadAverage());
        List<RunResult> runs = new ArrayList<>();
        List<ResultTables.BaselineRow> baselines = new ArrayList<>();
        boolean failed = false;
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options())) {
            LoopbackSessionRun sessions = new LoopbackSessionRun(server, err);
            for (double rate : o.rates()) {
                long count = o.countFor(rate);
                for (String client : o.clients()) {
                    RunConfig config = config(o, client, rate, count);
                    long gcCountBefore = gcCount();
                    long gcMsBefore = gcMillis();
                    RunResult r = sessions.run(config);
                    runs.add(r);
                    failed |= r.timedOut();
                    err.printf(Locale.ROOT, "perftest: %s @ %s pkt/s: outcome %s%s, sent %d, skipped %d, records %d,"
                                    + " lost %d (late replies %d, kernel drops at client %d, at reflector %d), negative RTTs %d,"
                                    + " GC %d collections %d ms, load %s%n",
                            client, ResultTables.rate(rate), r.outcome(), r.timedOut() ? " (DEADLINE, cancelled)" : "",
                            r.sent(), r.skipped(), r.records(), r.lost(), r.lateReplies(), r.clientDrops(),
                            r.reflectorDrops(), r.rtt().negativeCount(),
                            gcCount() - gcCountBefore, gcMillis() - gcMsBefore, loadAverage());
                }
                if (o.baseline()) {
                    PingPongBaseline.Result b = PingPongBaseline.run(rate, count, o.deadlineNs(rate, count), false);
                    baselines.add(new ResultTables.BaselineRow("user (FFM), System.nanoTime", rate, b));
                }
            }
        }
        out.println();
        out.println("Round-trip time (reflector processing subtracted; baseline: nanoTime around send + blocking receive):");
        out.println();
        out.print(ResultTables.rttTable(runs, baselines));
        out.println();
        out.println("Sender lateness against the schedule, CPU per packet sent, wall time (start delay and L included):");
        out.println();
        out.print(ResultTables.senderTable(runs));
        out.println();
        out.println("# load average at the end " + loadAverage());
        return failed ? EXIT_FAILED : EXIT_OK;
    }

    private static RunConfig config(RunnerOptions o, String client, double rate, long count) {
        Timestamping stamps = client.equals("kernel") ? Timestamping.RX_TX_SOFTWARE : Timestamping.NONE;
        String label = "twping engine, " + client;
        return new RunConfig(label, stamps, client.equals("nio"), rate, count, o.spinNs(), o.lossTimeoutSeconds(),
                o.deadlineNs(rate, count));
    }

    private static long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    private static long gcMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }

    /** The three load averages from /proc/loadavg, or "?" when unreadable. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /** Milliseconds to ns, for the options. */
    static long secondsToNs(double seconds) {
        return (long) (seconds * TimeUnit.SECONDS.toNanos(1));
    }
}
