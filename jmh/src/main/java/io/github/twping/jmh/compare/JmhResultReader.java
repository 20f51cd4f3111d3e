package io.github.twping.jmh.compare;

import java.io.EOFException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.gson.stream.MalformedJsonException;

/**
 * Reads the JSON file JMH writes with {@code -rf json} into {@link BenchmarkResult}s.
 *
 * <p>Only the fields the comparison needs are read: {@code benchmark}, {@code mode}, {@code params},
 * {@code primaryMetric.score/scoreError/scoreConfidence/scoreUnit} and the score of the
 * {@code gc.alloc.rate.norm} secondary metric. JMH writes non-finite numbers as strings ({@code "NaN"});
 * both forms are accepted.
 */
public final class JmhResultReader {
    private static final String ALLOC_NORM = "gc.alloc.rate.norm";

    private JmhResultReader() {
    }

    /**
     * Reads a JMH JSON result file.
     *
     * @param file the file.
     * @return the results, in file order.
     * @throws MalformedResultException if the file cannot be read or is not a JMH JSON result.
     */
    public static List<BenchmarkResult> read(Path file) throws MalformedResultException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(file.toString(), reader);
        } catch (NoSuchFileException e) {
            throw new MalformedResultException(file + ": no such file");
        } catch (MalformedInputException e) {
            throw new MalformedResultException(file + ": not UTF-8 text, not a JMH JSON result");
        } catch (IOException e) {
            throw new MalformedResultException(file + ": cannot read: " + e.getMessage());
        }
    }

    /**
     * Parses JMH JSON result text.
     *
     * @param name   name of the source, used in messages.
     * @param reader the JSON text.
     * @return the results, in document order.
     * @throws MalformedResultException if the text is not a JMH JSON result.
     */
    public static List<BenchmarkResult> parse(String name, Reader reader) throws MalformedResultException {
        JsonElement root;
        try {
            root = JsonParser.parseReader(reader);
        } catch (JsonParseException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof MalformedInputException) {
                throw new MalformedResultException(name + ": not UTF-8 text, not a JMH JSON result");
            }
            if (cause instanceof IOException && !(cause instanceof EOFException || cause instanceof MalformedJsonException)) {
                throw new MalformedResultException(name + ": cannot read: " + firstLine(cause.getMessage()));
            }
            throw new MalformedResultException(name + ": invalid JSON: " + firstLine(cause.getMessage()));
        }
        if (!root.isJsonArray()) {
            throw new MalformedResultException(name + ": not a JMH JSON result (expected an array of benchmark results)");
        }
        JsonArray array = root.getAsJsonArray();
        List<BenchmarkResult> results = new ArrayList<>(array.size());
        Set<BenchmarkKey> seen = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            BenchmarkResult result = entry(name, i, array.get(i));
            if (!seen.add(result.key())) {
                throw new MalformedResultException(name + ": entry " + i + ": duplicate result for " + result.key());
            }
            results.add(result);
        }
        return results;
    }

    private static BenchmarkResult entry(String name, int index, JsonElement element) throws MalformedResultException {
        String where = name + ": entry " + index;
        if (!element.isJsonObject()) {
            throw new MalformedResultException(where + ": not a JSON object");
        }
        JsonObject object = element.getAsJsonObject();
        String benchmark = string(object, "benchmark", where);
        where = where + " (" + benchmark + ")";
        String mode = string(object, "mode", where);
        if (ScoreDirection.ofMode(mode) == null) {
            throw new MalformedResultException(where + ": unknown mode \"" + mode + "\" (expected thrpt, avgt, sample or ss)");
        }
        SortedMap<String, String> params = params(object, where);
        JsonObject primary = object(object, "primaryMetric", where);
        if (primary == null) {
            throw new MalformedResultException(where + ": missing primaryMetric");
        }
        double score = number(primary, "score", where + ": primaryMetric");
        if (!Double.isFinite(score)) {
            throw new MalformedResultException(where + ": primaryMetric.score is not a finite number");
        }
        double error = primary.has("scoreError") ? number(primary, "scoreError", where + ": primaryMetric") : Double.NaN;
        String unit = string(primary, "scoreUnit", where + ": primaryMetric");
        double low = Double.NaN;
        double high = Double.NaN;
        JsonElement confidence = primary.get("scoreConfidence");
        if (confidence != null && !confidence.isJsonNull()) {
            if (!confidence.isJsonArray() || confidence.getAsJsonArray().size() != 2) {
                throw new MalformedResultException(where + ": primaryMetric.scoreConfidence is not an array of two numbers");
            }
            low = toDouble(confidence.getAsJsonArray().get(0), where + ": primaryMetric.scoreConfidence[0]");
            high = toDouble(confidence.getAsJsonArray().get(1), where + ": primaryMetric.scoreConfidence[1]");
        }
        if (!Double.isFinite(low) || !Double.isFinite(high) || low > high) {
            boolean knownError = Double.isFinite(error) && error >= 0;
            low = knownError ? score - error : score;
            high = knownError ? score + error : score;
        }
        double[] alloc = allocNorm(object, where);
        return new BenchmarkResult(new BenchmarkKey(benchmark, mode, params), score, error, low, high, unit,
                alloc[0], alloc[1]);
    }

    private static SortedMap<String, String> params(JsonObject object, String where) throws MalformedResultException {
        SortedMap<String, String> params = new TreeMap<>();
        JsonObject json = object(object, "params", where);
        if (json != null) {
            for (Map.Entry<String, JsonElement> entry : json.entrySet()) {
                JsonElement value = entry.getValue();
                if (!value.isJsonPrimitive()) {
                    throw new MalformedResultException(where + ": params." + entry.getKey() + " is not a string");
                }
                params.put(entry.getKey(), value.getAsString());
            }
        }
        return params;
    }

    /** @return {@code gc.alloc.rate.norm} score and error, NaN where absent. */
    private static double[] allocNorm(JsonObject object, String where) throws MalformedResultException {
        double[] scoreAndError = {Double.NaN, Double.NaN};
        JsonObject secondary = object(object, "secondaryMetrics", where);
        if (secondary == null) {
            return scoreAndError;
        }
        for (Map.Entry<String, JsonElement> entry : secondary.entrySet()) {
            // JMH 1.37 writes "gc.alloc.rate.norm"; older versions prefixed a middle dot: "·gc.alloc.rate.norm".
            String metric = entry.getKey().startsWith("\u00b7") ? entry.getKey().substring(1) : entry.getKey();
            if (metric.equals(ALLOC_NORM)) {
                String at = where + ": secondaryMetrics." + metric;
                if (!entry.getValue().isJsonObject()) {
                    throw new MalformedResultException(at + " is not an object");
                }
                JsonObject allocMetric = entry.getValue().getAsJsonObject();
                scoreAndError[0] = number(allocMetric, "score", at);
                if (allocMetric.has("scoreError")) {
                    scoreAndError[1] = number(allocMetric, "scoreError", at);
                }
                return scoreAndError;
            }
        }
        return scoreAndError;
    }

    private static JsonObject object(JsonObject parent, String field, String where) throws MalformedResultException {
        JsonElement element = parent.get(field);
        if (element == null || element.isJsonNull()) {
            return null;
        }
        if (!element.isJsonObject()) {
            throw new MalformedResultException(where + ": " + field + " is not an object");
        }
        return element.getAsJsonObject();
    }

    private static String string(JsonObject parent, String field, String where) throws MalformedResultException {
        JsonElement element = parent.get(field);
        if (element == null || !element.isJsonPrimitive() || !element.getAsJsonPrimitive().isString()) {
            throw new MalformedResultException(where + ": missing string field \"" + field + "\"");
        }
        return element.getAsString();
    }

    private static double number(JsonObject parent, String field, String where) throws MalformedResultException {
        JsonElement element = parent.get(field);
        if (element == null) {
            throw new MalformedResultException(where + ": missing number field \"" + field + "\"");
        }
        return toDouble(element, where + "." + field);
    }

    private static double toDouble(JsonElement element, String where) throws MalformedResultException {
        if (element.isJsonPrimitive()) {
            JsonPrimitive primitive = element.getAsJsonPrimitive();
            if (primitive.isNumber()) {
                return primitive.getAsDouble();
            }
            if (primitive.isString()) {
                switch (primitive.getAsString()) {
                    case "NaN":
                        return Double.NaN;
                    case "Infinity":
                        return Double.POSITIVE_INFINITY;
                    case "-Infinity":
                        return Double.NEGATIVE_INFINITY;
                    default:
                        break;
                }
            }
        }
        throw new MalformedResultException(where + " is not a number");
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
