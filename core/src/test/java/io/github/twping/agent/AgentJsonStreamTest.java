package io.github.twping.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The stream's writer: one buffer pool for all the targets' threads, and whole lines whatever thread writes them. */
class AgentJsonStreamTest {
    @Test
    void theTargetsThreadsShareOneBufferPool() {
        // Jackson's default pool keeps buffers per thread: one set per target's virtual thread
        assertSame(JsonRecyclerPools.sharedConcurrentDequePool(), AgentJsonStream.MAPPER.getFactory()._getRecyclerPool());
    }

    @Test
    void linesFromManyVirtualThreadsStayWhole() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> errors = new CopyOnWriteArrayList<>();
        int threads = 50;
        int linesEach = 20;
        try (AgentJsonStream stream = new AgentJsonStream(out, "test", false, errors::add)) {
            List<Thread> started = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                started.add(Thread.ofVirtual().start(() -> {
                    for (int i = 0; i < linesEach; i++) {
                        ObjectNode o = JsonNodeFactory.instance.objectNode();
                        o.put("thread", id).put("line", i).put("text", "x".repeat(5_000 + id));
                        stream.write(o);
                    }
                }));
            }
            for (Thread t : started) {
                t.join();
            }
        }
        assertTrue(errors.isEmpty(), errors.toString());
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals(threads * linesEach, lines.length);
        ObjectMapper plain = new ObjectMapper();
        Set<String> seen = new HashSet<>();
        for (String line : lines) {
            JsonNode n = plain.readTree(line);
            assertEquals(5_000 + n.get("thread").asInt(), n.get("text").asText().length(), line.substring(0, 40));
            assertTrue(seen.add(n.get("thread").asInt() + "/" + n.get("line").asInt()), "once each");
        }
    }
}
