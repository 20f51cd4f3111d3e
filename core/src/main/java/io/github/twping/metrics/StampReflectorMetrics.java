package io.github.twping.metrics;

import io.github.twping.stamp.StampReflector;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The metrics of {@code twampd --stamp/--light ... --metrics-listen ADDR:PORT} (docs/FLEET.md): packets reflected,
 * packets dropped by reason and the processing-time histogram of one STAMP or TWAMP-Light reflector, under the
 * names of twampd's TWAMP metrics ({@code twampd_packets_reflected_total}, {@code twampd_packets_dropped_total},
 * {@code twampd_processing_seconds}) so that one dashboard reads both.
 *
 * <p>The counters are the reflector's own, read at scrape time (racy but monotonic: each has one writer, the
 * reflector thread); {@code socket_overflow} is the kernel's drop counter of the reflector's socket. Per packet
 * only the processing time is recorded ({@link #processingTime()}: a binary search and two atomic increments).
 */
public final class StampReflectorMetrics {
    /** The {@code reason} values of {@code twampd_packets_dropped_total}, a closed set. */
    static final String[] DROP_REASONS = {"short", "truncated", "bad_hmac", "not_allowed", "rate_limited",
        "socket_overflow"};

    private final PrometheusRegistry registry;
    private final LatencyRecorder processing = new LatencyRecorder();
    private final UdpDropCounters drops = new UdpDropCounters();
    private volatile StampReflector reflector;
    private volatile String protocol = "stamp";

    /** @param registry where the metrics go */
    public StampReflectorMetrics(PrometheusRegistry registry) {
        this.registry = registry;
        GaugeWithCallback.builder().name("twampd_reflector_info")
                .help("The connectionless reflector this twampd runs (1), by protocol: stamp or light")
                .labelNames("protocol").callback(cb -> {
                    if (reflector != null) {
                        cb.call(1, protocol);
                    }
                })
                .register(registry);
        CounterWithCallback.builder().name("twampd_packets_reflected").help("Test packets answered")
                .callback(cb -> {
                    StampReflector r = reflector;
                    cb.call(r == null ? 0 : r.reflected());
                }).register(registry);
        CounterWithCallback.builder().name("twampd_packets_dropped")
                .help("Test packets not answered, by reason (socket_overflow: the kernel's drop counter)")
                .labelNames("reason").callback(cb -> {
                    long[] d = dropped();
                    for (int i = 0; i < DROP_REASONS.length; i++) {
                        cb.call(d[i], DROP_REASONS[i]);
                    }
                }).register(registry);
        registry.register(processing.collector("twampd_processing_seconds",
                "Reflector processing time per test packet: receive stamp to the reply's send stamp"));
    }

    /** @return the registry the metrics are in. */
    public PrometheusRegistry registry() {
        return registry;
    }

    /**
     * Attaches the running reflector whose counters the scrapes read and gives it the processing-time hook.
     *
     * @param protocol {@code stamp} or {@code light}
     */
    public void reflector(StampReflector r, String protocol) {
        this.protocol = protocol;
        r.processingTime(processing);
        this.reflector = r;
    }

    /** Counts in the order of {@link #DROP_REASONS}. */
    private long[] dropped() {
        StampReflector r = reflector;
        if (r == null) {
            return new long[DROP_REASONS.length];
        }
        return new long[] {r.shortPackets(), r.truncated(), r.badHmac(), r.notAllowed(), r.rateLimited(),
            Math.max(0, drops.drops(r.localAddress()))};
    }
}
