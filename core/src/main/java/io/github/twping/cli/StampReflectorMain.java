package io.github.twping.cli;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import io.github.twping.client.HostPort;
import io.github.twping.metrics.StampReflectorMetrics;
import io.github.twping.server.StampReflectorDaemon;
import io.github.twping.stamp.StampWarmUpResult;

/**
 * {@code twampd --stamp ADDR[:PORT]} and {@code twampd --light ADDR[:PORT]}: {@link StampReflectorArgs} to a
 * running {@link StampReflectorDaemon}, in the foreground, until {@link #stop()} (SIGTERM, SIGINT, SIGHUP through
 * {@link TwampdMain}). Options and messages in docs/CLI.md, protocol in docs/STAMP.md. Bad options print one line
 * and the usage text (exit 1); a port that cannot be bound prints one line (exit 1).
 */
final class StampReflectorMain {
    static final String USAGE = StampReflectorArgs.USAGE;

    private final StampReflectorDaemon daemon = new StampReflectorDaemon();

    /** Counts into {@code m} ({@code --metrics-listen}); set before {@link #execute}. */
    void metrics(StampReflectorMetrics m) {
        daemon.metrics(m);
    }

    /** @return true when argv asks for a STAMP or TWAMP-Light reflector ({@link StampReflectorArgs#wanted}). */
    static boolean wanted(String[] argv) {
        return StampReflectorArgs.wanted(argv);
    }

    /** Stops a running {@link #execute} (any thread, idempotent). */
    void stop() {
        daemon.stop();
    }

    /** Parses, binds and reflects until {@link #stop()}; @return the exit status. */
    int execute(String[] argv, PrintStream out, PrintStream err, String readyFile) {
        StampReflectorArgs p;
        try {
            p = StampReflectorArgs.parse(argv);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && !e.getMessage().isEmpty()) {
                err.println("twampd: " + e.getMessage());
            }
            err.print(USAGE);
            err.flush();
            return 1;
        }
        if (p == null) {
            out.print(USAGE);
            out.flush();
            return 0;
        }
        String portError = HostPort.portError(p.target().typed(), 0);
        if (portError != null) {
            err.println("twampd: " + (p.spec().light() ? "--light" : "--stamp") + ": Invalid address \""
                    + p.target().typed() + "\": " + portError);
            return 1;
        }
        if (p.keyWarning() != null) {
            err.println("twampd: " + p.keyWarning());
        }
        InetSocketAddress bind;
        try {
            bind = p.bindAddress();
        } catch (UnknownHostException | NumberFormatException e) {
            err.println("twampd: getaddrinfo(): " + p.target().typed() + ": Name or service not known");
            return 1;
        }
        return daemon.serve(bind, p.spec(), p.verbose(), readyFile, err);
    }

    /** What the start-up warm-up did, or null before it ran (tests). */
    StampWarmUpResult warmUp() {
        return daemon.warmUp();
    }

    /** The running reflector's local address, or null before it is bound (tests). */
    InetSocketAddress localAddress() {
        return daemon.localAddress();
    }
}
