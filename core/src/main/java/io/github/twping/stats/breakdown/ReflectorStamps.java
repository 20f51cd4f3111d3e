package io.github.twping.stats.breakdown;

/**
 * What the protocol told the client about the reflector's stamps of the reply to a sender sequence number: how t2
 * and t3 were taken (STAMP's Timestamp Information TLV) and the kernel TX stamp of the reply (STAMP's Follow-Up
 * Telemetry, RFC 8972 §4.7). {@link #NONE} for TWAMP and TWAMP-Light.
 */
public interface ReflectorStamps {
    /** @return how the reflector stamped t2 of the reply to {@code seq} */
    StampOrigin t2Origin(long seq);

    /** @return how the reflector stamped the t3 the reply to {@code seq} carried */
    StampOrigin t3Origin(long seq);

    /** @return why the reflector's kernel TX stamp of the reply to {@code seq} is not known, null when it is */
    Absence followUpAbsence(long seq);

    /** @return the reflector's kernel TX stamp of the reply to {@code seq} (NTP); only when {@link #followUpAbsence} is null */
    long followUpT3Ntp(long seq);

    /** @return how that stamp was taken */
    StampOrigin followUpOrigin(long seq);

    /** A reflector that reports nothing about its stamps. */
    ReflectorStamps NONE = new ReflectorStamps() {
        @Override
        public StampOrigin t2Origin(long seq) {
            return StampOrigin.REFLECTOR;
        }

        @Override
        public StampOrigin t3Origin(long seq) {
            return StampOrigin.REFLECTOR;
        }

        @Override
        public Absence followUpAbsence(long seq) {
            return Absence.NO_FOLLOW_UP_TELEMETRY;
        }

        @Override
        public long followUpT3Ntp(long seq) {
            return 0;
        }

        @Override
        public StampOrigin followUpOrigin(long seq) {
            return StampOrigin.UNKNOWN;
        }
    };
}
