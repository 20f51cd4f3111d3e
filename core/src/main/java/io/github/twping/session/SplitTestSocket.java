package io.github.twping.session;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

import io.github.twping.ffm.Capabilities;
import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.TxTimestampHandler;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;

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

    /**
     * Opens the sending socket beside {@code receiving} and connects {@code receiving} to {@code reflector}
     * (docs/CLIENT.md, "Two sockets"): bound to the same address and port (SO_REUSEPORT, which {@code receiving}
     * must have set too), TTL 255, kernel TX timestamps and a filter that drops every datagram arriving for it,
     * so that the replies go to the connected receiving socket (which the kernel prefers) and the TX stamps queue
     * where no thread sleeps. One definition for the client's sessions and the warm-ups that run them.
     *
     * @param sending the sending socket's other options (buffers, TOS, device); address, port, SO_REUSEPORT, the
     *                filter, TTL and timestamping are set here
     * @return the sending socket, or null (one socket then sends and receives) when {@code receiving} is not an
     *         FFM socket with TX timestamps, or opening or connecting failed
     */
    public static UdpSocket openSender(UdpSocket receiving, InetSocketAddress reflector, UdpSocketOptions.Builder sending) {
        if (!receiving.isNative() || !receiving.capabilities().txTimestamps()) {
            return null;
        }
        UdpSocket sender = null;
        try {
            sender = UdpSocket.open(sending.bindAddress(receiving.localAddress().getAddress())
                    .port(receiving.localAddress().getPort()).reusePort(true).dropReceived(true).unicastTtl(255)
                    .timestamping(Timestamping.RX_TX_SOFTWARE).build());
            receiving.connect(reflector);
            return sender;
        } catch (SocketException | RuntimeException e) {
            if (sender != null) {
                sender.close();
            }
            return null;
        }
    }

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
    public int sendStamped(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        return sending.sendStamped(data, length, destination);
    }

    @Override
    public long txStampId() {
        return sending.txStampId();
    }

    @Override
    public boolean txTimestampsPerSend() {
        return sending.txTimestampsPerSend();
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
    public int receiveBufferBytes() {
        return receiving.receiveBufferBytes();
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
