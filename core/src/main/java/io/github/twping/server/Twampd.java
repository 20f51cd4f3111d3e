package io.github.twping.server;

import io.github.twping.protocol.Mode;

import io.github.twping.config.PassphraseStore;
import io.github.twping.session.TwampSessionWarmUp;
import io.github.twping.session.ReflectorFaultInjection;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import io.github.twping.metrics.TwampdMetrics;
import java.util.Optional;

/**
 * The twampd daemon's life, from a loaded configuration (docs/SERVER.md): the pass-phrases, the start-up
 * checks, a running {@link TwampServer}, {@code twamp-server.pid} in vardir, the ready file, then serving
 * until {@link #stop()}, and the clean-up. The command line and the configuration files are read by the
 * program ({@code cli.TwampdMain}).
 */
public final class Twampd {
    /** Longest warm-up of the socket paths at start-up. */
    private static final long WARM_UP_MAX_NS = TimeUnit.SECONDS.toNanos(2);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch ready = new CountDownLatch(1);
    private volatile TwampServer server;
    private volatile TwampdMetrics metrics;

    /** What {@link #serve} runs with. */
    public record Setup(ServerConfig config, LimitsConfig limits, ReflectorFaultInjection faults,
                        String faultsSource, String readyFile) {
    }

    /** Counts the server's connections, sessions and packets in {@code m} (docs/FLEET.md); before {@link #serve}. */
    public void metrics(TwampdMetrics m) {
        this.metrics = m;
    }

    /** Asks a running {@link #serve} to shut down (idempotent, any thread, also before it started). */
    public void stop() {
        stopped.countDown();
        TwampServer s = server;
        if (s != null) {
            s.close();
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

    /** Serves until {@link #stop()}; logs to {@code err}; returns the exit status (0, or 1 for a start-up error). */
    public int serve(Setup setup, PrintStream err) {
        ServerConfig config = setup.config();
        ReflectorFaultInjection faults = setup.faults();
        ServerLog log = new ServerLog(err, config.verbose());
        ServerPassphrases passphrases;
        try {
            passphrases = loadPassphrases(config);
        } catch (ConfigException e) {
            err.println(e.getMessage());
            err.println("PolicyInit failed");
            return 1;
        }
        String exposed = PassphraseStore.exposureWarning(config.confFile(ServerConfig.PFS_FILE),
                config.confFile(ServerConfig.PFS_FILE).toString());
        if (exposed != null) {
            log.warning(exposed);
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
            log.warning("FAULT INJECTION ACTIVE (" + setup.faultsSource() + "): " + faults);
        }
        // Compile the reflector's per-packet paths now, not during the first session: one throw-away loopback
        // session per offered mode that protects test packets differently (docs/PERFORMANCE.md).
        int offered = config.authModes();
        Thread.ofPlatform().daemon(true).name("twampd-warmup").start(() -> {
            long until = System.nanoTime() + WARM_UP_MAX_NS;
            for (Mode m : new Mode[] {Mode.OPEN, Mode.AUTHENTICATED, Mode.ENCRYPTED}) {
                long left = until - System.nanoTime();
                if (m.isIn(offered) && left > 0) {
                    TwampSessionWarmUp.run(m, 0, 0, true, TwampSessionWarmUp.DEFAULT_PACKETS, left, () -> false);
                }
            }
        });
        TwampServer s = TwampServer.create(config, setup.limits(), passphrases, log, faults);
        if (metrics != null) {
            s.metrics(metrics);
        }
        try {
            s.start();
        } catch (IOException e) {
            err.println("twampd: " + e.getMessage());
            return 1;
        }
        server = s;
        Path pidFile = config.varFile(ServerConfig.PID_FILE);
        try {
            writeFile(pidFile, ProcessHandle.current().pid() + "\n");
        } catch (IOException e) {
            err.println("twampd: unable to write pid file " + pidFile + ": " + ConfigLines.describe(e));
            s.close();
            return 1;
        }
        log.debug("configuration: " + config);
        writeReadyFile(setup.readyFile(), s.port(), log);
        ready.countDown();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("twampd: exiting...");
        s.close();
        try {
            Files.deleteIfExists(pidFile);
        } catch (IOException ignored) {
            // best effort
        }
        log.info("twampd: exited.");
        return 0;
    }

    private static void writeReadyFile(String readyFile, int port, ServerLog log) {
        if (readyFile != null && !readyFile.isEmpty()) {
            try {
                writeFile(Path.of(readyFile), ProcessHandle.current().pid() + " " + port + "\n");
            } catch (IOException e) {
                log.warning("unable to write " + readyFile + ": " + ConfigLines.describe(e));
            }
        }
    }

    /**
     * The pass-phrases of {@code twamp-server.pfs}. A missing file is fine for open mode only; when
     * {@code authmode} offers A, E or M, a missing, unreadable or non-regular file, or one with an invalid
     * line, stops start-up as C twampd does ({@code PolicyInit failed}). A FIFO is never opened.
     */
    static ServerPassphrases loadPassphrases(ServerConfig config) throws ConfigException {
        Path pfs = config.confFile(ServerConfig.PFS_FILE);
        boolean keyed = (config.authModes() & ~Mode.OPEN.bits()) != 0;
        if (!keyed && !Files.exists(pfs)) {
            return ServerPassphrases.none();
        }
        PassphraseStore.Opened opened = PassphraseStore.openRegular(pfs);
        if (!opened.ok()) {
            throw new ConfigException(opened.error());
        }
        List<PassphraseStore.Found> all = new ArrayList<>();
        Optional<PassphraseStore.SyntaxError> bad = opened.store().parseAll(all);
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
