package io.github.twping.session;

import io.github.twping.ffm.ThreadTuning;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class JitSlicesTest {
    @Test
    void shouldGiveEveryCompilerThreadTheLongestSlice() throws Exception {
        assumeTrue(ThreadTuning.available(), "no native access");
        int[] compilers = ThreadTuning.threadIdsNamed(JitSlices.COMPILER_THREADS);
        assumeTrue(compilers.length > 0, "this JVM runs no compiler thread (-Xint)");
        long before = ThreadTuning.threadSliceNs(compilers[0]);
        assumeTrue(before > 0, "this kernel keeps no slice per thread (before Linux 6.12): nothing to check");
        String saved = System.getProperty(JitSlices.PROPERTY);
        try {
            System.setProperty(JitSlices.PROPERTY, "0");
            assertEquals(0, JitSlices.apply(), "0 leaves them alone");
            System.clearProperty(JitSlices.PROPERTY);
            JitSlices.rescanNow();
            int set = JitSlices.apply();
            assertTrue(set >= 1 && set <= ThreadTuning.threadIdsNamed(JitSlices.COMPILER_THREADS).length,
                    "set " + set + " of " + compilers.length);
            assertEquals(0, JitSlices.apply(), "a second call within 10 s does not scan again");
            for (int tid : compilers) {
                assertEquals(ThreadTuning.MAX_SLICE_NS, ThreadTuning.threadSliceNs(tid), "compiler thread " + tid);
            }
        } finally {
            if (saved == null) {
                System.clearProperty(JitSlices.PROPERTY);
            } else {
                System.setProperty(JitSlices.PROPERTY, saved);
            }
            for (int tid : compilers) {
                try {
                    ThreadTuning.threadSliceNs(tid, 0); // the kernel's default again, for the tests after this one
                } catch (Exception ended) {
                    // a compiler thread that ended meanwhile
                }
            }
        }
    }
}
