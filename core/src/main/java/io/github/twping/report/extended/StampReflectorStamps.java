package io.github.twping.report.extended;

import io.github.twping.stamp.StampTelemetry;
import io.github.twping.stamp.StampTlv;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.stats.breakdown.Absence;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.github.twping.stats.breakdown.StampOrigin;

/**
 * The reflector's stamps of a STAMP session for the delay breakdown, from what the replies' TLVs reported
 * ({@link StampTelemetry}): the Timestamp Information methods of t2 and t3 (RFC 8972 §4.3) and the Follow-Up
 * Telemetry's kernel TX stamp of each reply (§4.7), which a later reply brings.
 */
public final class StampReflectorStamps implements ReflectorStamps {
    private final StampTelemetry telemetry;
    private final boolean methods;
    private final boolean followUp;
    private final boolean live;

    private StampReflectorStamps(StampTelemetry telemetry, StampTlvRequest tlvs, boolean live) {
        this.telemetry = telemetry;
        this.methods = tlvs.timestampInformation();
        this.followUp = tlvs.followUpTelemetry();
        this.live = live;
    }

    /**
     * @param telemetry what the replies reported, or null (nothing kept: {@link ReflectorStamps#NONE})
     * @param tlvs      the TLVs asked for
     * @param live      true for the {@code packet} events written while the session runs: the Follow-Up stamps are
     *                  then never read (a later reply brings them, on another thread) and said to come later
     */
    public static ReflectorStamps of(StampTelemetry telemetry, StampTlvRequest tlvs, boolean live) {
        return telemetry == null || tlvs == null ? NONE : new StampReflectorStamps(telemetry, tlvs, live);
    }

    static StampOrigin origin(int method) {
        return switch (method) {
            case StampTlv.METHOD_HW_ASSIST -> StampOrigin.KERNEL_HARDWARE;
            case StampTlv.METHOD_SW_LOCAL -> StampOrigin.KERNEL_SOFTWARE;
            case StampTlv.METHOD_CONTROL_PLANE -> StampOrigin.CONTROL_PLANE;
            case StampTlv.METHOD_USER_SPACE -> StampOrigin.USER;
            default -> StampOrigin.REFLECTOR;
        };
    }

    @Override
    public StampOrigin t2Origin(long seq) {
        return methods ? origin(telemetry.t2Method(seq)) : StampOrigin.REFLECTOR;
    }

    @Override
    public StampOrigin t3Origin(long seq) {
        return methods ? origin(telemetry.timestampOutMethod(seq)) : StampOrigin.REFLECTOR;
    }

    @Override
    public Absence followUpAbsence(long seq) {
        if (!followUp) {
            return Absence.NO_FOLLOW_UP_TELEMETRY;
        }
        if (live) {
            return Absence.FOLLOW_UP_NOT_YET;
        }
        return telemetry.hasFollowUp(seq) ? null : Absence.FOLLOW_UP_NOT_RECEIVED;
    }

    @Override
    public long followUpT3Ntp(long seq) {
        return live ? 0 : telemetry.kernelT3Ntp(seq);
    }

    @Override
    public StampOrigin followUpOrigin(long seq) {
        return live || !telemetry.hasFollowUp(seq) ? StampOrigin.UNKNOWN : origin(telemetry.t3Method(seq));
    }
}
