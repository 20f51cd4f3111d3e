package io.github.twping.session;

import io.github.twping.ffm.Capabilities;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.TimestampSource;
import io.github.twping.ffm.TxTimestampHandler;
import io.github.twping.ffm.UdpSocket;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** An in-memory {@link UdpSocket}: datagrams are offered by the test, replies are captured. */
public final class ScriptedReflectorSocket implements UdpSocket {
    private record Datagram(byte[] data, InetSocketAddress from, int ttl) {
    }

    private static final Datagram WAKE = new Datagram(new byte[0], null, 0);
    private final LinkedBlockingQueue<Datagram> inbound = new LinkedBlockingQueue<>();
    private final LinkedBlockingQueue<byte[]> sent = new LinkedBlockingQueue<>();
    private final InetSocketAddress local;
    private volatile int refuseSends;
    private long sends;

    /** A socket "bound" to the wildcard address, port 0. */
    public ScriptedReflectorSocket() {
        this(new InetSocketAddress(0));
    }

    /** A socket that reports {@code local} as its bound address. */
    public ScriptedReflectorSocket(InetSocketAddress local) {
        this.local = local;
    }

    /** Makes the next {@code n} sends return 0 (EAGAIN/ENOBUFS). */
    void refuseNextSends(int n) {
        refuseSends = n;
    }

    void offer(byte[] data, InetSocketAddress from, int ttl) {
        inbound.add(new Datagram(data, from, ttl));
    }

    byte[] awaitSent(long timeoutNs) throws InterruptedException {
        return sent.poll(timeoutNs, TimeUnit.NANOSECONDS);
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public boolean isNative() {
        return false;
    }

    @Override
    public Capabilities capabilities() {
        return new Capabilities(false, false, true, false, false, false, false);
    }

    @Override
    public int receive(MemorySegment buffer, ReceivedPacket meta, long timeoutNs) {
        try {
            Datagram d = timeoutNs < 0 ? inbound.take() : inbound.poll(timeoutNs, TimeUnit.NANOSECONDS);
            if (d == null) {
                return TIMEOUT;
            }
            if (d == WAKE) {
                return CLOSED;
            }
            int n = (int) Math.min(buffer.byteSize(), d.data.length);
            MemorySegment.copy(d.data, 0, buffer, ValueLayout.JAVA_BYTE, 0, n);
            meta.record(n, n < d.data.length, d.from, d.ttl, ReceivedPacket.UNKNOWN, ReflectorClock.systemEpochNs(),
                    TimestampSource.USER);
            return n;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CLOSED;
        }
    }

    @Override
    public int send(MemorySegment data, int length, InetSocketAddress destination) {
        if (refuseSends > 0) {
            refuseSends--;
            return 0;
        }
        sends++;
        sent.add(data.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
        return length;
    }

    @Override
    public int pollTxTimestamps(TxTimestampHandler handler) {
        return 0;
    }

    @Override
    public long sentPacketCount() {
        return sends;
    }

    @Override
    public void wakeup() {
        inbound.add(WAKE);
    }

    @Override
    public void close() {
        wakeup();
    }
}
