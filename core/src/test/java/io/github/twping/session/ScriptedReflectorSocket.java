package io.github.twping.session;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** An in-memory {@link ReflectorSocket}: datagrams are offered by the test, replies are captured. */
final class ScriptedReflectorSocket implements ReflectorSocket {
    private record Datagram(byte[] data, InetSocketAddress from, int ttl) {
    }

    private static final Datagram WAKE = new Datagram(new byte[0], null, 0);
    private final LinkedBlockingQueue<Datagram> inbound = new LinkedBlockingQueue<>();
    private final LinkedBlockingQueue<byte[]> sent = new LinkedBlockingQueue<>();
    private Datagram last;

    void offer(byte[] data, InetSocketAddress from, int ttl) {
        inbound.add(new Datagram(data, from, ttl));
    }

    byte[] awaitSent(long timeoutNs) throws InterruptedException {
        return sent.poll(timeoutNs, TimeUnit.NANOSECONDS);
    }

    @Override
    public InetSocketAddress localAddress() {
        return new InetSocketAddress(0);
    }

    @Override
    public int receive(MemorySegment buffer, int capacity, long timeoutNs) throws java.io.IOException {
        try {
            Datagram d = timeoutNs < 0 ? inbound.take() : inbound.poll(timeoutNs, TimeUnit.NANOSECONDS);
            if (d == null) {
                return TIMEOUT;
            }
            if (d == WAKE) {
                return CLOSED;
            }
            last = d;
            int n = Math.min(capacity, d.data.length);
            MemorySegment.copy(d.data, 0, buffer, ValueLayout.JAVA_BYTE, 0, n);
            return n;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CLOSED;
        }
    }

    @Override
    public boolean lastSourceIs(InetSocketAddress expected) {
        return last.from.equals(expected);
    }

    @Override
    public int lastTtl() {
        return last.ttl;
    }

    @Override
    public long lastRxEpochNs() {
        return ReflectorClock.systemEpochNs();
    }

    @Override
    public int send(MemorySegment data, int length, InetSocketAddress destination) {
        sent.add(data.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
        return length;
    }

    @Override
    public void wakeup() {
        inbound.add(WAKE);
    }

    @Override
    public boolean kernelTimestamps() {
        return false;
    }

    @Override
    public void close() {
        wakeup();
    }
}
