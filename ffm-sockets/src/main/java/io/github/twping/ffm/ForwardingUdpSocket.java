package io.github.twping.ffm;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A {@link UdpSocket} that passes every call to another one: the base of decorators that change one or two calls
 * (a socket that delays or drops sends for a test or a fault-injecting server) and leave the rest alone.
 *
 * <p>The batch calls are passed on too, not split into single calls: a subclass that changes {@link #send} must
 * also override {@link #sendBatch} if batches must go through its {@code send} ({@link #sendEach} does that).
 */
public abstract class ForwardingUdpSocket implements UdpSocket {
    /** The socket every call goes to; owned by this decorator (closed with it). */
    protected final UdpSocket delegate;

    protected ForwardingUdpSocket(UdpSocket delegate) {
        this.delegate = delegate;
    }

    /** Sends the batch's datagrams one {@link #send} at a time, stopping at the first that is not sent. */
    protected final int sendEach(DatagramBatch batch) throws SocketException {
        return UdpSocket.super.sendBatch(batch);                    // the interface's one-send-at-a-time loop
    }

    @Override
    public InetSocketAddress localAddress() {
        return delegate.localAddress();
    }

    @Override
    public boolean isNative() {
        return delegate.isNative();
    }

    @Override
    public Capabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public int send(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        return delegate.send(data, length, destination);
    }

    @Override
    public int sendStamped(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        return delegate.sendStamped(data, length, destination);
    }

    @Override
    public long txStampId() {
        return delegate.txStampId();
    }

    @Override
    public boolean txTimestampsPerSend() {
        return delegate.txTimestampsPerSend();
    }

    @Override
    public void connect(InetSocketAddress peer) throws SocketException {
        delegate.connect(peer);
    }

    @Override
    public boolean trafficClass(int tos) throws SocketException {
        return delegate.trafficClass(tos);
    }

    @Override
    public int receive(MemorySegment buffer, ReceivedPacket meta, long timeoutNs) throws SocketException {
        return delegate.receive(buffer, meta, timeoutNs);
    }

    @Override
    public int receiveBatch(DatagramBatch batch, long timeoutNs) throws SocketException {
        return delegate.receiveBatch(batch, timeoutNs);
    }

    @Override
    public int sendBatch(DatagramBatch batch) throws SocketException {
        return delegate.sendBatch(batch);
    }

    @Override
    public long kernelDrops() {
        return delegate.kernelDrops();
    }

    @Override
    public int receiveBufferBytes() {
        return delegate.receiveBufferBytes();
    }

    @Override
    public int pollTxTimestamps(TxTimestampHandler handler) throws SocketException {
        return delegate.pollTxTimestamps(handler);
    }

    @Override
    public int pollTxTimestampsBatched(TxTimestampHandler handler) throws SocketException {
        return delegate.pollTxTimestampsBatched(handler);
    }

    @Override
    public long sentPacketCount() {
        return delegate.sentPacketCount();
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
