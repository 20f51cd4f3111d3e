package io.github.twping.jmh.compare;

import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Command-line tool that compares two JMH JSON results and fails on a regression; used by CI.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar JmhCompare BASELINE.json CURRENT.json [--threshold PCT]
 * </pre>
 *
 * <p>Prints a Markdown table to standard output. Exit status: {@value #OK} no regression,
 * {@value #USAGE_OR_INPUT_ERROR} bad arguments or malformed input (one line on standard error),
 * {@value #REGRESSED} at least one benchmark regressed. See {@link ResultComparator} for the rule.
 */
public final class JmhCompare {
    /** Exit status: nothing regressed (new and missing benchmarks do not count). */
    public static final int OK = 0;
    /** Exit status: bad command line or an input file that is not a JMH JSON result. */
    public static final int USAGE_OR_INPUT_ERROR = 1;
    /** Exit status: at least one benchmark regressed in score or allocation. */
    public static final int REGRESSED = 2;

    private static final String PROG = "jmh-compare";
    private static final String USAGE = "usage: " + PROG + " BASELINE.json CURRENT.json [--threshold PCT]";

    private JmhCompare() {
    }

    /**
     * Runs the tool and exits with its status.
     *
     * @param args {@code BASELINE.json CURRENT.json [--threshold PCT]}.
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the tool without exiting the JVM.
     *
     * @param args command-line arguments.
     * @param out  where the Markdown report goes.
     * @param err  where errors go (one line each).
     * @return the exit status.
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        List<String> files = new ArrayList<>(2);
        double thresholdPct = ResultComparator.DEFAULT_THRESHOLD_PCT;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            if (arg.equals("--threshold")) {
                if (i + 1 >= args.length) {
                    err.println(PROG + ": --threshold needs a value in percent; " + USAGE);
                    return USAGE_OR_INPUT_ERROR;
                }
                value = args[++i];
            } else if (arg.startsWith("--threshold=")) {
                value = arg.substring("--threshold=".length());
            } else if (arg.equals("-h") || arg.equals("--help")) {
                out.println(USAGE);
                return OK;
            } else if (arg.startsWith("-") && arg.length() > 1) {
                err.println(PROG + ": unknown option " + arg + "; " + USAGE);
                return USAGE_OR_INPUT_ERROR;
            } else {
                files.add(arg);
                continue;
            }
            thresholdPct = parseThreshold(value);
            if (Double.isNaN(thresholdPct)) {
                err.println(PROG + ": --threshold must be a number >= 0 (percent), got \"" + value + "\"");
                return USAGE_OR_INPUT_ERROR;
            }
        }
        if (files.size() != 2) {
            err.println(PROG + ": expected two result files; " + USAGE);
            return USAGE_OR_INPUT_ERROR;
        }
        List<BenchmarkResult> baseline;
        List<BenchmarkResult> current;
        try {
            baseline = JmhResultReader.read(Path.of(files.get(0)));
            current = JmhResultReader.read(Path.of(files.get(1)));
        } catch (MalformedResultException e) {
            err.println(PROG + ": " + e.getMessage());
            return USAGE_OR_INPUT_ERROR;
        } catch (InvalidPathException e) {
            err.println(PROG + ": invalid file name: " + e.getInput());
            return USAGE_OR_INPUT_ERROR;
        }
        ComparisonReport report = new ResultComparator(thresholdPct).compare(baseline, current);
        MarkdownReport.write(report, files.get(0), files.get(1), out);
        return report.regressionCount() == 0 ? OK : REGRESSED;
    }

    /** @return the threshold in percent, or NaN when the text is not a finite number >= 0 ("5" and "5%" accepted). */
    private static double parseThreshold(String text) {
        String digits = text.strip();
        if (digits.endsWith("%")) {
            digits = digits.substring(0, digits.length() - 1).strip();
        }
        if (digits.isEmpty() || !digits.matches("[0-9.eE+-]+")) {
            return Double.NaN;
        }
        try {
            double value = Double.parseDouble(digits.toLowerCase(Locale.ROOT));
            return value >= 0 && Double.isFinite(value) ? value : Double.NaN;
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
