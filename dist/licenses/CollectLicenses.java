import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Makes the release's {@code licenses/} folder from the dependencies' own metadata; nothing in it is typed
 * by hand. A single-file program (JEP 330), run with the build's JDK:
 *
 * <pre>
 * java dist/licenses/CollectLicenses.java --third-party core/target/licenses/third-party.tsv \
 *     --repository ~/.m2/repository --apache-text LICENSE [--jdk-legal runtime/legal] --out licenses
 * </pre>
 *
 * <p>{@code third-party.tsv} is what license-maven-plugin's add-third-party goal (core/pom.xml, template
 * dist/licenses/third-party.ftl) writes in core's build: every artifact shaded into twping.jar with the licences
 * its effective POM declares. For each, {@code OUT/groupId.artifactId/} receives the licence and notice files
 * the artifact's own jar carries (any entry named LICENSE, LICENCE, NOTICE or COPYING, with or without a
 * prefix or suffix, e.g. {@code META-INF/LICENSE.txt}, {@code META-INF/FastDoubleParser-LICENSE}); a jar that
 * carries its licence only as a {@code LICENSE} class with a static text field (Bouncy Castle) gets that
 * text; an Apache-2.0 artifact whose jar has no licence file gets the Apache License 2.0 text given by
 * {@code --apache-text}. The project's own modules (group {@code --own-group}, default io.github.twping) are
 * covered by the top-level LICENSE and NOTICE. {@code OUT/THIRD-PARTY.txt} lists each artifact, its declared licences, URL and
 * files. With {@code --jdk-legal}, the runtime's {@code legal/} folder (the JDK's own licence files, per
 * module) is copied to {@code OUT/java-runtime/}.
 *
 * <p>Exit status 0 when every artifact has a licence text; 1 (one line per artifact without one) otherwise;
 * 2 for bad arguments or unreadable inputs.
 */
public final class CollectLicenses {
    private static final Pattern LICENCE_FILE =
            Pattern.compile("(?i)([^/]*[-_.])?(licen[cs]e|copying)([-_.][^/]*)?");
    private static final Pattern NOTICE_FILE = Pattern.compile("(?i)([^/]*[-_.])?notice([-_.][^/]*)?");
    private static final String APACHE = "Apache-2.0";

    private CollectLicenses() {
    }

    private record Artifact(String groupId, String artifactId, String version, List<String> licences,
                            String name, String url) {
        String coordinates() {
            return groupId + ":" + artifactId + ":" + version;
        }
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                usage("bad argument '" + args[i] + "'");
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        for (String required : List.of("third-party", "repository", "apache-text", "out")) {
            if (!options.containsKey(required)) {
                usage("--" + required + " is missing");
            }
        }
        Path thirdParty = Path.of(options.get("third-party"));
        Path repository = Path.of(options.get("repository"));
        Path apacheText = Path.of(options.get("apache-text"));
        Path out = Path.of(options.get("out"));
        if (!Files.isRegularFile(thirdParty)) {
            fail(thirdParty + " is missing (core's build writes it: ./mvnw -B -ntp -DskipTests -pl core -am package)");
        }
        if (!Files.isRegularFile(apacheText)) {
            fail(apacheText + " (the Apache License 2.0 text) is missing");
        }
        List<Artifact> artifacts = read(thirdParty);
        if (artifacts.isEmpty()) {
            fail(thirdParty + " lists no artifact");
        }
        Files.createDirectories(out);
        List<String> problems = new ArrayList<>();
        StringBuilder index = new StringBuilder();
        index.append("Third-party components bundled in lib/twping.jar, from their Maven metadata (license-maven-plugin)\n")
                .append("and the licence files of their jars. One line each: coordinates, declared licences, name, URL,\n")
                .append("and the files under licenses/ that hold the texts.\n\n");
        String ownGroup = options.getOrDefault("own-group", "io.github.twping");
        for (Artifact artifact : artifacts) {
            if (artifact.groupId().equals(ownGroup)) {
                index.append(artifact.coordinates()).append('\t').append(String.join(" | ", artifact.licences()))
                        .append('\t').append(artifact.name()).append("\tthis project\tLICENSE and NOTICE at the top\n");
                continue;
            }
            Path jar = repository.resolve(artifact.groupId().replace('.', '/')).resolve(artifact.artifactId())
                    .resolve(artifact.version()).resolve(artifact.artifactId() + "-" + artifact.version() + ".jar");
            if (!Files.isRegularFile(jar)) {
                problems.add(artifact.coordinates() + ": no jar at " + jar);
                continue;
            }
            Path dir = out.resolve(artifact.groupId() + "." + artifact.artifactId());
            Files.createDirectories(dir);
            List<String> files = new ArrayList<>();
            boolean licenceText = copyFromJar(jar, dir, files);
            if (!licenceText) {
                String text = licenceClassText(jar);
                if (text != null) {
                    Files.writeString(dir.resolve("LICENSE"), text + "\n");
                    files.add("LICENSE (the text of the jar's LICENSE class)");
                    licenceText = true;
                }
            }
            if (!licenceText && artifact.licences().contains(APACHE)) {
                Files.copy(apacheText, dir.resolve("LICENSE"), StandardCopyOption.REPLACE_EXISTING);
                files.add("LICENSE (Apache License 2.0, which the POM declares; the jar carries no licence file)");
                licenceText = true;
            }
            if (!licenceText) {
                problems.add(artifact.coordinates() + ": no licence text (declares " + String.join(" | ",
                        artifact.licences()) + "; its jar has no LICENSE/COPYING file or LICENSE class)");
            }
            index.append(artifact.coordinates()).append('\t').append(String.join(" | ", artifact.licences()))
                    .append('\t').append(artifact.name()).append('\t').append(artifact.url()).append('\t')
                    .append(out.relativize(dir)).append("/: ").append(String.join(", ", files)).append('\n');
        }
        if (options.containsKey("jdk-legal")) {
            Path legal = Path.of(options.get("jdk-legal"));
            if (!Files.isRegularFile(legal.resolve("java.base/LICENSE"))) {
                problems.add("the Java runtime: no " + legal.resolve("java.base/LICENSE"));
            } else {
                copyTree(legal, out.resolve("java-runtime"));
                index.append("\nThe Java runtime (runtime/): GPL-2.0 WITH Classpath-exception-2.0, java-runtime/java.base/LICENSE ")
                        .append("and ASSEMBLY_EXCEPTION; its other modules' and third parties' notices under java-runtime/.\n");
            }
        }
        Files.writeString(out.resolve("THIRD-PARTY.txt"), index.toString());
        for (String problem : problems) {
            System.err.println("collect-licenses: " + problem);
        }
        if (!problems.isEmpty()) {
            System.exit(1);
        }
        System.out.println("collect-licenses: " + artifacts.size() + " artifacts, " + out);
    }

    private static List<Artifact> read(Path thirdParty) throws IOException {
        List<Artifact> artifacts = new ArrayList<>();
        for (String line : Files.readAllLines(thirdParty, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            String[] fields = line.split("\t", -1);
            String[] gav = fields[0].trim().split(":");
            if (fields.length != 4 || gav.length != 3) {
                fail(thirdParty + ": not 'group:artifact:version<TAB>licences<TAB>name<TAB>url': " + line);
            }
            List<String> licences = Stream.of(fields[1].split(" \\| ")).map(String::trim)
                    .filter(l -> !l.isEmpty()).toList();
            artifacts.add(new Artifact(gav[0], gav[1], gav[2], licences, fields[2].trim(), fields[3].trim()));
        }
        return artifacts;
    }

    /** Copies the jar's licence and notice files into dir; true when one of them is a licence. */
    private static boolean copyFromJar(Path jar, Path dir, List<String> files) throws IOException {
        boolean licence = false;
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                String path = entry.getName();
                String name = path.substring(path.lastIndexOf('/') + 1);
                if (entry.isDirectory() || name.endsWith(".class")) {
                    continue;
                }
                boolean isLicence = LICENCE_FILE.matcher(name).matches();
                if (!isLicence && !NOTICE_FILE.matcher(name).matches()) {
                    continue;
                }
                String target = Files.exists(dir.resolve(name)) ? path.replace('/', '_') : name;
                try (InputStream in = zip.getInputStream(entry)) {
                    Files.copy(in, dir.resolve(target), StandardCopyOption.REPLACE_EXISTING);
                }
                files.add(target + " (the jar's " + path + ")");
                licence |= isLicence;
            }
        }
        return licence;
    }

    /** The text of a LICENSE class's static String field holding a copyright notice, or null. */
    private static String licenceClassText(Path jar) throws IOException {
        List<String> classes = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            zip.stream().map(ZipEntry::getName).filter(n -> n.equals("LICENSE.class") || n.endsWith("/LICENSE.class"))
                    .filter(n -> !n.startsWith("META-INF/")).forEach(classes::add);
        }
        if (classes.isEmpty()) {
            return null;
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            for (String path : classes) {
                Class<?> type = Class.forName(path.substring(0, path.length() - ".class".length()).replace('/', '.'),
                        true, loader);
                for (Field field : type.getFields()) {
                    if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class
                            && field.get(null) instanceof String text && text.contains("Copyright")) {
                        return text;
                    }
                }
            }
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
        return null;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from, FileVisitOption.FOLLOW_LINKS)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                    target.toFile().setWritable(true, true);
                }
            }
        }
    }

    private static void usage(String why) {
        System.err.println("collect-licenses: " + why + "; usage: java CollectLicenses.java --third-party TSV"
                + " --repository M2_REPOSITORY --apache-text LICENSE [--jdk-legal RUNTIME/legal] --out DIR");
        System.exit(2);
    }

    private static void fail(String why) {
        System.err.println("collect-licenses: " + why);
        System.exit(2);
    }
}
