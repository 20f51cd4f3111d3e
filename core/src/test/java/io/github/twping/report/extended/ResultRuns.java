package io.github.twping.report.extended;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.twping.cli.Twping;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.util.List;

/** Runs twping in-process (the library entry point) for the result-output tests. */
public final class ResultRuns {
    private static final long DEADLINE_MS = 90_000;

    private ResultRuns() {
    }

    record Run(int status, String out, String err) {
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Twping twping = Twping.create(Arrays.asList(args), "twping", new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), new ByteArrayInputStream(new byte[0]), Map.of());
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(twping::run);
        try {
            int rc = status.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
            return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } catch (Exception e) {
            twping.cancel();
            fail("twping did not finish: " + e + "\nerr: " + err.toString(StandardCharsets.UTF_8));
            throw new AssertionError(e);
        }
    }

    /** The repository's docs directory (found upwards from the working directory). */
    public static Path docs() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null) {
            if (Files.isRegularFile(p.resolve("docs/twping-result.schema.json"))) {
                return p.resolve("docs");
            }
            p = p.getParent();
        }
        throw new AssertionError("docs/twping-result.schema.json not found above " + Path.of("").toAbsolutePath());
    }

    /** docs/twping-json-stream.schema.json, resolving its references to docs/twping-result.schema.json. */
    public static Schema streamSchema() throws IOException {
        String result = Files.readString(docs().resolve("twping-result.schema.json"));
        String id = new ObjectMapper().readTree(result).path("$id").asText();
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                b -> b.schemas(Map.of(id, result)));
        return registry.getSchema(Files.readString(docs().resolve("twping-json-stream.schema.json")), InputFormat.JSON);
    }

    /** Asserts that every line of a {@code --json-stream} output is valid against {@link #streamSchema()}. */
    public static void assertValidStream(Schema schema, List<String> lines) {
        assertTrue(!lines.isEmpty(), "no events");
        for (String line : lines) {
            List<Error> errors = schema.validate(line, InputFormat.JSON);
            assertTrue(errors.isEmpty(), () -> "stream schema errors: " + errors + "\nin " + line);
        }
    }
}
