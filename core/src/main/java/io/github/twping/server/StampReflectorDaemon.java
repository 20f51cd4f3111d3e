package io.github.twping.server;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.twping.ffm.SocketException;
import io.github.twping.metrics.StampReflectorMetrics;
import io.github.twping.stamp.ClockSyncSource;
import io.github.twping.stamp.StampReflector;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.StampReflectorWarmUp;
import io.github.twping.stamp.StampWarmUpResult;
import io.github.twping.stamp.TaiOffset;
import io.github.twping.stamp.TimestampFormat;

/**
 * The life of {@code twampd --stamp}/{@code --light} (docs/STAMP.md), as {@link Twampd} is TWAMP's: binds the
 * reflector, warms it up, reflects until {@link #stop()}, prints its counters with {@code -v} and what the kernel
 * dropped. A port that cannot be bound, or a reflector that fails, is one line and exit status 1.
 */
public final class StampReflectorDaemon {
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile StampReflector reflector;
    private volatile StampWarmUpResult warmUp;
    private volatile StampReflectorMetrics metrics;
    /** Whether the stamp refusal has been said (the serving thread only). */
    private boolean stampRefusalSaid;

    /** Counts into {@code m} ({@code --metrics-listen}); set before {@link #serve}. */
    public void metrics(StampReflectorMetrics m) {
        this.metrics = m;
    }

    /** Stops a running {@link #serve} (any thread, idempotent). */
    public void stop() {
        stopped.countDown();
    }

    /**
     * Says once that the kernel refused a stamped reply (docs/STAMP.md, "Kernels before 4.7"); the reflector sends
     * unstamped replies from then on.
     */
    private void sayStampRefusal(StampReflector r, PrintStream err) {
        if (!stampRefusalSaid && r.stampedSendsRefusal() != null) {
            stampRefusalSaid = true;
            err.println(stampRefusalLine(r.stampedSendsRefusal().getMessage()));
            err.flush();
        }
    }

    /** The line of {@link #sayStampRefusal} for the refused send's error text ({@code call: reason}). */
    static String stampRefusalLine(String error) {
        return "twampd: the kernel refused a TX timestamp per reply (" + error + "; kernels before 4.7 do):"
                + " replies are sent without, Follow-Up Telemetry reports no timestamp";
    }

    /**
     * Binds on {@code bind} and reflects as {@code spec} says until {@link #stop()}; writes the port to
     * {@code readyFile} (when not null or empty) once it listens.
     *
     * @return the exit status
     */
    public int serve(InetSocketAddress bind, StampReflectorSpec spec, boolean verbose, String readyFile,
                     PrintStream err) {
        StampReflector r;
        try {
            r = new StampReflector(spec, StampReflector.openSocket(bind, 0), null);
        } catch (SocketException e) {
            // the exception's text is "call: reason"; the line names the call already
            String m = e.getMessage();
            String reason = m.startsWith(e.call() + ": ") ? m.substring(e.call().length() + 2) : m;
            err.println("twampd: bind([" + bind.getAddress().getHostAddress() + "]:" + bind.getPort() + "): "
                    + reason);
            return 1;
        }
        if (metrics != null) {
            metrics.reflector(r, spec.light() ? "light" : "stamp");
        }
        reflector = r;
        // compile the reflector's per-packet code before the first session (docs/STAMP.md, "Warm-up")
        warmUp = StampReflectorWarmUp.reflector(spec, bind.getAddress(), StampReflectorWarmUp.PACKETS, StampReflectorWarmUp.MAX_NS,
                () -> stopped.getCount() == 0);
        if (verbose) {
            StampWarmUpResult w = warmUp;
            err.println("twampd: warm-up: " + w.packets() + " packets, " + w.reflected() + " replies, "
                    + w.followUps() + " follow-ups in " + w.elapsedNs() / 1_000_000 + " ms"
                    + (w.completed() ? "" : " (ended early)"));
        }
        // the PTP evidence the reflector's Sync flag reports, refreshed beside it until it is closed
        r.taiOffset(spec.format() == TimestampFormat.PTP ? TaiOffset.kernel() : 0);
        ClockSyncSource.Refresher sync = ClockSyncSource.refresh(ClockSyncSource.system(),
                ClockSyncSource.REFRESH_PERIOD_NS, r::ptpEvidence);
        try (r; sync) {
            r.start();
            InetSocketAddress local = r.localAddress();
            err.println("twampd: " + (spec.light() ? "TWAMP-Light" : "STAMP") + " reflector on ["
                    + local.getAddress().getHostAddress() + "]:" + local.getPort()
                    + (spec.authenticated() ? " (authenticated)" : "") + (spec.stateful() ? " (stateful)" : "")
                    + (spec.format() == TimestampFormat.PTP && !spec.light()
                    ? " (PTP timestamps, TAI-UTC " + TaiOffset.describe(r.taiOffset()) + ")" : ""));
            if (verbose) {
                int granted = r.receiveBufferBytes();
                err.println("twampd: receive buffer " + (granted < 0 ? "unknown" : granted + " bytes") + " (asked "
                        + StampReflector.RECEIVE_BUFFER_BYTES + "; the kernel reports twice what it allows)");
            }
            if (spec.format() == TimestampFormat.PTP && !spec.light() && r.taiOffset() == 0) {
                err.println("twampd: " + TaiOffset.UNKNOWN_NOTE);
            }
            err.flush();
            if (readyFile != null && !readyFile.isEmpty()) {
                try {
                    Files.writeString(Path.of(readyFile), local.getPort() + "\n", StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    err.println("twampd: cannot write " + readyFile + ": " + e.getMessage());
                }
            }
            while (!stopped.await(200, TimeUnit.MILLISECONDS)) {
                if (r.failure() != null) {
                    err.println("twampd: reflector: " + r.failure().getMessage());
                    return 1;
                }
                sayStampRefusal(r, err);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sayStampRefusal(r, err);
        if (verbose) {
            err.println("twampd: reflected " + r.reflected() + ", short " + r.shortPackets() + " (zero-filled "
                    + r.zeroFilled() + "), bad HMAC "
                    + r.badHmac() + ", not allowed " + r.notAllowed() + ", rate limited " + r.rateLimited()
                    + ", unknown TLVs " + r.unknownTlvs() + ", malformed TLVs " + r.malformedTlvs()
                    + ", bad HMAC TLVs " + r.badTlvHmac() + ", follow-ups " + r.followUpsReported()
                    + ", class of service " + r.classOfServiceApplied() + " applied " + r.classOfServiceRefused()
                    + " refused, access reports " + r.accessReports() + ", kernel drops "
                    + (r.kernelDrops() < 0 ? "unknown" : Long.toString(r.kernelDrops())));
        }
        if (r.kernelDrops() > 0) {
            err.println("twampd: the kernel dropped " + r.kernelDrops()
                    + " datagrams at the reflector's socket (receive buffer full): lost in this host, not on the network");
        }
        err.println("twampd: reflector stopped");
        err.flush();
        return 0;
    }

    /** What the start-up warm-up did, or null before it ran. */
    public StampWarmUpResult warmUp() {
        return warmUp;
    }

    /** The running reflector's local address, or null before it is bound. */
    public InetSocketAddress localAddress() {
        StampReflector r = reflector;
        return r == null ? null : r.localAddress();
    }
}
