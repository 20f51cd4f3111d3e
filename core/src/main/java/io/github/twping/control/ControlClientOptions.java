package io.github.twping.control;

import io.github.twping.protocol.Mode;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.List;

/**
 * Settings for {@link ControlClient#connect}: where to connect, which modes to request, the
 * identity and pass-phrase, and optional timeouts (C twping has none; the defaults are none).
 * Mutable builder; {@code connect} copies what it needs.
 */
public final class ControlClientOptions {
    /** The IANA TWAMP-Control port. */
    public static final int DEFAULT_PORT = 862;
    /**
     * Default largest Server-Greeting Count the client derives a key with: 2^15, the default maximum of
     * RFC 8913's {@code max-count}. RFC 5357 §6 lets the client close the connection when the Count exceeds
     * its configured maximum; C twping has no limit (docs/CLIENT.md, hostile servers).
     */
    public static final long DEFAULT_MAX_PBKDF2_COUNT = 1L << 15;

    String host;
    int port = DEFAULT_PORT;
    List<InetAddress> addresses;
    InetAddress bindAddress;
    boolean ipv4Only;
    boolean ipv6Only;
    int requestedModes = Mode.OPEN.bits();
    byte[] identity;
    byte[] passphrase;
    int connectTimeoutMs;
    int readTimeoutMs;
    SecureRandom random;
    ControlCancellation cancellation;
    long maxPbkdf2Count = DEFAULT_MAX_PBKDF2_COUNT;

    /** @return options for a server host name or literal and port. */
    public static ControlClientOptions of(String host, int port) {
        ControlClientOptions o = new ControlClientOptions();
        o.host = host;
        o.port = port;
        return o;
    }

    /**
     * Lets {@code cancellation} abort the opening of the connection and, after it, a blocked session request or
     * start (a signal before the test), until {@link ControlClient#endCancellableSetUp()}.
     */
    public ControlClientOptions cancellation(ControlCancellation cancellation) {
        this.cancellation = cancellation;
        return this;
    }

    /** Uses already-resolved addresses (tried in the given order) instead of resolving the host. */
    public ControlClientOptions addresses(List<InetAddress> addresses) {
        this.addresses = List.copyOf(addresses);
        return this;
    }

    /** Local address to bind the control socket to ({@code -S}); {@code null} = any. */
    public ControlClientOptions bindAddress(InetAddress bindAddress) {
        this.bindAddress = bindAddress;
        return this;
    }

    /** Only IPv4 addresses ({@code -4}). */
    public ControlClientOptions ipv4Only(boolean ipv4Only) {
        this.ipv4Only = ipv4Only;
        return this;
    }

    /** Only IPv6 addresses ({@code -6}). */
    public ControlClientOptions ipv6Only(boolean ipv6Only) {
        this.ipv6Only = ipv6Only;
        return this;
    }

    /** Requested modes bit mask ({@code -A}); see {@link Mode#parseLetters(CharSequence)}. */
    public ControlClientOptions requestedModes(int mask) {
        this.requestedModes = mask;
        return this;
    }

    /**
     * KeyID and pass-phrase for the keyed modes. With {@code identity == null} (or no pass-phrase)
     * the keyed modes are removed from the available set. The arrays are copied.
     */
    public ControlClientOptions identity(byte[] identity, byte[] passphrase) {
        this.identity = identity == null ? null : identity.clone();
        this.passphrase = passphrase == null ? null : passphrase.clone();
        return this;
    }

    /** TCP connect timeout per address in milliseconds; 0 = the OS default (C behaviour). */
    public ControlClientOptions connectTimeoutMs(int ms) {
        this.connectTimeoutMs = ms;
        return this;
    }

    /** Inactivity timeout of each control read in milliseconds; 0 = none (C behaviour). */
    public ControlClientOptions readTimeoutMs(int ms) {
        this.readTimeoutMs = ms;
        return this;
    }

    /**
     * Largest Server-Greeting Count accepted in the keyed modes (default {@link #DEFAULT_MAX_PBKDF2_COUNT});
     * a greeting above it is refused before any key is derived.
     */
    public ControlClientOptions maxPbkdf2Count(long max) {
        if (max < 1 || max > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxPbkdf2Count " + max);
        }
        this.maxPbkdf2Count = max;
        return this;
    }

    /** Source of session keys and the Client-IV (default: a new {@link SecureRandom}). */
    public ControlClientOptions random(SecureRandom random) {
        this.random = random;
        return this;
    }
}
