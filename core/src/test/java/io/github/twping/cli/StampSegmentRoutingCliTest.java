package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.github.twping.report.extended.ResultRuns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RFC 9503 and RFC 9534 TLVs end to end between {@code twping --stamp --tlv} and {@code twampd --stamp}: the
 * text report, the {@code stamp} object of {@code --json} (validated against docs/twping-result.schema.json), and
 * the replies the reflector withholds (No Reply Requested, another member link).
 */
class StampSegmentRoutingCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private StampCliExchange.Result exchange(List<String> reflectorArgs, List<String> twpingArgs) throws Exception {
        return StampCliExchange.run(dir, reflectorArgs, twpingArgs, "--stamp");
    }

    private static void assertValid(String json) throws Exception {
        Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(
                Files.readString(ResultRuns.docs().resolve("twping-result.schema.json")), InputFormat.JSON);
        List<Error> errors = schema.validate(json, InputFormat.JSON);
        assertTrue(errors.isEmpty(), () -> "schema errors: " + errors + "\nin " + json);
    }

    @Test
    void honouredExtensionsComeBackAnswered() throws Exception {
        Path json = dir.resolve("sr.json");
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0", "--member-link", "42"),
                List.of("-c", "10", "-i", "0.005f", "--tlv", "dna=127.0.0.1,rp-cc=1,msid=7", "--json",
                        json.toString()));
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("10 sent, 0 lost (0.000%)"), r.out());
        assertTrue(r.out().contains("destination node 127.0.0.1: 10 replies, 0 said not the reflector's address"),
                r.out());
        assertTrue(r.out().contains("return path control_code_same_link: 10 replies, 0 not followed"), r.out());
        assertTrue(r.out().contains("micro-session 7: reflector member link 42 in 10 replies, 0 unanswered, "
                + "0 discarded"), r.out());
        assertTrue(r.out().contains("TLV flags: U 0, M 0, I 0"), r.out());
        String text = Files.readString(json);
        assertValid(text);
        JsonNode s = JSON.readTree(text).get("stamp");
        List<String> tlvs = new ArrayList<>();
        s.get("tlvs").forEach(n -> tlvs.add(n.asText()));
        assertEquals(List.of("destination_node_address", "return_path", "micro_session_id"), tlvs);
        assertEquals("127.0.0.1", s.at("/destination_node_address/address").asText());
        assertEquals(10, s.at("/destination_node_address/replies").asLong());
        assertEquals(0, s.at("/destination_node_address/not_local").asLong());
        assertEquals("control_code_same_link", s.at("/return_path/sub_tlvs/0").asText());
        assertEquals(0, s.at("/return_path/not_used").asLong());
        assertEquals(42, s.at("/micro_session_id/reflector_id").asInt());
        assertEquals(10, s.at("/micro_session_id/replies").asLong());
    }

    @Test
    void whatTheReflectorCannotHonourIsFlagged() throws Exception {
        Path json = dir.resolve("u.json");
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0"),
                List.of("-c", "5", "-i", "0.005f", "--tlv", "dna=192.0.2.1,rp-srv6=2001:db8::1,msid=7", "--json",
                        json.toString()));
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("5 sent, 0 lost (0.000%)"), r.out());
        assertTrue(r.out().contains("destination node 192.0.2.1: 5 replies, 5 said not the reflector's address"),
                r.out());
        assertTrue(r.out().contains("return path srv6_segment_list: 5 replies, 5 not followed"), r.out());
        assertTrue(r.out().contains("micro-session 7: reflector member link unknown in 0 replies, 5 unanswered"),
                r.out());
        String text = Files.readString(json);
        assertValid(text);
        assertEquals(-1, JSON.readTree(text).at("/stamp/micro_session_id/reflector_id").asInt(-1));
    }

    @Test
    void noReplyRequestedAndAnotherMemberLinkAreNotAnswered() throws Exception {
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0", "--member-link", "42", "-v"),
                List.of("-c", "3", "-i", "0.005f", "-L", "0.5", "--tlv", "rp-cc=0"));
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("return path control_code_no_reply: 0 replies"), r.out());
        assertTrue(r.reflectorErr().contains("twampd: reflected 0,"), r.reflectorErr());
        r = exchange(List.of("--stamp", "127.0.0.1:0", "--member-link", "42", "-v"),
                List.of("-c", "3", "-i", "0.005f", "-L", "0.5", "--tlv", "msid=7:43"));
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("micro-session 7: reflector member link unknown in 0 replies"), r.out());
        assertTrue(r.reflectorErr().contains("twampd: reflected 0,"), r.reflectorErr());
    }

    @Test
    void badExtensionOptionsAreOneLine() throws Exception {
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0"),
                List.of("-c", "1", "--tlv", "rp-cc=1,rp-addr=192.0.2.1"));
        assertTrue(r.status() != 0, r.out());
        assertTrue(r.err().contains("invalid TLV: "), r.err());
        assertEquals(1, r.err().strip().lines().filter(l -> l.contains("invalid TLV")).count(), r.err());
    }
}
