package io.github.twping.session;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * {@link ReflectorSocket} over the {@code ffm} {@link UdpSocket}: kernel RX timestamps, the received TTL,
 * IP TTL 255 and the requested TOS on replies (RFC 5357 §4.2.1), and wakeup for shutdown. Where FFM is unavailable
 * the ffm module falls back to NIO and the capabilities say what is missing.
 */
public final class ReflectorUdpSocket implements ReflectorSocket {
    /** Socket buffers asked for (the kernel caps them at net.core.rmem_max / wmem_max). */
    static final int SOCKET_BUFFER_BYTES = 4 << 20;

    /** IP TTL / hop limit of reflected packets (C twampd). */
    public static final int REPLY_TTL = 255;

    private final UdpSocket socket;
    private final ReceivedPacket meta = new ReceivedPacket();
    private MemorySegment rxSegment;
    private int rxCapacity = -1;
    private MemorySegment rxSlice;

    private ReflectorUdpSocket(UdpSocket socket) {
        this.socket = socket;
    }

    /**
     * Binds a reflector socket on exactly {@code bind} (address and port; port 0 = ephemeral).
     *
     * @param tos the TOS / traffic class byte (DSCP &lt;&lt; 2); 0 leaves the system default
     * @throws io.github.twping.ffm.AddressInUseException when the port is taken
     */
    public static ReflectorUdpSocket open(InetSocketAddress bind, int tos) throws SocketException {
        UdpSocketOptions.Builder b = UdpSocketOptions.builder()
                .bindAddress(bind.getAddress())
                .port(bind.getPort())
                .unicastTtl(REPLY_TTL)
                .receiveTtl(true)
                .receiveTos(true)
                // A burst of a late sender at 20,000 packets/s overflows the 208 KiB default in ~10 ms
                // (docs/PERFORMANCE.md, high rate); the kernel caps this at net.core.rmem_max.
                .receiveBufferBytes(SOCKET_BUFFER_BYTES)
                .sendBufferBytes(SOCKET_BUFFER_BYTES)
                .timestamping(Timestamping.RX_SOFTWARE);
        if (tos != 0) {
            b.tos(tos);
        }
        return new ReflectorUdpSocket(UdpSocket.open(b.build()));
    }

    /** Wraps an already open socket (tests). */
    public static ReflectorUdpSocket wrap(UdpSocket socket) {
        return new ReflectorUdpSocket(socket);
    }

    /** Whether this is the native (FFM) implementation. */
    public boolean isNative() {
        return socket.isNative();
    }

    @Override
    public InetSocketAddress localAddress() {
        return socket.localAddress();
    }

    @Override
    public int receive(MemorySegment buffer, int capacity, long timeoutNs) throws SocketException {
        if (buffer != rxSegment || capacity != rxCapacity) {
            rxSegment = buffer;
            rxCapacity = capacity;
            rxSlice = buffer.asSlice(0, capacity);
        }
        return socket.receive(rxSlice, meta, timeoutNs);
    }

    @Override
    public boolean lastSourceIs(InetSocketAddress expected) {
        return meta.sourceIs(expected);
    }

    @Override
    public int lastTtl() {
        return meta.ttl();
    }

    @Override
    public int lastTos() {
        return meta.tos();
    }

    @Override
    public long lastRxEpochNs() {
        return meta.rxTimestampEpochNs();
    }

    @Override
    public int send(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        return socket.send(data, length, destination);
    }

    @Override
    public void wakeup() {
        socket.wakeup();
    }

    @Override
    public boolean kernelTimestamps() {
        return socket.capabilities().kernelRxTimestamps();
    }

    @Override
    public void close() {
        socket.close();
    }
}
