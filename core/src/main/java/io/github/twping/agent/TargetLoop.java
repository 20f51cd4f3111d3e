package io.github.twping.agent;

import io.github.twping.metrics.AgentMetrics;
import io.github.twping.metrics.FailureReason;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.SharedSender;
import io.github.twping.session.SessionOutcome;
import io.github.twping.stats.exact.ExactStatistics;
import io.github.twping.time.WallClock;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.Set;

/**
 * One target's measurement loop, whatever its protocol: attempts one after another on a virtual thread, a
 * failure counted, logged and retried with a jittered exponential backoff (reset once an attempt had measured),
 * a configuration change applied at the next attempt, and the lifecycle the {@link Agent} drives (retire after
 * the running session, stop now, wait). The protocol's attempt is {@link #attempt}: {@link TwampTargetRunner} for
 * TWAMP (one control connection, back-to-back sessions), {@link StampTargetRunner} for STAMP and
 * TWAMP-Light.
 */
abstract class TargetLoop implements Runner {
    /** A failed attempt. {@code measured}: at least one session succeeded in it (the backoff starts again). */
    record Failure(FailureReason reason, String message, boolean measured) {
    }

    final AgentMetrics metrics;
    final AgentJsonStream stream;
    final Consumer<String> log;
    final WallClock clock;
    /** The agent's one sender thread, which sends every session's packets. */
    private final SharedSender sender;
    private final double backoffInitial;
    private final double backoffMax;
    private final double intervalSeconds;
    private final CountDownLatch finished = new CountDownLatch(1);
    final Object sleeper = new Object();

    volatile TargetConfig config;
    volatile TargetConfig pending;
    volatile boolean retiring;
    volatile boolean stopping;
    /** The session running now, or null (cancelled by {@link #stopNow}). */
    volatile ClientTestSession running;
    /**
     * The statistics engine of the last session's interval events, started again for the next one (the runner's
     * thread only; a session's intervals are finished or dropped before the next session's are made).
     */
    private ExactStatistics intervalEngine;
    /** The client's extra stamps of the last session, reused by the next one (the runner's thread only). */
    private RecordStamps stampTable;
    /** The last session's data-file writer, whose direct buffers the next one reuses (the runner's thread only). */
    private SessionDataWriter lastWriter;
    volatile long sessionsDone;
    volatile long failuresSeen;

    TargetLoop(TargetConfig config, AgentConfig global, AgentMetrics metrics, AgentJsonStream stream,
               Consumer<String> log, WallClock clock, SharedSender sender) {
        this.config = config;
        this.sender = sender;
        this.metrics = metrics;
        this.stream = stream;
        this.log = log;
        this.clock = clock;
        this.backoffInitial = global.backoffInitialSeconds();
        this.backoffMax = global.backoffMaxSeconds();
        this.intervalSeconds = global.intervalSeconds();
    }

    /**
     * The {@code --json-stream} interval events of a session just started, or null without a stream or with
     * {@code json_stream_interval: 0}.
     */
    final SessionIntervals intervals(TargetConfig cfg, FileChannel data,
                                     SessionDataWriter writer,
                                     SessionHeader header, ClientTestSession s) {
        if (stream == null || intervalSeconds <= 0) {
            return null;
        }
        SessionIntervals intervals = new SessionIntervals(cfg, data, writer.dataOffset(), header,
                writer::visibleRecords, s.recordSources(), intervalSeconds, stream, clock, intervalEngine);
        intervalEngine = intervals.engine();
        return intervals;
    }

    /**
     * Prepares {@code s} before it starts: the last session's client-stamp table (one per target instead of one per
     * session), no send-lateness histogram, which the agent never reads (each session's 28 KB outlived the young
     * collections of its 10 s and was promoted, garbage in the old generation at its end), and the agent's one
     * sender thread instead of one per session.
     */
    final void prepare(ClientTestSession s) {
        s.keepStamps(stampTable);
        s.withoutLateness();
        s.sharedSender(sender);
        stampTable = null;
    }

    /**
     * The data-file writer of a session about to start, on the target's file: with the direct buffers of the last
     * session's writer when that one was handed back by {@link #keepTables}.
     */
    final SessionDataWriter writer(FileChannel data, SessionHeader header) throws IOException {
        SessionDataWriter previous = lastWriter;
        lastWriter = null;
        return SessionDataWriter.onChannel(data, header, SessionDataWriter.DEFAULT_BATCH_RECORDS, previous);
    }

    /**
     * Keeps {@code s}'s stamp table and its data-file writer's buffers for the next session once its sender and
     * receiver threads have ended (the receiver is the writer's only user); after a session whose threads outlived
     * the join the next one gets new ones.
     */
    final void keepTables(ClientTestSession s, SessionDataWriter writer) {
        if (s.threadsEnded()) {
            stampTable = s.recordStamps();
            lastWriter = writer;
        }
    }

    /** @return the stamp table the next session will reuse, or null */
    final RecordStamps stampTable() {
        return stampTable;
    }

    /**
     * One attempt at the target with {@code cfg}: measures sessions until the configuration changes, the runner
     * retires or something fails.
     *
     * @return null when it ended on purpose (reload, retire), else the failure
     */
    abstract Failure attempt(TargetConfig cfg);

    /** How the log names the target: {@code name (address)} and whatever identifies the protocol. */
    abstract String describe(TargetConfig cfg);

    /** Starts the loop on a virtual thread. */
    @Override
    public void start() {
        metrics.addTarget(config.name(), config.protocol().configName());
        Thread.ofVirtual().name("agent-" + config.name()).start(this::loop);
    }

    /** @return the current configuration (a pending one first). */
    @Override
    public TargetConfig config() {
        TargetConfig p = pending;
        return p != null ? p : config;
    }

    /** Applies a changed configuration of the same target at the next session boundary. */
    @Override
    public void update(TargetConfig next) {
        pending = next;
        wake();
    }

    /** Ends the runner after the running session (a reload removed the target). */
    @Override
    public void retire() {
        retiring = true;
        wake();
    }

    /** Stops now: the running session is cancelled and its partial results recorded. */
    @Override
    public void stopNow() {
        stopping = true;
        retiring = true;
        ClientTestSession s = running;
        if (s != null) {
            s.cancel();
        }
        wake();
    }

    /** Waits for the runner to end; true if it did. */
    @Override
    public boolean await(long timeoutNs) throws InterruptedException {
        return finished.await(timeoutNs, TimeUnit.NANOSECONDS);
    }

    /** @return sessions completed so far. */
    @Override
    public long sessionsDone() {
        return sessionsDone;
    }

    /** @return failed attempts so far. */
    @Override
    public long failures() {
        return failuresSeen;
    }

    /**
     * The failure a finished session stands for, or null: an outcome in {@code failing} (named by the session's
     * first diagnostic line), or no packet sent at all (the sender more than L late from the start).
     */
    final Failure sessionFailure(TargetConfig cfg, ClientTestSession s, Set<SessionOutcome> failing,
                                 List<String> diagnostics) {
        SessionOutcome outcome = s.outcome();
        if (failing.contains(outcome)) {
            String why;
            synchronized (diagnostics) {
                why = diagnostics.isEmpty() ? outcome.name() : diagnostics.get(0);
            }
            return new Failure(FailureReason.TEST, "test session failed: " + why, false);
        }
        if (s.sentCount() == 0 && !stopping) {
            metrics.recordSkipped(cfg.name(), s.skippedCount());
            return new Failure(FailureReason.TEST, "no packet sent: the sender started more than the loss timeout late ("
                    + s.skippedCount() + " skipped)", false);
        }
        return null;
    }

    final void wake() {
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
    }

    private void loop() {
        try {
            double backoff = backoffInitial;
            while (!retiring) {
                applyPending();
                TargetConfig cfg = config;
                Failure failure = attempt(cfg);
                if (failure == null) {
                    backoff = backoffInitial;
                    continue; // ended by a reload, or retiring
                }
                failuresSeen++;
                metrics.recordFailure(cfg.name(), failure.reason());
                log.accept("target " + describe(cfg) + ": " + failure.message() + "; retrying in "
                        + String.format(Locale.ROOT, "%.1f", backoff) + " s");
                if (failure.measured()) {
                    backoff = backoffInitial; // the target worked for a while: start the backoff again
                }
                sleep(backoff * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
                backoff = Math.min(backoffMax, backoff * 2);
            }
        } catch (RuntimeException e) {
            log.accept("target " + config.name() + ": internal error: " + e);
        } finally {
            finished.countDown();
        }
    }

    final void applyPending() {
        TargetConfig p = pending;
        if (p != null) {
            config = p;
            pending = null;
        }
    }

    /** Sleeps up to {@code seconds}; returns early when retiring or when a reload changed the connection. */
    final void sleep(double seconds) {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        synchronized (sleeper) {
            while (!retiring) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || (pending != null && !pending.sameConnection(config))) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(sleeper, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
