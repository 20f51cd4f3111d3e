package io.github.twping.ffm;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;

/**
 * The portable {@link UdpSocket} over {@link DatagramChannel}, for where FFM (or Linux) is unavailable.
 *
 * <p>What it cannot do: receive TTL or TOS ({@link ReceivedPacket#UNKNOWN}), kernel timestamps (receive
 * times are read in user space and marked {@link TimestampSource#USER}), TX timestamps, set the unicast
 * TTL, or bind to a device (refused with an error). A selector gives the receive timeout and the wakeup.
 */
final class NioUdpSocket implements UdpSocket {
    private final DatagramChannel channel;
    private final Selector selector;
    private final InetSocketAddress localAddress;
    private final Capabilities capabilities;
    private volatile boolean closing;

    private MemorySegment sendSegment;
    private ByteBuffer sendView;
    private long sentPacketCount;

    private MemorySegment receiveSegment;
    private ByteBuffer receiveView;

    private NioUdpSocket(DatagramChannel channel, Selector selector, Capabilities capabilities) throws IOException {
        this.channel = channel;
        this.selector = selector;
        this.localAddress = (InetSocketAddress) channel.getLocalAddress();
        this.capabilities = capabilities;
    }

    static NioUdpSocket open(UdpSocketOptions o) throws SocketException {
        if (o.bindToDevice() != null) {
            throw new SocketException("setsockopt(SO_BINDTODEVICE)", Errno.ENOPROTOOPT,
                    "not supported by the NIO fallback", null);
        }
        DatagramChannel channel = null;
        Selector selector = null;
        try {
            channel = DatagramChannel.open(o.family());
            if (o.receiveBufferBytes() != UdpSocketOptions.DEFAULT) {
                channel.setOption(StandardSocketOptions.SO_RCVBUF, o.receiveBufferBytes());
            }
            if (o.sendBufferBytes() != UdpSocketOptions.DEFAULT) {
                channel.setOption(StandardSocketOptions.SO_SNDBUF, o.sendBufferBytes());
            }
            boolean tosSet = false;
            if (o.tos() != UdpSocketOptions.DEFAULT) {
                channel.setOption(StandardSocketOptions.IP_TOS, o.tos());
                tosSet = true;
            }
            bind(channel, o);
            channel.configureBlocking(false);
            selector = Selector.open();
            channel.register(selector, SelectionKey.OP_READ);
            Capabilities capabilities = new Capabilities(false, tosSet, false, false, false, false, false);
            return new NioUdpSocket(channel, selector, capabilities);
        } catch (SocketException e) {
            closeQuietly(channel, selector);
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel, selector);
            throw new SocketException("open", 0, String.valueOf(e.getMessage()), e);
        }
    }

    private static void bind(DatagramChannel channel, UdpSocketOptions o) throws IOException {
        InetAddress address = o.bindAddress() != null ? o.bindAddress()
                : SockAddrs.wildcard(o.family() == StandardProtocolFamily.INET6
                ? SocketConstants.AF_INET6 : SocketConstants.AF_INET);
        int low = o.portLow();
        int high = o.portHigh();
        int port = o.portFirstTry() != 0 ? o.portFirstTry() : low;
        int attempts = high - low + 1;
        BindException last = null;
        for (int i = 0; i < attempts; i++) {
            try {
                channel.bind(new InetSocketAddress(address, port));
                return;
            } catch (BindException e) {
                if (!String.valueOf(e.getMessage()).contains("in use")) {
                    throw new SocketException("bind", 0, e.getMessage(), e);
                }
                last = e;
            }
            port = port == high ? low : port + 1;
        }
        throw attempts == 1 ? new AddressInUseException("bind", "Address already in use", last)
                : new AddressInUseException("bind", "Address already in use (every port of " + low + ".." + high + ")", last);
    }

    private static void closeQuietly(DatagramChannel channel, Selector selector) {
        try {
            if (selector != null) {
                selector.close();
            }
            if (channel != null) {
                channel.close();
            }
        } catch (IOException ignored) {
            // nothing more to release
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public boolean isNative() {
        return false;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public int send(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        Objects.checkFromIndexSize(0, length, data.byteSize());
        if (data != sendSegment) {
            sendView = data.asByteBuffer();
            sendSegment = data;
        }
        sendView.clear().limit(length);
        try {
            int n = channel.send(sendView, destination);
            if (n > 0) {
                sentPacketCount++;
            }
            return n;
        } catch (ClosedChannelException e) {
            throw new SocketException("sendto", Errno.EBADF, "socket closed", e);
        } catch (UnsupportedAddressTypeException e) {
            throw new SocketException("sendto " + destination, Errno.EAFNOSUPPORT);
        } catch (UnresolvedAddressException e) {
            throw new SocketException("sendto", Errno.EDESTADDRREQ, "unresolved destination " + destination, e);
        } catch (IOException e) {
            throw new SocketException("sendto", 0, String.valueOf(e.getMessage()), e);
        }
    }

    @Override
    public int receive(MemorySegment buffer, ReceivedPacket meta, long timeoutNs) throws SocketException {
        if (buffer != receiveSegment) {
            receiveView = buffer.asByteBuffer();
            receiveSegment = buffer;
        }
        long deadlineNs = System.nanoTime() + Math.max(timeoutNs, 0);
        try {
            while (true) {
                if (closing) {
                    return CLOSED;
                }
                receiveView.clear();
                SocketAddress source = channel.receive(receiveView);
                if (source != null) {
                    meta.reset();
                    meta.rxTimestamp(epochNs(), TimestampSource.USER);
                    meta.length(receiveView.position(), false);
                    meta.source((InetSocketAddress) source);
                    return receiveView.position();
                }
                if (timeoutNs == 0) {
                    return TIMEOUT;
                }
                long remainingNs = timeoutNs < 0 ? Long.MAX_VALUE : deadlineNs - System.nanoTime();
                if (remainingNs <= 0) {
                    return TIMEOUT;
                }
                long waitMs = timeoutNs < 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNs + 999_999));
                selector.select(waitMs);
                selector.selectedKeys().clear();
            }
        } catch (ClosedChannelException | ClosedSelectorException e) {
            return CLOSED;
        } catch (IOException e) {
            if (closing) {
                return CLOSED;
            }
            throw new SocketException("recvmsg", 0, String.valueOf(e.getMessage()), e);
        }
    }

    private static long epochNs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @Override
    public int pollTxTimestamps(TxTimestampHandler handler) {
        return 0;
    }

    @Override
    public long sentPacketCount() {
        return sentPacketCount;
    }

    @Override
    public void wakeup() {
        closing = true;
        selector.wakeup();
    }

    @Override
    public void close() {
        closing = true;
        selector.wakeup();
        closeQuietly(channel, selector);
    }

    @Override
    public String toString() {
        return "NioUdpSocket[local=" + localAddress + ", " + capabilities + "]";
    }
}
