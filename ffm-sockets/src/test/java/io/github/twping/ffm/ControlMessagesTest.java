package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.github.twping.ffm.SocketConstants.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** cmsg walking and parsing on hand-built control buffers (no syscalls). */
class ControlMessagesTest {
    private static final long SW_NS = 1_764_500_000_111_222_333L;
    private static final long HW_NS = 1_764_500_000_999_888_777L;

    @Test
    void shouldComputeCmsgMacros() {
        assertEquals(0, ControlMessages.align(0));
        assertEquals(8, ControlMessages.align(1));
        assertEquals(8, ControlMessages.align(8));
        assertEquals(16, ControlMessages.align(9));
        assertEquals(20, ControlMessages.length(4));
        assertEquals(24, ControlMessages.space(4));
        assertEquals(17, ControlMessages.length(1));
        assertEquals(24, ControlMessages.space(1));
        assertEquals(64, ControlMessages.space(48));
    }

    @Test
    void shouldWalkHandBuiltIpv4ControlBuffer() {
        MemorySegment control = MemorySegment.ofArray(new long[32]);
        long at = ControlMessages.write(control, 0, SOL_IP, IP_TTL, 4);
        control.set(JAVA_INT, ControlMessages.dataOffset(0), 255);
        long tosAt = at;
        at = ControlMessages.write(control, at, SOL_IP, IP_TOS, 1);
        control.set(JAVA_BYTE, ControlMessages.dataOffset(tosAt), (byte) 0xb8);
        long tsAt = at;
        at = ControlMessages.write(control, at, SOL_SOCKET, SCM_TIMESTAMPING, 48);
        Structs.timespecNs(control, ControlMessages.dataOffset(tsAt), SW_NS);
        assertEquals(24 + 24 + 64, at);

        assertEquals(0, ControlMessages.first(control, at));
        assertEquals(24, ControlMessages.next(control, at, 0));
        assertEquals(48, ControlMessages.next(control, at, 24));
        assertEquals(ControlMessages.NONE, ControlMessages.next(control, at, 48));
        assertEquals(1, ControlMessages.dataLength(control, 24));

        ReceivedPacket meta = new ReceivedPacket();
        meta.reset();
        ControlMessages.parseReceive(control, at, meta);
        assertEquals(255, meta.ttl());
        assertEquals(0xb8, meta.tos());
        assertEquals(SW_NS, meta.rxTimestampEpochNs());
        assertEquals(TimestampSource.KERNEL_SOFTWARE, meta.timestampSource());
        assertEquals(0, meta.rxHardwareTimestampNs());
    }

    @Test
    void shouldParseIpv6HopLimitTrafficClassAndHardwareStamp() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment control = arena.allocate(256, 8);
            long at = ControlMessages.write(control, 0, SOL_IPV6, IPV6_HOPLIMIT, 4);
            control.set(JAVA_INT, 16, 64);
            long tclassAt = at;
            at = ControlMessages.write(control, at, SOL_IPV6, IPV6_TCLASS, 4);
            control.set(JAVA_INT, ControlMessages.dataOffset(tclassAt), 0x2e << 2);
            long tsAt = at;
            at = ControlMessages.write(control, at, SOL_SOCKET, SCM_TIMESTAMPING, 48);
            Structs.timespecNs(control, ControlMessages.dataOffset(tsAt) + 32, HW_NS);

            ReceivedPacket meta = new ReceivedPacket();
            meta.reset();
            ControlMessages.parseReceive(control, at, meta);
            assertEquals(64, meta.ttl());
            assertEquals(0xb8, meta.tos());
            assertEquals(TimestampSource.KERNEL_HARDWARE, meta.timestampSource());
            assertEquals(HW_NS, meta.rxTimestampEpochNs());
            assertEquals(HW_NS, meta.rxHardwareTimestampNs());
        }
    }

    @Test
    void shouldParseTimestampNs() {
        MemorySegment control = MemorySegment.ofArray(new long[8]);
        long end = ControlMessages.write(control, 0, SOL_SOCKET, SCM_TIMESTAMPNS, 16);
        Structs.timespecNs(control, 16, SW_NS);
        ReceivedPacket meta = new ReceivedPacket();
        meta.reset();
        ControlMessages.parseReceive(control, end, meta);
        assertEquals(SW_NS, meta.rxTimestampEpochNs());
        assertEquals(TimestampSource.KERNEL_SOFTWARE, meta.timestampSource());
    }

    @Test
    void shouldStopAtMalformedOrTruncatedMessages() {
        MemorySegment control = MemorySegment.ofArray(new long[16]);
        long second = ControlMessages.write(control, 0, SOL_IP, IP_TTL, 4);
        control.set(JAVA_INT, 16, 7);
        ControlMessages.write(control, second, SOL_IP, IP_TOS, 1);
        control.set(JAVA_BYTE, second + 16, (byte) 4);

        ReceivedPacket meta = new ReceivedPacket();
        meta.reset();
        // controllen cuts the second message: only the first is seen (as after MSG_CTRUNC)
        ControlMessages.parseReceive(control, second + 10, meta);
        assertEquals(7, meta.ttl());
        assertEquals(ReceivedPacket.UNKNOWN, meta.tos());

        // a zero cmsg_len ends the walk instead of looping
        control.set(Structs.JAVA_LONG_UNALIGNED, 0, 0L);
        assertEquals(ControlMessages.NONE, ControlMessages.first(control, 128));
        // an empty buffer has no first message
        assertEquals(ControlMessages.NONE, ControlMessages.first(control, 0));
    }

    @Test
    void shouldParseTxTimestampReportWithPacketId() {
        MemorySegment control = MemorySegment.ofArray(new long[32]);
        long at = ControlMessages.write(control, 0, SOL_SOCKET, SCM_TIMESTAMPING, 48);
        Structs.timespecNs(control, 16, SW_NS);
        long errAt = at;
        at = ControlMessages.write(control, at, SOL_IPV6, IPV6_RECVERR, 16);
        long ee = ControlMessages.dataOffset(errAt);
        control.set(JAVA_INT, ee + Structs.EE_ERRNO, Errno.ENOMSG);
        control.set(JAVA_BYTE, ee + Structs.EE_ORIGIN, (byte) SO_EE_ORIGIN_TIMESTAMPING);
        control.set(JAVA_INT, ee + Structs.EE_INFO, SCM_TSTAMP_SND);
        control.set(JAVA_INT, ee + Structs.EE_DATA, 0xfffffffe);

        ControlMessages.TxReport report = new ControlMessages.TxReport();
        assertTrue(ControlMessages.parseTxTimestamp(control, at, report));
        assertEquals(0xfffffffeL, report.packetId);
        assertEquals(SCM_TSTAMP_SND, report.kind);
        assertEquals(SW_NS, report.softwareNs);
        assertEquals(0, report.hardwareNs);

        // an ICMP error (origin 2) is not a timestamp report
        control.set(JAVA_BYTE, ee + Structs.EE_ORIGIN, (byte) 2);
        assertFalse(ControlMessages.parseTxTimestamp(control, at, report));
    }
}
