package io.github.twping.jmh.compare;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/** Locates the JSON fixtures under {@code src/test/resources/compare}. */
final class CompareFixtures {
    private CompareFixtures() {
    }

    static Path fixture(String name) {
        URL url = CompareFixtures.class.getResource("/compare/" + name);
        if (url == null) {
            throw new IllegalStateException("test fixture missing from the class path: /compare/" + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
