package io.github.twping.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release's {@code licenses/} folder is complete: every jar bundled in {@code core/target/twping.jar} has a
 * licence text, made by {@code dist/licenses/CollectLicenses.java} (what dist/build-release.sh runs) from
 * {@code core/target/licenses/third-party.tsv} (license-maven-plugin in core's build) and the jars' own licence
 * files. Runs in every {@code ./mvnw verify} (core's package phase, which writes the jar and the list, comes
 * before this module's tests); it needs only the JDK, so it never skips.
 */
class LicenseCompletenessTest {
    private static final Path ROOT = NetnsStandSystemTest.repositoryRoot();
    private static final Path JAR = ROOT.resolve("core/target/twping.jar");
    private static final Path THIRD_PARTY = ROOT.resolve("core/target/licenses/third-party.tsv");
    private static final Path COLLECTOR = ROOT.resolve("dist/licenses/CollectLicenses.java");
    private static final String OWN_GROUP = "io.github.twping";
    private static final Pattern LICENCE_FILE = Pattern.compile("(?i)([^/]*[-_.])?(licen[cs]e|copying)([-_.][^/]*)?");

    @TempDir
    Path dir;

    private record Run(int status, String out, String err) {
    }

    private Run collect(Path thirdParty, Path repository, Path out, boolean jdkLegal)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                COLLECTOR.toString(), "--third-party", thirdParty.toString(), "--repository", repository.toString(),
                "--apache-text", ROOT.resolve("LICENSE").toString(), "--out", out.toString()));
        if (jdkLegal) {
            command.addAll(List.of("--jdk-legal", Path.of(System.getProperty("java.home"), "legal").toString()));
        }
        Path stdout = dir.resolve("collect.out");
        Path stderr = dir.resolve("collect.err");
        Process process = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                .start();
        process.getOutputStream().close();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("CollectLicenses.java did not finish within 90 s");
        }
        return new Run(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
    }

    private static Path repository() {
        String configured = System.getProperty("twping.m2.repository", "");
        return configured.isBlank() ? Path.of(System.getProperty("user.home"), ".m2", "repository") : Path.of(configured);
    }

    /** groupId:artifactId:version of each line of third-party.tsv. */
    private static List<String[]> listed() throws IOException {
        return Files.readAllLines(THIRD_PARTY).stream().filter(l -> !l.isBlank())
                .map(l -> l.split("\t", -1)[0].trim().split(":")).toList();
    }

    /** The first two segments of the package of every class in a jar ("org/bouncycastle"). */
    private static Set<String> classPrefixes(Path jar) throws IOException {
        Set<String> prefixes = new TreeSet<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            zip.stream().map(ZipEntry::getName).filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/"))
                    .map(n -> n.split("/")).filter(p -> p.length > 2).forEach(p -> prefixes.add(p[0] + "/" + p[1]));
        }
        return prefixes;
    }

    @Test
    void shouldHaveALicenceTextForEveryBundledJarAndTheRuntime() throws IOException, InterruptedException {
        assertTrue(Files.isRegularFile(JAR) && Files.isRegularFile(THIRD_PARTY), () -> JAR + " or " + THIRD_PARTY
                + " is missing: core's package phase makes both (./mvnw -B -ntp verify, or -DskipTests -pl core -am package)");
        String licence = Files.readString(ROOT.resolve("LICENSE"));
        assertTrue(licence.contains("Apache License") && licence.contains("Version 2.0, January 2004"),
                "LICENSE is not the Apache License 2.0");
        assertTrue(Files.readString(ROOT.resolve("NOTICE")).contains("licenses/"), "NOTICE does not point at licenses/");

        Path out = dir.resolve("licenses");
        Run run = collect(THIRD_PARTY, repository(), out, true);
        assertEquals(0, run.status(), () -> "CollectLicenses.java failed:\n" + run.err());

        // every artifact the shaded jar records (META-INF/maven/G/A/pom.properties) is listed
        Set<String> listedKeys = new HashSet<>();
        for (String[] gav : listed()) {
            listedKeys.add(gav[0] + ":" + gav[1]);
        }
        Set<String> recorded = new TreeSet<>();
        try (ZipFile zip = new ZipFile(JAR.toFile())) {
            for (ZipEntry entry : zip.stream().filter(e -> e.getName().matches("META-INF/maven/[^/]+/[^/]+/pom\\.properties"))
                    .toList()) {
                Properties properties = new Properties();
                properties.load(zip.getInputStream(entry));
                recorded.add(properties.getProperty("groupId") + ":" + properties.getProperty("artifactId"));
            }
        }
        assertTrue(recorded.size() > 10, () -> "too few pom.properties in " + JAR + ": " + recorded);
        Set<String> unlisted = new TreeSet<>(recorded);
        unlisted.removeAll(listedKeys);
        unlisted.removeIf(key -> key.startsWith(OWN_GROUP + ":"));
        assertTrue(unlisted.isEmpty(), () -> "bundled in twping.jar but not in third-party.tsv: " + unlisted);

        // every class package in the shaded jar comes from the project or from a listed artifact's jar
        // (Bouncy Castle and Agrona, for example, record no pom.properties)
        Set<String> covered = new HashSet<>(Set.of("io/github"));
        for (String[] gav : listed()) {
            if (!gav[0].equals(OWN_GROUP)) {
                covered.addAll(classPrefixes(repository().resolve(gav[0].replace('.', '/')).resolve(gav[1])
                        .resolve(gav[2]).resolve(gav[1] + "-" + gav[2] + ".jar")));
            }
        }
        Set<String> uncovered = classPrefixes(JAR);
        uncovered.removeAll(covered);
        assertTrue(uncovered.isEmpty(), () -> "classes in twping.jar from no listed artifact: " + uncovered);

        // every listed third-party artifact has a non-empty licence text in its folder
        List<String> without = new ArrayList<>();
        for (String[] gav : listed()) {
            if (gav[0].equals(OWN_GROUP)) {
                continue;
            }
            Path folder = out.resolve(gav[0] + "." + gav[1]);
            boolean found = false;
            if (Files.isDirectory(folder)) {
                try (Stream<Path> files = Files.list(folder)) {
                    found = files.anyMatch(f -> LICENCE_FILE.matcher(f.getFileName().toString()).matches()
                            && f.toFile().length() > 200);
                }
            }
            if (!found) {
                without.add(String.join(":", gav));
            }
        }
        assertTrue(without.isEmpty(), () -> "bundled artifacts without a licence text in licenses/: " + without);
        String index = Files.readString(out.resolve("THIRD-PARTY.txt"));
        assertTrue(index.contains("org.bouncycastle:bcprov-jdk18on:") && index.contains("org.agrona:agrona:"),
                "THIRD-PARTY.txt does not list Bouncy Castle and Agrona");

        // the Java runtime: GPLv2 with the Classpath Exception, from the JDK's own legal/ folder
        assertTrue(Files.readString(out.resolve("java-runtime/java.base/LICENSE")).contains("GNU General Public License"),
                "java-runtime/java.base/LICENSE is not the GPL");
        assertTrue(Files.readString(out.resolve("java-runtime/java.base/ASSEMBLY_EXCEPTION")).contains("Classpath"),
                "java-runtime/java.base/ASSEMBLY_EXCEPTION has no Classpath Exception");
    }

    @Test
    void shouldFailNamingAJarWithoutLicenceText() throws IOException, InterruptedException {
        Path repository = dir.resolve("repository");
        writeJar(repository.resolve("org/example/bare/1.0/bare-1.0.jar"), "org/example/bare/Bare.class");
        writeJar(repository.resolve("org/example/apache/2.0/apache-2.0.jar"), "org/example/apache/A.class");
        Path tsv = dir.resolve("third-party.tsv");
        Files.writeString(tsv, "org.example:bare:1.0\tSome Licence\tBare\t-\n"
                + "org.example:apache:2.0\tApache-2.0\tApache\t-\n", StandardCharsets.UTF_8);
        Path out = dir.resolve("out");

        Run run = collect(tsv, repository, out, false);

        assertEquals(1, run.status(), () -> "expected exit 1; stderr:\n" + run.err());
        assertTrue(run.err().contains("org.example:bare:1.0: no licence text (declares Some Licence"), run.err());
        assertFalse(run.err().contains("org.example:apache:2.0"), run.err());
        assertEquals(Files.readString(ROOT.resolve("LICENSE")), Files.readString(out.resolve("org.example.apache/LICENSE")),
                "an Apache-2.0 jar without a licence file gets the Apache License 2.0 text");
    }

    private static void writeJar(Path jar, String entry) throws IOException {
        Files.createDirectories(jar.getParent());
        try (OutputStream file = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(file)) {
            zip.putNextEntry(new ZipEntry(entry));
            zip.write(new byte[] {(byte) 0xca, (byte) 0xfe});
            zip.closeEntry();
        }
    }
}
