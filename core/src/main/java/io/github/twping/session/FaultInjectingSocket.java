package io.github.twping.session;

import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.ForwardingUdpSocket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.TestPacketLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.locks.LockSupport;

/**
 * A reflector {@link UdpSocket} that misbehaves on purpose as {@link ReflectorFaultInjection} says: it drops,
 * duplicates, delays or corrupts the replies a {@link SessionReflector} sends through it. Only a server started
 * with fault injection installs it; a normal reflector talks to its socket directly.
 *
 * <p>Every send that is not a retry (the previous send was refused with 0) is the reply to the next accepted
 * sender packet, so reply indices count accepted packets from 1, as the faults are specified. A retried reply
 * keeps the fate (drop, duplicate, corrupt) of its first attempt. Receives and everything else pass through.
 * Used by one reflector thread; {@link #wakeup()} and {@link #close()} may come from any thread.
 */
public final class FaultInjectingSocket extends ForwardingUdpSocket {
    private final ReflectorFaultInjection faults;
    private final int hmacOffset;
    private volatile boolean woken;

    // reflector thread only; read after the reflector has ended
    private long index;
    private boolean retrying;
    private boolean drop;
    private boolean corrupt;
    private boolean duplicate;
    private long dropped;
    private long duplicated;
    private long corrupted;

    /**
     * @param socket     the reflector's socket (owned by this decorator from now on)
     * @param faults     what to do to the replies
     * @param hmacOffset offset of the reply HMAC, or -1 when replies carry none (corruption then does nothing)
     */
    public FaultInjectingSocket(UdpSocket socket, ReflectorFaultInjection faults, int hmacOffset) {
        super(socket);
        this.faults = faults;
        this.hmacOffset = hmacOffset;
    }

    /** Wraps the socket of a session in {@code mode}; corruption targets the HMAC where the mode has one. */
    public static FaultInjectingSocket forMode(UdpSocket socket, ReflectorFaultInjection faults, Mode mode) {
        return new FaultInjectingSocket(socket, faults, mode.authenticatedTestPackets()
                ? TestPacketLayout.reflectorFor(mode).hmacOffset() : -1);
    }

    @Override
    public int send(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        if (!retrying) {
            long i = ++index;
            drop = faults.dropEveryN() > 0 && i % faults.dropEveryN() == 0;
            corrupt = hmacOffset >= 0 && faults.corruptHmacEveryN() > 0 && i % faults.corruptHmacEveryN() == 0;
            duplicate = faults.duplicateEveryN() > 0 && i % faults.duplicateEveryN() == 0;
        }
        retrying = false;
        if (corrupt) {
            data.set(ValueLayout.JAVA_BYTE, hmacOffset, (byte) (data.get(ValueLayout.JAVA_BYTE, hmacOffset) ^ 0x01));
        }
        if (faults.delayNs() > 0 && !holdFor(faults.delayNs())) {
            return length; // shutting down: the held reply is never sent
        }
        if (drop) {
            dropped++;
            return length;
        }
        int sent = delegate.send(data, length, destination);
        if (sent <= 0) {
            retrying = true;
            return sent;
        }
        if (corrupt) {
            corrupted++;
        }
        if (duplicate && delegate.send(data, length, destination) > 0) {
            duplicated++;
        }
        return sent;
    }

    private boolean holdFor(long delayNs) {
        long deadlineNs = System.nanoTime() + delayNs;
        for (long leftNs = delayNs; leftNs > 0 && !woken; leftNs = deadlineNs - System.nanoTime()) {
            LockSupport.parkNanos(leftNs);
        }
        return !woken;
    }

    /** Replies dropped on purpose (each still used up a reflector sequence number). */
    public long dropped() {
        return dropped;
    }

    /** Replies sent twice. */
    public long duplicated() {
        return duplicated;
    }

    /** Replies sent with a flipped HMAC bit. */
    public long corrupted() {
        return corrupted;
    }









    @Override
    public int sendBatch(DatagramBatch batch) throws SocketException {
        return sendEach(batch);                                     // each reply meets its fault
    }

    @Override
    public void wakeup() {
        woken = true;
        delegate.wakeup();
    }

    @Override
    public void close() {
        woken = true;
        delegate.close();
    }
}
