package io.github.twping.session;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A Session-Sender written directly from RFC 5357 §4.1.2 with the JDK's own crypto (independent of the
 * reflector's Bouncy Castle code): builds sender packets and opens replies, over a loopback UDP socket.
 */
public final class HandBuiltSender implements AutoCloseable {
    /** An opened reply. */
    public record Reply(int length, long reflectorSeq, long sendNtp, int errorEstimate, long receiveNtp, long senderSeq,
            long senderNtp, int senderError, int senderTtl, byte[] padding, boolean hmacOk, byte[] raw) {
    }

    final int mode;
    final boolean auth;
    static final int SENDER_TTL = 77;
    final UdpSocket socket;
    private final ReceivedPacket meta = new ReceivedPacket();
    private final MemorySegment rx = Arena.ofAuto().allocate(70_000);
    private final MemorySegment tx = Arena.ofAuto().allocate(70_000);
    private final byte[] aesKey;
    private final byte[] hmacKey;
    private final Random random = new Random(42);

    public HandBuiltSender(int mode, byte[] aesKey, byte[] hmacKey) throws IOException {
        this(mode, aesKey, hmacKey, 0);
    }

    /** A sender bound to 127.0.0.1:{@code port} (0 = ephemeral). */
    public HandBuiltSender(int mode, byte[] aesKey, byte[] hmacKey, int port) throws IOException {
        this(mode, aesKey, hmacKey, port, InetAddress.getLoopbackAddress());
    }

    /** A sender bound to {@code address}:{@code port}. */
    public HandBuiltSender(int mode, byte[] aesKey, byte[] hmacKey, int port, InetAddress address)
            throws IOException {
        this.mode = mode;
        this.auth = mode == 2 || mode == 4;
        this.aesKey = aesKey;
        this.hmacKey = hmacKey;
        this.socket = UdpSocket.open(UdpSocketOptions.builder().bindAddress(address)
                .port(port).unicastTtl(SENDER_TTL).receiveTtl(true).receiveTos(true).build());
    }

    public InetSocketAddress address() {
        return socket.localAddress();
    }

    int headerLength() {
        return auth ? 48 : 14;
    }

    /** Builds a sender packet with random padding; returns it (wire form). */
    public byte[] build(long seq, long timestampNtp, int errorEstimate, int padding) throws GeneralSecurityException {
        byte[] p = new byte[headerLength() + padding];
        ByteBuffer b = ByteBuffer.wrap(p);
        byte[] pad = new byte[padding];
        random.nextBytes(pad);
        if (!auth) {
            b.putInt(0, (int) seq).putLong(4, timestampNtp).putShort(12, (short) errorEstimate);
            System.arraycopy(pad, 0, p, 14, padding);
            return p;
        }
        byte[] plain = new byte[32];
        ByteBuffer.wrap(plain).putInt(0, (int) seq).putLong(16, timestampNtp).putShort(24, (short) errorEstimate);
        if (mode == 2) {
            System.arraycopy(ecb(true, Arrays.copyOf(plain, 16)), 0, p, 0, 16);
            System.arraycopy(plain, 16, p, 16, 16);
            System.arraycopy(hmac(plain, 16), 0, p, 32, 16);
        } else {
            System.arraycopy(cbc(true, plain), 0, p, 0, 32);
            System.arraycopy(hmac(plain, 32), 0, p, 32, 16);
        }
        System.arraycopy(pad, 0, p, 48, padding);
        return p;
    }

    /** IP TTL of the last reply (-1 unknown). */
    public int lastReplyTtl() {
        return meta.ttl();
    }

    /** TOS byte of the last reply (-1 unknown). */
    public int lastReplyTos() {
        return meta.tos();
    }

    /** Whether the socket reports received TTL and TOS. */
    public boolean readsTtlAndTos() {
        return socket.capabilities().receiveTtl() && socket.capabilities().receiveTos();
    }

    /** Whether packets really leave with {@link #SENDER_TTL}. */
    boolean ttlSet() {
        return socket.capabilities().setTtl();
    }

    public void send(byte[] packet, InetSocketAddress to) throws IOException {
        MemorySegment.copy(packet, 0, tx, ValueLayout.JAVA_BYTE, 0, packet.length);
        if (socket.send(tx, packet.length, to) != packet.length) {
            throw new IOException("short send");
        }
    }

    /** Receives and opens one reply (waits up to 30 s, a generous bound for a loaded machine, else fails). */
    public Reply receive() throws IOException, GeneralSecurityException {
        Reply r = poll(30_000);
        if (r == null) {
            throw new IOException("no reply within 30 s");
        }
        return r;
    }

    /** Receives one reply or returns null if none arrives within {@code timeoutMs}. */
    public Reply poll(int timeoutMs) throws IOException, GeneralSecurityException {
        int n = socket.receive(rx, meta, TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        if (n < 0) {
            return null;
        }
        return open(rx.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
    }

    Reply open(byte[] r) throws GeneralSecurityException {
        if (!auth) {
            ByteBuffer b = ByteBuffer.wrap(r);
            return new Reply(r.length, Integer.toUnsignedLong(b.getInt(0)), b.getLong(4), b.getShort(12) & 0xFFFF,
                    b.getLong(16), Integer.toUnsignedLong(b.getInt(24)), b.getLong(28), b.getShort(36) & 0xFFFF,
                    r[40] & 0xFF, Arrays.copyOfRange(r, 41, r.length), true, r);
        }
        byte[] plain;
        boolean ok;
        if (mode == 2) {
            plain = Arrays.copyOf(r, 96);
            System.arraycopy(ecb(false, Arrays.copyOf(r, 16)), 0, plain, 0, 16);
            ok = Arrays.equals(hmac(plain, 16), Arrays.copyOfRange(r, 96, 112));
        } else {
            plain = cbc(false, Arrays.copyOf(r, 96));
            ok = Arrays.equals(hmac(plain, 96), Arrays.copyOfRange(r, 96, 112));
        }
        ByteBuffer b = ByteBuffer.wrap(plain);
        return new Reply(r.length, Integer.toUnsignedLong(b.getInt(0)), b.getLong(16), b.getShort(24) & 0xFFFF,
                b.getLong(32), Integer.toUnsignedLong(b.getInt(48)), b.getLong(64), b.getShort(72) & 0xFFFF,
                plain[80] & 0xFF, Arrays.copyOfRange(r, 112, r.length), ok, r);
    }

    private byte[] ecb(boolean encrypt, byte[] in) throws GeneralSecurityException {
        Cipher c = Cipher.getInstance("AES/ECB/NoPadding");
        c.init(encrypt ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE, new SecretKeySpec(aesKey, "AES"));
        return c.doFinal(in);
    }

    private byte[] cbc(boolean encrypt, byte[] in) throws GeneralSecurityException {
        Cipher c = Cipher.getInstance("AES/CBC/NoPadding");
        c.init(encrypt ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE, new SecretKeySpec(aesKey, "AES"),
                new IvParameterSpec(new byte[16]));
        return c.doFinal(in);
    }

    private byte[] hmac(byte[] in, int len) throws GeneralSecurityException {
        Mac m = Mac.getInstance("HmacSHA1");
        m.init(new SecretKeySpec(hmacKey, "HmacSHA1"));
        m.update(in, 0, len);
        return Arrays.copyOf(m.doFinal(), 16);
    }

    @Override
    public void close() {
        socket.close();
    }
}
