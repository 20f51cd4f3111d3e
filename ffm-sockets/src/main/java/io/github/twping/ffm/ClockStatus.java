package io.github.twping.ffm;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The kernel clock discipline state read by {@code ntp_adjtime(3)} with {@code modes = 0} (read-only, no
 * privileges needed): whether the clock is synchronised and its error estimates, as owamp uses them.
 */
public final class ClockStatus {
    /** timex.status bit: the clock is not synchronised. */
    public static final int STA_UNSYNC = 0x0040;
    /** timex.status bit: offsets are in nanoseconds (else microseconds). */
    public static final int STA_NANO = 0x2000;
    /** ntp_adjtime return value when the clock is unsynchronised. */
    public static final int TIME_ERROR = 5;

    private final boolean available;
    private final String problem;
    private final int state;
    private final int status;
    private final long offset;
    private final long maxerrorMicros;
    private final long esterrorMicros;
    private final int taiSeconds;

    private ClockStatus(boolean available, String problem, int state, int status, long offset, long maxerrorMicros,
                        long esterrorMicros, int taiSeconds) {
        this.available = available;
        this.problem = problem;
        this.state = state;
        this.status = status;
        this.offset = offset;
        this.maxerrorMicros = maxerrorMicros;
        this.esterrorMicros = esterrorMicros;
        this.taiSeconds = taiSeconds;
    }

    /**
     * Links the downcall {@link #read} needs, on a daemon thread of its own, so that a program can overlap its
     * own start-up with the linking (tens of milliseconds, the largest part of {@code twping -h}). A
     * {@link #read} while the linking is under way waits for it (class initialisation), never links twice.
     */
    public static void linkInBackground() {
        Thread.ofPlatform().daemon().name("ffm-link").start(NativeSupport::isAvailable);
    }

    /** Reads the clock state now; never throws (see {@link #available()}). Allocates: see {@link ClockStatusReader}. */
    public static ClockStatus read() {
        ClockStatusReader reader = new ClockStatusReader();
        reader.read();
        return reader.snapshot();
    }

    /** Decodes a struct timex filled by ntp_adjtime (package-private for tests on hand-built segments). */
    static ClockStatus fromTimex(int state, MemorySegment timex) {
        return of(state,
                timex.get(JAVA_INT, Structs.TIMEX_STATUS),
                timex.get(JAVA_LONG, Structs.TIMEX_OFFSET),
                timex.get(JAVA_LONG, Structs.TIMEX_MAXERROR),
                timex.get(JAVA_LONG, Structs.TIMEX_ESTERROR),
                timex.get(JAVA_INT, Structs.TIMEX_TAI));
    }

    static ClockStatus of(int state, int status, long offset, long maxerrorMicros, long esterrorMicros) {
        return of(state, status, offset, maxerrorMicros, esterrorMicros, 0);
    }

    static ClockStatus of(int state, int status, long offset, long maxerrorMicros, long esterrorMicros,
                          int taiSeconds) {
        return new ClockStatus(true, null, state, status, offset, maxerrorMicros, esterrorMicros, taiSeconds);
    }

    static ClockStatus unavailable(String problem) {
        return new ClockStatus(false, problem, TIME_ERROR, STA_UNSYNC, 0, 0, 0, 0);
    }

    /**
     * The kernel's TAI-UTC offset in seconds (timex.tai): 37 since 2017 where an NTP or PTP daemon set it, 0 when
     * nothing did (the kernel's default) or the state could not be read.
     */
    public int taiOffsetSeconds() {
        return taiSeconds;
    }

    /** False when the state could not be read (then the clock counts as unsynchronised). */
    public boolean available() {
        return available;
    }

    /** Why the state could not be read, or null. */
    public String problem() {
        return problem;
    }

    /** True when the kernel says the clock is synchronised (STA_UNSYNC clear). */
    public boolean synchronised() {
        return available && (status & STA_UNSYNC) == 0;
    }

    /** The ntp_adjtime return value: TIME_OK (0) .. TIME_ERROR (5). */
    public int state() {
        return state;
    }

    /** The raw timex.status bits. */
    public int status() {
        return status;
    }

    /** True when {@link #offset()} is in nanoseconds (STA_NANO). */
    public boolean nano() {
        return (status & STA_NANO) != 0;
    }

    /** The raw timex.offset: nanoseconds with {@link #nano()}, microseconds otherwise. */
    public long offset() {
        return offset;
    }

    /** The offset in nanoseconds, whatever the unit of {@link #offset()}. */
    public long offsetNs() {
        return nano() ? offset : offset * 1000;
    }

    /** Estimated error, microseconds (timex.esterror). */
    public long esterrorMicros() {
        return esterrorMicros;
    }

    /** Maximum error, microseconds (timex.maxerror). */
    public long maxerrorMicros() {
        return maxerrorMicros;
    }

    @Override
    public String toString() {
        if (!available) {
            return "unknown (" + problem + ")";
        }
        return (synchronised() ? "synchronised" : "unsynchronised") + " (esterror " + esterrorMicros + " us, maxerror "
                + maxerrorMicros + " us, offset " + offsetNs() + " ns, status 0x" + Integer.toHexString(status)
                + ", state " + state + ")";
    }
}
