package io.github.twping.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.session.ScriptedReflectorSocket;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TestPortAllocatorTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final List<Integer> tried = new ArrayList<>();

    /** A fake opener: ports in {@code busy} are "in use", {@code broken} fails with another error. */
    private TestPortAllocator.SocketOpener opener(Set<Integer> busy, int broken) {
        return (bind, tos) -> {
            tried.add(bind.getPort());
            if (bind.getPort() == broken) {
                throw new IOException("bind: Cannot assign requested address");
            }
            if (busy.contains(bind.getPort())) {
                throw new BindException("Address already in use");
            }
            return new ScriptedReflectorSocket(bind);
        };
    }

    @Test
    void shouldGrantRequestedPortInsideRange() throws Exception {
        TestPortAllocator a = new TestPortAllocator(18760, 19960, opener(Set.of(), -1), new Random(1));
        assertEquals(18777, a.bind(LOOPBACK, 18777, 0).localAddress().getPort());
    }

    @Test
    void shouldSearchRangeFromRequestedPortAndWrap() throws Exception {
        TestPortAllocator a = new TestPortAllocator(100, 104, opener(Set.of(103, 104, 100), -1), new Random(1));
        assertEquals(101, a.bind(LOOPBACK, 103, 0).localAddress().getPort());
        assertEquals(List.of(103, 104, 100, 101), tried);
    }

    @Test
    void shouldStartAtARandomPortInRangeWhenRequestedIsOutside() throws Exception {
        TestPortAllocator a = new TestPortAllocator(28760, 28799, opener(Set.of(), -1), new Random(7));
        int port = a.bind(LOOPBACK, 5000, 0).localAddress().getPort();
        assertTrue(port >= 28760 && port <= 28799, "port " + port);
    }

    @Test
    void shouldReportExhaustedRange() {
        TestPortAllocator a = new TestPortAllocator(10, 12, opener(Set.of(10, 11, 12), -1), new Random(1));
        IOException e = assertThrows(IOException.class, () -> a.bind(LOOPBACK, 11, 0));
        assertTrue(e.getMessage().startsWith("Full port range exhausted (10-12)"), e.getMessage());
        assertEquals(3, tried.size());
    }

    @Test
    void shouldSearchUpwardsWithoutRange() throws Exception {
        TestPortAllocator a = new TestPortAllocator(0, 0, opener(Set.of(65533, 65534), -1), new Random(1));
        assertEquals(65535, a.bind(LOOPBACK, 65533, 0).localAddress().getPort());
        tried.clear();
        TestPortAllocator full = new TestPortAllocator(0, 0, opener(Set.of(65534, 65535), -1), new Random(1));
        assertThrows(BindException.class, () -> full.bind(LOOPBACK, 65534, 0));
    }

    @Test
    void shouldUseEphemeralPortWithoutRangeAndRequest() throws Exception {
        TestPortAllocator a = new TestPortAllocator(0, 0, opener(Set.of(), -1), new Random(1));
        a.bind(LOOPBACK, 0, 0);
        assertEquals(List.of(0), tried);
    }

    @Test
    void shouldStopAtOtherBindErrors() {
        TestPortAllocator a = new TestPortAllocator(100, 110, opener(Set.of(100), 101), new Random(1));
        IOException e = assertThrows(IOException.class, () -> a.bind(LOOPBACK, 100, 0));
        assertEquals("bind: Cannot assign requested address", e.getMessage());
        assertEquals(List.of(100, 101), tried);
    }
}
