package io.github.twping.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;

import io.github.twping.time.NtpTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import java.util.Arrays;
import java.util.List;

class SendScheduleTest {
    private static final HexFormat HEX = HexFormat.of();

    private static byte[] sid(String hex) {
        return HEX.parseHex(hex);
    }

    private static long num64(String hex) {
        return Long.parseUnsignedLong(hex, 16);
    }

    @ParameterizedTest
    @CsvSource({
        "2872979303ab47eeac028dab3829dab2, 000000006d27e540, 0000000034cbb103, 000000002729905a, 000f4479bd317381",
        "0102030405060708090a0b0c0d0e0f00, 00000000c2127448, 00000000e6f429b4, 00000000792b5a06, 000f433686466a62",
        "deadbeefdeadbeefdeadbeefdeadbeef, 000000017ef33648, 0000000288ec1768, 00000000e96b50b8, 000f416c8884d2d3",
        "feed0feed1feed2feed3feed4feed5ab, 00000000300d1c98, 00000006283207c0, 0000000045d4da40, 000f3f0b4b416ec8"})
    void shouldReproduceOwampSeedVectors(String seed, String exp1, String exp2, String exp3, String sumMillion) {
        AesCounterRandom random = new AesCounterRandom(sid(seed));
        long first = SendSchedule.expNext(random);
        long second = SendSchedule.expNext(random);
        long third = SendSchedule.expNext(random);
        assertEquals(num64(exp1), first);
        assertEquals(num64(exp2), second);
        assertEquals(num64(exp3), third);
        long sum = first + second + third;
        for (int i = 3; i < 1_000_000; i++) {
            sum += SendSchedule.expNext(random);
        }
        assertEquals(num64(sumMillion), sum);
    }

    @Test
    void shouldMakeNoGeneratorWhenEverySlotInUseIsFixed() {
        byte[] sid = new byte[16];
        long tenMs = NtpTime.fromSeconds(0.01);
        SendSchedule fixed = new SendSchedule(sid, new ScheduleSlot[] {ScheduleSlot.fixedOffset(tenMs),
            ScheduleSlot.fixedOffset(2 * tenMs)}, 5);
        assertFalse(fixed.drawsRandomNumbers());
        for (int round = 0; round < 2; round++) {
            fixed.reset();
            assertEquals(List.of(tenMs, 2 * tenMs, tenMs, 2 * tenMs, tenMs),
                    List.of(fixed.nextDeltaNtp(), fixed.nextDeltaNtp(), fixed.nextDeltaNtp(), fixed.nextDeltaNtp(),
                            fixed.nextDeltaNtp()));
        }
        // an exponential slot makes one, unless no packet reaches it (one packet, the first slot fixed)
        ScheduleSlot[] mixed = {ScheduleSlot.fixedOffset(tenMs), ScheduleSlot.DEFAULT};
        assertTrue(new SendSchedule(sid, mixed, 2).drawsRandomNumbers());
        assertFalse(new SendSchedule(sid, mixed, 1).drawsRandomNumbers());
        assertThrows(IllegalArgumentException.class, () -> new SendSchedule(new byte[15], mixed, 1));
    }

    @Test
    void shouldReproduceExtraValuesForFirstSeed() {
        AesCounterRandom random = new AesCounterRandom(sid("2872979303ab47eeac028dab3829dab2"));
        long sum = 0;
        for (int i = 1; i <= 1000; i++) {
            long value = SendSchedule.expNext(random);
            sum += value;
            if (i == 10) {
                assertEquals(num64("00000004f9d85ec8"), value);
                assertEquals(num64("0000000d65c2252a"), sum);
            }
            if (i == 1000) {
                assertEquals(num64("000000024fe2d8a8"), value);
            }
        }
        assertEquals(num64("000003eb7d735c01"), sum);
    }

    @Test
    void shouldGiveTheMeanDeltaOfTheSlotsInUseWithoutMovingTheSchedule() {
        byte[] sid = sid("0102030405060708090a0b0c0d0e0f00");
        long ms1 = 0x0041_8937L;                       // about 1 ms as a Num64
        ScheduleSlot[] slots = {new ScheduleSlot(true, ms1), ScheduleSlot.exponential(3 * ms1)};
        SendSchedule both = new SendSchedule(sid, slots, 100);
        assertEquals(2 * ms1, both.meanDeltaNtp());
        assertEquals(ms1, new SendSchedule(sid, slots, 1).meanDeltaNtp(), "one packet uses the first slot only");
        SendSchedule fresh = new SendSchedule(sid, slots, 100);
        both.meanDeltaNtp();
        for (int i = 0; i < 10; i++) {
            assertEquals(fresh.nextDeltaNtp(), both.nextDeltaNtp());
        }
    }

    @Test
    void shouldProduceAesCounterKeystream() {
        AesCounterRandom random = new AesCounterRandom(sid("0102030405060708090a0b0c0d0e0f00"));
        StringBuilder keystream = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            keystream.append(String.format("%08x", random.nextUnsigned32()));
        }
        // appendix C: AES_SID(0) then AES_SID(4)
        assertEquals("842817148d60846f3c95ad03418191f9" + "abe853f9417da0d32c2b8328887f7e5f", keystream.toString());
        random.reset();
        assertEquals(0x84281714L, random.nextUnsigned32());
    }

    @Test
    void shouldReproduceDefaultScheduleExample() {
        SendSchedule schedule = new SendSchedule(sid("0102030405060708090a0b0c0d0e0f00"),
            new ScheduleSlot[] {ScheduleSlot.DEFAULT}, 100);
        long[] expected = {0x13683ED8L, 0x17186A97L, 0x0C1DEF6AL, 0x0D19EA01L, 0x234EBD9EL};
        for (int round = 0; round < 2; round++) {
            long cumulative = 0;
            for (long delta : expected) {
                long actual = schedule.nextDeltaNtp();
                assertEquals(delta, actual);
                cumulative += actual;
            }
            assertEquals(0x67074078L, cumulative);
            schedule.reset();
        }
    }

    @Test
    void shouldNotConsumeRandomNumbersForFixedSlots() {
        byte[] sid = sid("0102030405060708090a0b0c0d0e0f00");
        long fixed = 0x028F5C28L;
        SendSchedule mixed = new SendSchedule(sid,
            new ScheduleSlot[] {ScheduleSlot.fixedOffset(fixed), ScheduleSlot.DEFAULT}, 10);
        SendSchedule exponentialOnly = new SendSchedule(sid, new ScheduleSlot[] {ScheduleSlot.DEFAULT}, 10);
        for (int i = 0; i < 5; i++) {
            assertEquals(fixed, mixed.nextDeltaNtp());
            assertEquals(exponentialOnly.nextDeltaNtp(), mixed.nextDeltaNtp());
        }
    }

    @Test
    void shouldCycleOverAtMostPacketCountSlots() {
        byte[] sid = sid("0102030405060708090a0b0c0d0e0f00");
        ScheduleSlot[] slots = {ScheduleSlot.fixedOffset(1), ScheduleSlot.fixedOffset(2), ScheduleSlot.fixedOffset(3)};
        SendSchedule twoPackets = new SendSchedule(sid, slots, 2);
        long[] seen = new long[5];
        for (int i = 0; i < seen.length; i++) {
            seen[i] = twoPackets.nextDeltaNtp();
        }
        assertEquals("[1, 2, 1, 2, 1]", Arrays.toString(seen));
        SendSchedule many = new SendSchedule(sid, slots, 100);
        for (int i = 0; i < 7; i++) {
            assertEquals(i % 3 + 1, many.nextDeltaNtp());
        }
    }

    @Test
    void shouldRejectBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> new AesCounterRandom(new byte[15]));
        assertThrows(IllegalArgumentException.class,
            () -> new SendSchedule(new byte[16], new ScheduleSlot[0], 1));
    }
}
