package io.github.twping.report.extended;

import java.util.ArrayList;
import java.util.List;

import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.stats.breakdown.Component;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.github.twping.stats.breakdown.StampOrigin;

/**
 * The {@code --html} report's view of the delay breakdown model ({@link PacketBreakdown}, docs/STATISTICS.md):
 * one part per {@link Component} in path order (pacing lateness at the bottom of the stack), each packet's source
 * code the pair of origins of the part's two stamps ({@code user → kernel}; one name when both are alike).
 * One reused {@link PacketBreakdown}: nothing is allocated per record.
 */
public final class BreakdownParts implements PacketDelayParts {
    private static final StampOrigin[] ORIGINS = StampOrigin.values();
    private static final Component[] COMPONENTS = Component.values();

    private final RecordSources sources;
    private final RecordStamps stamps;
    private final ReflectorStamps reflector;
    private final PacketBreakdown packet = new PacketBreakdown();

    /**
     * @param sources   the session's timestamp sources per record, or null (unknown)
     * @param stamps    the client's extra stamps per record, or null (not kept: the parts they give are unknown)
     * @param reflector what the protocol said about the reflector's stamps, or null ({@link ReflectorStamps#NONE})
     */
    public BreakdownParts(RecordSources sources, RecordStamps stamps, ReflectorStamps reflector) {
        this.sources = sources;
        this.stamps = stamps;
        this.reflector = reflector == null ? ReflectorStamps.NONE : reflector;
    }

    /** @return the legend name of a component ("sender stack") */
    static String name(Component c) {
        return switch (c) {
            case PACING_LATENESS -> "pacing lateness";
            case SENDER_STACK -> "sender stack";
            case FORWARD -> "forward";
            case REFLECTOR_RESIDENCE -> "reflector residence";
            case REFLECTOR_STACK -> "reflector stack";
            case BACK -> "back";
            case RECEIVER_WAKEUP -> "receiver wake-up";
        };
    }

    /** @return the stamps a component lies between */
    static String spans(Component c) {
        return switch (c) {
            case PACING_LATENESS -> "scheduled send time \u2192 user-space send stamp";
            case SENDER_STACK -> "user-space send stamp \u2192 kernel TX stamp";
            case FORWARD -> "kernel TX stamp (else the user-space one) \u2192 reflector receive (t2)";
            case REFLECTOR_RESIDENCE -> "reflector receive (t2) \u2192 reflector send (t3)";
            case REFLECTOR_STACK -> "t3 \u2192 reflector kernel TX stamp (STAMP Follow-Up Telemetry)";
            case BACK -> "reflector kernel TX stamp (else t3) \u2192 reply arrival (t4)";
            case RECEIVER_WAKEUP -> "kernel RX stamp (t4) \u2192 return of the receive call";
        };
    }

    private static String origin(StampOrigin o) {
        return switch (o) {
            case KERNEL_SOFTWARE -> "kernel";
            case KERNEL_HARDWARE -> "hardware";
            case CONTROL_PLANE -> "control plane";
            default -> o.key();
        };
    }

    @Override
    public List<Part> parts() {
        List<Part> parts = new ArrayList<>(COMPONENTS.length);
        for (Component c : COMPONENTS) {
            parts.add(new Part(name(c), spans(c)));
        }
        return parts;
    }

    @Override
    public int sources() {
        return 1 + ORIGINS.length * ORIGINS.length;
    }

    @Override
    public String sourceName(int code) {
        if (code <= 0 || code >= sources()) {
            return "unknown";
        }
        StampOrigin from = ORIGINS[(code - 1) / ORIGINS.length];
        StampOrigin to = ORIGINS[(code - 1) % ORIGINS.length];
        return from == to ? origin(from) : origin(from) + " \u2192 " + origin(to);
    }

    @Override
    public void read(long index, TwoWayRecord r, long[] ns, int[] source) {
        short s = sources == null ? 0 : sources.get(index);
        packet.compute(index, r, s, stamps, reflector);
        for (int k = 0; k < COMPONENTS.length; k++) {
            Component c = COMPONENTS[k];
            if (packet.known(c)) {
                ns[k] = packet.ns(c);
                source[k] = 1 + packet.from(c).ordinal() * ORIGINS.length + packet.to(c).ordinal();
            } else {
                source[k] = UNKNOWN;
            }
        }
    }
}
