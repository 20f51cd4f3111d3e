package io.github.twping.metrics;

import io.github.twping.session.SessionReflector;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Locale;

/**
 * twampd's metrics (docs/FLEET.md, twampd metrics): control connections by outcome and by close reason, active
 * and total test sessions, packets reflected, drops by reason and the reflector's processing time.
 *
 * <p>Nothing here runs per packet except {@link #processingTime()} (a {@link LatencyRecorder}); the packet and
 * drop counters are the reflectors' own counters, summed at scrape time over running and finished sessions.
 * The socket-overflow drops are the kernel's per-socket drop counter ({@code /proc/net/udp}, {@code udp6}).
 */
public final class TwampdMetrics {
    /** {@code outcome} label values of {@code twampd_control_connections_total}. */
    public static final String ACCEPTED = "accepted";
    public static final String REFUSED_MODE = "refused_mode";
    public static final String REFUSED_AUTH = "refused_auth";
    public static final String REFUSED_LIMITS = "refused_limits";
    public static final String REFUSED_CAPACITY = "refused_capacity";

    private final PrometheusRegistry registry;
    private final Counter connections;
    private final Counter closed;
    private final Counter sessions;
    private final LatencyRecorder processing = new LatencyRecorder();
    private final Set<SessionReflector> running = ConcurrentHashMap.newKeySet();
    private final UdpDropCounters drops = new UdpDropCounters();
    private long endedReflected;
    private long endedForeign;
    private long endedBadHmac;
    private long endedShort;
    private long endedOverflow;

    private static final TwampdMetrics DETACHED = new TwampdMetrics();

    /** A set that counts nothing and loads no exporter classes (a server without {@code --metrics-listen}). */
    private TwampdMetrics() {
        registry = null;
        connections = null;
        closed = null;
        sessions = null;
    }

    /** @return the shared no-op instance. */
    public static TwampdMetrics detached() {
        return DETACHED;
    }

    public TwampdMetrics(PrometheusRegistry registry) {
        this.registry = registry;
        connections = Counter.builder().name("twampd_control_connections")
                .help("Control connections by outcome of the set-up").labelNames("outcome").register(registry);
        for (String o : new String[] {ACCEPTED, REFUSED_MODE, REFUSED_AUTH, REFUSED_LIMITS, REFUSED_CAPACITY}) {
            connections.labelValues(o).inc(0);
        }
        closed = Counter.builder().name("twampd_control_connections_closed")
                .help("Control connections ended, by reason").labelNames("reason").register(registry);
        sessions = Counter.builder().name("twampd_test_sessions").help("Test sessions accepted").register(registry);
        GaugeWithCallback.builder().name("twampd_test_sessions_active").help("Reflectors running")
                .callback(cb -> cb.call(running.size())).register(registry);
        CounterWithCallback.builder().name("twampd_packets_reflected").help("Test packets answered")
                .callback(cb -> cb.call(totals()[0])).register(registry);
        CounterWithCallback.builder().name("twampd_packets_dropped")
                .help("Test packets not answered, by reason (socket_overflow: the kernel's drop counter)")
                .labelNames("reason").callback(cb -> {
                    long[] t = totals();
                    cb.call(t[1], "foreign_source");
                    cb.call(t[2], "bad_hmac");
                    cb.call(t[3], "short");
                    cb.call(t[4], "socket_overflow");
                }).register(registry);
        registry.register(processing.collector("twampd_processing_seconds",
                "Reflector processing time per test packet: kernel receive stamp to the reply's send stamp"));
    }

    /** @return the registry the metrics are in. */
    public PrometheusRegistry registry() {
        return registry;
    }

    /** Counts a control connection's set-up outcome (one of the constants). */
    public void connection(String outcome) {
        if (registry == null) {
            return;
        }
        connections.labelValues(outcome).inc();
    }

    /** Counts a control connection's end (the close reason, lower case; a closed enum). */
    public void connectionClosed(String reason) {
        if (registry == null) {
            return;
        }
        closed.labelValues(reason.toLowerCase(Locale.ROOT)).inc();
        switch (reason) {
            case "NO_MODES_OFFERED", "INVALID_MODE", "MODE_NOT_OFFERED" -> connection(REFUSED_MODE);
            case "UNKNOWN_IDENTITY", "INVALID_TOKEN" -> connection(REFUSED_AUTH);
            default -> {
                // DENIED was counted by the policy; the others ended an accepted connection
            }
        }
    }

    /** @return the per-packet processing-time recorder to give each reflector. */
    public LatencyRecorder processingTime() {
        return processing;
    }

    /** A reflector started. */
    public void sessionStarted(SessionReflector reflector) {
        if (registry != null && running.add(reflector)) {
            sessions.inc();
        }
    }

    /** A reflector ended; call on its thread before its socket closes (the socket's drop counter is read). */
    public void sessionEnded(SessionReflector reflector) {
        if (registry == null || !running.contains(reflector)) {
            return;
        }
        long overflow = drops.drops(reflector.localAddress());
        synchronized (this) {
            if (!running.remove(reflector)) {
                return;
            }
            endedReflected += reflector.reflected();
            endedForeign += reflector.ignoredForeign();
            endedBadHmac += reflector.badHmac();
            endedShort += reflector.shortPackets();
            endedOverflow += Math.max(0, overflow);
        }
    }

    /** {reflected, foreign, badHmac, short, overflow} over finished and running sessions. */
    private synchronized long[] totals() {
        long[] t = {endedReflected, endedForeign, endedBadHmac, endedShort, endedOverflow};
        for (SessionReflector r : running) {
            t[0] += r.reflected();
            t[1] += r.ignoredForeign();
            t[2] += r.badHmac();
            t[3] += r.shortPackets();
            t[4] += Math.max(0, drops.drops(r.localAddress()));
        }
        return t;
    }
}
