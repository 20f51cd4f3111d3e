package io.github.twping.schedule;

/**
 * One slot of a send schedule (the {@code -i} list): an exponential slot with a mean, or a fixed offset.
 *
 * @param fixed    true for a fixed offset ({@code f}), false for an exponential slot ({@code e} or none)
 * @param valueNtp the mean (exponential) or the offset (fixed) as a Num64, 32.32 seconds
 */
public record ScheduleSlot(boolean fixed, long valueNtp) {
    /** twping's default slot when {@code -i} is absent: exponential, mean = the float 0.1 via double (0x199999A0). */
    public static final ScheduleSlot DEFAULT = new ScheduleSlot(false, 0x199999A0L);

    /** Returns an exponential slot with the given mean. */
    public static ScheduleSlot exponential(long meanNtp) {
        return new ScheduleSlot(false, meanNtp);
    }

    /** Returns a fixed slot with the given offset. */
    public static ScheduleSlot fixedOffset(long offsetNtp) {
        return new ScheduleSlot(true, offsetNtp);
    }
}
