package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The loopback behaviour suite against the NIO fallback, which must report kernel metadata as absent. */
class NioUdpSocketTest extends UdpSocketBehaviour {
    @Override
    boolean forceNio() {
        return true;
    }

    @Override
    boolean expectsKernelMetadata() {
        return false;
    }

    @Override
    void assertReleased(UdpSocket socket) {
        assertInstanceOf(NioUdpSocket.class, socket);
    }

    @Test
    void shouldRefuseBindToDevice() throws Exception {
        SocketException e = assertThrows(SocketException.class, () -> open(options("127.0.0.1").bindToDevice("lo")));
        assertFalse(e.getMessage().isEmpty());
    }
}
