package io.github.twping.metrics;

import io.github.twping.stats.breakdown.Component;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.breakdown.StampOrigin;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The agent's metrics (docs/FLEET.md, metrics): per target and direction the delay histograms, the exact
 * quantiles of the last session, packet counters, reordering, hops, clock state, timestamp sources, failures
 * by reason and the last success.
 *
 * <p>Cardinality: every series carries {@code target} (one value per configured target, removed when a reload
 * drops the target) and {@code protocol} (the target's own, so no extra series) plus at most one small closed
 * label ({@code direction}, {@code stat}, {@code reason}, {@code stamp}/{@code source}, {@code component}/
 * {@code source}); nothing derived from addresses or packets. Updated once per session, never per packet: the
 * delay breakdown's values are observed from the session's data file when it ended ({@link #components}).
 */
public final class AgentMetrics {
    /** The quantiles of {@code twping_agent_last_session_delay_seconds}, in the order of {@link #STAT_LABELS}. */
    public static final double[] QUANTILES = {0.0, 0.5, 0.9, 0.99, 1.0};
    /**
     * Its {@code stat} label values. Not a {@code quantile} label: that label belongs to summaries, and a gauge
     * carrying it fails {@code promtool check metrics}.
     */
    private static final String[] STAT_LABELS = {"min", "p50", "p90", "p99", "max"};
    private static final String[] DIRECTIONS = {"rtt", "forward", "back"};
    /**
     * The {@code source} values of {@code twping_agent_delay_component_packets}: the less precise of a component's
     * two stamps ({@code hardware} only when both came from the network card; {@code user} also for a reflector's
     * control-plane stamp; {@code reflector} for a reflector stamp of a kind it did not report, as in TWAMP), or
     * {@code unknown} for a packet without the component.
     */
    static final String[] COMPONENT_SOURCES = {"hardware", "kernel", "user", "reflector", "unknown"};
    private static final int SOURCE_UNKNOWN = COMPONENT_SOURCES.length - 1;
    private static final Component[] COMPONENTS = Component.values();
    /**
     * The {@code reason} values of {@code twping_agent_bad_replies_total}: the {@code bad_replies} fields of twping's
     * JSON (docs/CLI.md, "Replies not used"); the first three were not used, {@code malformed} replies were.
     */
    static final String[] BAD_REPLY_REASONS = {"too_short", "bad_hmac", "foreign", "malformed"};

    private final PrometheusRegistry registry;
    private final Histogram delay;
    private final Gauge quantile;
    private final Counter sent;
    private final Counter received;
    private final Counter lost;
    private final Counter skipped;
    private final Counter duplicated;
    private final Counter reordered;
    private final Gauge hops;
    private final Gauge clockSynchronized;
    private final Gauge clockError;
    private final Counter timestamps;
    private final Counter sessions;
    private final Counter partialSessions;
    private final Counter failures;
    private final Gauge lastSuccess;
    private final Gauge lastLoss;
    private final Gauge up;
    private final Gauge targets;
    private final Counter reloads;
    private final Histogram component;
    private final Counter componentPackets;
    private final Counter badReplies;
    private final Gauge ptpTaiOffset;
    private volatile BiConsumer<String, SessionSample> listener;
    private final Map<String, String> protocols = new ConcurrentHashMap<>();

    /**
     * Every series is built without exemplars: the agent has no trace context to take them from, and a counter's or
     * gauge's exemplar sampler otherwise took about 8 KB per target of the live heap.
     */
    public AgentMetrics(PrometheusRegistry registry) {
        this.registry = registry;
        delay = Histogram.builder().name("twping_agent_delay_seconds")
                .help("Delay per answered test packet: rtt (without reflector processing), forward, back")
                .labelNames("target", "protocol", "direction").classicUpperBounds(DelayBuckets.seconds())
                .nativeMaxNumberOfBuckets(160).withoutExemplars().register(registry);
        quantile = Gauge.builder().name("twping_agent_last_session_delay_seconds")
                .help("Exact delays of the last session: stat = min, p50, p90, p99 (nearest rank) or max")
                .labelNames("target", "protocol", "direction", "stat").withoutExemplars().register(registry);
        sent = counter("twping_agent_packets_sent", "Test packets sent", "target", "protocol");
        received = counter("twping_agent_packets_received", "Test packets answered within the loss timeout",
                "target", "protocol");
        lost = counter("twping_agent_packets_lost", "Test packets not answered within the loss timeout",
                "target", "protocol");
        skipped = counter("twping_agent_packets_skipped",
                "Scheduled packets not sent because the sender was more than the loss timeout late",
                "target", "protocol");
        duplicated = counter("twping_agent_packets_duplicated",
                "Duplicate packets: forward = seen twice by the reflector, back = replies seen twice by us",
                "target", "protocol", "direction");
        reordered = counter("twping_agent_packets_reordered",
                "Packets that arrived after a later-sent one (forward at the reflector, back at us)",
                "target", "protocol", "direction");
        hops = Gauge.builder().name("twping_agent_hops").help("Hop count (255 - TTL) of the last session, -1 unknown")
                .labelNames("target", "protocol", "direction").withoutExemplars().register(registry);
        clockSynchronized = Gauge.builder().name("twping_agent_clock_synchronized")
                .help("1 when both ends reported synchronised clocks for the whole last session")
                .labelNames("target", "protocol").withoutExemplars().register(registry);
        clockError = Gauge.builder().name("twping_agent_clock_error_seconds")
                .help("Largest error estimate of the last session's timestamps")
                .labelNames("target", "protocol", "direction").withoutExemplars().register(registry);
        timestamps = counter("twping_agent_timestamps",
                "Timestamps taken, by stamp (tx = our send, rx = reply arrival) and source (kernel, user)",
                "target", "protocol", "stamp", "source");
        sessions = counter("twping_agent_sessions", "Test sessions completed", "target", "protocol");
        partialSessions = counter("twping_agent_sessions_partial",
                "Test sessions stopped early (reload, shutdown, receive error); their packets are counted",
                "target", "protocol");
        failures = counter("twping_agent_session_failures", "Failed attempts, by reason",
                "target", "protocol", "reason");
        lastSuccess = Gauge.builder().name("twping_agent_last_success_timestamp_seconds")
                .help("Unix time the last session of the target completed").labelNames("target", "protocol")
                .withoutExemplars().register(registry);
        lastLoss = Gauge.builder().name("twping_agent_last_session_loss_ratio")
                .help("Lost / sent of the last session").labelNames("target", "protocol").withoutExemplars().register(registry);
        up = Gauge.builder().name("twping_agent_target_up")
                .help("1 when the last attempt on the target succeeded, 0 after a failure")
                .labelNames("target", "protocol").withoutExemplars().register(registry);
        targets = Gauge.builder().name("twping_agent_targets").help("Targets configured").withoutExemplars().register(registry);
        reloads = counter("twping_agent_config_reloads", "Configuration reloads (SIGHUP), by result", "result");
        component = Histogram.builder().name("twping_agent_delay_component_seconds")
                .help("Delay breakdown per answered test packet: pacing_lateness, sender_stack, forward,"
                        + " reflector_residence, reflector_stack, back, receiver_wakeup (only known values)")
                .labelNames("target", "protocol", "component").classicUpperBounds(DelayBuckets.coarseSeconds())
                .nativeMaxNumberOfBuckets(160).withoutExemplars().register(registry);
        componentPackets = counter("twping_agent_delay_component_packets",
                "Answered test packets per breakdown component, by the source of its stamps (unknown: not known)",
                "target", "protocol", "component", "source");
        badReplies = counter("twping_agent_bad_replies",
                "Replies not used (too_short, bad_hmac, foreign: of another session by SSID or Micro-session ID) or"
                        + " used with a malformed TLV area (malformed)", "target", "protocol", "reason");
        ptpTaiOffset = Gauge.builder().name("twping_agent_ptp_tai_offset_seconds")
                .help("TAI-UTC offset the last session converted PTP timestamps with; 0: unknown, PTP seconds taken"
                        + " as UTC (STAMP targets whose last session had PTP timestamps only)")
                .labelNames("target", "protocol").withoutExemplars().register(registry);
        reloads.labelValues("ok").inc(0);
        reloads.labelValues("error").inc(0);
    }

    /** The {@code protocol} label value of a target. */
    private String p(String target) {
        return protocols.getOrDefault(target, "twamp");
    }

    private Counter counter(String name, String help, String... labels) {
        return Counter.builder().name(name).help(help).labelNames(labels).withoutExemplars().register(registry);
    }

    /** @return the registry the metrics are in. */
    public PrometheusRegistry registry() {
        return registry;
    }

    /** Creates a TWAMP target's series at zero. */
    public void addTarget(String target) {
        addTarget(target, "twamp");
    }

    /**
     * Creates a target's series at zero (so rates and increases work from the first scrape), labelled with its
     * protocol ({@code twamp}, {@code stamp}, {@code light}); a target keeps its protocol label until removed.
     */
    public void addTarget(String target, String protocol) {
        protocols.put(target, protocol);
        sent.labelValues(target, p(target)).inc(0);
        received.labelValues(target, p(target)).inc(0);
        lost.labelValues(target, p(target)).inc(0);
        skipped.labelValues(target, p(target)).inc(0);
        sessions.labelValues(target, p(target)).inc(0);
        partialSessions.labelValues(target, p(target)).inc(0);
        for (String d : new String[] {"forward", "back"}) {
            duplicated.labelValues(target, p(target), d).inc(0);
            reordered.labelValues(target, p(target), d).inc(0);
        }
        for (String stamp : new String[] {"rx", "tx"}) {
            for (String source : new String[] {"kernel", "user"}) {
                timestamps.labelValues(target, p(target), stamp, source).inc(0);
            }
        }
        for (FailureReason r : FailureReason.values()) {
            failures.labelValues(target, p(target), r.label()).inc(0);
        }
        for (String r : BAD_REPLY_REASONS) {
            badReplies.labelValues(target, p(target), r).inc(0);
        }
        up.labelValues(target, p(target)).set(0);
    }

    /** Removes every series of a target (after a reload dropped it). */
    public void removeTarget(String target) {
        for (String d : DIRECTIONS) {
            delay.remove(target, p(target), d);
            hops.remove(target, p(target), d);
            clockError.remove(target, p(target), d);
            for (String q : STAT_LABELS) {
                quantile.remove(target, p(target), d, q);
            }
        }
        for (String d : new String[] {"forward", "back"}) {
            duplicated.remove(target, p(target), d);
            reordered.remove(target, p(target), d);
        }
        for (String stamp : new String[] {"rx", "tx"}) {
            for (String source : new String[] {"kernel", "user"}) {
                timestamps.remove(target, p(target), stamp, source);
            }
        }
        for (FailureReason r : FailureReason.values()) {
            failures.remove(target, p(target), r.label());
        }
        for (String r : BAD_REPLY_REASONS) {
            badReplies.remove(target, p(target), r);
        }
        ptpTaiOffset.remove(target, p(target));
        for (Component c : COMPONENTS) {
            component.remove(target, p(target), c.key());
            for (String source : COMPONENT_SOURCES) {
                componentPackets.remove(target, p(target), c.key(), source);
            }
        }
        for (Counter c : new Counter[] {sent, received, lost, skipped, sessions, partialSessions}) {
            c.remove(target, p(target));
        }
        for (Gauge g : new Gauge[] {clockSynchronized, lastSuccess, lastLoss, up}) {
            g.remove(target, p(target));
        }
        protocols.remove(target);
    }

    /** Sets the number of configured targets. */
    public void targets(int count) {
        targets.set(count);
    }

    /** Counts a configuration reload. */
    public void reload(boolean ok) {
        reloads.labelValues(ok ? "ok" : "error").inc();
    }

    /** Records a finished (or partial) session of {@code target}. */
    public void recordSession(String target, SessionSample s) {
        recordSession(target, s, null);
    }

    /**
     * Records a finished (or partial) session of {@code target}, with its delay breakdown: {@code components} (or
     * null) feeds a {@link ComponentRecorder} each answered packet and finishes it, right after the packet counters
     * and delay histograms, so that a scrape sees a session's metrics change together.
     */
    public void recordSession(String target, SessionSample s, Consumer<ComponentRecorder> components) {
        recordPackets(target, s);
        if (components != null) {
            components.accept(components(target));
        }
        if (s.completed()) {
            sessions.labelValues(target, p(target)).inc();
            lastSuccess.labelValues(target, p(target)).set(s.endEpochSeconds());
            up.labelValues(target, p(target)).set(1);
        } else {
            partialSessions.labelValues(target, p(target)).inc();
        }
        notifyListener(target, s);
    }

    /**
     * Records a session of a connectionless target in which no packet was answered: its packets (all lost) are
     * counted, but it is neither a completed session nor a success (the caller records the failure).
     */
    public void recordUnansweredSession(String target, SessionSample s) {
        recordPackets(target, s);
        notifyListener(target, s);
    }

    private void notifyListener(String target, SessionSample s) {
        var l = listener;
        if (l != null) {
            l.accept(target, s);
        }
    }

    private void recordPackets(String target, SessionSample s) {
        sent.labelValues(target, p(target)).inc(s.sent());
        received.labelValues(target, p(target)).inc(s.received());
        lost.labelValues(target, p(target)).inc(s.lost());
        skipped.labelValues(target, p(target)).inc(s.skipped());
        duplicated.labelValues(target, p(target), "forward").inc(s.duplicatesForward());
        duplicated.labelValues(target, p(target), "back").inc(s.duplicatesBack());
        reordered.labelValues(target, p(target), "forward").inc(s.reorderedForward());
        reordered.labelValues(target, p(target), "back").inc(s.reorderedBack());
        timestamps.labelValues(target, p(target), "rx", "kernel").inc(s.rxKernel());
        timestamps.labelValues(target, p(target), "rx", "user").inc(s.rxUser());
        timestamps.labelValues(target, p(target), "tx", "kernel").inc(s.txKernel());
        timestamps.labelValues(target, p(target), "tx", "user").inc(s.txUser());
        double[][] values = {s.rtt(), s.forward(), s.back()};
        double[] errors = {s.errorRtt(), s.errorForward(), s.errorBack()};
        for (int d = 0; d < DIRECTIONS.length; d++) {
            var h = delay.labelValues(target, p(target), DIRECTIONS[d]);
            for (double v : values[d]) {
                h.observe(v);
            }
            if (values[d].length > 0) {
                for (int q = 0; q < QUANTILES.length; q++) {
                    quantile.labelValues(target, p(target), DIRECTIONS[d], STAT_LABELS[q])
                            .set(SessionSample.quantile(values[d], QUANTILES[q]));
                }
            }
            clockError.labelValues(target, p(target), DIRECTIONS[d]).set(errors[d]);
        }
        hops.labelValues(target, p(target), "forward").set(s.hopsForward());
        hops.labelValues(target, p(target), "back").set(s.hopsBack());
        clockSynchronized.labelValues(target, p(target)).set(s.synchronised() ? 1 : 0);
        lastLoss.labelValues(target, p(target)).set(s.sent() == 0 ? 0 : (double) s.lost() / s.sent());
    }

    /** Counts packets skipped by a session that sent nothing (recorded as a failure, not a session). */
    public void recordSkipped(String target, long count) {
        skipped.labelValues(target, p(target)).inc(count);
    }

    /** Also hands every recorded session to {@code sessionListener} (after the metrics were updated). */
    public void onSession(BiConsumer<String, SessionSample> sessionListener) {
        this.listener = sessionListener;
    }

    /**
     * A recorder of the delay breakdown of one session of {@code target}: feed it each answered packet (the first
     * reply of each sequence number) when the session has ended, then {@link ComponentRecorder#finish()}. A
     * component's histogram and source series appear with its first packet.
     */
    public ComponentRecorder components(String target) {
        return new ComponentRecorder(target);
    }

    /** The class of a stamp origin in {@link #COMPONENT_SOURCES}, ordered from the most precise. */
    private static int sourceClass(StampOrigin o) {
        return switch (o) {
            case KERNEL_HARDWARE -> 0;
            case KERNEL_SOFTWARE, SCHEDULE -> 1;
            case USER, CONTROL_PLANE -> 2;
            case REFLECTOR -> 3;
            case UNKNOWN -> SOURCE_UNKNOWN;
        };
    }

    /** Observes one session's per-packet delay components (at the session's end, never on the packet path). */
    public final class ComponentRecorder {
        private final String target;
        private final DistributionDataPoint[] histograms = new DistributionDataPoint[Component.COUNT];
        private final long[][] packets = new long[Component.COUNT][COMPONENT_SOURCES.length];

        private ComponentRecorder(String target) {
            this.target = target;
        }

        /** Observes the known components of an answered packet and counts the unknown ones (lost: ignored). */
        public void accept(PacketBreakdown b) {
            if (b.lost()) {
                return;
            }
            for (Component c : COMPONENTS) {
                int i = c.ordinal();
                if (!b.known(c)) {
                    packets[i][SOURCE_UNKNOWN]++;
                    continue;
                }
                if (histograms[i] == null) {
                    histograms[i] = component.labelValues(target, p(target), c.key());
                }
                histograms[i].observe(b.ns(c) / 1e9);
                packets[i][Math.max(sourceClass(b.from(c)), sourceClass(b.to(c)))]++;
            }
        }

        /** Adds the session's packet counts per component and source. */
        public void finish() {
            for (Component c : COMPONENTS) {
                for (int s = 0; s < COMPONENT_SOURCES.length; s++) {
                    long n = packets[c.ordinal()][s];
                    if (n > 0) {
                        componentPackets.labelValues(target, p(target), c.key(), COMPONENT_SOURCES[s]).inc(n);
                    }
                }
            }
        }
    }

    /**
     * Counts the replies a session of {@code target} could not use (shorter than a reply, failed HMAC, of another
     * session) and those used with a malformed TLV area; recorded for every session that ran, failed ones included
     * (a session whose every reply had another SSID fails with {@code no_reply}).
     */
    public void recordBadReplies(String target, long tooShort, long badHmac, long foreign, long malformed) {
        long[] counts = {tooShort, badHmac, foreign, malformed};
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                badReplies.labelValues(target, p(target), BAD_REPLY_REASONS[i]).inc(counts[i]);
            }
        }
    }

    /**
     * Says with which TAI-UTC offset the last session of {@code target} converted PTP timestamps (docs/STAMP.md,
     * "Timestamps and Error Estimate"): {@code seconds}, 0 when the kernel did not know it (PTP seconds then taken as
     * UTC, each one-way delay 37 s off); {@code ptp} false (no PTP timestamp, ours or the reflector's) removes it.
     */
    public void recordPtpTaiOffset(String target, boolean ptp, int seconds) {
        if (ptp) {
            ptpTaiOffset.labelValues(target, p(target)).set(seconds);
        } else {
            ptpTaiOffset.remove(target, p(target));
        }
    }

    /** Records a failed attempt. */
    public void recordFailure(String target, FailureReason reason) {
        failures.labelValues(target, p(target), reason.label()).inc();
        up.labelValues(target, p(target)).set(0);
    }
}
