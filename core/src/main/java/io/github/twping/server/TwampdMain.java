package io.github.twping.server;

import io.github.twping.config.PassphraseStore;
import io.github.twping.session.ReflectorFaultInjection;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The twampd program: command line and configuration files to a running {@link TwampServer}, until
 * SIGTERM/SIGINT/SIGHUP (through the JVM shutdown hook installed by {@link #main}) or {@link #stop()}.
 *
 * <p>The JVM cannot fork, so "daemon mode" (no {@code -Z}) is the {@code ./twampd} launcher starting the JVM
 * detached; this class writes {@code twamp-server.pid} in vardir in both modes, and the file named by the
 * environment variable {@code TWAMPD_READY_FILE} once it listens. Logs go to stderr.
 */
public final class TwampdMain {
    /** Environment variable naming the file written once the server listens (used by the launcher). */
    public static final String READY_FILE_ENV = "TWAMPD_READY_FILE";
    /** Environment variable with a fault-injection spec for the test stand ({@code drop=N,dup=N,...}). */
    public static final String FAULTS_ENV = "TWAMPD_FAULT_INJECTION";

    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile TwampServer server;

    /**
     * Entry point: runs, and exits with the status of {@link #run}. SIGTERM, SIGINT and SIGHUP shut the
     * server down cleanly and the process exits 0, as C twampd does (docs/SERVER.md); their handlers are
     * installed even when the signal was ignored at start (a background job of a script), as C does.
     */
    public static void main(String[] args) {
        TwampdMain daemon = new TwampdMain();
        Thread hook = new Thread(() -> {
            daemon.stop();
            daemon.awaitFinished(TimeUnit.SECONDS.toNanos(10)); // let execute() log, close and remove the pid file
        }, "twampd-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int[] numbers = {io.github.twping.ffm.ProcessSignals.SIGTERM, io.github.twping.ffm.ProcessSignals.SIGINT,
            io.github.twping.ffm.ProcessSignals.SIGHUP};
        String[] names = {"TERM", "INT", "HUP"};
        for (int i = 0; i < names.length; i++) {
            try {
                io.github.twping.ffm.ProcessSignals.unignore(numbers[i]);
                sun.misc.Signal.handle(new sun.misc.Signal(names[i]), sig -> daemon.stop());
            } catch (IllegalArgumentException unavailable) {
                // the JVM keeps this signal (-Xrs): its default action (shutdown hook) applies
            }
        }
        int status = daemon.execute(args, System.out, System.err);
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
        stopped.countDown();
        TwampServer s = server;
        if (s != null) {
            s.close();
        }
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
        return ready.await(timeoutNs, TimeUnit.NANOSECONDS);
    }

    /** The running server's control port (after {@link #awaitReady}). */
    public int port() {
        return server.port();
    }

    /** Runs twampd on this instance until {@link #stop()}; returns the exit status. */
    public int execute(String[] args, PrintStream out, PrintStream err) {
        try {
            return serve(args, out, err);
        } finally {
            finished.countDown();
        }
    }

    private int serve(String[] args, PrintStream out, PrintStream err) {
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
        String debugOffset = System.getenv(io.github.twping.time.DebugTimeOffset.ENVIRONMENT_VARIABLE);
        if (io.github.twping.time.DebugTimeOffset.parse(debugOffset) == null) {
            err.println(io.github.twping.time.DebugTimeOffset.invalidMessage(debugOffset));
            for (String line : io.github.twping.time.DebugTimeOffset.INIT_FAILURE_LINES) {
                err.println(line);
            }
            return 1;
        }
        ServerConfig config;
        LimitsConfig limits;
        ServerPassphrases passphrases;
        ReflectorFaultInjection faults;
        try {
            ServerConfig.Builder b = ServerConfig.builder();
            if (parsed.confDir() != null) {
                b.confDir(parsed.confDir());
            }
            Path confDir = parsed.confDir() == null ? Path.of("") : parsed.confDir();
            Path confFile = confDir.resolve(ServerConfig.CONF_FILE);
            if (!Files.exists(confFile)) {
                // C twampd refuses to start without its configuration file (a mistyped -c must not
                // start a server with defaults on every interface).
                throw new ConfigException("Unable to open " + confFile);
            }
            ServerConfig.load(confFile, b);
            parsed.applyTo(b);
            config = b.build();
            limits = LimitsConfig.load(config.confFile(ServerConfig.LIMITS_FILE));
            faults = ReflectorFaultInjection.parse(System.getenv(FAULTS_ENV));
        } catch (ConfigException e) {
            err.println(e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            err.println("twampd: " + e.getMessage());
            return 1;
        }
        ServerLog log = new ServerLog(err, config.verbose());
        try {
            passphrases = loadPassphrases(config, log);
        } catch (ConfigException e) {
            err.println(e.getMessage());
            err.println("PolicyInit failed");
            return 1;
        }
        if (isRoot() && !config.rootFolly()) {
            err.println("twampd: Running twampd as root is folly! Use -f or \"rootfolly\" to allow it"
                    + " (the Java twampd cannot drop privileges; start it as the intended user).");
            return 1;
        }
        if (config.user() != null || config.group() != null) {
            log.warning("user/group (-U/-G) ignored: the JVM cannot change its uid/gid; start twampd as that user");
        }
        if (faults.active()) {
            log.warning("FAULT INJECTION ACTIVE (" + FAULTS_ENV + "): " + faults);
        }
        TwampServer s = TwampServer.create(config, limits, passphrases, log, faults);
        try {
            s.start();
        } catch (IOException e) {
            err.println("twampd: " + e.getMessage());
            return 1;
        }
        server = s;
        try {
            writeFile(config.varFile(ServerConfig.PID_FILE), ProcessHandle.current().pid() + "\n");
        } catch (IOException e) {
            err.println("twampd: unable to write pid file " + config.varFile(ServerConfig.PID_FILE) + ": "
                    + ConfigLines.describe(e));
            s.close();
            return 1;
        }
        log.debug("configuration: " + config);
        String readyFile = System.getenv(READY_FILE_ENV);
        if (readyFile != null && !readyFile.isEmpty()) {
            try {
                writeFile(Path.of(readyFile), ProcessHandle.current().pid() + " " + s.port() + "\n");
            } catch (IOException e) {
                log.warning("unable to write " + readyFile + ": " + ConfigLines.describe(e));
            }
        }
        ready.countDown();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("twampd: exiting...");
        s.close();
        try {
            Files.deleteIfExists(config.varFile(ServerConfig.PID_FILE));
        } catch (IOException ignored) {
            // best effort
        }
        log.info("twampd: exited.");
        return 0;
    }

    /**
     * The pass-phrases of {@code twamp-server.pfs}. A missing file is fine for open mode only; when
     * {@code authmode} offers A, E or M, a missing, unreadable or non-regular file, or one with an invalid
     * line, stops start-up as C twampd does ({@code PolicyInit failed}).
     */
    static ServerPassphrases loadPassphrases(ServerConfig config, ServerLog log) throws ConfigException {
        Path pfs = config.confFile(ServerConfig.PFS_FILE);
        boolean keyed = (config.authModes() & ~ServerConfig.MODE_OPEN) != 0;
        if (!keyed && !Files.exists(pfs)) {
            return ServerPassphrases.none();
        }
        PassphraseStore.Opened opened = PassphraseStore.openRegular(pfs);
        if (!opened.ok()) {
            throw new ConfigException(opened.error());
        }
        java.util.List<PassphraseStore.Found> all = new java.util.ArrayList<>();
        java.util.Optional<PassphraseStore.SyntaxError> bad = opened.store().parseAll(all);
        if (bad.isPresent()) {
            throw new ConfigException(pfs + ": Invalid user: " + bad.get().describe());
        }
        return ServerPassphrases.of(opened.store());
    }

    private static void writeFile(Path file, String content) throws IOException {
        Files.writeString(file, content, StandardCharsets.US_ASCII);
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    String[] f = line.substring(4).strip().split("\\s+");
                    return f.length > 1 && f[1].equals("0");
                }
            }
        } catch (IOException | RuntimeException e) {
            return "root".equals(System.getProperty("user.name"));
        }
        return false;
    }
}
