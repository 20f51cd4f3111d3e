package io.github.twping.testing.perf.compare;

/**
 * One line of a client's {@code -R} output (the C format, docs/CLI.md): the four timestamps of a test
 * packet as 64-bit NTP integers (32.32 fixed point). A lost packet has a reflector receive time of 0.
 *
 * @param seq           the sender's sequence number
 * @param sendNtp       T1, the sender's send time
 * @param reflRecvNtp   T2, the reflector's receive time (0 when lost)
 * @param reflSendNtp   T3, the reflector's send time
 * @param recvNtp       T4, the sender's receive time
 */
public record RawRecord(long seq, long sendNtp, long reflRecvNtp, long reflSendNtp, long recvNtp) {
    private static final int FIELDS = 16;

    /** True when no reply arrived (the reflector fields are zero). */
    public boolean lost() {
        return reflRecvNtp == 0 && recvNtp == 0;
    }

    /**
     * Parses one {@code -R} line: {@code SSEQ STIME SS SERR SRTIME SRS SRERR STTL RSEQ RSTIME RSS RSERR RTIME RS
     * RERR RTTL}; the timestamps are unsigned decimal integers.
     *
     * @throws IllegalArgumentException when the line does not have that shape
     */
    public static RawRecord parse(String line) {
        String[] f = line.trim().split("\\s+");
        if (f.length != FIELDS) {
            throw new IllegalArgumentException("not a -R record (" + f.length + " fields): " + line);
        }
        try {
            return new RawRecord(Long.parseUnsignedLong(f[0]), Long.parseUnsignedLong(f[1]),
                    Long.parseUnsignedLong(f[4]), Long.parseUnsignedLong(f[9]), Long.parseUnsignedLong(f[12]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a -R record: " + line, e);
        }
    }

    /**
     * Converts a signed NTP difference (32.32 fixed point) to nanoseconds, exactly (128-bit product),
     * rounding toward negative infinity.
     */
    public static long ntpDeltaToNs(long deltaNtp) {
        long high = Math.multiplyHigh(deltaNtp, 1_000_000_000L);
        long low = deltaNtp * 1_000_000_000L;
        return (high << 32) | (low >>> 32);
    }

    /** T2 − T1: sender to reflector, ns. */
    public long forwardNs() {
        return ntpDeltaToNs(reflRecvNtp - sendNtp);
    }

    /** T4 − T3: reflector to sender, ns. */
    public long backNs() {
        return ntpDeltaToNs(recvNtp - reflSendNtp);
    }

    /** T3 − T2: time inside the reflector, ns. */
    public long processingNs() {
        return ntpDeltaToNs(reflSendNtp - reflRecvNtp);
    }

    /** (T4 − T1) − (T3 − T2): the round trip without the reflector's processing, ns (as owamp computes it). */
    public long rttNs() {
        return ntpDeltaToNs((recvNtp - sendNtp) - (reflSendNtp - reflRecvNtp));
    }
}
