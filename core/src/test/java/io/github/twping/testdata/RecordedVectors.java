package io.github.twping.testdata;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one locator of the recorded owamp 5.2.3 vectors kept in the repository under
 * {@code testing/vectors/owamp-5.2.3} (see the README there). Surefire passes the folder as the system
 * property {@code twping.vectors.dir}; without it (an IDE run) the folder is found by walking up from
 * the working directory. A missing folder fails the calling test with one clear message.
 */
public final class RecordedVectors {
    /** The folder inside the repository. */
    public static final String RELATIVE = "testing/vectors/owamp-5.2.3";

    private RecordedVectors() {
    }

    /** @return the vectors folder */
    public static Path dir() {
        String configured = System.getProperty("twping.vectors.dir");
        if (configured != null) {
            Path d = Path.of(configured);
            if (!Files.isDirectory(d)) {
                throw new AssertionError("recorded vectors missing: " + d + " (twping.vectors.dir)");
            }
            return d;
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path d = p.resolve(RELATIVE);
            if (Files.isDirectory(d)) {
                return d;
            }
        }
        throw new AssertionError("recorded vectors missing: no " + RELATIVE + " above " + Path.of("").toAbsolutePath());
    }

    /** @return a file of the vectors folder, which must exist */
    public static Path file(String name) {
        Path p = dir().resolve(name);
        if (!Files.exists(p)) {
            throw new AssertionError("vector file missing: " + p);
        }
        return p;
    }
}
