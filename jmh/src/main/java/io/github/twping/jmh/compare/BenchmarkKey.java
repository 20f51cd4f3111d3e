package io.github.twping.jmh.compare;

import java.util.Map;
import java.util.SortedMap;
import java.util.StringJoiner;

/**
 * Identity of one JMH result: benchmark method, mode and parameter values; two runs are matched on it.
 *
 * @param benchmark fully qualified benchmark method name.
 * @param mode      JMH mode short name ({@code thrpt}, {@code avgt}, {@code sample}, {@code ss}).
 * @param params    parameter values by name, sorted by name (empty when the benchmark has none).
 */
public record BenchmarkKey(String benchmark, String mode, SortedMap<String, String> params) {

    /** @return the parameters as {@code a=1, b=x}, or an empty string. */
    public String paramsText() {
        StringJoiner joiner = new StringJoiner(", ");
        for (Map.Entry<String, String> entry : params.entrySet()) {
            joiner.add(entry.getKey() + "=" + entry.getValue());
        }
        return joiner.toString();
    }

    @Override
    public String toString() {
        String text = paramsText();
        return benchmark + " [" + mode + (text.isEmpty() ? "" : ", " + text) + "]";
    }
}
