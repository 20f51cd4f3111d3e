package io.github.twping.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;

import io.github.twping.client.HostPort;
import io.github.twping.client.StampRun;
import io.github.twping.client.TwpingOptions;
import io.github.twping.client.TwampRun;
import io.github.twping.ffm.ClockStatus;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.TimestampingProbe;
import io.github.twping.report.extended.ResultOutputs;
import io.github.twping.server.EmbeddedServer;
import io.github.twping.time.DebugTimeOffset;
import io.github.twping.time.WallClock;
import io.github.twping.client.ResultRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The library entry point: runs twping with the command line's arguments and writers, exactly as the
 * CLI does, and returns its exit status. Never calls {@code System.exit} and installs no signal handler.
 *
 * <pre>{@code
 * Twping twping = Twping.create(List.of("-c", "100", "-M", "192.0.2.7"), System.out, System.err);
 * int status = twping.run();              // twping.cancel() from another thread prints partial results
 * }</pre>
 */
public final class Twping {
    private final String[] args;
    private final String argv0;
    private final PrintStream out;
    private final PrintStream err;
    private final InputStream stdin;
    private final Map<String, String> environment;
    private volatile TwampRun current;
    private volatile StampRun currentStamp;
    private volatile boolean cancelled;

    private Twping(String[] args, String argv0, PrintStream out, PrintStream err, InputStream stdin,
                   Map<String, String> environment) {
        this.args = args;
        this.argv0 = argv0;
        this.out = out;
        this.err = err;
        this.stdin = stdin;
        this.environment = environment;
    }

    /** Prepares a run with the process environment and standard input. */
    public static Twping create(List<String> args, PrintStream out, PrintStream err) {
        return create(args, "twping", out, err, System.in, System.getenv());
    }

    /**
     * Prepares a run.
     *
     * @param args        the arguments (without the program name)
     * @param argv0       the program name as typed (getopt messages print it)
     * @param out         results
     * @param err         diagnostics
     * @param stdin       where a pass-phrase is read when there is no terminal
     * @param environment {@code OWAMP_DEBUG_TIMEOFFSET}, {@code POSIXLY_CORRECT}, {@code TMPDIR} are read from it
     */
    public static Twping create(List<String> args, String argv0, PrintStream out, PrintStream err, InputStream stdin,
                                Map<String, String> environment) {
        return new Twping(args.toArray(String[]::new), argv0, out, err, stdin, environment);
    }

    /** Runs with the given arguments and writers; the convenience form of {@link #create} + {@link #run()}. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        return create(args, out, err).run();
    }

    /** Stops a running measurement from another thread: partial results are printed (exit 0), or exit 2 before the test. */
    public void cancel() {
        cancelled = true;
        TwampRun r = current;
        if (r != null) {
            r.cancel();
        }
        StampRun stamp = currentStamp;
        if (stamp != null) {
            stamp.cancel();
        }
    }

    /** @return true once a TWAMP, STAMP or TWAMP-Light run has written its summary (partial or not) to stdout; any thread. */
    public boolean summaryPrinted() {
        TwampRun r = current;
        StampRun stamp = currentStamp;
        return r != null && r.summaryPrinted() || stamp != null && stamp.summaryPrinted();
    }

    /** Runs and returns the exit status (0 success, 1 failure, 2 interrupted, 3 a CI gate failed). */
    public int run() {
        String program = Messages.programName(argv0);
        ClockStatus clockStatus = ClockStatus.read();
        printClockWarnings(program, clockStatus);
        DebugTimeOffset offset = DebugTimeOffset.NONE;
        String offsetText = environment.get(DebugTimeOffset.ENVIRONMENT_VARIABLE);
        if (offsetText != null) {
            offset = DebugTimeOffset.parse(offsetText);
            if (offset == null) {
                err.println(program + ": " + DebugTimeOffset.invalidMessage(offsetText));
                for (String line : DebugTimeOffset.INIT_FAILURE_LINES) {
                    err.println(program + ": " + line);
                }
                return TwampRun.EXIT_FAILURE;
            }
            if (!offset.isZero()) {
                err.println(program + ": " + offset.startupLine());
            }
        }
        TwpingArgs parser = new TwpingArgs(TwpingArgs.defaultVersion(), PassphrasePrompt.system(stdin, err), out, err,
                environment.get("POSIXLY_CORRECT") != null)
                .defaultLanguage(TwpingArgs.languageOfLocale(environment));
        TwpingArgs.Result result = parser.parse(argv0, args);
        if (result instanceof TwpingArgs.Exit exit) {
            return exit.status();
        }
        TwpingOptions options = ((TwpingArgs.Parsed) result).options();
        if (options.extras().probeTimestamping()) {
            return probe(program, options);
        }
        if (cancelled) {
            return TwampRun.EXIT_INTERRUPTED;
        }
        if (options.extras().results().reportFile() != null) {
            return ResultRun.report(options, program, out, err);
        }
        if (options.extras().loopback()) {
            return runAgainstEmbeddedServer(program, options, offset);
        }
        if (options.stamp().enabled()) {
            return measureStamp(program, options, offset);
        }
        return measure(program, options, offset);
    }

    /** {@code --stamp} / {@code --light}: a test without control connection (docs/STAMP.md). */
    private int measureStamp(String program, TwpingOptions options, DebugTimeOffset offset) {
        GateCheck gates = GateCheck.of(options);
        StampRun run = new StampRun(options, out, err, program, WallClock.system(offset), gates,
                TwampRun.tempDirectory(environment));
        currentStamp = run;
        if (cancelled) {
            run.cancel();
        }
        int status = run.execute();
        if (status == TwampRun.EXIT_OK && gates != null) {
            status = gates.verdict(err, program);
        }
        return status;
    }

    private int measure(String program, TwpingOptions options, DebugTimeOffset offset) {
        GateCheck gates = GateCheck.of(options);
        TwampRun run = new TwampRun(options, out, err, program, WallClock.system(offset), gates,
                TwampRun.tempDirectory(environment));
        current = run;
        if (cancelled) {
            run.cancel();
        }
        int status = run.execute();
        if ((status == TwampRun.EXIT_OK || status == ResultOutputs.EXIT_OUTPUT_FAILED) && gates != null) {
            int verdict = gates.verdict(err, program);
            status = verdict != TwampRun.EXIT_OK ? verdict : status;
        }
        return status;
    }

    /**
     * {@code --loopback}: our own server in this process on an ephemeral loopback port (TWAMP-Control over
     * TCP, TWAMP-Test over UDP, real sockets), offering every mode and knowing the identity given with
     * {@code -u}/{@code -k}.
     */
    private int runAgainstEmbeddedServer(String program, TwpingOptions options, DebugTimeOffset offset) {
        EmbeddedServer.Options serverOptions = EmbeddedServer.options().authModes("OAEM");
        TwpingOptions.Connection conn = options.connection();
        byte[] passphrase = conn.passphrase();
        if (conn.identity() != null && passphrase != null) {
            serverOptions.passphrase(new String(conn.keyIdBytes(), StandardCharsets.UTF_8),
                    passphrase);
            Arrays.fill(passphrase, (byte) 0);
        }
        boolean v6 = conn.family() == TwpingOptions.AddressFamily.IPV6_ONLY;
        serverOptions.listen(v6 ? "::1" : "127.0.0.1", 0);
        try (EmbeddedServer server = EmbeddedServer.start(serverOptions)) {
            HostPort address = HostPort.parse((v6 ? "[::1]:" : "127.0.0.1:") + server.port());
            return measure(program, options.withAddresses(address, address), offset);
        } catch (IOException e) {
            err.println(program + ": loopback server: " + e.getMessage());
            return TwampRun.EXIT_FAILURE;
        }
    }

    private void printClockWarnings(String program, ClockStatus status) {
        if (!status.available()) {
            err.println(program + ": NTP syscalls unavail: Status UNSYNC (clock offset issues likely)");
            return;
        }
        if (!status.synchronised()) {
            err.println(program + ": NTP: Status UNSYNC (clock offset issues likely)");
        }
        if (!status.nano()) {
            err.println(program + ": NTP: STA_NANO should be set. Make sure ntpd is running, and your NTP configuration is good.");
        }
    }

    private int probe(String program, TwpingOptions options) {
        try {
            InetAddress target = options.testAddress() == null ? null
                    : HostPort.resolve(options.testAddress().node())[0];
            TimestampingProbe.run(target, out);
            return TwampRun.EXIT_OK;
        } catch (UnknownHostException e) {
            err.println(program + ": getaddrinfo(): Name or service not known");
            return TwampRun.EXIT_FAILURE;
        } catch (SocketException e) {
            err.println(program + ": " + e.getMessage());
            return TwampRun.EXIT_FAILURE;
        }
    }
}
