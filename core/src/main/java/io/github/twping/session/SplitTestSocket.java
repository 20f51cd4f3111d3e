package io.github.twping.session;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

import io.github.twping.ffm.Capabilities;
import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.TxTimestampHandler;
import io.github.twping.ffm.UdpSocket;

/**
 * The two test sockets of docs/CLIENT.md ("Two sockets") as one {@link UdpSocket}, for a session engine that takes
 * a single socket (the STAMP and TWAMP-Light sender): receives go to {@code receiving} (connected to the
 * reflector), sends, traffic class and TX timestamps to {@code sending} (same port, every datagram arriving for
 * it dropped by its filter), so the kernel TX stamps do not wake the receiving thread. {@link #close()} closes the
 * sending socket only; the receiving one stays its owner's.
 */
public final class SplitTestSocket implements UdpSocket {
    private final UdpSocket receiving;
    private final UdpSocket sending;
    private final Capabilities capabilities;

    public SplitTestSocket(UdpSocket receiving, UdpSocket sending) {
        this.receiving = receiving;
        this.sending = sending;
        Capabilities r = receiving.capabilities();
        Capabilities s = sending.capabilities();
        this.capabilities = new Capabilities(s.setTtl(), s.setTos(), r.receiveTtl(), r.receiveTos(),
                r.kernelRxTimestamps(), s.txTimestamps(), s.hardwareTimestamps());
    }

    @Override
    public InetSocketAddress localAddress() {
        return receiving.localAddress();
    }

    @Override
    public boolean isNative() {
        return receiving.isNative() && sending.isNative();
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public int send(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        return sending.send(data, length, destination);
    }

    @Override
    public boolean trafficClass(int tos) throws SocketException {
        return sending.trafficClass(tos);
    }

    @Override
    public int receive(MemorySegment buffer, ReceivedPacket meta, long timeoutNs) throws SocketException {
        return receiving.receive(buffer, meta, timeoutNs);
    }

    @Override
    public int receiveBatch(DatagramBatch batch, long timeoutNs) throws SocketException {
        return receiving.receiveBatch(batch, timeoutNs);
    }

    @Override
    public int sendBatch(DatagramBatch batch) throws SocketException {
        return sending.sendBatch(batch);
    }

    @Override
    public long kernelDrops() {
        return receiving.kernelDrops();
    }

    @Override
    public int pollTxTimestamps(TxTimestampHandler handler) throws SocketException {
        return sending.pollTxTimestamps(handler);
    }

    @Override
    public int pollTxTimestampsBatched(TxTimestampHandler handler) throws SocketException {
        return sending.pollTxTimestampsBatched(handler);
    }

    @Override
    public long sentPacketCount() {
        return sending.sentPacketCount();
    }

    /** Wakes a receive blocked on the receiving socket (the sending one has no reader). */
    @Override
    public void wakeup() {
        receiving.wakeup();
    }

    @Override
    public void close() {
        sending.close();
    }
}
