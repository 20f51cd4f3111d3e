package io.github.twping.ffm;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import static io.github.twping.ffm.SocketConstants.AF_INET;
import static io.github.twping.ffm.SocketConstants.AF_INET6;
import static io.github.twping.ffm.Structs.JAVA_INT_UNALIGNED;
import static io.github.twping.ffm.Structs.JAVA_SHORT_BE;
import static io.github.twping.ffm.Structs.SA_FAMILY;
import static io.github.twping.ffm.Structs.SA_PORT;
import static io.github.twping.ffm.Structs.SIN6_ADDR;
import static io.github.twping.ffm.Structs.SIN6_SCOPE_ID;
import static io.github.twping.ffm.Structs.SIN_ADDR;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Encodes and decodes struct sockaddr_in / sockaddr_in6 in native memory.
 */
final class SockAddrs {
    private static final int V4_MAPPED_PREFIX_BYTES = 12;

    private SockAddrs() {
    }

    /**
     * Encodes {@code address:port} for a socket of {@code socketFamily} into {@code dst} (at least 28 bytes);
     * an IPv4 address on an IPv6 socket becomes IPv4-mapped ({@code ::ffff:a.b.c.d}).
     *
     * @return the sockaddr length (16 or 28), or {@code -EAFNOSUPPORT} for an IPv6 address on an IPv4 socket
     */
    static int encode(InetAddress address, int port, int socketFamily, MemorySegment dst) {
        byte[] raw = address.getAddress();
        dst.fill((byte) 0);
        if (socketFamily == AF_INET) {
            if (raw.length != 4) {
                return -Errno.EAFNOSUPPORT;
            }
            dst.set(JAVA_SHORT, SA_FAMILY, (short) AF_INET);
            dst.set(JAVA_SHORT_BE, SA_PORT, (short) port);
            MemorySegment.copy(raw, 0, dst, JAVA_BYTE, SIN_ADDR, 4);
            return (int) Structs.SOCKADDR_IN.byteSize();
        }
        dst.set(JAVA_SHORT, SA_FAMILY, (short) AF_INET6);
        dst.set(JAVA_SHORT_BE, SA_PORT, (short) port);
        if (raw.length == 4) {
            dst.set(JAVA_BYTE, SIN6_ADDR + 10, (byte) 0xff);
            dst.set(JAVA_BYTE, SIN6_ADDR + 11, (byte) 0xff);
            MemorySegment.copy(raw, 0, dst, JAVA_BYTE, SIN6_ADDR + V4_MAPPED_PREFIX_BYTES, 4);
        } else {
            MemorySegment.copy(raw, 0, dst, JAVA_BYTE, SIN6_ADDR, 16);
            int scopeId = address instanceof Inet6Address v6 ? v6.getScopeId() : 0;
            dst.set(JAVA_INT_UNALIGNED, SIN6_SCOPE_ID, scopeId);
        }
        return (int) Structs.SOCKADDR_IN6.byteSize();
    }

    /** Copies the source of a received datagram into {@code meta} without allocating; IPv4-mapped becomes IPv4. */
    static void decodeSource(MemorySegment src, int length, ReceivedPacket meta) {
        byte[] dst = meta.sourceBytesForWrite();
        int family = length >= 2 ? src.get(JAVA_SHORT, SA_FAMILY) : 0;
        int port = Short.toUnsignedInt(src.get(JAVA_SHORT_BE, SA_PORT));
        if (family == AF_INET && length >= Structs.SOCKADDR_IN.byteSize()) {
            MemorySegment.copy(src, JAVA_BYTE, SIN_ADDR, dst, 0, 4);
            meta.source(4, port, 0);
        } else if (family == AF_INET6 && length >= Structs.SOCKADDR_IN6.byteSize()) {
            if (isV4Mapped(src)) {
                MemorySegment.copy(src, JAVA_BYTE, SIN6_ADDR + V4_MAPPED_PREFIX_BYTES, dst, 0, 4);
                meta.source(4, port, 0);
            } else {
                MemorySegment.copy(src, JAVA_BYTE, SIN6_ADDR, dst, 0, 16);
                meta.source(16, port, src.get(JAVA_INT_UNALIGNED, SIN6_SCOPE_ID));
            }
        } else {
            meta.source(0, 0, 0);
        }
    }

    private static boolean isV4Mapped(MemorySegment src) {
        for (int i = 0; i < 10; i++) {
            if (src.get(JAVA_BYTE, SIN6_ADDR + i) != 0) {
                return false;
            }
        }
        return src.get(JAVA_BYTE, SIN6_ADDR + 10) == (byte) 0xff && src.get(JAVA_BYTE, SIN6_ADDR + 11) == (byte) 0xff;
    }

    /** Decodes a sockaddr into an InetSocketAddress (allocates; for set-up paths such as getsockname). */
    static InetSocketAddress decode(MemorySegment src, int length) {
        ReceivedPacket scratch = new ReceivedPacket();
        decodeSource(src, length, scratch);
        if (scratch.sourceAddressLength() == 0) {
            return null;
        }
        int family = src.get(JAVA_SHORT, SA_FAMILY);
        if (family == AF_INET6 && scratch.sourceAddressLength() == 4) {
            // keep the IPv6 spelling for an IPv6 socket's own address (e.g. ::ffff:127.0.0.1 bound explicitly)
            byte[] raw = new byte[16];
            MemorySegment.copy(src, JAVA_BYTE, SIN6_ADDR, raw, 0, 16);
            try {
                return new InetSocketAddress(Inet6Address.getByAddress(null, raw, 0), scratch.sourcePort());
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }
        return scratch.sourceAddress();
    }

    /** The wildcard address (0.0.0.0 or ::) of a socket family. */
    static InetAddress wildcard(int family) {
        try {
            return family == AF_INET ? InetAddress.getByAddress(new byte[4]) : InetAddress.getByAddress(new byte[16]);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The socket family for an address: AF_INET for IPv4, AF_INET6 otherwise. */
    static int familyOf(InetAddress address) {
        return address instanceof Inet4Address ? AF_INET : AF_INET6;
    }
}
