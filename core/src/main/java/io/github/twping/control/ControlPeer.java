package io.github.twping.control;

import io.github.twping.protocol.Mode;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * Who is on the other end of a server control connection once it is set up: addresses, mode,
 * identity, and (modes 2/4/8) access to the control session keys for deriving test-session keys.
 * The keys never leave this object except as copies passed to a derivation; they are wiped when
 * the connection ends.
 */
public final class ControlPeer {
    private final InetSocketAddress remote;
    private final InetSocketAddress local;
    private final Mode mode;
    private final String identity;
    private final byte[] aesKey;
    private final byte[] hmacKey;
    private boolean wiped;

    /** A peer without session keys (Open mode, or for tests of policy code). */
    public ControlPeer(InetSocketAddress remote, InetSocketAddress local, Mode mode, String identity) {
        this(remote, local, mode, identity, null, null);
    }

    ControlPeer(InetSocketAddress remote, InetSocketAddress local, Mode mode, String identity,
                byte[] aesKey16, byte[] hmacKey32) {
        this.remote = remote;
        this.local = local;
        this.mode = mode;
        this.identity = identity;
        this.aesKey = aesKey16 == null ? null : aesKey16.clone();
        this.hmacKey = hmacKey32 == null ? null : hmacKey32.clone();
    }

    /** @return the client's address and port. */
    public InetSocketAddress remote() {
        return remote;
    }

    /** @return this server's address and port on the connection. */
    public InetSocketAddress local() {
        return local;
    }

    /** @return the negotiated mode. */
    public Mode mode() {
        return mode;
    }

    /** @return the KeyID (UTF-8, up to the first NUL), or {@code null} in Open mode. */
    public String identity() {
        return identity;
    }

    /**
     * Derives something (the test-session keys, RFC 4656 §4.1.1, docs/PROTOCOL-TEST.md) from the control session keys:
     * {@code derivation} receives copies of K_aes (16 bytes) and K_hmac (32 bytes).
     *
     * @return the derivation's result, or {@code null} when there are no session keys (Open mode)
     *         or the connection has ended
     */
    public synchronized <T> T deriveFromSessionKeys(BiFunction<byte[], byte[], T> derivation) {
        if (aesKey == null || wiped) {
            return null;
        }
        byte[] a = aesKey.clone();
        byte[] h = hmacKey.clone();
        try {
            return derivation.apply(a, h);
        } finally {
            Arrays.fill(a, (byte) 0);
            Arrays.fill(h, (byte) 0);
        }
    }

    /** Wipes the session keys (called by the connection when it ends). */
    synchronized void wipe() {
        wiped = true;
        if (aesKey != null) {
            Arrays.fill(aesKey, (byte) 0);
            Arrays.fill(hmacKey, (byte) 0);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ControlPeer p && Objects.equals(remote, p.remote) && Objects.equals(local, p.local)
                && mode == p.mode && Objects.equals(identity, p.identity);
    }

    @Override
    public int hashCode() {
        return Objects.hash(remote, local, mode, identity);
    }

    @Override
    public String toString() {
        return "ControlPeer[remote=" + remote + ", local=" + local + ", mode=" + mode + ", identity=" + identity + "]";
    }
}
