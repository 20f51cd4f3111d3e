package io.github.twping.session;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;

/**
 * {@link ReflectorSocket} over a JDK {@link DatagramChannel}: the portable fallback. It cannot read the
 * received TTL (reported unknown, so replies carry 255) nor set the unicast TTL, and it timestamps in user
 * space right after the receive; the JDK also allocates a source address per datagram.
 */
public final class ReflectorNioSocket implements ReflectorSocket {
    private final DatagramChannel channel;
    private final Selector selector;
    private final InetSocketAddress local;
    private volatile boolean closed;
    private InetSocketAddress lastSource;
    private MemorySegment rxSegment;
    private ByteBuffer rxBuffer;
    private MemorySegment txSegment;
    private ByteBuffer txBuffer;
    private long lastRxEpochNs;

    private ReflectorNioSocket(DatagramChannel channel) throws IOException {
        this.channel = channel;
        this.selector = Selector.open();
        channel.configureBlocking(false);
        channel.register(selector, SelectionKey.OP_READ);
        this.local = (InetSocketAddress) channel.getLocalAddress();
    }

    /**
     * Binds a socket on {@code bind} with the TOS byte {@code tos} (DSCP &lt;&lt; 2; 0 = leave default).
     *
     * @throws java.net.BindException when the address is in use (the caller tries another port)
     */
    public static ReflectorNioSocket open(InetSocketAddress bind, int tos) throws IOException {
        DatagramChannel ch = DatagramChannel.open(bind.getAddress() instanceof java.net.Inet6Address
                ? java.net.StandardProtocolFamily.INET6 : java.net.StandardProtocolFamily.INET);
        try {
            if (tos != 0) {
                ch.setOption(StandardSocketOptions.IP_TOS, tos);
            }
            ch.bind(bind);
            return new ReflectorNioSocket(ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public int receive(MemorySegment buffer, int capacity, long timeoutNs) throws IOException {
        if (buffer != rxSegment) {
            rxSegment = buffer;
            rxBuffer = buffer.asByteBuffer();
        }
        ByteBuffer bb = rxBuffer;
        bb.clear().limit(capacity);
        long deadlineNs = timeoutNs < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutNs;
        while (true) {
            if (closed) {
                return CLOSED;
            }
            SocketAddress from;
            try {
                from = channel.receive(bb);
            } catch (ClosedChannelException e) {
                return CLOSED;
            }
            if (from != null) {
                lastRxEpochNs = ReflectorClock.systemEpochNs();
                lastSource = (InetSocketAddress) from;
                return bb.position();
            }
            long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0) {
                return TIMEOUT;
            }
            long ms = Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNs));
            selector.select(timeoutNs < 0 ? 0 : ms);
            selector.selectedKeys().clear();
        }
    }

    @Override
    public boolean lastSourceIs(InetSocketAddress expected) {
        return lastSource != null && lastSource.getPort() == expected.getPort()
                && sameAddress(lastSource, expected);
    }

    private static boolean sameAddress(InetSocketAddress a, InetSocketAddress b) {
        byte[] x = a.getAddress().getAddress();
        byte[] y = b.getAddress().getAddress();
        return java.util.Arrays.equals(unmap(x), unmap(y));
    }

    private static byte[] unmap(byte[] b) {
        if (b.length == 16) {
            for (int i = 0; i < 10; i++) {
                if (b[i] != 0) {
                    return b;
                }
            }
            if (b[10] == (byte) 0xFF && b[11] == (byte) 0xFF) {
                return new byte[] {b[12], b[13], b[14], b[15]};
            }
        }
        return b;
    }

    @Override
    public int lastTtl() {
        return -1;
    }

    @Override
    public long lastRxEpochNs() {
        return lastRxEpochNs;
    }

    @Override
    public int send(MemorySegment data, int length, InetSocketAddress destination) throws IOException {
        if (data != txSegment) {
            txSegment = data;
            txBuffer = data.asByteBuffer();
        }
        ByteBuffer bb = txBuffer;
        bb.clear().limit(length);
        return channel.send(bb, destination);
    }

    @Override
    public void wakeup() {
        closed = true;
        selector.wakeup();
    }

    @Override
    public boolean kernelTimestamps() {
        return false;
    }

    @Override
    public void close() {
        closed = true;
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing useful to do
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing useful to do
        }
    }
}
