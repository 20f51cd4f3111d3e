package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * How many downcall shapes a socket session links (Libc: the syscall path). The FFM linker defines one hidden
 * {@code jdk.internal.foreign.abi.DowncallStub} class per shape, which {@code -Xlog:class+load} names; the run is
 * {@link TimestampingProbe} (two sockets, five datagrams with RX and TX stamps, the error queue, the clock state) in
 * a fresh JVM. Counts, not times: nothing here depends on the machine's load.
 */
class DowncallShapesTest {
    private static final String STUB = " jdk.internal.foreign.abi.DowncallStub/";

    private record Run(long stubs, String output, List<String> classLoads) {
    }

    @Test
    void theSyscallPathLinksAtMostThreeShapesAndTheLibcPathMore() throws Exception {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        assumeTrue(arch.equals("amd64") || arch.equals("x86_64"),
                "the syscall path is x86-64's; on " + arch + " every function keeps its own libc handle");
        assumeTrue(NativeSupport.isAvailable(), "FFM unavailable: " + NativeSupport.unavailableReason());

        Run syscall = probe(true);
        assertTrue(syscall.stubs() >= 1 && syscall.stubs() <= 3,
                "syscall path: " + syscall.stubs() + " downcall shapes (at most 3)\n" + syscall.output());

        // the per-function libc handles (every other architecture) still work, and link a shape per signature
        Run libc = probe(false);
        assertTrue(libc.stubs() > syscall.stubs() + 3,
                "libc path: " + libc.stubs() + " shapes against " + syscall.stubs() + "\n" + libc.output());
    }

    /**
     * The memory-segment and session classes are all loaded before the first downcall stub (Libc's class
     * initialisation): C2 never compiles a downcall on the assumption that native segments are the only ones, which
     * the first heap segment created afterwards anywhere in the process invalidated, throwing away every compiled
     * downcall at once (40 B per call allocated until C2 had compiled them again:
     * docs/notes/2026-12-05-allocation-order.md). A class-loading order, not a time.
     */
    @Test
    void theSegmentClassesAreLoadedBeforeTheFirstDowncallStub() throws Exception {
        assumeTrue(NativeSupport.isAvailable(), "FFM unavailable: " + NativeSupport.unavailableReason());
        List<String> loads = probe(Libc.SYSCALL).classLoads();
        int firstStub = indexOf(loads, STUB);
        assertTrue(firstStub >= 0, "no downcall stub was loaded");
        for (String name : List.of("HeapMemorySegmentImpl$OfByte", "HeapMemorySegmentImpl$OfChar",
                "HeapMemorySegmentImpl$OfShort", "HeapMemorySegmentImpl$OfInt", "HeapMemorySegmentImpl$OfLong",
                "HeapMemorySegmentImpl$OfFloat", "HeapMemorySegmentImpl$OfDouble", "GlobalSession$HeapSession",
                "ConfinedSession", "SharedSession", "ImplicitSession", "MappedMemorySegmentImpl")) {
            int at = indexOf(loads, " jdk.internal.foreign." + name + " ");
            assertTrue(at >= 0 && at < firstStub, name + " loaded at line " + at + ", the first stub at " + firstStub);
        }
    }

    private static int indexOf(List<String> lines, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(part)) {
                return i;
            }
        }
        return -1;
    }

    private static Run probe(boolean syscall) throws IOException, InterruptedException {
        Path log = Files.createTempFile("shapes", ".log");
        try {
            String text = ProbeJvm.run(List.of("--enable-native-access=ALL-UNNAMED",
                    "-Dtwping.ffm.syscall=" + syscall, "-Xlog:class+load=info:file=" + log));
            assertTrue(text.contains("FFM sockets"), text);
            List<String> loads = Files.readAllLines(log);
            return new Run(loads.stream().filter(l -> l.contains(STUB)).count(), text, loads);
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
