package io.github.twping.report.extended;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordTail;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;

/**
 * The writer thread of a running test: every 100 ms it reads the records the receiver has written to the
 * data file since the last look ({@link RecordTail} up to the writer's visible count, with their
 * {@link RecordSources} entries), feeds the {@code --json-stream} events, and redraws the progress line on
 * stderr every 250 ms, fitted to the terminal's width ({@link ProgressText}). It never touches the sender or receiver threads: it only reads the file and two
 * volatile counters.
 */
final class LiveResults implements Runnable {
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long PROGRESS_NS = TimeUnit.MILLISECONDS.toNanos(250);
    /** Intervals are emitted by the wall clock this long after they end (the data file's visibility lag). */
    private static final long GRACE_NTP = NtpTime.fromSeconds(0.5);

    /** What the running session exposes to the thread. */
    record Source(FileChannel channel, SessionHeader header, LongSupplier visibleRecords, RecordSources sources,
                  LongSupplier sequencesHandled, LongSupplier nowNtp, double durationSeconds) {
    }

    private final Source source;
    private final StreamState stream;
    private final PrintStream progress;
    private final String program;
    private final RecordTail tail;
    private final IntSupplier columns;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile String failure;
    private long nextProgressNs;
    /** The progress line is on the terminal; guarded by the monitor of {@link #progress}. */
    private boolean progressShown;

    /**
     * @param progress where the progress line is drawn, or null for none
     * @param columns  the terminal's width, read before each redraw
     */
    LiveResults(Source source, StreamState stream, PrintStream progress, IntSupplier columns, String program) {
        this.source = source;
        this.stream = stream;
        this.progress = progress;
        this.columns = columns;
        this.program = program;
        this.tail = new RecordTail(source.channel(), source.header().dataOffset());
        this.thread = Thread.ofPlatform().name("twping-results").daemon(true).unstarted(this);
    }

    void start() {
        thread.start();
    }

    /** Stops after a last read of everything visible; waits for the thread. */
    void stop() {
        stopping = true;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return why reading the data file failed, or null */
    String failure() {
        return failure;
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                step(false);
                LockSupport.parkNanos(POLL_NS);
            }
            step(true);
        } catch (IOException e) {
            failure = "reading the data file: " + OutputTarget.reason(e);
        } finally {
            clearProgress();
        }
    }

    /**
     * Erases the progress line, if drawn, so that the next output starts on a clean row; the next redraw
     * (within 250 ms) draws it again below that output. Callers that print to the same terminal hold the
     * monitor of the progress stream around this call and their own print, so that no redraw comes between.
     */
    void clearProgress() {
        if (progress == null) {
            return;
        }
        synchronized (progress) {
            if (progressShown) {
                progress.print("\r\033[K");
                progress.flush();
                progressShown = false;
            }
        }
    }

    private void step(boolean last) throws IOException {
        RecordSources sources = source.sources();
        tail.poll(source.visibleRecords().getAsLong(), (i, r) -> stream.accept(i, r, sources.get(i)));
        if (!last) {
            stream.advanceTo(source.nowNtp().getAsLong() - GRACE_NTP);
        }
        if (progress != null && !last) {
            long now = System.nanoTime();
            if (now - nextProgressNs >= 0) {
                drawProgress();
                nextProgressNs = now + PROGRESS_NS;
            }
        }
    }

    private void drawProgress() {
        double elapsed = NtpTime.signedDurationToNanos(source.nowNtp().getAsLong() - source.header().startTimeNtp()) / 1e9;
        var total = stream.engine().total();
        String text = ProgressText.fit(columns.getAsInt(), program, elapsed, source.durationSeconds(),
                source.sequencesHandled().getAsLong(), total.received(), total.lost(), stream.currentP50(),
                stream.currentP99());
        synchronized (progress) {
            if (stopping) {
                return;
            }
            progress.print("\r" + text + "\033[K");
            progress.flush();
            progressShown = true;
        }
    }
}
