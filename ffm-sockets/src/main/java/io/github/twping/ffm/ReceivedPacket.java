package io.github.twping.ffm;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Metadata of one received datagram, written by {@link UdpSocket#receive} into a caller-owned instance that
 * is reused for every packet (nothing is allocated per packet). Not thread-safe: one per receiving thread.
 *
 * <p>The source address is kept as raw bytes (IPv4-mapped IPv6 sources are stored as IPv4) so that
 * {@link #sourceIs} compares without allocating.
 */
public final class ReceivedPacket {
    /** Value of {@link #ttl()} and {@link #tos()} when the socket does not deliver it. */
    public static final int UNKNOWN = -1;

    private int length;
    private boolean truncated;
    private int ttl = UNKNOWN;
    private int tos = UNKNOWN;
    private long rxTimestampEpochNs;
    private TimestampSource timestampSource = TimestampSource.USER;
    private long rxHardwareTimestampNs;

    private final byte[] sourceBytes = new byte[16];
    private int sourceAddressLength;
    private int sourcePort;
    private int sourceScopeId;

    private final byte[] destinationBytes = new byte[16];
    private int destinationAddressLength;

    private InetSocketAddress expected;
    private final byte[] expectedBytes = new byte[16];
    private int expectedAddressLength;
    private int expectedPort;

    /** Bytes of payload written into the caller's buffer. */
    public int length() {
        return length;
    }

    /** True when the datagram was longer than the buffer (the rest was discarded). */
    public boolean truncated() {
        return truncated;
    }

    /** The IPv4 TTL or IPv6 hop limit the packet arrived with, or {@link #UNKNOWN}. */
    public int ttl() {
        return ttl;
    }

    /** The IPv4 TOS or IPv6 traffic class byte (DSCP &lt;&lt; 2 | ECN), or {@link #UNKNOWN}. */
    public int tos() {
        return tos;
    }

    /** The receive time, nanoseconds since 1970 (CLOCK_REALTIME); its origin is {@link #timestampSource()}. */
    public long rxTimestampEpochNs() {
        return rxTimestampEpochNs;
    }

    /** The raw hardware RX timestamp (NIC clock, SCM_TIMESTAMPING ts[2]) when one arrived, else 0. */
    public long rxHardwareTimestampNs() {
        return rxHardwareTimestampNs;
    }

    public TimestampSource timestampSource() {
        return timestampSource;
    }

    /** True when the receive time was taken by the kernel (software or hardware), not in user space. */
    public boolean kernelTimestamp() {
        return timestampSource != TimestampSource.USER;
    }

    public int sourcePort() {
        return sourcePort;
    }

    /** 4 for an IPv4 (or IPv4-mapped) source, 16 for IPv6, 0 before the first packet. */
    public int sourceAddressLength() {
        return sourceAddressLength;
    }

    /** Copies the raw source address ({@link #sourceAddressLength()} bytes) into {@code dst}; no allocation. */
    public void sourceAddressBytes(byte[] dst, int offset) {
        System.arraycopy(sourceBytes, 0, dst, offset, sourceAddressLength);
    }

    /**
     * True when the packet came from {@code expectedAddress} (address and port). Allocation-free when called
     * repeatedly with the same InetSocketAddress instance (its bytes are cached by identity).
     */
    public boolean sourceIs(InetSocketAddress expectedAddress) {
        if (expectedAddress != expected) {
            cacheExpected(expectedAddress);
        }
        return expectedPort == sourcePort && expectedAddressLength == sourceAddressLength
                && Arrays.equals(expectedBytes, 0, expectedAddressLength, sourceBytes, 0, sourceAddressLength);
    }

    private void cacheExpected(InetSocketAddress expectedAddress) {
        InetAddress address = expectedAddress.getAddress();
        byte[] raw = address == null ? new byte[0] : address.getAddress();
        System.arraycopy(raw, 0, expectedBytes, 0, raw.length);
        expectedAddressLength = raw.length;
        expectedPort = expectedAddress.getPort();
        expected = expectedAddress;
    }

    /** The source as an InetSocketAddress; allocates, not for hot paths. Null before the first packet. */
    public InetSocketAddress sourceAddress() {
        try {
            if (sourceAddressLength == 4) {
                return new InetSocketAddress(InetAddress.getByAddress(Arrays.copyOf(sourceBytes, 4)), sourcePort);
            }
            if (sourceAddressLength == 16) {
                byte[] raw = Arrays.copyOf(sourceBytes, 16);
                InetAddress address = sourceScopeId != 0
                        ? Inet6Address.getByAddress(null, raw, sourceScopeId) : InetAddress.getByAddress(raw);
                return new InetSocketAddress(address, sourcePort);
            }
            return null;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("impossible: raw address of length " + sourceAddressLength, e);
        }
    }

    /**
     * Records the metadata of one datagram for a {@link UdpSocket} implemented outside this module (an in-memory
     * socket in tests, a decorator). Allocates (the source address is read from {@code source}), so it is not
     * meant for the per-packet path of a real socket.
     *
     * @param length    payload bytes stored in the caller's buffer
     * @param truncated whether the datagram was longer than the buffer
     * @param source    the sender's address and port
     * @param ttl       the received TTL / hop limit, or {@link #UNKNOWN}
     * @param tos       the received TOS / traffic class byte, or {@link #UNKNOWN}
     * @param rxEpochNs the receive time, nanoseconds since 1970
     * @param origin    where the receive time comes from
     */
    public void record(int length, boolean truncated, InetSocketAddress source, int ttl, int tos, long rxEpochNs,
            TimestampSource origin) {
        reset();
        length(length, truncated);
        source(source);
        ttl(ttl);
        tos(tos);
        rxTimestamp(rxEpochNs, origin);
    }

    // ---- written by the socket implementations ----

    /** Clears the per-packet metadata before a receive. */
    void reset() {
        length = 0;
        truncated = false;
        ttl = UNKNOWN;
        tos = UNKNOWN;
        rxTimestampEpochNs = 0;
        timestampSource = TimestampSource.USER;
        rxHardwareTimestampNs = 0;
        destinationAddressLength = 0;
    }

    /**
     * Octets of the datagram's destination address: 4 or 16, 0 when not known (the socket was not opened with
     * {@link UdpSocketOptions.Builder#receiveDestination}, or this implementation cannot tell). An IPv4-mapped
     * IPv6 address is given as its 4 IPv4 octets.
     */
    public int destinationAddressLength() {
        return destinationAddressLength;
    }

    /** Copies the {@link #destinationAddressLength()} octets of the destination address into {@code dst}. */
    public void destinationAddressBytes(byte[] dst, int offset) {
        System.arraycopy(destinationBytes, 0, dst, offset, destinationAddressLength);
    }

    /** From a control message: {@code length} (4 or 16) address octets at {@code offset}. */
    void destination(MemorySegment control, long offset, int length) {
        int from = 0;
        int n = length;
        if (length == 16 && isMapped(control, offset)) {
            from = 12;
            n = 4;
        }
        for (int i = 0; i < n; i++) {
            destinationBytes[i] = control.get(ValueLayout.JAVA_BYTE, offset + from + i);
        }
        destinationAddressLength = n;
    }

    private static boolean isMapped(MemorySegment control, long offset) {
        for (int i = 0; i < 10; i++) {
            if (control.get(ValueLayout.JAVA_BYTE, offset + i) != 0) {
                return false;
            }
        }
        return control.get(ValueLayout.JAVA_BYTE, offset + 10) == (byte) 0xFF
                && control.get(ValueLayout.JAVA_BYTE, offset + 11) == (byte) 0xFF;
    }

    void length(int length, boolean truncated) {
        this.length = length;
        this.truncated = truncated;
    }

    void ttl(int ttl) {
        this.ttl = ttl;
    }

    void tos(int tos) {
        this.tos = tos;
    }

    void rxHardwareTimestamp(long ns) {
        this.rxHardwareTimestampNs = ns;
    }

    void rxTimestamp(long epochNs, TimestampSource source) {
        this.rxTimestampEpochNs = epochNs;
        this.timestampSource = source;
    }

    /** Raw source bytes array, filled by {@link SockAddrs#decodeSource}. */
    byte[] sourceBytesForWrite() {
        return sourceBytes;
    }

    void source(int addressLength, int port, int scopeId) {
        this.sourceAddressLength = addressLength;
        this.sourcePort = port;
        this.sourceScopeId = scopeId;
    }

    /** Sets the source from a Java address (NIO fallback). */
    void source(InetSocketAddress address) {
        InetAddress inet = address.getAddress();
        byte[] raw = inet.getAddress();
        System.arraycopy(raw, 0, sourceBytes, 0, raw.length);
        source(raw.length, address.getPort(), inet instanceof Inet6Address v6 ? v6.getScopeId() : 0);
    }

    @Override
    public String toString() {
        return "ReceivedPacket[length=" + length + ", from=" + (sourceAddressLength == 0 ? "-" : sourceAddress())
                + ", ttl=" + ttl + ", tos=" + tos + ", rx=" + rxTimestampEpochNs + " " + timestampSource
                + (truncated ? ", truncated" : "") + "]";
    }
}
