package io.github.twping.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The package dependency graph of compiled classes: every class a class file names in its constant pool
 * (class references and the types inside field, method and signature descriptors), and optionally every
 * fully-qualified project name in the sources (imports, qualified uses, javadoc links), folded to packages.
 */
final class PackageGraph {
    private static final Pattern DESCRIPTOR_TYPE = Pattern.compile("L([A-Za-z0-9_$/]+)[;<]");
    private static final Pattern SOURCE_NAME = Pattern.compile("\\b(io\\.github\\.twping(?:\\.[a-z][a-z0-9_]*)+)\\.[A-Z]");

    /** package -> (referenced package -> one example "from.Class -> to.Class" for the message). */
    private final Map<String, Map<String, String>> edges = new TreeMap<>();

    /** Adds an edge (self edges are ignored). */
    void add(String from, String to, String example) {
        edges.computeIfAbsent(from, k -> new TreeMap<>());
        edges.computeIfAbsent(to, k -> new TreeMap<>());
        if (!from.equals(to)) {
            edges.get(from).putIfAbsent(to, example);
        }
    }

    Set<String> packages() {
        return edges.keySet();
    }

    Map<String, String> dependencies(String pkg) {
        return edges.getOrDefault(pkg, Map.of());
    }

    /** Visits every class under {@code root} (a classes directory or a jar) with the classes it references. */
    static void forEachClass(Path root, ClassVisitor visitor) {
        try {
            if (Files.isDirectory(root)) {
                visitTree(root, visitor);
            } else {
                try (FileSystem jar = FileSystems.newFileSystem(root)) {
                    visitTree(jar.getPath("/"), visitor);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void visitTree(Path root, ClassVisitor visitor) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                if (file.getFileName().toString().equals("module-info.class")) {
                    continue;
                }
                ClassModel model = ClassFile.of().parse(Files.readAllBytes(file));
                visitor.visit(model.thisClass().asInternalName(), referencedClasses(model));
            }
        }
    }

    /** Receives one class and the internal names of the classes it references. */
    @FunctionalInterface
    interface ClassVisitor {
        void visit(String internalName, Set<String> referenced);
    }

    /** @return the internal names a class references through its constant pool (class entries and descriptors) */
    static Set<String> referencedClasses(ClassModel model) {
        Set<String> names = new TreeSet<>();
        for (PoolEntry entry : model.constantPool()) {
            if (entry instanceof ClassEntry c) {
                String name = c.asInternalName();
                if (!name.startsWith("[")) {
                    names.add(name);
                } else {
                    addDescriptorTypes(name, names);
                }
            } else if (entry instanceof Utf8Entry u) {
                addDescriptorTypes(u.stringValue(), names);
            }
        }
        return names;
    }

    private static void addDescriptorTypes(String text, Set<String> into) {
        Matcher m = DESCRIPTOR_TYPE.matcher(text);
        while (m.find()) {
            into.add(m.group(1));
        }
    }

    /** Adds, for every {@code .java} file under {@code sourceRoot}, an edge to each project package it names. */
    void addSources(Path sourceRoot) {
        try (Stream<Path> files = Files.walk(sourceRoot)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                String from = sourceRoot.relativize(file.getParent()).toString().replace('/', '.');
                String text = Files.readString(file);
                Matcher m = SOURCE_NAME.matcher(text);
                while (m.find()) {
                    add(from, m.group(1), file.getFileName() + " names " + m.group(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String packageOf(String internalName) {
        int slash = internalName.lastIndexOf('/');
        return slash < 0 ? "" : internalName.substring(0, slash).replace('/', '.');
    }

    /** @return the cycles: strongly connected components of more than one package, each as a sorted list */
    List<List<String>> cycles() {
        Tarjan t = new Tarjan();
        for (String p : edges.keySet()) {
            if (!t.index.containsKey(p)) {
                t.connect(p);
            }
        }
        return t.components;
    }

    /** Describes a cycle's edges, with an example reference each. */
    String describe(List<String> cycle) {
        StringBuilder sb = new StringBuilder();
        for (String from : cycle) {
            for (Map.Entry<String, String> e : dependencies(from).entrySet()) {
                if (cycle.contains(e.getKey())) {
                    sb.append("\n  ").append(from).append(" -> ").append(e.getKey()).append(" (").append(e.getValue())
                            .append(')');
                }
            }
        }
        return sb.toString();
    }

    /** Classes directory or jar that holds {@code type}. */
    static Path locationOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Tarjan's strongly connected components, iterative over an explicit stack (bounded by the graph size). */
    private final class Tarjan {
        final Map<String, Integer> index = new HashMap<>();
        final Map<String, Integer> low = new HashMap<>();
        final Deque<String> stack = new ArrayDeque<>();
        final Set<String> onStack = new TreeSet<>();
        final List<List<String>> components = new ArrayList<>();
        int next;

        private record Frame(String pkg, Iterator<String> next) {
        }

        void connect(String root) {
            Deque<Frame> work = new ArrayDeque<>();
            work.push(enter(root));
            while (!work.isEmpty()) {
                Frame frame = work.peek();
                String v = frame.pkg();
                if (frame.next().hasNext()) {
                    String w = frame.next().next();
                    if (!index.containsKey(w)) {
                        work.push(enter(w));
                    } else if (onStack.contains(w)) {
                        low.put(v, Math.min(low.get(v), index.get(w)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = work.peek().pkg();
                    low.put(parent, Math.min(low.get(parent), low.get(v)));
                }
                if (low.get(v).equals(index.get(v))) {
                    List<String> component = new ArrayList<>();
                    String w;
                    do {
                        w = stack.pop();
                        onStack.remove(w);
                        component.add(w);
                    } while (!w.equals(v));
                    if (component.size() > 1) {
                        component.sort(null);
                        components.add(component);
                    }
                }
            }
        }

        private Frame enter(String v) {
            index.put(v, next);
            low.put(v, next);
            next++;
            stack.push(v);
            onStack.add(v);
            return new Frame(v, List.copyOf(dependencies(v).keySet()).iterator());
        }
    }
}
