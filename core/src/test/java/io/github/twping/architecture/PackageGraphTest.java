package io.github.twping.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.cli.Main;
import io.github.twping.ffm.UdpSocket;
import java.lang.classfile.ClassFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Guards the package rules of docs/ARCHITECTURE.md: every package of {@code core} uses only packages on lower
 * layers of the document's diagram ({@link DocumentedLayers}), in the compiled classes and in the sources; the
 * packages form no cycle; and {@code ffm-sockets} references nothing but its own package and the JDK.
 */
class PackageGraphTest {
    private static final String PROJECT = "io/github/twping/";
    private static final String FFM = "io/github/twping/ffm/";
    private static final List<String> JDK_PREFIXES = List.of("java/", "javax/", "jdk/", "sun/");
    private static final String ROOT = "io.github.twping.";

    @Test
    void shouldHaveNoPackageCycleInTheCompiledCore() {
        assertNoCycle(compiledCore());
    }

    @Test
    void shouldHaveNoPackageCycleInTheCoreSources() {
        assertNoCycle(coreSources());
    }

    @Test
    void shouldPointEveryEdgeOfTheCompiledCoreToALowerDocumentedLayer() {
        assertLayered(compiledCore());
    }

    @Test
    void shouldPointEveryEdgeOfTheCoreSourcesToALowerDocumentedLayer() {
        assertLayered(coreSources());
    }

    @Test
    void shouldPlaceOnlyPackagesThatExist() {
        Set<String> existing = new TreeSet<>();
        coreSources().packages().forEach(p -> existing.add(p.substring(ROOT.length())));
        Set<String> stale = new TreeSet<>(DocumentedLayers.read().layers().keySet());
        stale.removeAll(existing);
        assertEquals(Set.of(), stale, DocumentedLayers.DOCUMENT + " places packages that core does not have");
    }

    @Test
    void shouldReadTheLayersFromTheDiagramAndNameEdgesThatPointUpOrSideways() {
        DocumentedLayers layers = DocumentedLayers.parse("""
                # Doc

                ## Package graph

                ```
                  2  top            # the programs
                  1  mid  side.sub  # two on one layer
                  0  low
                     ----
                     ffm  (module)    not a layer
                ```
                """);
        assertEquals(Map.of("top", 2, "mid", 1, "side.sub", 1, "low", 0), layers.layers());
        PackageGraph graph = new PackageGraph();
        graph.add("x.top", "x.mid", "fine");
        graph.add("x.mid", "x.low", "fine");
        graph.add("x.mid", "x.side.sub", "Mid -> Side");
        graph.add("x.low", "x.top", "Low -> Top");
        graph.add("x.stray", "x.low", "Stray -> Low");
        assertEquals(List.of("low (layer 0) -> top (layer 2): Low -> Top", "mid (layer 1) -> side.sub (layer 1): Mid -> Side",
                "stray is on no layer of the diagram"), layers.violations(graph, "x."));
    }

    @Test
    void shouldRefuseADiagramThatPlacesAPackageTwice() {
        String doc = "## Package graph\n\n```\n  1  a b\n  0  a\n```\n";
        assertThrows(IllegalArgumentException.class, () -> DocumentedLayers.parse("\n" + doc));
    }

    private static PackageGraph compiledCore() {
        Path classes = PackageGraph.locationOf(Main.class);
        PackageGraph graph = new PackageGraph();
        PackageGraph.forEachClass(classes, (name, referenced) -> {
            for (String r : referenced) {
                if (r.startsWith(PROJECT) && !r.startsWith(FFM)) {
                    graph.add(PackageGraph.packageOf(name), PackageGraph.packageOf(r), name + " -> " + r);
                }
            }
        });
        assertTrue(graph.packages().size() >= 12, () -> "too few core packages found in " + classes + ": " + graph.packages());
        return graph;
    }

    private static PackageGraph coreSources() {
        Path sources = Path.of("src/main/java");
        assertTrue(Files.isDirectory(sources.resolve("io/github/twping/cli")), () -> "core sources not found from "
                + Path.of("").toAbsolutePath());
        PackageGraph graph = new PackageGraph();
        graph.addSources(sources);
        return graph;
    }

    private static void assertLayered(PackageGraph graph) {
        List<String> violations = DocumentedLayers.read().violations(graph, ROOT);
        assertEquals(List.of(), violations, () -> "edges against the layers of " + DocumentedLayers.DOCUMENT + ":\n  "
                + String.join("\n  ", violations));
    }

    @Test
    void shouldKeepFfmSocketsFreeOfEverythingButItselfAndTheJdk() {
        Path ffm = PackageGraph.locationOf(UdpSocket.class);
        Set<String> foreign = new TreeSet<>();
        int[] classes = {0};
        PackageGraph.forEachClass(ffm, (name, referenced) -> {
            classes[0]++;
            for (String r : referenced) {
                boolean jdk = JDK_PREFIXES.stream().anyMatch(r::startsWith);
                if (!jdk && !r.startsWith(FFM)) {
                    foreign.add(name + " -> " + r);
                }
            }
        });
        assertTrue(classes[0] > 10, () -> "ffm-sockets classes not found in " + ffm);
        assertEquals(Set.of(), foreign, "ffm-sockets must reference only io.github.twping.ffm and the JDK");
    }

    @Test
    void shouldFindACycleAndNameItsEdges() {
        PackageGraph graph = new PackageGraph();
        graph.add("a", "b", "A -> B");
        graph.add("b", "c", "B -> C");
        graph.add("c", "a", "C -> A");
        graph.add("c", "d", "C -> D");
        graph.add("d", "e", "D -> E");
        graph.add("e", "d", "E -> D");
        graph.add("f", "a", "F -> A");
        assertEquals(List.of(List.of("d", "e"), List.of("a", "b", "c")), graph.cycles());
        assertTrue(graph.describe(List.of("a", "b", "c")).contains("c -> a (C -> A)"));
    }

    @Test
    void shouldReportNoCycleForALayeredGraph() {
        PackageGraph graph = new PackageGraph();
        graph.add("cli", "client", "x");
        graph.add("cli", "server", "x");
        graph.add("client", "session", "x");
        graph.add("server", "session", "x");
        graph.add("session", "session", "self references are not cycles");
        assertEquals(List.of(), graph.cycles());
    }

    @Test
    void shouldReadReferencesFromDescriptorsAsWellAsClassEntries() throws Exception {
        byte[] bytes;
        try (var in = PackageGraphTest.class.getResourceAsStream("PackageGraphTest$DescriptorOnly.class")) {
            bytes = in.readAllBytes();
        }
        Set<String> referenced = PackageGraph.referencedClasses(ClassFile.of().parse(bytes));
        assertTrue(referenced.contains("io/github/twping/ffm/UdpSocket"), referenced::toString);
    }

    /** Names {@code UdpSocket} only in a method descriptor. */
    interface DescriptorOnly {
        void use(UdpSocket socket);
    }

    private static void assertNoCycle(PackageGraph graph) {
        List<List<String>> cycles = graph.cycles();
        StringBuilder message = new StringBuilder("package cycles:");
        cycles.forEach(c -> message.append("\n").append(c).append(graph.describe(c)));
        assertEquals(List.of(), cycles, message::toString);
    }
}
