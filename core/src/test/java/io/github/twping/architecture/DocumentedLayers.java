package io.github.twping.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The layer of every package of {@code core}, as the diagram under "## Package graph" in docs/ARCHITECTURE.md
 * draws it: the first fenced block after that heading, one line per layer, {@code N  pkg pkg ... # comment}.
 * The diagram is the one place the layers are written, so the document and the test cannot disagree.
 */
record DocumentedLayers(Map<String, Integer> layers) {
    static final Path DOCUMENT = Path.of("../docs/ARCHITECTURE.md");
    /** The package of module ffm-sockets, drawn below the rule: under every layer of core. */
    static final String FFM = "ffm";
    private static final String HEADING = "## Package graph";
    private static final Pattern LAYER_LINE =
            Pattern.compile("^\\s*(\\d+)\\s+([a-z][a-z0-9.]*(?:\\s+[a-z][a-z0-9.]*)*)\\s*(?:#.*)?$");

    /** Reads the diagram of {@link #DOCUMENT} (relative to core's directory, where the tests run). */
    static DocumentedLayers read() {
        try {
            return parse(Files.readString(DOCUMENT));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @throws IllegalArgumentException when the heading, the block or a layer line is missing or repeats a package */
    static DocumentedLayers parse(String markdown) {
        int heading = markdown.indexOf("\n" + HEADING + "\n");
        if (heading < 0) {
            throw new IllegalArgumentException("no '" + HEADING + "' heading");
        }
        int open = markdown.indexOf("\n```", heading);
        int close = open < 0 ? -1 : markdown.indexOf("\n```", open + 4);
        if (close < 0) {
            throw new IllegalArgumentException("no fenced diagram after '" + HEADING + "'");
        }
        String block = markdown.substring(markdown.indexOf('\n', open + 1) + 1, close);
        Map<String, Integer> layers = new TreeMap<>();
        for (String line : block.split("\n")) {
            Matcher m = LAYER_LINE.matcher(line);
            if (!m.matches()) {
                continue; // blank lines, the ffm-sockets line below the rule
            }
            int layer = Integer.parseInt(m.group(1));
            for (String pkg : m.group(2).trim().split("\\s+")) {
                if (layers.put(pkg, layer) != null) {
                    throw new IllegalArgumentException("package " + pkg + " is on two layers");
                }
            }
        }
        if (layers.isEmpty()) {
            throw new IllegalArgumentException("no layer line in the diagram after '" + HEADING + "'");
        }
        return new DocumentedLayers(layers);
    }

    /**
     * @param prefix the root package with its dot ({@code io.github.twping.}), stripped from the graph's names
     * @return one line per edge of {@code graph} that points to the same or a higher layer, with its example,
     *         and per package of the graph that the diagram does not place
     */
    List<String> violations(PackageGraph graph, String prefix) {
        List<String> out = new ArrayList<>();
        for (String from : graph.packages()) {
            String f = strip(from, prefix);
            Integer fromLayer = layerOf(f);
            if (fromLayer == null) {
                out.add(f + " is on no layer of the diagram");
                continue;
            }
            for (Map.Entry<String, String> e : graph.dependencies(from).entrySet()) {
                String t = strip(e.getKey(), prefix);
                Integer toLayer = layerOf(t);
                if (toLayer != null && toLayer >= fromLayer) {
                    out.add(f + " (layer " + fromLayer + ") -> " + t + " (layer " + toLayer + "): " + e.getValue());
                }
            }
        }
        return out;
    }

    /** The layer of {@code pkg}: the diagram's, or -1 for {@code ffm} (module ffm-sockets, below every layer). */
    private Integer layerOf(String pkg) {
        return pkg.equals(FFM) ? Integer.valueOf(-1) : layers.get(pkg);
    }

    private static String strip(String pkg, String prefix) {
        return pkg.startsWith(prefix) ? pkg.substring(prefix.length()) : pkg;
    }
}
