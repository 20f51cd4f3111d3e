package io.github.twping.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LimitsConfigTest {
    private static final String POLICY = """
            limit root with bandwidth=900m, \\
                allow_open_mode=off, test_sessions=10
            limit jail with parent=root, bandwidth=1, allow_open_mode=off
            limit open with parent=root, bandwidth=10k, allow_open_mode=on, test_sessions=2
            limit inherits with parent=open, disk=1g
            assign default open
            assign net 192.168.1.0/24 jail
            assign net 192.168.0.0/16 inherits
            assign net ::1/128 jail
            assign user joe root
            """;

    private static InetAddress ip(String s) throws Exception {
        return InetAddress.getByName(s);
    }

    @Test
    void shouldLoadRecordedLimitsUnchanged() throws Exception {
        LimitsConfig l = LimitsConfig.load(Vectors.serverConfig("twamp-server.limits"));
        assertEquals(3, l.classCount());
        assertEquals("regular", l.classify(null, ip("127.0.0.1")).name());
        assertEquals("trusted", l.classify("alice", ip("127.0.0.1")).name());
        assertEquals("regular", l.classify("bob", ip("127.0.0.1")).name());
        assertEquals(15, l.offeredModes(15, ip("127.0.0.1")));
        assertTrue(l.limitClass("root").deleteOnFetch());
    }

    @Test
    void shouldClassifyByUserThenLongestPrefixThenDefault() throws Exception {
        LimitsConfig l = LimitsConfig.parse("t.limits", POLICY);
        assertEquals("root", l.classify("joe", ip("192.168.1.7")).name());
        assertEquals("jail", l.classify(null, ip("192.168.1.7")).name());
        assertEquals("inherits", l.classify(null, ip("192.168.2.7")).name());
        assertEquals("open", l.classify(null, ip("10.0.0.1")).name());
        assertEquals("jail", l.classify("nobody", ip("::1")).name());
        assertEquals("jail", l.classify(null, ip("::ffff:192.168.1.9")).name());
    }

    @Test
    void shouldRemoveOpenModeWhereDisallowed() throws Exception {
        LimitsConfig l = LimitsConfig.parse("t.limits", POLICY);
        assertEquals(14, l.offeredModes(15, ip("192.168.1.7")));
        assertEquals(15, l.offeredModes(15, ip("10.1.1.1")));
        assertEquals(15, l.offeredModes(15, ip("192.168.3.3")), "inherits allow_open_mode=on from its parent");
    }

    @Test
    void shouldTakeSmallestTestSessionLimitUpTheTree() throws Exception {
        LimitsConfig l = LimitsConfig.parse("t.limits", POLICY);
        assertEquals(2, l.limitClass("inherits").testSessionLimit());
        assertEquals(10, l.limitClass("jail").testSessionLimit());
        assertEquals(0, LimitsConfig.permissive().defaultClass().testSessionLimit());
    }

    @Test
    void shouldDenyWhenNothingMatches() throws Exception {
        LimitsConfig l = LimitsConfig.parse("t.limits", "limit root with test_sessions=1\nassign net 10.0.0.0/8 root\n");
        assertNull(l.classify(null, ip("127.0.0.1")));
        assertEquals(0, l.offeredModes(15, ip("127.0.0.1")));
        assertEquals("root", l.classify(null, ip("10.2.3.4")).name());
    }

    @Test
    void shouldUsePermissivePolicyWhenFileMissing(@TempDir Path dir) throws Exception {
        LimitsConfig l = LimitsConfig.load(dir.resolve("twamp-server.limits"));
        assertEquals(15, l.offeredModes(15, ip("127.0.0.1")));
        assertTrue(l.classify(null, ip("127.0.0.1")).openModeAllowed());
    }

    @ParameterizedTest
    @CsvSource({"1k, 1000", "2m, 2000000", "3g, 3000000000", "1t, 1000000000000", "1e, 1000000000000000000", "42, 42"})
    void shouldApplyMultipliers(String value, long expected) {
        assertEquals(expected, LimitsConfig.integer("bandwidth", value));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "limit a with parent=a|t.limits:1: limit class \"a\" is not defined (define it with a limit line first)",
        "limit r with disk=0\\nlimit b with disk=1|t.limits:2: limit b: parent=<class> is required (only the first class is the root)",
        "limit r with disk=0\\nlimit r with parent=r|t.limits:2: limit class \"r\" is already defined",
        "limit r with bogus=1|t.limits:1: limit r: unknown limit type \"bogus\"",
        "limit r with allow_open_mode=maybe|t.limits:1: allow_open_mode: expected on or off, got \"maybe\"",
        "limit r with disk=1z|t.limits:1: disk: value \"1z\" is too large",
        "limit r with disk=0\\nassign net 192.168.1.1/24 r|t.limits:2: assign net: \"192.168.1.1/24\" has bits set outside the mask",
        "limit r with disk=0\\nassign user bob nope|t.limits:2: limit class \"nope\" is not defined (define it with a limit line first)",
        "limit r with disk=0\\nassign group x r|t.limits:2: assign: unknown authtype \"group\" (expected default, net or user)",
        "frobnicate|t.limits:1: Unknown directive \"frobnicate\" (expected limit or assign)"})
    void shouldRejectBadPolicies(String text, String message) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> LimitsConfig.parse("t.limits", text.replace("\\n", "\n")));
        assertEquals(message, e.getMessage());
    }

    @Test
    void shouldKeepExplicitOffWhenParentAllows() throws Exception {
        LimitsConfig l = LimitsConfig.parse("t.limits",
                "limit root with allow_open_mode=on\nlimit closed with parent=root, allow_open_mode=off\n"
                        + "assign default closed\n");
        assertFalse(l.defaultClass().openModeAllowed());
    }
}
