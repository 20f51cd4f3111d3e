package io.github.twping.session;

import java.io.IOException;
import java.net.InetSocketAddress;

/** The {@link SessionReflectorTest} suite over the JDK NIO transport. */
class ReflectorNioSocketTest extends SessionReflectorTest {
    @Override
    ReflectorSocket openSocket(InetSocketAddress bind) throws IOException {
        return ReflectorNioSocket.open(bind, 0);
    }
}
