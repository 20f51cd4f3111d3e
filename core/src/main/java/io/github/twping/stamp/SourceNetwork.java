package io.github.twping.stamp;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * One entry of a reflector's allow-list: an address prefix ({@code 192.0.2.0/24}, {@code 2001:db8::/32}, or a
 * single address). Matching is on raw address bytes and allocates nothing.
 */
public final class SourceNetwork {
    private final byte[] prefix;
    private final int bits;

    private SourceNetwork(byte[] prefix, int bits) {
        this.prefix = prefix;
        this.bits = bits;
    }

    /**
     * Parses {@code address[/bits]} given numerically.
     *
     * @throws IllegalArgumentException with a one-line reason when the text is not a network
     */
    public static SourceNetwork parse(String text) {
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        if (address.isEmpty() || !(address.indexOf(':') >= 0 || address.chars().allMatch(c -> c == '.'
                || (c >= '0' && c <= '9')))) {
            throw new IllegalArgumentException("not a numeric address: " + text);
        }
        byte[] raw;
        try {
            raw = InetAddress.getByName(address).getAddress();
        } catch (UnknownHostException | SecurityException e) {
            throw new IllegalArgumentException("not a numeric address: " + text);
        }
        int bits = raw.length * 8;
        if (slash >= 0) {
            try {
                bits = Integer.parseInt(text.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad prefix length: " + text);
            }
            if (bits < 0 || bits > raw.length * 8) {
                throw new IllegalArgumentException("bad prefix length: " + text);
            }
        }
        return new SourceNetwork(raw, bits);
    }

    /** @return true when {@code address[0, length)} lies in this network (IPv4 never matches IPv6 and back). */
    public boolean contains(byte[] address, int length) {
        if (length != prefix.length) {
            return false;
        }
        int full = bits >>> 3;
        for (int i = 0; i < full; i++) {
            if (address[i] != prefix[i]) {
                return false;
            }
        }
        int rest = bits & 7;
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF << (8 - rest)) & 0xFF;
        return (address[full] & mask) == (prefix[full] & mask);
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(Arrays.copyOf(prefix, prefix.length)).getHostAddress() + "/" + bits;
        } catch (UnknownHostException e) {
            return "?/" + bits;
        }
    }
}
