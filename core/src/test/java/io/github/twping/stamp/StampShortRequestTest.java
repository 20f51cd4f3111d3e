package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 26 item 10: a STAMP reflector answers the 14-octet requests of a TWAMP-Light sender (twampy's default) with
 * a zero-filled base packet, as RFC 8762 §4.6 describes; {@code --strict} keeps the refusal.
 */
class StampShortRequestTest {
    private LoopbackReflector harness;
    private StampReflector reflector;
    private DatagramSocket client;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    private InetSocketAddress start(StampReflectorSpec spec) throws Exception {
        harness = LoopbackReflector.start(spec);
        reflector = harness.reflector();
        client = harness.client();
        return harness.address();
    }

    /** A TWAMP-Light request (RFC 5357 §4.1.2): seq, timestamp, error estimate, {@code padding} octets. */
    private static byte[] light(int seq, long timestamp, int padding) {
        ByteBuffer b = ByteBuffer.allocate(14 + padding);
        b.putInt(0, seq).putLong(4, timestamp).putShort(12, (short) 0x0001);
        for (int i = 14; i < 14 + padding; i++) {
            b.put(i, (byte) 0x5A);
        }
        return b.array();
    }

    private byte[] exchange(InetSocketAddress to, byte[] request) throws Exception {
        return harness.exchange(to, request);
    }

    @Test
    void shortTwampLightRequestsGetAZeroFilledBasePacket() throws Exception {
        InetSocketAddress to = start(StampReflectorSpec.stamp());
        for (int padding : new int[] {0, 13, 29}) {
            byte[] reply = exchange(to, light(7 + padding, 0x0102_0304_0506_0708L, padding));
            assertEquals(44, reply.length, "the STAMP base packet (RFC 8762 §4.6), padding " + padding);
            ByteBuffer r = ByteBuffer.wrap(reply);
            assertEquals(7 + padding, r.getInt(24), "sender sequence number copied");
            assertEquals(0x0102_0304_0506_0708L, r.getLong(28), "sender timestamp copied");
            assertEquals(0x0001, r.getShort(36) & 0xFFFF, "sender error estimate copied");
            // octets 14..15 are the SSID to a STAMP reflector: zero when the request ended before them
            assertEquals(padding == 0 ? 0 : 0x5A5A, r.getShort(14) & 0xFFFF, "SSID field");
        }
        assertEquals(3, reflector.zeroFilled());
        assertEquals(0, reflector.shortPackets());
    }

    @Test
    void strictKeepsTheRefusalAndShorterThanTwampLightIsDropped() throws Exception {
        InetSocketAddress to = start(StampReflectorSpec.stamp().withStrict(true));
        client.send(new DatagramPacket(light(1, 1, 0), 14, to));
        byte[] good = ByteBuffer.allocate(44).putInt(0, 2).array();
        assertEquals(2, ByteBuffer.wrap(exchange(to, good)).getInt(24), "the 44-octet request answered first");
        assertEquals(1, reflector.shortPackets());
        assertEquals(0, reflector.zeroFilled());
        harness.close();
        to = start(StampReflectorSpec.stamp());
        client.send(new DatagramPacket(new byte[13], 13, to));
        assertEquals(2, ByteBuffer.wrap(exchange(to, good)).getInt(24), "13 octets are not a TWAMP-Light request");
        assertEquals(1, reflector.shortPackets());
    }
}
