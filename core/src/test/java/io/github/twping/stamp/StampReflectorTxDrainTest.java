package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

import io.github.twping.session.ReflectorClock;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import java.util.concurrent.TimeUnit;

/**
 * The reflector stamps only the replies of sessions that sent a Follow-Up Telemetry TLV (RFC 8972 §4.7), from that
 * TLV on; a session without one costs no stamp and no error-queue read. The error queue is read every
 * {@link StampReflector#TX_DRAIN_EVERY} stamped replies and before a Follow-Up Telemetry TLV whose session's last
 * reply has no stamp read yet; the Follow-Up Telemetry stays exact, also for interleaved sessions.
 */
class StampReflectorTxDrainTest {
    private static final int FUT_LENGTH = 44 + StampTlv.HEADER_LENGTH + StampTlv.FOLLOW_UP_TELEMETRY_LENGTH;
    private StampReflector reflector;

    @AfterEach
    void close() {
        if (reflector != null) {
            reflector.close();
        }
    }

    private InetSocketAddress start() throws Exception {
        reflector = new StampReflector(new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP,
                List.of(), 0, 64), StampReflector.openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                0), 0), ReflectorClock.of(WallClock.system(), 0x8001));
        assumeTrue(reflector.localAddress() != null);
        reflector.start();
        return reflector.localAddress();
    }

    /** Stops the reflector and waits for its thread: its counters are then safe to read. */
    private boolean stopped() throws InterruptedException {
        reflector.stop();
        return reflector.awaitEnd(TimeUnit.SECONDS.toNanos(10));
    }

    private static DatagramSocket client() throws Exception {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        s.setSoTimeout(10_000);
        return s;
    }

    private static byte[] request(long seq, boolean followUp) {
        ByteBuffer b = ByteBuffer.allocate(followUp ? FUT_LENGTH : 44);
        b.putInt(0, (int) seq).putLong(4, WallClock.system().nowNtp());
        if (followUp) {
            b.put(44, (byte) StampTlv.FLAG_U).put(45, (byte) StampTlv.FOLLOW_UP_TELEMETRY)
                    .putShort(46, (short) StampTlv.FOLLOW_UP_TELEMETRY_LENGTH);
        }
        return b.array();
    }

    private static ByteBuffer exchange(DatagramSocket client, InetSocketAddress to, byte[] request)
            throws Exception {
        client.send(new DatagramPacket(request, request.length, to));
        byte[] buffer = new byte[2048];
        DatagramPacket p = new DatagramPacket(buffer, buffer.length);
        client.receive(p);
        assertEquals(request.length, p.getLength());
        return ByteBuffer.wrap(buffer, 0, p.getLength());
    }

    @Test
    void withoutFollowUpNoReplyIsStampedAndTheQueueIsNeverRead() throws Exception {
        InetSocketAddress to = start();
        try (DatagramSocket client = client()) {
            int n = 10 * StampReflector.TX_DRAIN_EVERY + 5;
            for (int i = 0; i < n; i++) {
                assertEquals(i, exchange(client, to, request(i, false)).getInt(24), "the reply answers request " + i);
            }
        }
        assertTrue(stopped(), "reflector thread ended");
        assertEquals(10 * StampReflector.TX_DRAIN_EVERY + 5, reflector.reflected());
        assertEquals(0, reflector.txDrains(), "no error-queue read: no reply asked for a stamp");
        assertEquals(0, reflector.txStampsMatched(), "no reply was stamped");
    }

    @Test
    void aSessionIsStampedFromItsFirstFollowUpOnAndAPlainSessionBesideItNever() throws Exception {
        InetSocketAddress to = start();
        int rounds = 3 * StampReflector.TX_DRAIN_EVERY;
        int plainFirst = 5;
        long[] sentNtp = new long[rounds];
        try (DatagramSocket plain = client(); DatagramSocket asking = client()) {
            for (int r = 0; r < rounds; r++) {
                assertEquals(r, exchange(plain, to, request(r, false)).getInt(24));
                boolean followUp = r >= plainFirst;
                ByteBuffer reply = exchange(asking, to, request(5000L + r, followUp));
                sentNtp[r] = reply.getLong(4);
                if (!followUp) {
                    continue;
                }
                assertEquals(0, reply.get(44) & (StampTlv.FLAG_U | StampTlv.FLAG_M), "Follow-Up TLV answered");
                long fuSeq = reply.getInt(48) & 0xFFFF_FFFFL;
                long fuStamp = reply.getLong(52);
                if (r == plainFirst) {
                    assertEquals(0, fuStamp, "the replies before the first Follow-Up TLV were not stamped");
                    assertEquals(0, fuSeq);
                    continue;
                }
                assertEquals(5000L + r - 1, fuSeq, "round " + r + ": the session's previous reply");
                assertEquals(StampTlv.METHOD_SW_LOCAL, reply.get(60) & 0xFF, "a kernel software stamp");
                double late = NtpTime.toDouble(fuStamp) - NtpTime.toDouble(sentNtp[r - 1]);
                assertTrue(late >= -1e-6 && late < 1.0,
                        "the kernel stamp follows the previous reply's user-space timestamp: " + late + " s");
            }
        }
        assertTrue(stopped(), "reflector thread ended");
        int stamped = rounds - plainFirst;
        assertEquals(2L * rounds, reflector.reflected());
        assertEquals(stamped - 1, reflector.followUpsReported());
        long matched = reflector.txStampsMatched();
        assertTrue(matched >= stamped - 1 && matched <= stamped,
                "only the asking session's replies from its first Follow-Up on were stamped: " + matched);
    }

    @Test
    void interleavedSessionsEachGetTheStampOfTheirOwnPreviousReply() throws Exception {
        InetSocketAddress to = start();
        int sessions = 3;
        int rounds = 40;
        DatagramSocket[] clients = new DatagramSocket[sessions];
        long[][] sentNtp = new long[sessions][rounds];
        try {
            for (int c = 0; c < sessions; c++) {
                clients[c] = client();
            }
            for (int r = 0; r < rounds; r++) {
                for (int c = 0; c < sessions; c++) {
                    ByteBuffer reply = exchange(clients[c], to, request(1000L * c + r, true));
                    sentNtp[c][r] = reply.getLong(4);
                    int flags = reply.get(44) & 0xFF;
                    assertEquals(0, flags & (StampTlv.FLAG_U | StampTlv.FLAG_M), "Follow-Up TLV answered");
                    long fuSeq = reply.getInt(48) & 0xFFFF_FFFFL;
                    long fuStamp = reply.getLong(52);
                    if (r == 0) {
                        assertEquals(0, fuStamp, "no previous reply of session " + c);
                        continue;
                    }
                    assertEquals(1000L * c + r - 1, fuSeq, "session " + c + " round " + r + ": its previous reply");
                    assertEquals(StampTlv.METHOD_SW_LOCAL, reply.get(60) & 0xFF, "a kernel software stamp");
                    long previousUser = sentNtp[c][r - 1];
                    double late = NtpTime.toDouble(fuStamp) - NtpTime.toDouble(previousUser);
                    assertTrue(late >= -1e-6 && late < 1.0,
                            "the kernel stamp follows the previous reply's user-space timestamp: " + late + " s");
                }
            }
        } finally {
            for (DatagramSocket c : clients) {
                if (c != null) {
                    c.close();
                }
            }
        }
        assertTrue(stopped(), "reflector thread ended");
        assertEquals((long) sessions * (rounds - 1), reflector.followUpsReported());
        assertTrue(reflector.txDrains() <= (long) sessions * rounds,
                "at most one drain per request: " + reflector.txDrains());
    }
}
