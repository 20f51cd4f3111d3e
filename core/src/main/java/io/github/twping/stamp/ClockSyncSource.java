package io.github.twping.stamp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The synchronization source of this host's clock as the Timestamp Information TLV reports it (RFC 8972 §4.3:
 * NTP, PTP or local free-running), by one rule (docs/STAMP.md, "Synchronization source"):
 *
 * <ul>
 *   <li>the kernel says the clock is not synchronized (S = 0 in the Error Estimate, from {@code ntp_adjtime}):
 *       free-running;</li>
 *   <li>synchronized, and PTP evidence was found: PTP;</li>
 *   <li>synchronized otherwise: NTP.</li>
 * </ul>
 *
 * PTP evidence: a PTP hardware clock ({@code /dev/ptpN}) and a running {@code phc2sys} (which steers the system
 * clock from it), or a running {@code ptp4l} started with {@code -S} (software timestamping: it steers the system
 * clock itself). The evidence is looked up off the packet path: once ({@link #detect}), or every
 * {@link #REFRESH_PERIOD_NS} on a thread of its own for a long-running reflector ({@link #refresh}); a daemon
 * started or stopped is seen at the next lookup.
 */
public final class ClockSyncSource {
    /** What the rule looks at; the system's is {@link #system()}, tests give their own. */
    public interface Evidence {
        /** @return true when at least one PTP hardware clock device exists */
        boolean ptpHardwareClock();

        /** @return true when a process of that command name runs; with {@code argument}, also given that argument */
        boolean processRunning(String command, String argument);
    }

    /** How often a running reflector looks the evidence up again: 10 s. */
    public static final long REFRESH_PERIOD_NS = TimeUnit.SECONDS.toNanos(10);

    /** Receives each lookup's answer ({@link #ptpEvidence}) on the refresher's thread. */
    @FunctionalInterface
    public interface EvidenceSink {
        void accept(boolean ptpEvidence);
    }

    private ClockSyncSource() {
    }

    /**
     * Looks {@code evidence} up now on the calling thread, hands the answer to {@code sink}, then again every
     * {@code periodNs} on a daemon thread ({@code stamp-clock-sync}) until {@link Refresher#close}. A lookup that
     * fails counts as no evidence ({@link #under} never throws); a sink that throws ends the refreshing.
     */
    public static Refresher refresh(Evidence evidence, long periodNs, EvidenceSink sink) {
        if (periodNs <= 0) {
            throw new IllegalArgumentException("refresh period must be > 0: " + periodNs);
        }
        Refresher r = new Refresher(evidence, periodNs, sink);
        r.lookUp();
        r.thread.start();
        return r;
    }

    /** The periodic lookup of {@link #refresh}; {@link #close} ends its thread (idempotent, any thread). */
    public static final class Refresher implements AutoCloseable {
        private final Evidence evidence;
        private final long periodNs;
        private final EvidenceSink sink;
        private final CountDownLatch closed = new CountDownLatch(1);
        private final Thread thread;
        private volatile long lookups;

        private Refresher(Evidence evidence, long periodNs, EvidenceSink sink) {
            this.evidence = evidence;
            this.periodNs = periodNs;
            this.sink = sink;
            this.thread = Thread.ofPlatform().daemon(true).name("stamp-clock-sync").unstarted(this::run);
        }

        private void lookUp() {
            sink.accept(ptpEvidence(evidence));
            lookups++;                                 // one writer at a time: the caller, then the thread
        }

        private void run() {
            try {
                while (!closed.await(periodNs, TimeUnit.NANOSECONDS)) {
                    lookUp();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                // the sink refused: keep the last answer
            }
        }

        /** Lookups made so far (the first one in {@link #refresh} included). */
        public long lookups() {
            return lookups;
        }

        /** Whether the refresher's thread is still running. */
        public boolean running() {
            return thread.isAlive();
        }

        @Override
        public void close() {
            closed.countDown();
            try {
                thread.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return true when {@code evidence} shows PTP steering the system clock (see the class comment) */
    public static boolean ptpEvidence(Evidence evidence) {
        return (evidence.ptpHardwareClock() && evidence.processRunning("phc2sys", null))
                || evidence.processRunning("ptp4l", "-S");
    }

    /** @return the system's PTP evidence, looked up now (reads {@code /dev} and {@code /proc}) */
    public static boolean detect() {
        return ptpEvidence(system());
    }

    /**
     * @param ptpEvidence   {@link #ptpEvidence}
     * @param errorEstimate the clock's Error Estimate (S = bit 15: synchronized)
     * @return {@link StampTlv#SYNC_PTP}, {@link StampTlv#SYNC_NTP} or {@link StampTlv#SYNC_FREE_RUNNING}
     */
    public static int syncSource(boolean ptpEvidence, int errorEstimate) {
        if ((errorEstimate & 0x8000) == 0) {
            return StampTlv.SYNC_FREE_RUNNING;
        }
        return ptpEvidence ? StampTlv.SYNC_PTP : StampTlv.SYNC_NTP;
    }

    /** The running system: {@code /dev/ptp[0-9]+} and {@code /proc/PID/comm} and {@code /proc/PID/cmdline}. */
    public static Evidence system() {
        return under(Path.of("/dev"), Path.of("/proc"));
    }

    /** Evidence read from a {@code dev} and a {@code proc} directory of that layout (tests give temporary ones). */
    public static Evidence under(Path dev, Path proc) {
        return new Evidence() {
            @Override
            public boolean ptpHardwareClock() {
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(dev, "ptp*")) {
                    for (Path p : entries) {
                        if (p.getFileName().toString().matches("ptp[0-9]+")) {
                            return true;
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    return false;
                }
                return false;
            }

            @Override
            public boolean processRunning(String command, String argument) {
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc, "[0-9]*")) {
                    int scanned = 0;
                    for (Path p : entries) {
                        if (++scanned > 100_000) {
                            return false;                        // bounded, whatever /proc holds
                        }
                        if (command.equals(read(p.resolve("comm"), 64).strip())
                                && (argument == null || hasArgument(read(p.resolve("cmdline"), 4096), argument))) {
                            return true;
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    return false;
                }
                return false;
            }
        };
    }

    private static boolean hasArgument(String cmdline, String argument) {
        for (String a : cmdline.split("\0")) {
            if (a.equals(argument)) {
                return true;
            }
        }
        return false;
    }

    /** The first {@code limit} bytes of a small file, "" when unreadable (a process that just ended). */
    private static String read(Path file, int limit) {
        try (var in = Files.newInputStream(file)) {
            return new String(in.readNBytes(limit), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
