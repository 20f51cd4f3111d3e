package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.twping.stamp.TaiOffset;

/**
 * {@code --ptp} on both sides: the reflector's start line names the TAI-UTC offset, and when the kernel reports none
 * (0, usual without an NTP or PTP daemon that sets it) both programs say the PTP seconds are taken as UTC; the JSON
 * has {@code ptp_tai_offset_s} (null when unknown). Both branches are asserted: which one runs depends on this
 * machine's kernel.
 */
class StampPtpTaiCliTest {
    @TempDir
    Path dir;

    @Test
    void ptpRunSaysWhetherTheTaiOffsetIsKnown() throws Exception {
        Path json = dir.resolve("r.json");
        StampCliExchange.Result r = StampCliExchange.run(dir, List.of("--stamp", "127.0.0.1:0", "--ptp"),
                List.of("-c", "3", "-i", "0.01f", "--ptp", "--json", json.toString()), "--stamp");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("3 sent, 0 lost (0.000%)"), r.out());
        JsonNode tai = new ObjectMapper().readTree(Files.readString(json)).get("ptp_tai_offset_s");
        int kernel = TaiOffset.kernel();
        if (kernel == 0) {
            assertTrue(r.err().contains("twping: " + TaiOffset.UNKNOWN_NOTE + "\n"), r.err());
            assertTrue(r.reflectorErr().contains("(PTP timestamps, TAI-UTC unknown)"), r.reflectorErr());
            assertTrue(r.reflectorErr().contains("twampd: " + TaiOffset.UNKNOWN_NOTE), r.reflectorErr());
            assertTrue(tai != null && tai.isNull(), String.valueOf(tai));
        } else {
            assertFalse(r.err().contains(TaiOffset.UNKNOWN_NOTE), r.err());
            assertTrue(r.reflectorErr().contains("(PTP timestamps, TAI-UTC " + kernel + " s (kernel))"),
                    r.reflectorErr());
            assertEquals(kernel, tai.asInt());
        }
    }

    @Test
    void ntpSenderSaysWhenThePtpRepliesOffsetIsUnknown() throws Exception {
        Path json = dir.resolve("m.json");
        StampCliExchange.Result r = StampCliExchange.run(dir, List.of("--stamp", "127.0.0.1:0", "--ptp"),
                List.of("-c", "3", "-i", "0.01f", "--json", json.toString()), "--stamp");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("3 sent, 0 lost (0.000%)"), r.out());
        assertFalse(r.err().contains(TaiOffset.UNKNOWN_NOTE), "we send NTP: " + r.err());
        JsonNode tai = new ObjectMapper().readTree(Files.readString(json)).get("ptp_tai_offset_s");
        int kernel = TaiOffset.kernel();
        if (kernel == 0) {
            int summary = r.err().indexOf("twping: " + TaiOffset.REPLY_NOTE + "\n");
            assertTrue(summary >= 0, r.err());
            assertTrue(tai != null && tai.isNull(), String.valueOf(tai));
        } else {
            assertFalse(r.err().contains(TaiOffset.REPLY_NOTE), r.err());
            assertEquals(kernel, tai.asInt());
        }
    }

    @Test
    void ntpRunSaysNothingOfTai() throws Exception {
        Path json = dir.resolve("n.json");
        StampCliExchange.Result r = StampCliExchange.run(dir, List.of("--stamp", "127.0.0.1:0"),
                List.of("-c", "2", "-i", "0.01f", "--json", json.toString()), "--stamp");
        assertEquals(0, r.status(), r.err());
        assertFalse(r.err().contains("TAI"), r.err());
        assertFalse(r.reflectorErr().contains("TAI"), r.reflectorErr());
        assertFalse(new ObjectMapper().readTree(Files.readString(json)).has("ptp_tai_offset_s"));
    }
}
