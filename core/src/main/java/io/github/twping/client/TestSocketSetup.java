package io.github.twping.client;

import java.net.InetAddress;
import java.security.SecureRandom;

import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;

/**
 * The client's test socket (RFC 5357 §3.5): bound to the control connection's local address on a port of
 * {@code -P}, TTL 255 with the received TTL reported, kernel RX and TX timestamps, {@code -D} as the TOS byte,
 * {@code -B} as the bound device.
 */
final class TestSocketSetup {
    /** Sender header + padding + reflector header + slack, the frame the buffers are sized for. */
    private static final int FRAME_OVERHEAD_BYTES = 48 + 112 + 128;
    private static final int MIN_BUFFER_BYTES = 4 << 20;
    private static final int BUFFERED_FRAMES = 64;

    private TestSocketSetup() {
    }

    static UdpSocket open(InetAddress localAddress, TwpingOptions options) throws SocketException {
        TwpingOptions.Test test = options.test();
        int low = test.portRange().low();
        int high = test.portRange().high();
        int first = test.portRange().isEphemeral() ? 0 : test.portRange().firstCandidate(new SecureRandom().nextInt());
        int buffer = Math.max(MIN_BUFFER_BYTES, (FRAME_OVERHEAD_BYTES + test.paddingBytes()) * BUFFERED_FRAMES);
        UdpSocketOptions.Builder b = UdpSocketOptions.builder().bindAddress(localAddress)
                .portRange(low, high, first).unicastTtl(255).receiveTtl(true)
                .receiveBufferBytes(buffer).sendBufferBytes(buffer)
                .receiveTos(true).timestamping(Timestamping.RX_TX_SOFTWARE);
        if (test.dscp() != 0) {
            b.tos(test.dscp() << 2);
        }
        if (options.connection().bindInterface() != null) {
            b.bindToDevice(options.connection().bindInterface());
        }
        return UdpSocket.open(b.build());
    }
}
