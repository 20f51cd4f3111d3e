package io.github.twping.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The /proc shortcut of {@link ProcessSignals} against what libc says, on a signal the JVM does not use. */
class ProcessSignalsTest {
    /** SIGURG: default action "ignore" already, so setting it to SIG_IGN for a moment changes nothing observable. */
    private static final int SIGURG = 23;

    @Test
    void procMaskAgreesWithSigactionForEveryStandardSignal() {
        assumeTrue(NativeSupport.isAvailable(), NativeSupport.unavailableReason());
        for (int signo = 1; signo <= 31; signo++) {
            assertEquals(ProcessSignals.isIgnored(signo), ProcessSignals.ignoredPerProc(signo), "signal " + signo);
        }
    }

    @Test
    void anIgnoredSignalIsSeenAndRestoredToItsDefault() throws Throwable {
        assumeTrue(NativeSupport.isAvailable(), NativeSupport.unavailableReason());
        @SuppressWarnings("restricted")
        MethodHandle signal = Linker.nativeLinker().downcallHandle(Linker.nativeLinker().defaultLookup().findOrThrow("signal"),
                FunctionDescriptor.of(ADDRESS, JAVA_INT, ADDRESS));
        MemorySegment previous = (MemorySegment) signal.invokeExact(SIGURG, MemorySegment.ofAddress(1)); // SIG_IGN
        try {
            assertTrue(ProcessSignals.ignoredPerProc(SIGURG));
            assertTrue(ProcessSignals.isIgnored(SIGURG));
            assertTrue(ProcessSignals.unignore(SIGURG), "an ignored signal is set back to its default");
            assertFalse(ProcessSignals.ignoredPerProc(SIGURG));
            assertFalse(ProcessSignals.unignore(SIGURG), "nothing to do when it is not ignored");
        } finally {
            MemorySegment ignored = (MemorySegment) signal.invokeExact(SIGURG, previous);
        }
    }
}
