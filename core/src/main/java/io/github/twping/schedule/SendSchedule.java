package io.github.twping.schedule;

import io.github.twping.time.NtpTime;

/**
 * The bit-exact owamp send schedule: the inter-packet delays Δ_i of a test session (RFC 4656 §5, docs/PROTOCOL-TEST.md).
 *
 * <p>Packet i uses slot {@code i mod min(nslots, N)}: an exponential slot gives
 * {@code Δ_i = mul(expNext(), mean)}, a fixed slot gives its offset and consumes no random numbers.
 * Packet k is scheduled at {@code StartTime + Σ_{i=0..k} Δ_i}. The generator is the AES counter-mode
 * {@link AesCounterRandom} keyed by the SID. No allocation per call; not thread-safe (one per user:
 * the sender and the statistics code each own one, each calls {@link #reset()}).
 */
public final class SendSchedule {
    /** ln 2 in 32.32 fixed point ({@code Q[1]}). */
    static final long LN2 = 0xB17217F8L;
    /** Knuth's Q[k] = Σ_{i=1..k} (ln 2)^i / i!, 32-bit fractions, index k (0 unused). */
    private static final long[] Q = {
        0L, 0xB17217F8L, 0xEEF193F7L, 0xFD271862L, 0xFF9D6DD0L, 0xFFF4CFD0L, 0xFFFEE819L,
        0xFFFFE7FFL, 0xFFFFFE2BL, 0xFFFFFFE0L, 0xFFFFFFFEL, 0xFFFFFFFFL};
    private static final long BIT_31 = 0x8000_0000L;
    private static final long LOW_32 = 0xFFFF_FFFFL;

    /** Null when every slot in use is fixed: no AES then (Bouncy Castle's first use starts the JDK's logging). */
    private final AesCounterRandom random;
    private final boolean[] slotFixed;
    private final long[] slotValueNtp;
    private final int slotLimit;
    private int slotIndex;

    /**
     * Creates the schedule of a session.
     *
     * @param sid16       the 16-byte SID from Accept-Session (the AES key)
     * @param slots       the slot list, at least one
     * @param packetCount N, the number of packets of the session (unsigned 32-bit value)
     */
    public SendSchedule(byte[] sid16, ScheduleSlot[] slots, long packetCount) {
        if (slots == null || slots.length == 0) {
            throw new IllegalArgumentException("schedule needs at least one slot");
        }
        if (sid16 == null || sid16.length != 16) {
            throw new IllegalArgumentException("SID must be 16 bytes");   // as the generator says, made or not
        }
        this.slotFixed = new boolean[slots.length];
        this.slotValueNtp = new long[slots.length];
        for (int i = 0; i < slots.length; i++) {
            slotFixed[i] = slots[i].fixed();
            slotValueNtp[i] = slots[i].valueNtp();
        }
        this.slotLimit = packetCount > 0 && packetCount < slots.length ? (int) packetCount : slots.length;
        boolean anyExponential = false;
        for (int i = 0; i < slotLimit; i++) {
            anyExponential |= !slotFixed[i];
        }
        // a schedule of fixed slots draws no random number (-i 0.002f, the warm-ups): its generator is never made, and
        // with it Bouncy Castle's registry, whose logger starts the JDK's logging and a scan of the class path (the
        // 18 MB jar's central directory): 10-20 ms and 1-2 MB of an idle twampd
        this.random = anyExponential ? new AesCounterRandom(sid16) : null;
    }

    /** @return whether this schedule has a generator: some slot in use is exponential */
    boolean drawsRandomNumbers() {
        return random != null;
    }

    /** Resets the generator (counter 0) and the packet index (0), so Δ_0 comes next. */
    public void reset() {
        if (random != null) {
            random.reset();
        }
        slotIndex = 0;
    }

    /** Returns Δ_i for the next packet index i = 0, 1, 2, … as a Num64. */
    public long nextDeltaNtp() {
        int slot = slotIndex;
        slotIndex = slot + 1 == slotLimit ? 0 : slot + 1;
        if (slotFixed[slot]) {
            return slotValueNtp[slot];
        }
        return NtpTime.mul(expNext(random), slotValueNtp[slot]);
    }

    /**
     * The mean of Δ over the slots in use (a fixed slot's offset, an exponential slot's mean), as a Num64: the
     * session's mean send interval. Touches neither the generator nor the packet index.
     */
    public long meanDeltaNtp() {
        long quotients = 0;
        long remainders = 0;
        for (int i = 0; i < slotLimit; i++) {
            quotients += slotValueNtp[i] / slotLimit;
            remainders += slotValueNtp[i] % slotLimit;
        }
        return quotients + remainders / slotLimit;
    }

    /**
     * Returns the next exponential deviate with mean 1 as a Num64: Knuth vol. 2 section 3.4.1 Algorithm S
     * in 32.32 fixed point, exactly as owamp computes it (RFC 4656 §5, docs/PROTOCOL-TEST.md). Exposed for the seed vectors.
     */
    public static long expNext(AesCounterRandom random) {
        long u = random.nextUnsigned32();
        long j = 0;
        while ((u & BIT_31) != 0 && j < 32) {
            u <<= 1;
            j++;
        }
        u = (u << 1) & LOW_32;
        if (u < LN2) {
            return NtpTime.mul(j << 32, LN2) + u;
        }
        int k = 2;
        while (k <= 11 && u >= Q[k]) {
            k++;
        }
        long v = random.nextUnsigned32();
        for (int draw = 1; draw < k; draw++) {
            long t = random.nextUnsigned32();
            if (t < v) {
                v = t;
            }
        }
        return NtpTime.mul((j << 32) + v, LN2);
    }
}
