package io.github.twping.report.extended;

import java.util.List;

/**
 * The result outputs beside the C-compatible ones (docs/CLI.md, result outputs): {@code --exact},
 * {@code --json}, {@code --json-stream}, {@code --json-stream-packets}, {@code --interval}, {@code --csv},
 * {@code --html}, {@code --progress}/{@code --no-progress}, {@code --report} and {@code --explain}.
 *
 * @param exact           {@code --exact}: the exact-statistics block under the human summary
 * @param json            {@code --json FILE|-}, or null
 * @param jsonStream      {@code --json-stream FILE|-}, or null
 * @param streamPackets   {@code --json-stream-packets}: one {@code packet} event per record
 * @param intervalSeconds {@code --interval}, default 1
 * @param csv             {@code --csv FILE}, or null
 * @param html            {@code --html FILE}, or null
 * @param progress        {@code --progress} (TRUE), {@code --no-progress} (FALSE), or null for the TTY rule
 * @param reportFile      {@code --report FILE.owp}: re-report a saved session instead of measuring, or null
 * @param toolVersion     the program version written into the JSON outputs
 * @param explain         {@code --explain}: the slowest packets with their delay breakdown and the component that
 *                        dominated the p99, after the summary
 */
public record ResultOptions(boolean exact, String json, String jsonStream, boolean streamPackets,
                            double intervalSeconds, String csv, String html, Boolean progress, String reportFile,
                            String toolVersion, boolean explain) {
    /** Default {@code --interval}. */
    public static final double DEFAULT_INTERVAL_SECONDS = 1.0;
    /** Smallest {@code --interval}. */
    public static final double MIN_INTERVAL_SECONDS = 0.01;
    /** Path meaning standard output. */
    public static final String STDOUT = "-";

    /** A long option of this group: its name and whether it takes an argument. */
    public record LongOption(String name, boolean hasArgument) {
    }

    /** The long options, in the order {@code --help} lists them. */
    public static final List<LongOption> LONG_OPTIONS = List.of(
            new LongOption("exact", false),
            new LongOption("json", true),
            new LongOption("json-stream", true),
            new LongOption("json-stream-packets", false),
            new LongOption("interval", true),
            new LongOption("csv", true),
            new LongOption("html", true),
            new LongOption("progress", false),
            new LongOption("no-progress", false),
            new LongOption("report", true),
            new LongOption("explain", false));

    /** The options without {@code --explain}. */
    public ResultOptions(boolean exact, String json, String jsonStream, boolean streamPackets, double intervalSeconds,
                         String csv, String html, Boolean progress, String reportFile, String toolVersion) {
        this(exact, json, jsonStream, streamPackets, intervalSeconds, csv, html, progress, reportFile, toolVersion,
                false);
    }

    /** No result outputs. */
    public static ResultOptions none() {
        return new ResultOptions(false, null, null, false, DEFAULT_INTERVAL_SECONDS, null, null, null, null, "");
    }

    /**
     * @return true when an output shows the delay breakdown ({@code --exact}, {@code --explain}, {@code --json},
     *         {@code --json-stream}, {@code --csv}, {@code --html}): the session then keeps the client's extra stamps
     */
    public boolean showsBreakdown() {
        return exact || explain || anyWriter();
    }

    /** @return true when any file or stream output is asked for */
    public boolean anyWriter() {
        return json != null || jsonStream != null || csv != null || html != null;
    }

    /**
     * @return true when {@code --json -} or {@code --json-stream -} writes JSON to standard output: the C
     *         outputs (summary, {@code -M}, {@code -R}, {@code -v}, the {@code --exact} block) then go to
     *         standard error, so that stdout is JSON only (docs/CLI.md)
     */
    public boolean jsonToStdout() {
        return STDOUT.equals(json) || STDOUT.equals(jsonStream);
    }

    /** Collects the options while argv is parsed. */
    public static final class Builder {
        private boolean exact;
        private String json;
        private String jsonStream;
        private boolean streamPackets;
        private double intervalSeconds = DEFAULT_INTERVAL_SECONDS;
        private String csv;
        private String html;
        private Boolean progress;
        private String reportFile;
        private boolean explain;

        /**
         * Applies one option.
         *
         * @return null, or the reason the argument is invalid (for the usage message)
         */
        public String set(String name, String argument) {
            switch (name) {
                case "exact" -> exact = true;
                case "json" -> json = argument;
                case "json-stream" -> jsonStream = argument;
                case "json-stream-packets" -> streamPackets = true;
                case "interval" -> {
                    double v;
                    try {
                        v = argument.isBlank() ? Double.NaN : Double.parseDouble(argument.trim());
                    } catch (NumberFormatException e) {
                        v = Double.NaN;
                    }
                    if (!(v >= MIN_INTERVAL_SECONDS) || Double.isInfinite(v) || v > 86400) {
                        return "Seconds 0.01..86400 expected";
                    }
                    intervalSeconds = v;
                }
                case "csv" -> csv = argument;
                case "html" -> html = argument;
                case "progress" -> progress = Boolean.TRUE;
                case "no-progress" -> progress = Boolean.FALSE;
                case "report" -> reportFile = argument;
                case "explain" -> explain = true;
                default -> throw new IllegalArgumentException("not a result option: " + name);
            }
            if (argument != null && argument.isEmpty()) {
                return "File name expected";
            }
            return null;
        }

        /** @return true once {@code --report} was given (the test address becomes optional) */
        public boolean reporting() {
            return reportFile != null;
        }

        /** @return the options, with the program version for the JSON outputs */
        public ResultOptions build(String toolVersion) {
            return new ResultOptions(exact, json, jsonStream, streamPackets, intervalSeconds, csv, html, progress,
                    reportFile, toolVersion, explain);
        }
    }
}
