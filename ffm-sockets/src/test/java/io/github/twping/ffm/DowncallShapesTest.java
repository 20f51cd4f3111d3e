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

    private record Run(long stubs, String output) {
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

    private static Run probe(boolean syscall) throws IOException, InterruptedException {
        Path log = Files.createTempFile("shapes", ".log");
        try {
            String text = ProbeJvm.run(List.of("--enable-native-access=ALL-UNNAMED",
                    "-Dtwping.ffm.syscall=" + syscall, "-Xlog:class+load=info:file=" + log));
            assertTrue(text.contains("FFM sockets"), text);
            return new Run(Files.readAllLines(log).stream().filter(l -> l.contains(STUB)).count(), text);
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
