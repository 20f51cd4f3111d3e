package io.github.twping.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.agent.AgentConfigException;
import io.github.twping.agent.AgentConfigLoader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Fuzz (Jazzer, coverage-guided): the agent's YAML configuration loader ({@link AgentConfigLoader#parse}: YAML,
 * the schema, every target's settings), seeded with the shipped {@code deploy/agent.yaml} and a few documents of
 * every protocol. A document is accepted or refused with an {@link AgentConfigException} whose message is one
 * line; nothing else may escape.
 */
@Tag("fuzz-agent-config")
class AgentConfigFuzzTest {
    private static final AgentConfigLoader LOADER = AgentConfigLoader.create();

    static Stream<Arguments> documents() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isRegularFile(root.resolve("deploy/agent.yaml"))) {
            root = root.getParent();
        }
        byte[] shipped = root == null ? new byte[0] : Files.readAllBytes(root.resolve("deploy/agent.yaml"));
        return Stream.of(
                FuzzSeeds.seed("deploy/agent.yaml", shipped),
                FuzzSeeds.seed("protocols", """
                        agent: {backoff_initial: 0.2, backoff_max: 1, connect_timeout: 5}
                        defaults: {rate: 10, session: 5, loss_timeout: 0.3, spin_us: 0}
                        targets:
                          - {name: t, host: "192.0.2.7:862", mode: A, identity: alice, key_file: /nonexistent.pfs}
                          - {name: s, host: "[2001:db8::1]:862", protocol: stamp, tlv: "ts,cos=34", ssid: 7}
                          - {name: l, host: "192.0.2.8", protocol: light, schedule: exponential, dscp: 46}
                        """.getBytes(StandardCharsets.UTF_8)),
                FuzzSeeds.seed("anchors", "a: &x {rate: 1}\ntargets: [{<<: *x, name: n, host: \"h:1\", session: 1}]\n"
                        .getBytes(StandardCharsets.UTF_8)));
    }

    @MethodSource("documents")
    @FuzzTest
    void acceptOrRefuse(byte[] input) {
        try {
            LOADER.parse("fuzz.yaml", new String(input, StandardCharsets.UTF_8), null);
        } catch (AgentConfigException refused) {
            String m = refused.getMessage();
            if (m == null || m.isEmpty() || m.indexOf('\n') >= 0) {
                throw new AssertionError("a refusal not on one line: " + m + "\n" + FuzzSeeds.show(input), refused);
            }
        }
    }
}
