package io.github.twping.report.extended;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.report.owamp.Language;
import io.github.twping.testdata.RecordedVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Packets the sender skipped (more than L behind schedule) are shown in the {@code --exact} block and as
 * {@code sender_skips} in {@code --json} (issue 26, item 16); a re-reported file, whose skips are unknown, has
 * neither.
 */
class SenderSkipsOutputTest {
    @TempDir
    Path dir;

    private String run(long skips, Path json) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
        ResultOutputs outputs = new ResultOutputs(new ResultOptions(true, json.toString(), null, false, 1.0, null, null,
                false, null, "9.9.9"), "twping", "9.9.9", Language.EN, 'm', true, false, ps, ps);
        outputs.protocol("twamp", null);
        if (skips >= 0) {
            outputs.senderSkips(skips);
        }
        try (SessionDataReader reader = SessionDataReader.open(RecordedVectors.file("datafile-open.owp"))) {
            assertTrue(outputs.finish(reader, null, null, SessionResults.MEASUREMENT, null, 0.0001f));
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldShowSenderSkipsInTheExactBlockAndTheJson() throws Exception {
        Path json = dir.resolve("r.json");
        String text = run(22, json);
        assertTrue(text.contains("\nsender skips (more than L behind schedule, not sent): 22\n"), text);
        JsonNode doc = ResultJson.MAPPER.readTree(Files.readString(json));
        assertEquals(22, doc.get("sender_skips").asLong());
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isRegularFile(root.resolve("docs/twping-result.schema.json"))) {
            root = root.getParent();
        }
        assertTrue(root != null, "docs/twping-result.schema.json not found");
        Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(Files.readString(root.resolve("docs/twping-result.schema.json")), InputFormat.JSON);
        String document = Files.readString(json);
        assertEquals(0, schema.validate(document, InputFormat.JSON).size(),
                () -> schema.validate(document, InputFormat.JSON).toString());

        Path unknown = dir.resolve("u.json");
        String none = run(-1, unknown);
        assertFalse(none.contains("sender skips"), none);
        assertFalse(ResultJson.MAPPER.readTree(Files.readString(unknown)).has("sender_skips"));
    }
}
