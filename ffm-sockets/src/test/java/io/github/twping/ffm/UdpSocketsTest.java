package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Implementation selection: without native access the factory falls back to NIO and says why. */
class UdpSocketsTest {
    @Test
    void shouldFallBackToNioWithoutNativeAccess() throws Exception {
        String text = ProbeJvm.run(List.of("--illegal-native-access=deny"));   // asserts status 0 and 5/5 received
        assertTrue(text.contains("NIO fallback sockets"), text);
        assertTrue(text.contains("FFM unavailable: libc binding failed"), text);
        assertTrue(text.contains("RX software    no (0/5)"), text);
    }
}
