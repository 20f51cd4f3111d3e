package io.github.twping.report.extended;

import java.util.List;

import io.github.twping.datafile.TwoWayRecord;

/**
 * The per-packet delay breakdown as the {@code --html} report reads it: for the first reply to each sequence
 * number, the value of each part of the delay with a code for the source of the stamps it was taken from, or
 * {@link #UNKNOWN} when the packet did not have the stamps for it. Read once per record on the thread that writes
 * the report, never on the packet path; {@link HtmlReportData} aggregates the values into a {@link DelayBreakdown}.
 * {@link BreakdownParts} reads the model of {@code stats.breakdown}.
 */
public interface PacketDelayParts {
    /** The source code of a part that is not known for the packet: no value, never drawn as zero. */
    int UNKNOWN = 0;

    /**
     * One part of the delay.
     *
     * @param name  its name in the legend ("sender stack")
     * @param spans the stamps it lies between ("user send stamp to kernel TX stamp")
     */
    record Part(String name, String spans) {
    }

    /** @return the parts, in the order they stack (the first at the bottom) */
    List<Part> parts();

    /** @return the number of source codes ({@link #UNKNOWN} and the known ones, 1 up) */
    int sources();

    /** @return the name of source code {@code code} ("kernel", "user \u2192 kernel"; "unknown" for 0) */
    String sourceName(int code);

    /**
     * Fills {@code ns[k]} and {@code source[k]} for each part {@code k} of the packet of the answered record
     * {@code r}, record {@code index} of the data file; {@code source[k]} is {@link #UNKNOWN} (and {@code ns[k]}
     * ignored) when the part is not known.
     */
    void read(long index, TwoWayRecord r, long[] ns, int[] source);
}
