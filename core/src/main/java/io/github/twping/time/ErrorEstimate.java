package io.github.twping.time;

/**
 * Encoder and decoder for the 16-bit TWAMP/OWAMP Error Estimate field, held in an {@code int} 0..65535.
 *
 * <p>Layout (RFC 4656 section 4.1.2): bit 15 S (synchronised), bit 14 Z (written 0, ignored),
 * bits 13..8 scale, bits 7..0 multiplier; error = multiplier * 2^(scale - 32) seconds.
 * A multiplier of 0 marks the field invalid.
 */
public final class ErrorEstimate {
    /** What twping/twampd send for an unsynchronised clock: S=0, scale 0, multiplier 1 (2^-32 s). */
    public static final int UNSYNCHRONISED = 0x0001;

    private static final int SYNC_BIT = 0x8000;
    private static final long MICROS_PER_SECOND = 1_000_000L;
    /** Largest error (just under 2^31 s) whose rounded-up 32.32 value still fits 64 bits; larger ones saturate. */
    private static final long MAX_ERROR_MICROS = MICROS_PER_SECOND * (1L << 31) - 1;

    private ErrorEstimate() {
    }

    /**
     * Encodes an error estimate like C owamp: unsynchronised gives {@link #UNSYNCHRONISED}; synchronised
     * takes {@code x = floor(e * 2^32 / 1e6)}, shifts it right until it is below 255 counting the scale,
     * and sends {@code x + 1} as the multiplier (rounding up). An error of 0 or less is treated as 1 us
     * (the C clock code does the same for a zero kernel {@code esterror}).
     */
    public static int encode(boolean synchronised, long errorMicros) {
        if (!synchronised) {
            return UNSYNCHRONISED;
        }
        long micros = Math.min(Math.max(errorMicros, 1L), MAX_ERROR_MICROS);
        long x = ((micros / MICROS_PER_SECOND) << 32) + (((micros % MICROS_PER_SECOND) << 32) / MICROS_PER_SECOND);
        int scale = 0;
        while (Long.compareUnsigned(x, 255) >= 0) {
            x >>>= 1;
            scale++;
        }
        int multiplier = (int) x + 1;
        return SYNC_BIT | (scale << 8) | multiplier;
    }

    /** Returns whether the field is usable: its multiplier is not 0. */
    public static boolean isValid(int field) {
        return (field & 0xFF) != 0;
    }

    /** Returns the S bit: whether the clock was synchronised to UTC (false for an invalid field, as the C decoder clears S). */
    public static boolean isSynchronised(int field) {
        return (field & SYNC_BIT) != 0 && isValid(field);
    }

    /** Returns the 6-bit scale (bit 14, Z, is ignored). */
    public static int scale(int field) {
        return (field >>> 8) & 0x3F;
    }

    /** Returns the 8-bit multiplier. */
    public static int multiplier(int field) {
        return field & 0xFF;
    }

    /**
     * Returns the error in seconds: {@code (multiplier << scale) / 2^32} computed as a Num64 converted to
     * double (C {@code OWPGetTimeStampError}); 0 for an invalid field.
     */
    public static double seconds(int field) {
        long num64 = ((long) multiplier(field)) << scale(field);
        return NtpTime.toDouble(num64);
    }

    /** Returns the error as a Num64 (32.32 seconds), {@code multiplier << scale}. */
    public static long toNtp(int field) {
        return ((long) multiplier(field)) << scale(field);
    }
}
