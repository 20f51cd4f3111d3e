package io.github.twping.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.protocol.Mode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.stamp.TimestampFormat;

class AgentConfigLoaderTest {
    private final AgentConfigLoader loader = AgentConfigLoader.create();

    @TempDir
    Path dir;

    private AgentConfig load(String text) throws AgentConfigException {
        return loader.parse("agent.yaml", text, dir.resolve("agent.yaml"));
    }

    private String error(String text) {
        return assertThrows(AgentConfigException.class, () -> load(text)).getMessage();
    }

    @Test
    void shouldLoadTheMinimalFormWithDefaults() throws Exception {
        AgentConfig c = load("""
                targets:
                  - name: lon-1
                    host: 192.0.2.7:8620
                    rate: 10
                    session: 60
                  - name: v6
                    host: "[2001:db8::1]"
                    rate: 0.5
                    session: 30
                """);
        assertEquals(2, c.targets().size());
        TargetConfig t = c.targets().get(0);
        assertEquals("lon-1", t.name());
        assertEquals("192.0.2.7", t.host());
        assertEquals(8620, t.port());
        assertEquals(Protocol.TWAMP, t.protocol());
        assertEquals(10.0, t.rate());
        assertEquals(600, t.packetCount());
        assertEquals(Mode.OPEN.bits(), t.modeMask());
        assertEquals(-1, t.paddingBytes());
        assertEquals(2.0, t.lossTimeoutSeconds());
        assertEquals(0, t.dscp());
        assertNull(t.identity());
        assertEquals(2, t.line());
        TargetConfig v6 = c.targets().get(1);
        assertEquals("2001:db8::1", v6.host());
        assertEquals(862, v6.port());
        assertEquals("[2001:db8::1]:862", v6.address());
        assertEquals(15, v6.packetCount());
        assertEquals(1.0, c.backoffInitialSeconds());
        assertEquals(60.0, c.backoffMaxSeconds());
    }

    @Test
    void shouldRefuseAKeyWithLineBreaksOnOneLine() {
        // a quoted YAML key may hold line breaks and escapes; the refusal names it with them made visible
        String m = error("agent: {\"back\\noff\\r\\u001b[2J\": 1}\ntargets: [{name: a, host: 192.0.2.7}]\n");
        assertFalse(m.contains("\n") || m.contains("\r") || m.contains("\u001b"), m);
        assertTrue(m.contains("back\\x0aoff\\x0d\\x1b[2J") && m.endsWith("unknown field"), m);
    }

    @Test
    void shouldLoadStampAndLightTargets() throws Exception {
        Files.writeString(dir.resolve("k.pfs"), "alice 7333637265742d6c61622d6b6579\n");
        AgentConfig c = load("""
                defaults: {rate: 10, session: 5}
                targets:
                  - {name: s, host: "192.0.2.7", protocol: stamp}
                  - {name: sa, host: "192.0.2.7:8620", protocol: stamp, mode: A, identity: alice, key_file: k.pfs}
                  - {name: l, host: "192.0.2.8", protocol: light}
                """);
        assertEquals(Protocol.STAMP, c.targets().get(0).protocol());
        assertEquals(862, c.targets().get(0).port());
        assertEquals(Mode.AUTHENTICATED.bits(), c.targets().get(1).modeMask());
        assertEquals(8620, c.targets().get(1).port());
        assertEquals(Protocol.LIGHT, c.targets().get(2).protocol());
        assertTrue(!Protocol.STAMP.controlled() && !Protocol.LIGHT.controlled() && Protocol.TWAMP.controlled());
    }

    @Test
    void shouldApplyDefaultsAndLetTargetsOverrideThem() throws Exception {
        AgentConfig c = load("""
                agent:
                  backoff_initial: 0.5
                  backoff_max: 8
                defaults:
                  rate: 20
                  session: 5
                  dscp: EF
                  schedule: exponential
                  mode: AEO
                targets:
                  - {name: a, host: "h1:1"}
                  - {name: b, host: "h2:2", rate: 1, dscp: 10, padding: 100}
                """);
        TargetConfig a = c.targets().get(0);
        TargetConfig b = c.targets().get(1);
        assertEquals(20.0, a.rate());
        assertEquals(46, a.dscp());
        assertTrue(a.exponential());
        assertEquals(Mode.parseLetters("AEO"), a.modeMask());
        assertEquals(1.0, b.rate());
        assertEquals(10, b.dscp());
        assertEquals(100, b.paddingBytes());
        assertEquals(0.5, c.backoffInitialSeconds());
        assertEquals(8.0, c.backoffMaxSeconds());
    }

    @Test
    void shouldNameLineAndFieldOfAMissingRequiredField() {
        assertEquals("agent.yaml:3: targets[1].rate: missing (required here or in defaults)", error("""
                targets:
                  - {name: a, host: "h:1", rate: 1, session: 1}
                  - name: b
                    host: "h:2"
                    session: 1
                """));
    }

    @Test
    void shouldNameLineAndFieldOfAnUnknownField() {
        assertEquals("agent.yaml:6: targets[0].sesion: unknown field", error("""
                targets:
                  - name: a
                    host: "h:1"
                    rate: 1
                    session: 1
                    sesion: 2
                """));
        assertEquals("agent.yaml:1: target: unknown field", error("target: []\n"));
    }

    @Test
    void shouldNameLineAndFieldOfABadValue() {
        String rate = error("""
                targets:
                  - name: a
                    host: "h:1"
                    rate: -5
                    session: 1
                """);
        assertTrue(rate.startsWith("agent.yaml:4: targets[0].rate: "), rate);
        String type = error("""
                targets:
                  - name: a
                    host: "h:1"
                    rate: fast
                    session: 1
                """);
        assertTrue(type.startsWith("agent.yaml:4: targets[0].rate: "), type);
        String protocol = error("""
                targets:
                  - {name: a, host: "h:1", rate: 1, session: 1}
                  - {name: b, host: "h:1", rate: 1, session: 1, protocol: owamp}
                """);
        assertTrue(protocol.startsWith("agent.yaml:3: targets[1].protocol: "), protocol);
        String lightMode = error("""
                targets:
                  - {name: a, host: "h:1", rate: 1, session: 1, protocol: light, mode: E}
                """);
        assertEquals("agent.yaml:2: targets[0].mode: TWAMP-Light is open (O) or authenticated (A), one of them",
                lightMode);
        String stampMode = error("""
                targets:
                  - {name: a, host: "h:1", rate: 1, session: 1, protocol: stamp, mode: E}
                """);
        assertEquals("agent.yaml:2: targets[0].mode: STAMP is open (O) or authenticated (A), one of them", stampMode);
        String stampKey = error("""
                targets:
                  - {name: a, host: "h:1", rate: 1, session: 1, protocol: stamp, mode: A}
                """);
        assertEquals("agent.yaml:2: targets[0].identity: missing: authenticated STAMP needs identity and key_file "
                + "(the key)", stampKey);
        String late = error("""
                targets:
                  - name: a
                    host: "h:1"
                    rate: 1
                    session: 1
                    dscp: 99
                """);
        assertEquals("agent.yaml:6: targets[0].dscp: must have a maximum value of 63", late);
    }

    @Test
    void shouldRejectWhatTheSchemaCannotExpress() {
        assertEquals("agent.yaml:3: targets[1].name: duplicate name 'a' (first on line 2)", error("""
                targets:
                  - {name: a, host: "h:1", rate: 1, session: 1}
                  - {name: a, host: "h:2", rate: 1, session: 1}
                """));
        assertEquals("agent.yaml:3: targets[0].host: port '99999' is not 1-65535", error("""
                targets:
                  - name: a
                    host: "h:99999"
                    rate: 1
                    session: 1
                """));
        assertEquals("agent.yaml:2: targets[0].host: '2001:db8::1' is not HOST:PORT (IPv6 as [ADDRESS]:PORT)",
                error("targets:\n  - {name: a, host: \"2001:db8::1\", rate: 1, session: 1}\n"));
        assertEquals("agent.yaml:2: targets[0].dscp: 'XY' is not a DSCP (0-63, EF, AF41, CS5, ...)",
                error("targets:\n  - {name: a, host: \"h:1\", rate: 1, session: 1, dscp: XY}\n"));
        assertEquals("agent.yaml:2: targets[0].key_file: missing: identity needs key_file",
                error("targets:\n  - {name: a, host: \"h:1\", rate: 1, session: 1, identity: alice}\n"));
    }

    @Test
    void shouldBindTheStampAndLightOptionsAndTheInterval() throws Exception {
        Files.writeString(dir.resolve("k.pfs"), "alice 7333637265742d6c61622d6b6579\nbob "
                + "41".repeat(48) + "\n");
        AgentConfig c = load("""
                agent: {json_stream_interval: 2.5}
                defaults: {rate: 10, session: 5, ssid: 11, symmetric: false}
                targets:
                  - {name: s, host: "192.0.2.7", protocol: stamp, timestamp_format: ptp, tlv: "ts,cos=34,ar=1:7"}
                  - {name: sa, host: "192.0.2.7", protocol: stamp, mode: A, identity: alice, key_file: k.pfs,
                     ssid: 65535, tlv: [hmac, dm, fut]}
                  - {name: l, host: "192.0.2.8", protocol: light}
                  - {name: la, host: "192.0.2.8", protocol: light, mode: A, identity: bob, key_file: k.pfs,
                     symmetric: true}
                  - {name: t, host: "192.0.2.9"}
                """);
        assertEquals(2.5, c.intervalSeconds());
        StampOptions s = c.targets().get(0).stamp();
        assertEquals(11, s.ssid(), "from defaults");
        assertEquals(TimestampFormat.PTP, s.format());
        assertEquals(new StampTlvRequest(true, 34, false, 1, 7, false, false), s.tlvs());
        StampOptions sa = c.targets().get(1).stamp();
        assertEquals(65535, sa.ssid());
        assertEquals(TimestampFormat.NTP, sa.format());
        assertEquals(new StampTlvRequest(false, -1, true, -1, 0, true, true), sa.tlvs());
        assertTrue(!c.targets().get(2).stamp().symmetric(), "from defaults");
        assertEquals(0, StampTargetRunner.lightDefaultPadding(c.targets().get(2).stamp(), false));
        assertEquals(Mode.AUTHENTICATED.bits(), c.targets().get(3).modeMask());
        assertEquals(64, StampTargetRunner.lightDefaultPadding(c.targets().get(3).stamp(), true));
        assertEquals(StampOptions.DEFAULT, c.targets().get(4).stamp(), "stamp defaults do not reach a twamp target");
        assertTrue(!c.targets().get(0).sameSettings(withSsid(c.targets().get(0), 12)), "an SSID change is a change");
        assertTrue(c.targets().get(0).sameConnection(withSsid(c.targets().get(0), 12)), "on the same socket");
        assertEquals(AgentConfig.DEFAULT_INTERVAL_SECONDS, load("targets:\n  - {name: a, host: h, rate: 1, session: 1}\n")
                .intervalSeconds());
        assertEquals(0.0, load("agent: {json_stream_interval: 0}\ntargets:\n  - {name: a, host: h, rate: 1, session: 1}\n")
                .intervalSeconds());
    }

    private static TargetConfig withSsid(TargetConfig t, int ssid) {
        StampOptions o = t.stamp();
        return new TargetConfig(t.name(), t.host(), t.port(), t.protocol(), t.rate(), t.sessionSeconds(),
                t.exponential(), t.modeMask(), t.identity(), t.keyFile(), t.dscp(), t.paddingBytes(),
                t.lossTimeoutSeconds(), t.spinMicros(), new StampOptions(ssid, o.format(), o.tlvs(), o.tlvText(),
                o.symmetric()), t.line());
    }

    @Test
    void shouldRejectBadStampAndLightOptionsInOneLine() throws Exception {
        Files.writeString(dir.resolve("k.pfs"), "alice 7333637265742d6c61622d6b6579\n");
        String base = "targets:\n  - {name: a, host: \"h:1\", rate: 1, session: 1, ";
        assertEquals("agent.yaml:2: targets[0].ssid: applies to protocol: stamp only", error(base + "ssid: 3}\n"));
        assertEquals("agent.yaml:2: targets[0].symmetric: applies to protocol: light only",
                error(base + "protocol: stamp, symmetric: false}\n"));
        assertEquals("agent.yaml:2: targets[0].tlv: applies to protocol: stamp only",
                error(base + "protocol: light, tlv: ts}\n"));
        assertTrue(error(base + "protocol: stamp, ssid: 70000}\n").startsWith("agent.yaml:2: targets[0].ssid: "));
        assertTrue(error(base + "protocol: stamp, timestamp_format: gps}\n")
                .startsWith("agent.yaml:2: targets[0].timestamp_format: "));
        assertEquals("agent.yaml:2: targets[0].tlv: invalid TLV: cos=99", error(base + "protocol: stamp, tlv: \"ts,cos=99\"}\n"));
        assertEquals("agent.yaml:2: targets[0].tlv: invalid TLV: xyz", error(base + "protocol: stamp, tlv: [ts, xyz]}\n"));
        assertEquals("agent.yaml:2: targets[0].tlv: the HMAC TLV needs the authenticated format (mode: A with identity "
                + "and key_file)", error(base + "protocol: stamp, tlv: hmac}\n"));
        assertEquals("agent.yaml:2: targets[0].tlv: padding 64990 and the 52 octets of these TLVs exceed 65000 octets",
                error(base + "protocol: stamp, padding: 64990, tlv: all}\n"));
        assertEquals("agent.yaml:2: targets[0].padding: 10 octets make the request shorter than the reply (symmetric "
                + "size needs at least 27; symmetric: false allows less)", error(base + "protocol: light, padding: 10}\n"));
        assertEquals("agent.yaml:2: targets[0].key_file: authenticated TWAMP-Light needs a pass-phrase of exactly 48 "
                + "octets (AES test key 16, HMAC test key 32) for 'alice', not 14",
                error(base + "protocol: light, mode: A, identity: alice, key_file: k.pfs}\n"));
        assertEquals("agent.yaml:1: agent.json_stream_interval: must be 0 (none) or 0.01-86400 seconds",
                error("agent: {json_stream_interval: 0.001}\n" + base + "}\n"));
        // stamp options in defaults are fine beside a twamp target
        load("defaults: {ssid: 5, tlv: ts, symmetric: false}\n" + base + "}\n");
    }

    @Test
    void shouldCheckTheKeyFileAtLoad() throws IOException {
        String missing = error("targets:\n  - {name: a, host: \"h:1\", rate: 1, session: 1, identity: alice, key_file: none.pfs}\n");
        assertTrue(missing.startsWith("agent.yaml:2: targets[0].key_file: "), missing);
        Files.writeString(dir.resolve("keys.pfs"), "bob 0123456789abcdef\n");
        String unknown = error("targets:\n  - {name: a, host: \"h:1\", rate: 1, session: 1, identity: alice, key_file: keys.pfs}\n");
        assertTrue(unknown.startsWith("agent.yaml:2: targets[0].key_file: ") && unknown.contains("alice"), unknown);
    }

    @Test
    void shouldReportSyntaxErrorsAndEmptyFilesWithALine() {
        String syntax = error("targets:\n  - name: a\n    host: [unclosed\n");
        assertTrue(syntax.startsWith("agent.yaml:"), syntax);
        assertTrue(syntax.contains("YAML: "), syntax);
        assertEquals("agent.yaml:1: targets: missing (required); the file is empty", error(""));
        assertEquals("agent.yaml:1: must be a mapping with a 'targets' list", error("- a\n- b\n"));
        String dup = error("targets:\n  - {name: a, host: \"h:1\", rate: 1, session: 1, rate: 2}\n");
        assertTrue(dup.startsWith("agent.yaml:2: ") && dup.contains("rate"), dup);
    }

    @Test
    void shouldReportUnreadableFilesInOneLine() {
        Path none = dir.resolve("missing.yaml");
        AgentConfigException e = assertThrows(AgentConfigException.class, () -> loader.load(none));
        assertEquals(none + ":1: cannot read: No such file or directory", e.getMessage());
        AgentConfigException d = assertThrows(AgentConfigException.class, () -> loader.load(dir));
        assertEquals(dir + ":1: is a directory", d.getMessage());
    }

    /** An endless device (size 0 in its attributes) is read up to the limit, not into memory (issue 26, item 2). */
    @Test
    void shouldRefuseAnEndlessFileAtTheSizeLimit() {
        AgentConfigException e = assertThrows(AgentConfigException.class, () -> loader.load(Path.of("/dev/zero")));
        assertEquals("/dev/zero:1: larger than 8 MiB", e.getMessage());
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        AgentCommand check = new AgentCommand("twping", new PrintStream(log, true,
                StandardCharsets.UTF_8));
        assertEquals(1, check.execute(new AgentOptions("/dev/zero", null, null, null, -1, true)));
        assertEquals("twping: /dev/zero:1: larger than 8 MiB\n", log.toString(StandardCharsets.UTF_8));
    }

    /** A key file that others may read: one warning at start however many targets use it (issue 26, item 7). */
    @Test
    void shouldWarnOnceAboutAKeyFileOthersCanRead() throws Exception {
        Path keys = dir.resolve("k.pfs");
        Files.writeString(keys, "alice 7333637265742d6c61622d6b6579\n");
        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-r--r--"));
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, """
                targets:
                  - {name: a, host: "192.0.2.7", protocol: stamp, rate: 1, session: 1, mode: A, identity: alice, key_file: k.pfs}
                  - {name: b, host: "192.0.2.8", protocol: stamp, rate: 1, session: 1, mode: A, identity: alice, key_file: k.pfs}
                """);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        AgentCommand check = new AgentCommand("twping", new PrintStream(log, true, StandardCharsets.UTF_8));
        assertEquals(0, check.execute(new AgentOptions(config.toString(), null, null, null, -1, true)));
        assertEquals("twping: WARNING: pass-phrase file " + keys + " can be read or written by group or others (mode 0644);"
                + " chmod go-rw " + keys + "\n" + config + ": 2 targets, valid\n", log.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldLoadTheShippedExamples() throws Exception {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        for (String example : new String[] {"deploy/agent.yaml"}) {
            Path p = root.resolve(example);
            AgentConfig c = loader.load(p);
            assertTrue(c.targets().size() >= 1, example);
        }
    }
}
