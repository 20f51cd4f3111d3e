package io.github.twping.report.extended;

import java.util.Locale;

import io.github.twping.report.owamp.CFormat;

/**
 * The text of the progress line, fitted to the terminal: the longest of a few forms that leaves the last
 * column free (a line that reaches it makes some terminals wrap, and each redraw would then scroll). From
 * widest to narrowest:
 *
 * <pre>
 * twping: 1.2/10.0 s  sent 12  received 12  lost 0  rtt p50 0.0326 p99 0.113 ms    (about 80-90 columns)
 * twping: 1.2/10.0 s  sent 12  recv 12  lost 0  p50 0.0326  p99 0.113 ms            (fits 80)
 * 1.2/10.0s sent 12 lost 0 p50 0.0326ms                                             (fits 40)
 * 1.2/10.0s lost 0
 * </pre>
 *
 * and the narrowest cut to the width when even that does not fit. Delays in milliseconds with three
 * significant digits ({@code %.3g}, as the summary), {@code -} before the first reply.
 */
final class ProgressText {
    private ProgressText() {
    }

    /**
     * @param columns  the terminal's width
     * @param p50Ns    the round-trip median of the current interval, -1 when none yet
     * @param p99Ns    its 99th percentile, -1 when none yet
     * @return the line without control characters, at most {@code columns - 1} characters long (at least 1)
     */
    static String fit(int columns, String program, double elapsedSeconds, double durationSeconds, long sent,
                      long received, long lost, long p50Ns, long p99Ns) {
        int room = Math.max(1, columns - 1);
        String time = String.format(Locale.ROOT, "%.1f/%.1f", Math.max(0, elapsedSeconds), durationSeconds);
        String p50 = ms(p50Ns);
        String p99 = ms(p99Ns);
        String[] forms = {
            program + ": " + time + " s  sent " + sent + "  received " + received + "  lost " + lost
                    + "  rtt p50 " + p50 + " p99 " + p99 + " ms",
            program + ": " + time + " s  sent " + sent + "  recv " + received + "  lost " + lost
                    + "  p50 " + p50 + "  p99 " + p99 + " ms",
            time + "s sent " + sent + " lost " + lost + " p50 " + p50 + "ms",
            time + "s lost " + lost,
        };
        for (String form : forms) {
            if (form.length() <= room) {
                return form;
            }
        }
        return forms[forms.length - 1].substring(0, room);
    }

    private static String ms(long ns) {
        return ns < 0 ? "-" : CFormat.g(new StringBuilder(), ns / 1e6, 3).toString();
    }
}
