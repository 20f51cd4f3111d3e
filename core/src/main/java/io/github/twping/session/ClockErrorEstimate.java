package io.github.twping.session;

import io.github.twping.ffm.ClockStatusReader;
import io.github.twping.time.ErrorEstimate;

/**
 * The 16-bit Error Estimate (RFC 4656 section 4.1.2) this host puts on its timestamps, derived from the
 * kernel clock state ({@code ntp_adjtime}) as the C twping does, or forced by {@code --sync}/{@code --esterror}.
 *
 * <p>Read once at session start and refreshed by {@link #refresh()} (about once a second, off the packet
 * path, by one thread at a time); per-packet code only reads the volatile field. A refresh allocates nothing:
 * it reuses one {@link ClockStatusReader}.
 */
public final class ClockErrorEstimate {
    private final boolean forcedSync;
    private final long forcedErrorMicros;
    private final ClockStatusReader clock = new ClockStatusReader();
    private volatile int field;
    private volatile boolean synchronised;

    private ClockErrorEstimate(boolean forcedSync, long forcedErrorMicros) {
        this.forcedSync = forcedSync;
        this.forcedErrorMicros = forcedErrorMicros;
        refresh();
    }

    /** @return an estimate that follows the kernel clock state. */
    public static ClockErrorEstimate fromKernel() {
        return new ClockErrorEstimate(false, -1);
    }

    /**
     * @param assumeSynchronised {@code --sync}: report the clock as synchronised to UTC
     * @param esterrorMicros     {@code --esterror}: the error to report (implies synchronised), or -1
     */
    public static ClockErrorEstimate of(boolean assumeSynchronised, long esterrorMicros) {
        if (esterrorMicros >= 0 || assumeSynchronised) {
            return new ClockErrorEstimate(true, esterrorMicros >= 0 ? esterrorMicros : -1);
        }
        return fromKernel();
    }

    /** @return the current Error Estimate field (0..65535). */
    public int field() {
        return field;
    }

    /** @return whether timestamps are currently reported as synchronised. */
    public boolean synchronised() {
        return synchronised;
    }

    /** Re-reads the kernel clock state (one ntp_adjtime call, no allocation; call off the packet path). */
    public void refresh() {
        if (forcedSync) {
            long micros = forcedErrorMicros;
            if (micros < 0) {
                micros = clock.read() && clock.synchronised() ? clock.esterrorMicros() : 1;
            }
            set(true, micros);
            return;
        }
        if (clock.read() && clock.synchronised()) {
            set(true, clock.esterrorMicros());
        } else {
            set(false, 0);
        }
    }

    private void set(boolean sync, long errorMicros) {
        synchronised = sync;
        field = sync ? ErrorEstimate.encode(true, Math.max(1, errorMicros)) : ErrorEstimate.UNSYNCHRONISED;
    }
}
