package io.github.twping.jmh.compare;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** Writes a {@link ComparisonReport} as a Markdown table followed by the missing and new benchmarks. */
public final class MarkdownReport {
    private MarkdownReport() {
    }

    /**
     * Writes the report.
     *
     * @param report       what to write.
     * @param baselineName label of the baseline run (its file name).
     * @param currentName  label of the current run.
     * @param out          where to write.
     */
    public static void write(ComparisonReport report, String baselineName, String currentName, PrintStream out) {
        String prefix = commonPackagePrefix(report);
        out.printf(Locale.ROOT, "## JMH comparison: `%s` (baseline) vs `%s` (current)%n%n", baselineName, currentName);
        out.printf(Locale.ROOT,
                "Regression: confidence intervals apart and worse by more than %s %%; allocation: from < 1 to >= 1 B/op, "
                        + "or up by more than %s %% and 1 B/op beyond its error; either way by at least 1 MB/s.%n", percent(report.thresholdPct()), percent(report.thresholdPct()));
        if (!prefix.isEmpty()) {
            out.printf(Locale.ROOT, "Benchmarks in `%s`.%n", prefix.substring(0, prefix.length() - 1));
        }
        out.println();
        out.println("| Benchmark | Mode | Params | Baseline ± error | Current ± error | Change | Alloc B/op (base → current) | Verdict |");
        out.println("|---|---|---|---:|---:|---:|---:|---|");
        for (ComparisonRow row : report.rows()) {
            BenchmarkKey key = row.baseline().key();
            out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    cell(key.benchmark().substring(prefix.length())), key.mode(), cell(key.paramsText()),
                    score(row.baseline()), score(row.current()), change(row.changePct()), alloc(row), verdict(row));
        }
        list(out, "Missing from the current run (not a failure)", report.missing(), prefix);
        list(out, "New in the current run (not a failure)", report.added(), prefix);
        out.println();
        long regressions = report.regressionCount();
        out.printf(Locale.ROOT, "**Result: %s** (%d compared, %d missing, %d new).%n",
                regressions == 0 ? "no regression" : regressions + (regressions == 1 ? " regression" : " regressions"),
                report.rows().size(), report.missing().size(), report.added().size());
    }

    private static void list(PrintStream out, String title, List<BenchmarkKey> keys, String prefix) {
        if (keys.isEmpty()) {
            return;
        }
        out.println();
        out.println(title + ":");
        for (BenchmarkKey key : keys) {
            String params = key.paramsText();
            out.printf(Locale.ROOT, "- `%s` %s%s%n", key.benchmark().substring(prefix.length()), key.mode(),
                    params.isEmpty() ? "" : " (" + params + ")");
        }
    }

    private static String verdict(ComparisonRow row) {
        String text = row.verdict().text();
        if (row.allocRegression()) {
            text = (row.verdict() == Verdict.REGRESSION ? text + ", " : "") + "ALLOC REGRESSION";
        }
        return row.failed() ? "**" + text + "**" : text;
    }

    private static String score(BenchmarkResult result) {
        String error = result.hasError() ? number(result.scoreError()) : "?";
        return number(result.score()) + " ± " + error + " " + result.unit();
    }

    private static String change(double changePct) {
        if (Double.isNaN(changePct)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%+.1f %%", changePct);
    }

    private static String alloc(ComparisonRow row) {
        if (!row.baseline().hasAlloc() || !row.current().hasAlloc()) {
            return "n/a";
        }
        return number(row.baseline().allocNormBytes()) + " → " + number(row.current().allocNormBytes());
    }

    /** Formats a figure with about four significant digits, never in exponent form. */
    static String number(double value) {
        if (!Double.isFinite(value)) {
            return String.valueOf(value);
        }
        double magnitude = Math.abs(value);
        String pattern = magnitude >= 1000 ? "%.0f" : magnitude >= 100 ? "%.1f" : magnitude >= 10 ? "%.2f"
                : magnitude >= 0.001 || magnitude == 0 ? "%.3f" : "%.6f";
        return String.format(Locale.ROOT, pattern, value);
    }

    private static String percent(double pct) {
        return pct == Math.rint(pct) ? String.format(Locale.ROOT, "%.0f", pct) : number(pct);
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }

    /** The package prefix (ending in a dot) shared by every benchmark name in the report, or "". */
    private static String commonPackagePrefix(ComparisonReport report) {
        String prefix = null;
        for (ComparisonRow row : report.rows()) {
            prefix = common(prefix, row.baseline().key().benchmark());
        }
        for (BenchmarkKey key : report.missing()) {
            prefix = common(prefix, key.benchmark());
        }
        for (BenchmarkKey key : report.added()) {
            prefix = common(prefix, key.benchmark());
        }
        return prefix == null ? "" : prefix;
    }

    private static String common(String prefix, String name) {
        // The package of "a.b.Class.method" is everything before the second-to-last dot.
        int methodDot = name.lastIndexOf('.');
        int classDot = methodDot <= 0 ? -1 : name.lastIndexOf('.', methodDot - 1);
        String pkg = classDot < 0 ? "" : name.substring(0, classDot + 1);
        if (prefix == null) {
            return pkg;
        }
        int length = 0;
        int limit = Math.min(prefix.length(), pkg.length());
        for (int i = 0; i < limit && prefix.charAt(i) == pkg.charAt(i); i++) {
            if (prefix.charAt(i) == '.') {
                length = i + 1;
            }
        }
        return prefix.substring(0, length);
    }
}
