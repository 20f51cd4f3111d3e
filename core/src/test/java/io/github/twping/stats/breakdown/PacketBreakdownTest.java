package io.github.twping.stats.breakdown;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import org.junit.jupiter.api.Test;

/** The per-packet model on hand-made stamps: each component, its provenance, its absences and the two identities. */
class PacketBreakdownTest {
    private static final long BASE_NS = 1_780_000_000_000_000_000L;

    private static long ntp(long epochNs) {
        return NtpTime.fromEpochNanos(epochNs);
    }

    /** A reply with t1..t4 at the given offsets (ns) from BASE_NS. */
    private static TwoWayRecord reply(long seq, long t1, long t2, long t3, long t4) {
        TwoWayRecord r = new TwoWayRecord();
        r.sentSeq = seq;
        r.sentSendNtp = ntp(BASE_NS + t1);
        r.sentSendErr = 1;
        r.sentRecvNtp = ntp(BASE_NS + t2);
        r.sentRecvErr = 1;
        r.reflSeq = seq;
        r.reflSendNtp = ntp(BASE_NS + t3);
        r.reflSendErr = 1;
        r.reflRecvNtp = ntp(BASE_NS + t4);
        r.reflRecvErr = 1;
        r.sentTtl = 255;
        r.reflTtl = 255;
        return r;
    }

    private static ReflectorStamps followUpAt(long offsetNs) {
        return new ReflectorStamps() {
            @Override
            public StampOrigin t2Origin(long seq) {
                return StampOrigin.KERNEL_SOFTWARE;
            }

            @Override
            public StampOrigin t3Origin(long seq) {
                return StampOrigin.USER;
            }

            @Override
            public Absence followUpAbsence(long seq) {
                return null;
            }

            @Override
            public long followUpT3Ntp(long seq) {
                return ntp(BASE_NS + offsetNs);
            }

            @Override
            public StampOrigin followUpOrigin(long seq) {
                return StampOrigin.KERNEL_SOFTWARE;
            }
        };
    }

    @Test
    void everyComponentWithItsStampsWhenAllAreKnown() {
        // scheduled 0, user stamp 1000, kernel TX 1500, t2 11500, t3 31500, follow-up t3 32000, kernel RX 52000,
        // receipt 52700
        RecordStamps stamps = new RecordStamps(1);
        stamps.set(0, ntp(BASE_NS), ntp(BASE_NS + 1_000), ntp(BASE_NS + 1_500), false, ntp(BASE_NS + 52_700));
        TwoWayRecord r = reply(7, 1_500, 11_500, 31_500, 52_000);
        short src = RecordSources.pack(RecordSources.KERNEL_SOFTWARE, RecordSources.KERNEL_HARDWARE, 0);
        PacketBreakdown b = new PacketBreakdown().compute(0, r, src, stamps, followUpAt(32_000));
        assertEquals(1_000, b.ns(Component.PACING_LATENESS), 1);
        assertEquals(500, b.ns(Component.SENDER_STACK), 1);
        assertEquals(10_000, b.ns(Component.FORWARD), 1);
        assertEquals(20_000, b.ns(Component.REFLECTOR_RESIDENCE), 1);
        assertEquals(500, b.ns(Component.REFLECTOR_STACK), 1);
        assertEquals(20_000, b.ns(Component.BACK), 1);
        assertEquals(700, b.ns(Component.RECEIVER_WAKEUP), 1);
        assertEquals(StampOrigin.SCHEDULE, b.from(Component.PACING_LATENESS));
        assertEquals(StampOrigin.USER, b.from(Component.SENDER_STACK));
        assertEquals(StampOrigin.KERNEL_SOFTWARE, b.to(Component.SENDER_STACK));
        assertEquals(StampOrigin.KERNEL_SOFTWARE, b.from(Component.FORWARD));
        assertEquals(StampOrigin.USER, b.to(Component.REFLECTOR_RESIDENCE));
        assertEquals(StampOrigin.KERNEL_HARDWARE, b.to(Component.BACK));
        assertEquals(StampOrigin.KERNEL_HARDWARE, b.from(Component.RECEIVER_WAKEUP));
        assertEquals(StampOrigin.USER, b.to(Component.RECEIVER_WAKEUP));
        for (Component c : Component.values()) {
            assertNull(b.absence(c), c.key());
        }
        assertEquals(b.spanNs(), b.pathSumNs());
        assertEquals(51_700, b.spanNs(), 1);
        assertTrue(Math.abs(b.roundTripNs() - b.recordRttNs()) <= 3, b.roundTripNs() + " vs " + b.recordRttNs());
    }

    @Test
    void twampWithoutKernelStampsSaysWhatIsMissingAndStillAddsUp() {
        RecordStamps stamps = new RecordStamps(1);
        stamps.set(0, ntp(BASE_NS), ntp(BASE_NS + 2_000), 0, false, ntp(BASE_NS + 99_999));
        TwoWayRecord r = reply(0, 2_000, 12_000, 13_000, 25_000);
        short src = RecordSources.pack(RecordSources.USER, RecordSources.USER, -1);
        PacketBreakdown b = new PacketBreakdown().compute(0, r, src, stamps, ReflectorStamps.NONE);
        assertEquals(Absence.NO_KERNEL_TX_STAMP, b.absence(Component.SENDER_STACK));
        assertEquals(Absence.NO_KERNEL_RX_STAMP, b.absence(Component.RECEIVER_WAKEUP));
        assertEquals(Absence.NO_FOLLOW_UP_TELEMETRY, b.absence(Component.REFLECTOR_STACK));
        assertEquals(StampOrigin.USER, b.from(Component.FORWARD));
        assertEquals(StampOrigin.REFLECTOR, b.to(Component.FORWARD));
        assertEquals(12_000, b.ns(Component.BACK), 1);
        assertEquals(23_000, b.spanNs(), 1);                // t4, not the receipt: no kernel RX stamp
        assertEquals(b.spanNs(), b.pathSumNs());
    }

    @Test
    void aReReadFileHasNoClientStampsButKeepsTheNetworkParts() {
        TwoWayRecord r = reply(3, 0, 5_000, 6_000, 11_000);
        short src = RecordSources.pack(RecordSources.KERNEL_SOFTWARE, RecordSources.KERNEL_SOFTWARE, 0);
        PacketBreakdown b = new PacketBreakdown().compute(9, r, src, null, ReflectorStamps.NONE);
        assertEquals(Absence.NOT_RECORDED, b.absence(Component.PACING_LATENESS));
        assertEquals(Absence.NOT_RECORDED, b.absence(Component.SENDER_STACK));
        assertEquals(Absence.NOT_RECORDED, b.absence(Component.RECEIVER_WAKEUP));
        assertEquals(5_000, b.ns(Component.FORWARD), 1);
        assertEquals(StampOrigin.KERNEL_SOFTWARE, b.from(Component.FORWARD));
        assertEquals(b.spanNs(), b.pathSumNs());
        assertEquals(b.recordRttNs(), b.roundTripNs(), 3);
    }

    @Test
    void aLostPacketHasNothing() {
        TwoWayRecord r = new TwoWayRecord().setLost(4, ntp(BASE_NS), 1);
        PacketBreakdown b = new PacketBreakdown().compute(0, r, (short) 0, new RecordStamps(1), ReflectorStamps.NONE);
        assertTrue(b.lost());
        for (Component c : Component.values()) {
            assertEquals(Absence.LOST, b.absence(c));
            assertFalse(b.known(c));
        }
    }

    @Test
    void theIdentitiesHoldForRandomStampsToTheNanosecond() {
        SplittableRandom random = new SplittableRandom(42);
        RecordStamps stamps = new RecordStamps(10_000);
        PacketBreakdown b = new PacketBreakdown();
        for (int i = 0; i < 10_000; i++) {
            long scheduled = random.nextLong(1_000_000_000L);
            long u1 = scheduled + random.nextLong(100_000);
            boolean tx = random.nextBoolean();
            long k1 = u1 + random.nextLong(50_000);
            long t2 = k1 + random.nextLong(-1_000_000, 1_000_000);      // unsynchronised clocks: any sign
            long t3 = t2 + random.nextLong(1_000_000);
            long t4 = t3 + random.nextLong(-1_000_000, 1_000_000);
            long u4 = t4 + random.nextLong(100_000);
            stamps.set(i, ntp(BASE_NS + scheduled), ntp(BASE_NS + u1), tx ? ntp(BASE_NS + k1) : 0, false,
                    ntp(BASE_NS + u4));
            TwoWayRecord r = reply(i, tx ? k1 : u1, t2, t3, t4);
            short src = RecordSources.pack(tx ? RecordSources.KERNEL_SOFTWARE : RecordSources.USER,
                    RecordSources.KERNEL_SOFTWARE, 0);
            ReflectorStamps reflector = random.nextBoolean() ? ReflectorStamps.NONE
                    : followUpAt(t3 + random.nextLong(20_000));
            b.compute(i, r, src, stamps, reflector);
            assertEquals(b.spanNs(), b.pathSumNs(), "record " + i);
            assertEquals(NtpTime.toEpochNanos(ntp(BASE_NS + u4)) - NtpTime.toEpochNanos(ntp(BASE_NS + u1)),
                    b.spanNs(), "record " + i);
            assertTrue(Math.abs(b.roundTripNs() - b.recordRttNs()) <= 3, "record " + i + ": " + b.roundTripNs()
                    + " vs " + b.recordRttNs());
        }
    }
}
