package io.github.twping.report.extended;

import java.util.List;

/**
 * The per-interval breakdown of the delay into consecutive parts (sender stack, forward, reflector residence,
 * back, receiver wake-up, pacing lateness), for the stacked chart of the {@code --html} report.
 * {@link HtmlReportData} builds it from a {@link PacketDelayParts} over the report's intervals
 * ({@link HtmlReportData#intervalNs()}, interval {@code i} covering scheduled send times
 * {@code [i * interval, (i + 1) * interval)} since the session start): per part and interval the median of the
 * part over the answered packets (first replies) that had it.
 *
 * @param parts    the parts, in the order they stack (first at the bottom)
 * @param medianNs one array per part, one value per interval: the median of that part in ns, or null when no
 *                 packet of the interval had that part (unknown: never drawn as zero)
 */
public record DelayBreakdown(List<Part> parts, List<Long[]> medianNs) {
    /**
     * One part over the whole session.
     *
     * @param name    its name ("sender stack")
     * @param spans   the stamps it lies between
     * @param source  where its stamps came from: {@code kernel}, {@code hardware}, {@code user}, several with
     *                their packet counts ({@code kernel 998, user 2}), or {@code unknown} when no packet had it
     * @param known   answered packets that had the part
     * @param unknown answered packets that did not
     */
    public record Part(String name, String spans, String source, long known, long unknown) {
    }

    /** Checks that there is one series per part. */
    public DelayBreakdown {
        parts = List.copyOf(parts);
        medianNs = List.copyOf(medianNs);
        if (parts.size() != medianNs.size()) {
            throw new IllegalArgumentException(parts.size() + " parts but " + medianNs.size() + " series");
        }
    }

    /**
     * The source label of a part from its packet counts per source code of {@code parts}
     * ({@link PacketDelayParts#UNKNOWN} first): the one source, or each with its count, most packets first;
     * {@code unknown} when no packet had the part.
     */
    static String sourceLabel(long[] perSource, PacketDelayParts parts) {
        StringBuilder sb = new StringBuilder();
        int kinds = 0;
        for (int s = 1; s < perSource.length; s++) {
            kinds += perSource[s] > 0 ? 1 : 0;
        }
        if (kinds == 0) {
            return "unknown";
        }
        boolean[] done = new boolean[perSource.length];
        for (int n = 0; n < kinds; n++) {
            int best = -1;
            for (int s = 1; s < perSource.length; s++) {
                if (!done[s] && perSource[s] > 0 && (best < 0 || perSource[s] > perSource[best])) {
                    best = s;
                }
            }
            done[best] = true;
            sb.append(sb.isEmpty() ? "" : ", ").append(parts.sourceName(best));
            if (kinds > 1) {
                sb.append(' ').append(perSource[best]);
            }
        }
        return sb.toString();
    }
}
