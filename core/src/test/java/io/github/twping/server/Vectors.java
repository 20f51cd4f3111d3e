package io.github.twping.server;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;

/** Locates the recorded owamp-5.2.3 vectors (fails loudly when missing). */
final class Vectors {
    private Vectors() {
    }

    static Path dir() {
        String shared = System.getProperty("twping.shared.dir");
        if (shared == null) {
            fail("system property twping.shared.dir is not set (surefire sets it to <repo>/../shared)");
        }
        Path d = Path.of(shared, "vectors", "owamp-5.2.3");
        if (!Files.isDirectory(d)) {
            fail("vectors directory missing: " + d);
        }
        return d;
    }

    static Path serverConfig(String name) {
        return dir().resolve("server-config").resolve(name);
    }
}
