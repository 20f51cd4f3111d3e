package io.github.twping.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Brings the per-packet paths of {@link UdpSocket} (the libc downcalls, the control-message parsing, the
 * batch calls) to compiled code before a measurement starts: a bounded ping-pong between two loopback
 * sockets with the timestamping a measurement uses. Until the JIT has compiled them, a downcall runs in
 * the interpreter at tens to hundreds of microseconds, which a session started right after the JVM would
 * see as send lateness and reflector delay (docs/PERFORMANCE.md).
 *
 * <p>Loopback only; nothing leaves the host. Returns early when the time bound passes.
 */
public final class SocketWarmUp {
    /** Round trips that let the JIT compile the paths with full optimisation (C2 at 10,000 invocations). */
    public static final int DEFAULT_ROUND_TRIPS = 12_000;
    private static final int BATCH = 8;
    private static final long RECEIVE_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(200);

    /** What a warm-up did. */
    public record Result(int roundTrips, long elapsedNs) {
    }

    private SocketWarmUp() {
    }

    /**
     * Runs up to {@code roundTrips} send/receive/TX-poll round trips (and a batch round trip every 16th),
     * for at most {@code maxNs}. Any socket failure ends the warm-up quietly (it is an optimisation).
     */
    public static Result run(int roundTrips, long maxNs) {
        return run(roundTrips, maxNs, () -> false);
    }

    /** As {@link #run(int, long)}, ending early once {@code stop} returns true (checked every round trip). */
    public static Result run(int roundTrips, long maxNs, BooleanSupplier stop) {
        long startNs = System.nanoTime();
        int done = 0;
        UdpSocketOptions options = UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .timestamping(Timestamping.RX_TX_SOFTWARE).receiveTtl(true).receiveTos(true).build();
        try (UdpSocket a = UdpSocket.open(options); UdpSocket b = UdpSocket.open(options);
             Arena arena = Arena.ofShared(); DatagramBatch out = new DatagramBatch(BATCH, 128);
             DatagramBatch in = new DatagramBatch(BATCH, 128)) {
            MemorySegment data = arena.allocate(128);
            MemorySegment buffer = arena.allocate(2048);
            ReceivedPacket meta = new ReceivedPacket();
            TxTimestampHandler ignore = (id, epochNs, hardware) -> { };
            for (int i = 0; i < BATCH; i++) {
                out.prepareSend(i, 64, b.localAddress());
            }
            while (done < roundTrips && System.nanoTime() - startNs < maxNs && !stop.getAsBoolean()) {
                if (a.send(data, 64, b.localAddress()) <= 0
                        || b.receive(buffer, meta, RECEIVE_TIMEOUT_NS) < 0
                        || !meta.sourceIs(a.localAddress())
                        || b.send(buffer, 64, a.localAddress()) <= 0
                        || a.receive(buffer, meta, RECEIVE_TIMEOUT_NS) < 0) {
                    break;
                }
                a.pollTxTimestamps(ignore);
                b.pollTxTimestamps(ignore);
                if ((done & 15) == 0) {
                    out.count(BATCH);
                    int sent = a.sendBatch(out);
                    for (int got = 0; got < sent; ) {
                        int n = b.receiveBatch(in, RECEIVE_TIMEOUT_NS);
                        if (n <= 0) {
                            break;
                        }
                        got += n;
                    }
                    a.pollTxTimestamps(ignore);
                    a.kernelDrops();
                }
                done++;
            }
        } catch (SocketException | RuntimeException e) {
            // an optimisation only: measure without it
        }
        return new Result(done, System.nanoTime() - startNs);
    }
}
