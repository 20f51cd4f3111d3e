package io.github.twping.config;

import io.github.twping.schedule.ScheduleSlot;

import java.util.List;

/**
 * The send schedule given with {@code -i} (docs/CLI.md): a cyclic list of slots, each an exponential mean
 * or a fixed offset, as Num64 (32.32 fixed-point seconds).
 *
 * <p>Syntax: comma-separated items, each a C {@code strtod} number optionally followed by one type
 * letter ({@code e}/{@code E} or nothing: exponential; {@code f}/{@code F}: fixed). Values convert by
 * {@code floor(x * 2^32)}; negative values become 0 (no error). The default (no {@code -i}) is one
 * exponential slot with the 32-bit float 0.1 as mean: {@link #DEFAULT_MEAN_NTP} = 0x199999A0, which
 * differs from {@code -i 0.1} (0x19999999).
 */
public final class ScheduleSpec {
    /** Num64 of {@code (double)(float)0.1}: the C default mean. */
    public static final long DEFAULT_MEAN_NTP = 0x199999A0L;

    private static final double TWO_POW_32 = 4294967296.0;
    private static final double TWO_POW_64 = 18446744073709551616.0;

    private final boolean[] fixed;
    private final long[] valuesNtp;

    private ScheduleSpec(boolean[] fixed, long[] valuesNtp) {
        this.fixed = fixed;
        this.valuesNtp = valuesNtp;
    }

    /**
     * Outcome of {@link #parse(String)}.
     *
     * @param spec  the schedule, or null on error
     * @param error the message (without the {@code twping: } prefix) printed before
     *              {@code Invalid Schedule.}, or null
     */
    public record Parsed(ScheduleSpec spec, String error) {
        /** @return true when the schedule was accepted */
        public boolean ok() {
            return spec != null;
        }
    }

    /** @return the schedule used when {@code -i} is not given */
    public static ScheduleSpec defaultSchedule() {
        return new ScheduleSpec(new boolean[] {false}, new long[] {DEFAULT_MEAN_NTP});
    }

    /** Parses an {@code -i} argument. */
    public static Parsed parse(String arg) {
        int expected = PercentileList.commaCount(arg) + 1;
        List<String> tokens = PercentileList.strtokComma(arg);
        boolean[] fixed = new boolean[tokens.size()];
        long[] values = new long[tokens.size()];
        for (int k = 0; k < tokens.size(); k++) {
            String token = tokens.get(k);
            CNumbers.DoubleParse p = CNumbers.strtod(token, 0);
            if (p.end() == 0) {
                return new Parsed(null, "Invalid numeric value (" + token + ") for schedule");
            }
            String rest = token.substring(p.end());
            if (rest.length() > 1) {
                return new Parsed(null, "Invalid slot type (" + rest + ") for schedule");
            }
            if (rest.length() == 1) {
                char type = rest.charAt(0);
                if (type == 'f' || type == 'F') {
                    fixed[k] = true;
                } else if (type != 'e' && type != 'E') {
                    return new Parsed(null, "Invalid slot type (" + rest + ") for schedule");
                }
            }
            values[k] = secondsToNtp(p.value());
        }
        if (tokens.size() != expected) {
            return new Parsed(null, "Unable to parse schedule specification");
        }
        return new Parsed(new ScheduleSpec(fixed, values), null);
    }

    /**
     * {@code floor(seconds * 2^32)} as unsigned 64-bit; negative values and NaN give 0, values at or
     * above 2^32 seconds saturate at all ones.
     */
    public static long secondsToNtp(double seconds) {
        if (!(seconds > 0.0)) {
            return 0L;
        }
        double scaled = Math.floor(seconds * TWO_POW_32);
        if (scaled >= TWO_POW_64) {
            return -1L;
        }
        if (scaled >= 0x1p63) {
            return (long) (scaled - 0x1p63) ^ Long.MIN_VALUE;
        }
        return (long) scaled;
    }

    /** @return the number of slots (at least 1) */
    public int slotCount() {
        return fixed.length;
    }

    /** @return true if slot {@code i} is a fixed offset, false if exponential */
    public boolean isFixed(int i) {
        return fixed[i];
    }

    /** @return slot {@code i}'s value (mean or offset) as Num64 */
    public long valueNtp(int i) {
        return valuesNtp[i];
    }

    /** @return the slots, in order, for {@code SendSchedule} and the Request-TW-Session slot list (a new array) */
    public ScheduleSlot[] slots() {
        ScheduleSlot[] slots = new ScheduleSlot[fixed.length];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new ScheduleSlot(fixed[i], valuesNtp[i]);
        }
        return slots;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < fixed.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(fixed[i] ? "fixed:" : "exp:").append(Long.toUnsignedString(valuesNtp[i], 16));
        }
        return sb.toString();
    }
}
