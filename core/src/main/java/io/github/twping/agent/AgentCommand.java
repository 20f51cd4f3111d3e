package io.github.twping.agent;

import io.github.twping.config.PassphraseStore;
import io.github.twping.metrics.AgentMetrics;
import io.github.twping.metrics.MetricsEndpoint;
import io.github.twping.time.DebugTimeOffset;
import io.github.twping.time.WallClock;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import io.github.twping.metrics.SessionSample;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.function.BiConsumer;

/**
 * The continuous measurement agent as a running program (docs/FLEET.md), from its options ({@link AgentOptions},
 * parsed from {@code twping --agent ...} by {@code cli.AgentArgs}). Exit status 0 after a stop, 1 for a bad
 * configuration (one line naming the file, line and field), an endpoint that cannot listen or a
 * {@code --json-stream} file that cannot be opened.
 *
 * <p>{@link #execute} blocks until {@link #stop()}; {@link #reload()} re-reads the file (SIGHUP). The process
 * entry and its signal handlers are {@code cli.AgentMain}; this class installs no handler.
 */
public final class AgentCommand {
    /** Exit status: stopped normally. */
    public static final int EXIT_OK = 0;
    /** Exit status: bad command line, configuration or endpoint. */
    public static final int EXIT_FAILURE = 1;

    private final String program;
    private final PrintStream err;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch ready = new CountDownLatch(1);
    private final AgentConfigLoader loader = AgentConfigLoader.create();
    private volatile Agent agent;
    private volatile Path file;
    private volatile double intervalOverride = -1;
    private volatile AgentMetrics metrics;
    private volatile MetricsEndpoint endpoint;
    private volatile BiConsumer<String, SessionSample> sessionListener;

    public AgentCommand(String program, PrintStream err) {
        this.program = program;
        this.err = err;
    }

    /** Hands every recorded session to {@code listener} as well (set before {@link #execute}). */
    public AgentCommand onSession(BiConsumer<String, SessionSample> listener) {
        this.sessionListener = listener;
        return this;
    }

    private void line(String text) {
        err.println(program + ": " + text);
    }

    /** Starts the agent and the endpoint as {@code options} say, and blocks until {@link #stop()}. */
    public int execute(AgentOptions options) {
        try {
            return run(options);
        } finally {
            ready.countDown();
        }
    }

    /** A command line that cannot run: its one line ({@code program: message}) and {@link #EXIT_FAILURE}. */
    public int refuse(String message) {
        line(message);
        ready.countDown();
        return EXIT_FAILURE;
    }

    private int run(AgentOptions options) {
        String configFile = options.configFile();
        String listen = options.metricsListen();
        InetSocketAddress address = options.metricsAddress();
        String jsonStream = options.jsonStream();
        double intervalSeconds = options.intervalSeconds();
        boolean check = options.check();
        file = Path.of(configFile);
        intervalOverride = intervalSeconds;
        AgentConfig config;
        try {
            config = load();
        } catch (AgentConfigException e) {
            line(e.getMessage());
            return EXIT_FAILURE;
        }
        // once at start, per key file (a reload does not repeat it)
        config.targets().stream().map(TargetConfig::keyFile).filter(Objects::nonNull).distinct()
                .map(k -> PassphraseStore.exposureWarning(k, k.toString())).filter(Objects::nonNull)
                .forEach(this::line);
        if (check) {
            err.println(file + ": " + config.targets().size() + " targets, valid");
            return EXIT_OK;
        }
        metrics = new AgentMetrics(new PrometheusRegistry());
        metrics.onSession(sessionListener);
        if (address != null) {
            try {
                endpoint = MetricsEndpoint.start(address, metrics.registry());
            } catch (IOException | RuntimeException e) {
                line("--metrics-listen " + listen + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
                return EXIT_FAILURE;
            }
            line("agent: metrics on http://" + listen.substring(0, listen.lastIndexOf(':') + 1) + endpoint.port()
                    + "/metrics");
        }
        AgentJsonStream stream = null;
        if (jsonStream != null) {
            stream = openStream(jsonStream);
            if (stream == null) {
                MetricsEndpoint ep = endpoint;
                if (ep != null) {
                    ep.close();
                }
                return EXIT_FAILURE;
            }
        }
        Agent a = new Agent(config, metrics, this::line, WallClock.system(DebugTimeOffset.NONE)).jsonStream(stream);
        agent = a;
        a.start();
        HeapCeiling ceiling = HeapCeiling.start();
        line("agent: " + config.targets().size() + " targets from " + file);
        ready.countDown();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ceiling.close();
        boolean clean = a.stop(TimeUnit.SECONDS.toNanos(30));
        line("agent: stopped" + (clean ? "" : " (some sessions did not end within 30 s)"));
        MetricsEndpoint ep = endpoint;
        if (ep != null) {
            ep.close();
        }
        if (stream != null) {
            stream.close();
        }
        return EXIT_OK;
    }

    /** The configuration file, with the command line's {@code --interval} when given. */
    private AgentConfig load() throws AgentConfigException {
        AgentConfig c = loader.load(file);
        return intervalOverride >= 0 ? c.withInterval(intervalOverride) : c;
    }

    /** Opens the {@code --json-stream} target ({@code -} = stdout); null after one line when it cannot. */
    private AgentJsonStream openStream(String target) {
        if (target.equals("-")) {
            return new AgentJsonStream(System.out, "-", false, this::line);
        }
        try {
            OutputStream out = new BufferedOutputStream(Files.newOutputStream(
                    Path.of(target)));
            return new AgentJsonStream(out, target, true, this::line);
        } catch (IOException | RuntimeException e) {
            line("--json-stream " + target + ": cannot write: "
                    + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return null;
        }
    }

    /** Waits until the agent runs (or {@link #execute} returned); true if within the timeout. */
    public boolean awaitReady(long timeoutNs) throws InterruptedException {
        return ready.await(timeoutNs, TimeUnit.NANOSECONDS);
    }

    /** @return the metrics endpoint's port, or -1 without one. */
    public int metricsPort() {
        MetricsEndpoint ep = endpoint;
        return ep == null ? -1 : ep.port();
    }

    /** @return the running agent, or null. */
    public Agent agent() {
        return agent;
    }

    /** @return the metrics, or null before start. */
    public AgentMetrics metrics() {
        return metrics;
    }

    /** Re-reads the configuration file; a bad file is reported in one line and the running targets stay. */
    public void reload() {
        Agent a = agent;
        if (a == null) {
            return;
        }
        try {
            AgentConfig next = load();
            line("agent: reloaded " + file + ": " + a.reload(next));
            metrics.reload(true);
        } catch (AgentConfigException e) {
            line(e.getMessage() + " (reload ignored, the previous targets keep running)");
            metrics.reload(false);
        }
    }

    /** Stops the agent (SIGTERM): Stop-Sessions for running sessions, partial results recorded. */
    public void stop() {
        stopped.countDown();
    }
}
