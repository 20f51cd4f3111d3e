package io.github.twping.session;

import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.ThreadTuning;

/**
 * Gives the JVM's JIT compiler threads the scheduler's shortest slice (0.1 ms; Linux 6.12 and later, EEVDF), so
 * that a thread woken on the CPU a compilation occupies waits for at most that long instead of the rest of the
 * compiler thread's default slice (0.75 ms times a factor of the CPU count, 1.5 ms on two CPUs). A compilation of
 * a few ms otherwise kept a reflector on the same host from its CPU for 1-2 ms after our send: the forward leg's
 * largest delays against the C twampd (docs/notes/2026-12-05-jit-slice.md). The compilers keep their share of
 * the CPU; they are preempted sooner, not less often scheduled. Threads the JVM starts later are not covered.
 */
public final class JitSlices {
    /** System property: the compiler threads' slice in ns (default the shortest, 100,000); 0 leaves them alone. */
    public static final String PROPERTY = "twping.jit.sliceNs";
    /** The names of HotSpot's compiler threads, as the kernel keeps them (15 characters at most). */
    static final String[] COMPILER_THREADS = {"C1 CompilerThre", "C2 CompilerThre"};

    private JitSlices() {
    }

    /**
     * Sets the slice of every compiler thread running now, from {@value #PROPERTY} (default
     * {@link ThreadTuning#MIN_SLICE_NS}); quietly does nothing where the call is unavailable.
     *
     * @return how many threads got the slice
     */
    public static int shorten() {
        long sliceNs = Long.getLong(PROPERTY, ThreadTuning.MIN_SLICE_NS);
        if (sliceNs <= 0 || !ThreadTuning.available()) {
            return 0;
        }
        int set = 0;
        for (int tid : ThreadTuning.threadIdsNamed(COMPILER_THREADS)) {
            try {
                ThreadTuning.threadSliceNs(tid, sliceNs);
                set++;
            } catch (SocketException | IllegalStateException e) {
                // ended meanwhile (ESRCH), a kernel without the call, or a policy set from outside: left as it is
            }
        }
        return set;
    }
}
