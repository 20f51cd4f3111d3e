package io.github.twping.client;

import io.github.twping.config.DscpParser;
import java.net.InetAddress;

import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.session.SplitTestSocket;
import io.github.twping.session.TestSocketOptions;
import io.github.twping.schedule.StartTimes;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The client's test socket (RFC 5357 §3.5) from the command line: {@link TestSocketOptions#sender} bound to the
 * control connection's local address on a port of {@code -P}, {@code -D} as the TOS byte, {@code -B} as the
 * bound device, the buffers of the schedule's rate.
 */
final class TestSocketSetup {
    private TestSocketSetup() {
    }

    static UdpSocket open(InetAddress localAddress, TwpingOptions options) throws SocketException {
        TwpingOptions.Test test = options.test();
        int low = test.portRange().low();
        int high = test.portRange().high();
        // The first port of -P's range to try: any number will do (the port is no secret, the Request-TW-Session
        // carries it); not a SecureRandom, whose first use starts the JDK's security providers before the start
        // time is taken (docs/CLIENT.md, "Start-up").
        int first = test.portRange().isEphemeral() ? 0 : test.portRange().firstCandidate(ThreadLocalRandom.current().nextInt());
        // no TX stamps queued unread with --send-stamp user
        UdpSocketOptions.Builder b = TestSocketOptions.sender(localAddress, bufferBytes(options), tos(options),
                options.connection().bindInterface(), options.extras().kernelSendStamps())
                .portRange(low, high, first).receiveTos(true)
                .reusePort(options.extras().kernelSendStamps()); // for the sending socket, below
        return UdpSocket.open(b.build());
    }

    /**
     * With kernel TX stamps on the FFM socket: a second socket for sending on the same port
     * ({@link SplitTestSocket#openSender}, with {@code -D}, {@code -B} and the buffers of the test socket), and
     * {@code socket} connected to the reflector (docs/CLIENT.md, "Two sockets"); null when that is not possible or
     * not wanted ({@code --send-stamp user}), and one socket then sends and receives.
     */
    static UdpSocket openSplitSender(UdpSocket socket, InetSocketAddress reflector, TwpingOptions options) {
        if (!options.extras().kernelSendStamps()) {
            return null;
        }
        return SplitTestSocket.openSender(socket, reflector, TestSocketOptions.splitSender(bufferBytes(options),
                tos(options), options.connection().bindInterface()));
    }

    /** The TOS byte of the test packets: {@code -D} as DSCP, {@code --ecn} (STAMP, TWAMP-Light) as ECN. */
    static int tos(TwpingOptions options) {
        return DscpParser.tosByte(options.test().dscp()) | options.stamp().ecn();
    }

    /** The buffers of the session's sockets: {@link TestSocketOptions#bufferBytes} at the schedule's mean rate. */
    static int bufferBytes(TwpingOptions options) {
        TwpingOptions.Test test = options.test();
        return TestSocketOptions.bufferBytes(test.paddingBytes(), StartTimes.packetRate(test.scheduleSlots()));
    }
}
