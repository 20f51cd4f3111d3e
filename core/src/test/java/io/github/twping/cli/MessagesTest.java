package io.github.twping.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessagesTest {

    @Test
    void shouldFormatTheLossThresholdCheckAsRecorded() throws IOException {
        RecordedRun run = RecordedRun.load("error-options-matrix.txt").stream()
                .filter(r -> r.cmd().startsWith("twping -L 0.00005")).findFirst().orElseThrow();
        assertEquals(List.of(Messages.PROGRAM + ": " + Messages.lossBelowBucketWidth(0.00005,
                TwpingArgs.DEFAULT_BUCKET_WIDTH)), run.stderr());
    }

    @Test
    void shouldPrefixWithTheBasename() {
        assertEquals("twping", Messages.programName("/usr/local/bin/twping"));
        assertEquals("twping", Messages.programName("twping"));
        assertEquals("twping", Messages.programName(""));
        assertEquals("twping", Messages.programName("dir/"));
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        new Messages(new PrintStream(b, true, StandardCharsets.UTF_8), "twping").error("Session Failed!");
        assertEquals("twping: Session Failed!\n", b.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldPrintTheCUsageTextByteForByte() throws IOException {
        assertEquals(RecordedRun.cUsageText(), Usage.text(RecordedRun.C_VERSION));
        assertTrue(Usage.helpText("1").startsWith(Usage.text("1")));
    }

    @Test
    void shouldRoundLikeCPercentF() {
        assertEquals("0.000100", Messages.fixed6(0.0001f));
        assertEquals("2.000000", Messages.fixed6(2.0));
        assertEquals("0.000000", Messages.fixed6(0.0000005)); // 5e-7 is just below the tie in binary
        assertEquals("0.125000", Messages.fixed6(0.125));
        assertEquals("inf", Messages.fixed6(Double.POSITIVE_INFINITY));
    }
}
