package io.github.twping.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Reads the kernel clock discipline state ({@code ntp_adjtime(3)} with {@code modes = 0}) again and again
 * without allocating: the {@code struct timex} and the errno call state are allocated once, here, and the
 * fields of the last read are kept in this object. {@link ClockStatus} is the immutable snapshot of one read.
 *
 * <p>Not thread-safe: one thread reads at a time (a periodic refresh on a session thread, for example).
 */
public final class ClockStatusReader {
    private final MemorySegment timex;
    private final MemorySegment callState;
    private boolean available;
    private int errno;
    private int state = ClockStatus.TIME_ERROR;
    private int status = ClockStatus.STA_UNSYNC;
    private long offset;
    private long maxerrorMicros;
    private long esterrorMicros;
    private int taiSeconds;

    /** Allocates the native buffers (nothing when FFM is unavailable: every read then reports unavailable). */
    public ClockStatusReader() {
        if (NativeSupport.isAvailable()) {
            Arena arena = Arena.ofAuto();
            timex = arena.allocate(Structs.TIMEX);
            callState = Libc.allocateCallState(arena);
        } else {
            timex = null;
            callState = null;
        }
    }

    /**
     * Reads the clock state now; never throws and allocates nothing.
     *
     * @return whether the state could be read (see {@link #available()})
     */
    public boolean read() {
        if (timex == null) {
            return unavailable(0);
        }
        timex.fill((byte) 0);
        timex.set(JAVA_INT, Structs.TIMEX_MODES, 0);
        int rc = Libc.ntpAdjtime(callState, timex);
        if (rc < 0) {
            return unavailable(-rc);
        }
        available = true;
        errno = 0;
        state = rc;
        status = timex.get(JAVA_INT, Structs.TIMEX_STATUS);
        offset = timex.get(JAVA_LONG, Structs.TIMEX_OFFSET);
        maxerrorMicros = timex.get(JAVA_LONG, Structs.TIMEX_MAXERROR);
        esterrorMicros = timex.get(JAVA_LONG, Structs.TIMEX_ESTERROR);
        taiSeconds = timex.get(JAVA_INT, Structs.TIMEX_TAI);
        return true;
    }

    private boolean unavailable(int errorNumber) {
        available = false;
        errno = errorNumber;
        state = ClockStatus.TIME_ERROR;
        status = ClockStatus.STA_UNSYNC;
        offset = 0;
        maxerrorMicros = 0;
        esterrorMicros = 0;
        taiSeconds = 0;
        return false;
    }

    /** False when the last read failed or FFM is unavailable (the clock then counts as unsynchronised). */
    public boolean available() {
        return available;
    }

    /** True when the last read says the clock is synchronised (STA_UNSYNC clear). */
    public boolean synchronised() {
        return available && (status & ClockStatus.STA_UNSYNC) == 0;
    }

    /** Estimated error of the last read, microseconds (timex.esterror). */
    public long esterrorMicros() {
        return esterrorMicros;
    }

    /** The last read as an immutable {@link ClockStatus} (allocates; not for periodic paths). */
    public ClockStatus snapshot() {
        if (available) {
            return ClockStatus.of(state, status, offset, maxerrorMicros, esterrorMicros, taiSeconds);
        }
        return ClockStatus.unavailable("ntp_adjtime: "
                + (timex == null ? NativeSupport.unavailableReason() : Errno.message(errno)));
    }
}
