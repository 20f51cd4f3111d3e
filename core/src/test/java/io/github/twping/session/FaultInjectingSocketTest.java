package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import io.github.twping.ffm.UdpSocket;
import io.github.twping.protocol.Mode;
import org.junit.jupiter.api.Test;

/** The fault decorator passes through what it does not inject: here the per-reply DSCP of a STAMP reflector. */
class FaultInjectingSocketTest {
    @Test
    void trafficClassReachesTheSocket() throws Exception {
        try (UdpSocket plain = SessionReflector.openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
             UdpSocket other = SessionReflector.openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0)) {
            FaultInjectingSocket faulty = FaultInjectingSocket.forMode(plain, ReflectorFaultInjection.parse("drop=5"),
                    Mode.OPEN);
            // the decorator answers as the socket it wraps: true where the kernel sets it (FFM), false on NIO
            assertEquals(other.trafficClass(0xb8), faulty.trafficClass(0xb8));
        }
    }
}
