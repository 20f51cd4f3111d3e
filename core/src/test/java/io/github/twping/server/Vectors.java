package io.github.twping.server;


import java.nio.file.Files;
import java.nio.file.Path;
import io.github.twping.testdata.RecordedVectors;

/** Locates the recorded owamp-5.2.3 vectors (fails loudly when missing). */
final class Vectors {
    private Vectors() {
    }

    static Path dir() {
        return RecordedVectors.dir();
    }

    static Path serverConfig(String name) {
        return dir().resolve("server-config").resolve(name);
    }
}
