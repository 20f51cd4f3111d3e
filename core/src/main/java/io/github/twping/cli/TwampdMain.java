package io.github.twping.cli;

import io.github.twping.metrics.MetricsEndpoint;
import io.github.twping.metrics.TwampdMetrics;
import io.github.twping.server.ConfigException;
import io.github.twping.server.LimitsConfig;
import io.github.twping.server.ServerConfig;
import io.github.twping.server.ServerConfigBuilder;
import io.github.twping.server.ServerConfigParser;
import io.github.twping.server.Twampd;
import io.github.twping.session.ReflectorFaultInjection;
import io.github.twping.time.DebugTimeOffset;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import io.github.twping.metrics.StampReflectorMetrics;
import io.github.twping.stamp.StampWarmUpResult;

/**
 * The {@code twampd} command: command line ({@link TwampdArgs}) and configuration files to a running
 * {@link Twampd}, until SIGTERM/SIGINT/SIGHUP (through the JVM shutdown hook installed by {@link #main}) or
 * {@link #stop()}.
 *
 * <p>The JVM cannot fork, so "daemon mode" (no {@code -Z}) is the {@code ./twampd} launcher starting the JVM
 * detached; twampd writes {@code twamp-server.pid} in vardir in both modes, and the file named by the
 * environment variable {@code TWAMPD_READY_FILE} once it listens. Logs go to stderr.
 */
public final class TwampdMain {
    /** Environment variable naming the file written once the server listens (used by the launcher). */
    public static final String READY_FILE_ENV = "TWAMPD_READY_FILE";
    /** Environment variable with a fault-injection spec for the test stand ({@code drop=N,dup=N,...}). */
    public static final String FAULTS_ENV = "TWAMPD_FAULT_INJECTION";

    private final Twampd daemon = new Twampd();
    private final StampReflectorMain stampReflector = new StampReflectorMain();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile MetricsEndpoint metricsEndpoint;

    /**
     * Entry point: runs, and exits with the status of {@link #run}. SIGTERM, SIGINT and SIGHUP shut the
     * server down cleanly and the process exits 0, as C twampd does (docs/SERVER.md); their handlers are
     * installed even when the signal was ignored at start (a background job of a script), as C does.
     */
    public static void main(String[] args) {
        TwampdMain twampd = new TwampdMain();
        Thread hook = new Thread(() -> {
            twampd.stop();
            twampd.awaitFinished(TimeUnit.SECONDS.toNanos(10)); // let execute() log, close and remove the pid file
        }, "twampd-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        for (Signals.Name signal : Signals.Name.values()) {
            // not installed (-Xrs): the signal's default action runs the shutdown hook
            Signals.handle(signal, twampd::stop);
        }
        int status = twampd.execute(args, System.out, System.err);
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }

    /** Runs twampd until it is stopped; returns the exit status (0 ok, 1 usage/configuration/start-up error). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return new TwampdMain().execute(args, out, err);
    }

    /** Asks a running {@link #execute} to shut down (idempotent, any thread). */
    public void stop() {
        daemon.stop();
        stampReflector.stop();
    }

    /** Waits until {@link #execute} has returned; true if it did within {@code timeoutNs}. */
    public boolean awaitFinished(long timeoutNs) {
        try {
            return finished.await(timeoutNs, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits until the server listens; true if it does within {@code timeoutNs}. */
    public boolean awaitReady(long timeoutNs) throws InterruptedException {
        return daemon.awaitReady(timeoutNs);
    }

    /** The running server's control port (after {@link #awaitReady}). */
    public int port() {
        return daemon.port();
    }

    /** Runs twampd on this instance until {@link #stop()}; returns the exit status. */
    public int execute(String[] args, PrintStream out, PrintStream err) {
        try {
            return serve(args, out, err);
        } finally {
            finished.countDown();
        }
    }

    private int serve(String[] argv, PrintStream out, PrintStream err) {
        MetricsEndpoint.ListenOption metricsListen;
        InetSocketAddress metricsAddress = null;
        try {
            metricsListen = MetricsEndpoint.extract(argv);
            if (metricsListen.listen() != null) {
                metricsAddress = MetricsEndpoint.parseListen(metricsListen.listen());
            }
        } catch (IllegalArgumentException e) {
            err.println("twampd: " + e.getMessage());
            return 1;
        }
        String[] args = metricsListen.rest();
        if (StampReflectorMain.wanted(args)) {
            return serveStamp(args, out, err, metricsAddress, metricsListen.listen());
        }
        TwampdArgs parsed;
        try {
            parsed = TwampdArgs.parse(args);
        } catch (ConfigException e) {
            err.println(e.getMessage());
            err.print(TwampdArgs.USAGE);
            err.flush();
            return 1;
        }
        if (parsed.help()) {
            out.print(TwampdArgs.USAGE);
            out.flush();
            return 0;
        }
        String debugOffset = System.getenv(DebugTimeOffset.ENVIRONMENT_VARIABLE);
        if (DebugTimeOffset.parse(debugOffset) == null) {
            err.println(DebugTimeOffset.invalidMessage(debugOffset));
            for (String line : DebugTimeOffset.INIT_FAILURE_LINES) {
                err.println(line);
            }
            return 1;
        }
        Twampd.Setup setup;
        try {
            setup = load(parsed);
        } catch (ConfigException e) {
            err.println(e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            err.println("twampd: " + e.getMessage());
            return 1;
        }
        if (metricsAddress == null) {
            return daemon.serve(setup, err);
        }
        TwampdMetrics metrics = new TwampdMetrics(new PrometheusRegistry());
        daemon.metrics(metrics);
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(metricsAddress, metrics.registry())) {
            metricsEndpoint = endpoint;
            return daemon.serve(setup, err);
        } catch (IOException | RuntimeException e) {
            err.println("twampd: --metrics-listen " + metricsListen.listen() + ": "
                    + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return 1;
        } finally {
            metricsEndpoint = null;
        }
    }

    /** {@code --stamp}/{@code --light}, with its metrics endpoint when {@code --metrics-listen} was given. */
    private int serveStamp(String[] args, PrintStream out, PrintStream err, InetSocketAddress metricsAddress,
                           String listen) {
        if (metricsAddress == null) {
            return stampReflector.execute(args, out, err, System.getenv(READY_FILE_ENV));
        }
        StampReflectorMetrics metrics =
                new StampReflectorMetrics(new PrometheusRegistry());
        stampReflector.metrics(metrics);
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(metricsAddress, metrics.registry())) {
            metricsEndpoint = endpoint;
            return stampReflector.execute(args, out, err, System.getenv(READY_FILE_ENV));
        } catch (IOException | RuntimeException e) {
            err.println("twampd: --metrics-listen " + listen + ": "
                    + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return 1;
        } finally {
            metricsEndpoint = null;
        }
    }

    /** The {@code --stamp}/{@code --light} reflector's local address once bound, else null. */
    public InetSocketAddress stampAddress() {
        return stampReflector.localAddress();
    }

    /** What the STAMP reflector's warm-up did, once it has ended (before that, and without {@code --stamp}, null). */
    StampWarmUpResult stampWarmUp() {
        return stampReflector.warmUp();
    }

    /** The metrics endpoint's port while serving with {@code --metrics-listen} (docs/FLEET.md), else -1. */
    public int metricsPort() {
        MetricsEndpoint e = metricsEndpoint;
        return e == null ? -1 : e.port();
    }

    /** The configuration file under confdir, the command line's overrides on top, the limits file, the faults. */
    private static Twampd.Setup load(TwampdArgs parsed) throws ConfigException {
        ServerConfigBuilder b = ServerConfig.builder();
        if (parsed.confDir() != null) {
            b.confDir(parsed.confDir());
        }
        Path confDir = parsed.confDir() == null ? Path.of("") : parsed.confDir();
        Path confFile = confDir.resolve(ServerConfig.CONF_FILE);
        // C twampd refuses to start without its configuration file (a mistyped -c must not start a server with
        // defaults on every interface), saying why
        ServerConfigParser.loadRequired(confFile, b);
        parsed.applyTo(b);
        ServerConfig config = b.build();
        LimitsConfig limits = LimitsConfig.load(config.confFile(ServerConfig.LIMITS_FILE));
        ReflectorFaultInjection faults = ReflectorFaultInjection.parse(System.getenv(FAULTS_ENV));
        return new Twampd.Setup(config, limits, faults, FAULTS_ENV, System.getenv(READY_FILE_ENV));
    }
}
