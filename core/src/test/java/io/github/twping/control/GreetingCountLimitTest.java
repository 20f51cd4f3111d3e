package io.github.twping.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.twping.control.FakeServer.AwaitClose;
import io.github.twping.control.FakeServer.Expect;
import io.github.twping.control.FakeServer.Send;
import io.github.twping.crypto.ControlVectors;
import io.github.twping.protocol.Mode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Server-Greeting Count a hostile server may ask the client to run PBKDF2 with (RFC 4656 §3.1, RFC 5357 §6):
 * above the client's maximum the connection is closed before any key is derived and nothing is sent.
 */
class GreetingCountLimitTest {
    private static final byte[] ALICE = "alice".getBytes(StandardCharsets.US_ASCII);

    private static ControlClientOptions options(int port) {
        return ControlClientOptions.of("127.0.0.1", port).requestedModes(Mode.AUTHENTICATED.bits())
                .identity(ALICE, ControlVectors.ALICE_PASSPHRASE).connectTimeoutMs(30_000).readTimeoutMs(60_000);
    }

    private static byte[] greeting(long count) {
        byte[] g = new byte[64];
        g[15] = (byte) Mode.AUTHENTICATED.bits();
        g[48] = (byte) (count >>> 24);
        g[49] = (byte) (count >>> 16);
        g[50] = (byte) (count >>> 8);
        g[51] = (byte) count;
        return g;
    }

    @ParameterizedTest
    @ValueSource(longs = {0, ControlClientOptions.DEFAULT_MAX_PBKDF2_COUNT + 1, 1L << 20, Integer.MAX_VALUE,
        1L << 31, 0xFFFF_FFFFL})
    void shouldCloseWithoutSendingAnythingAboveTheMaximum(long count) throws Exception {
        try (FakeServer server = FakeServer.of(new Send(greeting(count)), new AwaitClose())) {
            ControlException e = assertThrows(ControlException.class, () -> ControlClient.connect(options(server.port())));
            assertEquals(List.of("OWPControlOpen: Invalid PBKDF2 count " + count), e.lines());
            assertEquals(ControlStage.OPEN_CONNECTION, e.stage());
            assertEquals(0, server.received().length);
        }
    }

    @Test
    void shouldDeriveTheKeyAtTheMaximumAndSendTheSetUpResponse() throws Exception {
        byte[] denied = new byte[48];
        denied[15] = 1; // Server-Start Accept 1: the server checked the token and refused
        try (FakeServer server = FakeServer.of(new Send(greeting(ControlClientOptions.DEFAULT_MAX_PBKDF2_COUNT)),
                new Expect(164), new Send(denied))) {
            ControlException e = assertThrows(ControlException.class, () -> ControlClient.connect(options(server.port())));
            assertEquals(List.of("Server denied access: 127.0.0.1"), e.lines());
            assertEquals(164, server.received().length);
        }
    }

    @Test
    void shouldHonourALowerConfiguredMaximum() throws Exception {
        try (FakeServer server = FakeServer.of(new Send(greeting(2048)), new AwaitClose())) {
            ControlException e = assertThrows(ControlException.class,
                    () -> ControlClient.connect(options(server.port()).maxPbkdf2Count(1024)));
            assertEquals(List.of("OWPControlOpen: Invalid PBKDF2 count 2048"), e.lines());
        }
    }
}
