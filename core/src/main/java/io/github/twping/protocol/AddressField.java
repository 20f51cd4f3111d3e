package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;

/**
 * Codec for the 16-byte address fields of Request-TW-Session (RFC 4656 section 3.5): an IPv4
 * address (IPVN 4) occupies the first 4 bytes and the other 12 are zero; an IPv6 address (IPVN 6)
 * fills all 16 bytes; an all-zero field means "unspecified" (twping {@code -Z}).
 */
public final class AddressField {
    /** Size of the field on the wire. */
    public static final int LENGTH = 16;
    /** Length of an IPv4 address. */
    public static final int IPV4_LENGTH = 4;
    /** Length of an IPv6 address. */
    public static final int IPV6_LENGTH = 16;

    private AddressField() {
    }

    /**
     * Writes an address of 4 or 16 bytes (or zeros for {@code null}/empty) into the field at {@code offset}.
     *
     * @throws IllegalArgumentException for any other address length (a programming error)
     */
    public static void write(MemorySegment segment, long offset, byte[] address) {
        segment.asSlice(offset, LENGTH).fill((byte) 0);
        if (address == null || address.length == 0) {
            return;
        }
        if (address.length != IPV4_LENGTH && address.length != IPV6_LENGTH) {
            throw new IllegalArgumentException("address length " + address.length);
        }
        Wire.copyIn(address, segment, offset, address.length);
    }

    /** Copies the first {@code dst.length} (4 or 16) bytes of the field at {@code offset} into {@code dst}. */
    public static void read(MemorySegment segment, long offset, byte[] dst) {
        Wire.copyOut(segment, offset, dst, Math.min(dst.length, LENGTH));
    }

    /** @return true when the address part for {@code ipvn} (4: bytes 0..3, else all 16) is zero. */
    public static boolean isUnspecified(MemorySegment segment, long offset, int ipvn) {
        return Wire.isZero(segment, offset, ipvn == 4 ? IPV4_LENGTH : IPV6_LENGTH);
    }

    /** @return the address length for an IP version number: 4 for IPVN 4, 16 for IPVN 6, -1 otherwise. */
    public static int lengthForIpvn(int ipvn) {
        return switch (ipvn) {
            case 4 -> IPV4_LENGTH;
            case 6 -> IPV6_LENGTH;
            default -> -1;
        };
    }
}
