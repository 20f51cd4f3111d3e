package io.github.twping.report.extended;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class ProgressTextTest {
    private static String line(int columns, long sent) {
        return ProgressText.fit(columns, "twping", 12.34, 60, sent, sent - 1, 1, 32_640, 113_942);
    }

    @Test
    void shouldShowEverythingWhenTheTerminalIsWide() {
        assertEquals("twping: 12.3/60.0 s  sent 600  received 599  lost 1  rtt p50 0.0326 p99 0.114 ms",
                line(200, 600));
    }

    @Test
    void shouldShortenTheWordsAtEightyColumns() {
        String l = line(80, 600);
        assertEquals("twping: 12.3/60.0 s  sent 600  recv 599  lost 1  p50 0.0326  p99 0.114 ms", l);
        assertTrue(l.length() <= 79);
    }

    @Test
    void shouldKeepTheEssentialsAtFortyColumns() {
        assertEquals("12.3/60.0s sent 600 lost 1 p50 0.0326ms", line(40, 600));
        assertEquals("12.3/60.0s lost 1", line(40, 123_456_789_012L));
        assertEquals("12.3/60", line(8, 600));
    }

    @Test
    void shouldNeverReachTheLastColumnAtAnyWidth() {
        for (int columns = 1; columns <= 120; columns++) {
            String l = ProgressText.fit(columns, "twping", 86_399.9, 86_400, Long.MAX_VALUE, Long.MAX_VALUE, 0, -1, -1);
            assertTrue(l.length() <= Math.max(1, columns - 1), columns + ": " + l);
            assertTrue(!l.isEmpty());
        }
    }

    @Test
    void shouldShowADashBeforeTheFirstReply() {
        assertEquals("twping: 0.0/1.0 s  sent 0  received 0  lost 0  rtt p50 - p99 - ms",
                ProgressText.fit(200, "twping", -0.2, 1, 0, 0, 0, -1, -1));
    }

    @Test
    void shouldTakeTheWidthFromColumnsWhenNoTerminalTells() {
        assertEquals(57, Terminal.columns(-1, Map.of("COLUMNS", "57")));
        assertEquals(Terminal.DEFAULT_COLUMNS, Terminal.columns(-1, Map.of("COLUMNS", "wide")));
        assertEquals(Terminal.DEFAULT_COLUMNS, Terminal.columns(-1, Map.of()));
    }
}
