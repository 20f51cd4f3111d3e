package io.github.twping.cli;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.twping.ffm.ClockStatus;
import io.github.twping.time.StopTrace;

/**
 * The {@code twping} command: {@link Twping} plus process concerns (exit status, signals).
 *
 * <p>SIGINT, SIGTERM and SIGHUP stop a running test gracefully (partial results, exit 0) as in C; while the
 * control connection is being opened they make the blocked connect/read fail
 * ({@code Read failed: (Interrupted system call)}, exit 1); a second signal exits at once with status 2, or 0 once
 * the partial summary is out. The handlers are installed also when the signal was ignored at start (a
 * background job of a script), as C does.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        int status = run(args);
        System.out.flush();
        System.err.flush();
        StopTrace.mark("exit");
        StopTrace.print(System.err);
        // halt, not System.exit: this process has no shutdown hook left to run once run() has returned (the
        // pass-phrase prompt removes its echo-restoring hook before it returns; result files are closed), and
        // System.exit would first start the JDK's System.Logger machinery to log the exit (a service lookup
        // through the 18 MB jar and classes the AOT cache does not hold: 30-50 ms of `twping -h`,
        // docs/PERFORMANCE.md "Start-up").
        Runtime.getRuntime().halt(status);
    }

    /**
     * The command without the process exit: sets up the standard streams and the signal handlers, runs, and
     * returns the exit status ({@link AotTraining} exits through {@code System.exit}, so that the JVM writes
     * the AOT cache as it ends).
     */
    static int run(String[] args) {
        ClockStatus.linkInBackground(); // the first thing run() reads
        // One encoding for everything written: the reports encode UTF-8 themselves, so the other lines
        // (Approximately..., diagnostics) must not follow a locale that may be missing (ASCII: '?').
        System.setOut(new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 8192),
                true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        String argv0 = System.getProperty("twping.argv0", "twping");
        if (AgentMain.wanted(args)) {
            AgentMain.main(Messages.programName(argv0), args); // docs/FLEET.md, exits
            return 0;
        }
        Twping twping = Twping.create(Arrays.asList(args), argv0, System.out, System.err, System.in, System.getenv());
        AtomicInteger signals = new AtomicInteger();
        Runnable stop = () -> {
            StopTrace.mark("signal");
            if (signals.incrementAndGet() > 1) {
                // C prints and exits within a millisecond of the first signal, so its second one finds either
                // the test still stopping (exit 2) or the process gone with its results out (0): once ours has
                // printed the summary, a second signal ends it as C's would have ended
                Runtime.getRuntime().halt(twping.summaryPrinted() ? 0 : 2);
            }
            twping.cancel();
            StopTrace.mark("cancelled");
        };
        // C installs its handlers regardless of the inherited disposition: a script's background job (SIGINT
        // ignored at start) still stops on SIGINT.
        for (Signals.Name signal : Signals.Name.values()) {
            Signals.handle(signal, stop);
        }
        return twping.run();
    }
}
