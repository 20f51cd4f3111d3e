package io.github.twping.report.extended;

import java.util.List;

/**
 * A per-interval breakdown of the round trip into consecutive parts (for example sender stack, forward,
 * reflector residence, back, receiver wake-up, lateness), for the stacked chart of the {@code --html} report.
 * No measurement supplies one yet: the report says so instead of drawing the chart. A source of per-packet
 * part delays aggregates them over the report's intervals ({@link HtmlReportData#intervalNs()}, interval
 * {@code i} covering scheduled send times {@code [i * interval, (i + 1) * interval)} since the session start) and passes
 * the median of each part per interval.
 *
 * @param parts      the names of the parts, in the order they stack (first at the bottom)
 * @param medianNs   one array per part, one value per interval: the median of that part in ns, or null when
 *                   the interval has no packet with that part
 */
public record DelayBreakdown(List<String> parts, List<Long[]> medianNs) {
    /** Checks that there is one series per part. */
    public DelayBreakdown {
        parts = List.copyOf(parts);
        medianNs = List.copyOf(medianNs);
        if (parts.size() != medianNs.size()) {
            throw new IllegalArgumentException(parts.size() + " parts but " + medianNs.size() + " series");
        }
    }
}
