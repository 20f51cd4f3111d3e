package io.github.twping.client;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import io.github.twping.datafile.DeltaSource;
import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.ScheduleEnd;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.net.AddressText;
import io.github.twping.report.owamp.OutputOptions;
import io.github.twping.report.owamp.HostInfo;
import io.github.twping.report.owamp.Reports;
import io.github.twping.time.StopTrace;

/**
 * Gets the summary ready before the test ends, so that a Ctrl-C's partial results come as fast as C's (docs/CLI.md,
 * signals; testing/signal-latency.sh), for the TWAMP run ({@link TwampRun}) and the STAMP/TWAMP-Light run
 * ({@link StampRun}) alike. The reverse lookup of the local name (a blocking call of unbounded length) runs on a
 * background thread started at once; the rest is done by the run's main thread in steps ({@link #step}) while it
 * waits for the start time, never beside the session's threads. Not thread-safe (the main thread's).
 */
final class ReportPreparation {
    /** How long the report waits for the background lookup of the local name (it then looks it up itself). */
    private static final long HOST_LOOKUP_JOIN_MS = 2_000;
    /** Deltas of the schedule's end summed between two looks at the clock (about 0.1 ms compiled). */
    private static final long SCHEDULE_END_STEP = 1024;
    /** How long one step sums the schedule before the caller looks at its connection or cancellation again. */
    static final long SLICE_NS = TimeUnit.MILLISECONDS.toNanos(5);
    /** The wait for the start time takes no step of the report's preparation this close to its end. */
    static final long RESERVE_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * Nor begins the summary's warming pass this close to it: class loading and one interpreted pass, which cannot
     * be cut short, took 25-80 ms on an uncontended CPU and up to 520 ms at load 18 (the start wait is about 850 ms).
     */
    static final long WARM_SUMMARY_RESERVE_NS = TimeUnit.MILLISECONDS.toNanos(600);

    private final RunContext run;
    private final SessionHeader header;
    private final InetAddress localAddress;
    private final Thread hostLookup;
    private volatile HostInfo hosts;
    /** The sum of the whole send schedule, walked in {@link #step}; null when the summary does not need it. */
    private final ScheduleEnd scheduleEnd;
    /** The data file the summary's warming pass reads (its header alone); null when there is no such pass. */
    private final SessionDataFile warmFile;
    private boolean summaryWarmed;
    /** The schedule the report used ({@link #deltas}), for the tests. */
    private ScheduleDeltas reportDeltas;

    private ReportPreparation(RunContext run, SessionDataFile file, SessionHeader header, InetAddress localAddress) {
        this.run = run;
        this.header = header;
        this.localAddress = localAddress;
        OutputOptions opts = Outputs.of(run.options, run.program);
        boolean summary = !opts.quiet() && !opts.raw();
        long n = header.packetCount();
        // the summary ends at schedtime(N-1) however early the stop
        this.scheduleEnd = summary && (opts.subsession() == 0 || opts.subsession() >= n) ? ScheduleEnd.of(header) : null;
        this.warmFile = summary && !opts.perFile() ? file : null;
        Thread t = Thread.ofPlatform().daemon(true).name("twping-host-lookup").unstarted(() ->
                hosts = hostInfo(run, header, localAddress));
        this.hostLookup = t;
        t.start();
    }

    /** Starts the preparation of the report over {@code file} (the session's data file, its header written). */
    static ReportPreparation start(RunContext run, SessionDataFile file, SessionHeader header, InetAddress localAddress) {
        return new ReportPreparation(run, file, header, localAddress);
    }

    /**
     * One step, when at least {@link #RESERVE_NS} of the wait ({@code leftNs}) is left. First, once, one pass of the
     * statistics and the summary over the data file as it is (the header alone) into a discarding stream, with a
     * schedule of zero deltas: it loads and links their code, which, run cold after the signal, took 30-450 ms on a
     * loaded machine. Then, in slices of {@link #SLICE_NS}, the schedule's sum ({@link ScheduleEnd}): a Ctrl-C's
     * summary then reads its end time instead of walking, for {@code -c 100000}, 100,000 exponential deltas (an
     * AES block per four random words).
     *
     * @return true when a step was taken (more may follow)
     */
    boolean step(long leftNs) {
        if (leftNs < RESERVE_NS) {
            return false;
        }
        if (!summaryWarmed && warmFile != null && leftNs >= WARM_SUMMARY_RESERVE_NS) {
            summaryWarmed = true;
            PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8);
            Reports.writeChannel(Outputs.of(run.options, run.program), warmFile.channel(),
                    HostInfo.numericFrom(header), ZERO_DELTAS, discard, discard);
            StopTrace.mark("summary-warmed");
            return true;
        }
        ScheduleEnd end = scheduleEnd;
        if (end != null && !end.isDone()) {
            long sliceEndNs = System.nanoTime() + SLICE_NS;
            while (!end.advance(SCHEDULE_END_STEP)) {
                if (System.nanoTime() - sliceEndNs >= 0 || run.cancelled()) {
                    return true;
                }
            }
            StopTrace.mark("schedule-end-summed");
            return true;
        }
        return false;
    }

    /** The schedule of the report: its end answered from the sum (finished now when the steps did not). */
    ScheduleDeltas deltas() {
        reportDeltas = ScheduleDeltas.of(header, scheduleEnd == null ? null : scheduleEnd.finish());
        return reportDeltas;
    }

    /** @return deltas the report's statistics took one by one ({@link ScheduleDeltas#walked}); -1 before the report */
    long reportDeltasWalked() {
        ScheduleDeltas d = reportDeltas;
        return d == null ? -1 : d.walked();
    }

    /** The hosts the background thread looked up, after waiting (bounded) for it; else looked up now. */
    HostInfo hosts() {
        try {
            hostLookup.join(HOST_LOOKUP_JOIN_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        HostInfo h = hosts;
        return h != null ? h : hostInfo(run, header, localAddress);
    }

    /** fromhost: reverse lookup of the local address; tohost: testaddr as typed (docs/STATISTICS.md). */
    static HostInfo hostInfo(RunContext run, SessionHeader header, InetAddress local) {
        HostInfo numeric = HostInfo.numericFrom(header);
        String fromHost = AddressText.withoutZone(local.getCanonicalHostName());
        if (fromHost.equals(local.getHostAddress())) {
            fromHost = numeric.fromAddr();
        }
        return new HostInfo(fromHost, numeric.fromServ(), numeric.fromAddr(), run.options.testAddress().node(),
                numeric.toServ(), numeric.toAddr());
    }

    /** The schedule of {@link #step}'s discarded pass: its numbers do not matter, its code does. */
    private static final DeltaSource ZERO_DELTAS = new DeltaSource() {
        @Override
        public void reset() {
        }

        @Override
        public long nextDeltaNtp() {
            return 0;
        }

        @Override
        public long skipDeltasNtp(long count) {
            return 0;
        }
    };
}
