package io.github.twping.server;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.config.PassphraseStore;
import io.github.twping.fuzz.FuzzSeeds;
import io.github.twping.protocol.Mode;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz (Jazzer, coverage-guided): twampd's configuration files ({@code .conf}, {@code .limits}, {@code .pfs})
 * and the client's key file (a {@code .pfs}), seeded with the recorded 5.2.3 server configuration. The first
 * input byte selects the parser, the rest is the file. A file is accepted or refused with a
 * {@link ConfigException} carrying a message; nothing else may escape.
 */
@Tag("fuzz-config")
class ConfigFileFuzzTest {
    private static final int CONF = 0;
    private static final int LIMITS = 1;
    private static final int PFS = 2;

    static Stream<Arguments> recordedConfiguration() {
        return Stream.of(
                seed(CONF, "twamp-server.conf"), seed(CONF, "twamp-server.conf.enconly-8623"),
                seed(CONF, "twamp-server.conf.openonly-8622"), seed(LIMITS, "twamp-server.limits"),
                seed(PFS, "twamp-server.pfs"), seed(PFS, "alice.pfs"), seed(PFS, "bob.pfs"),
                seed(PFS, "alice-wrong.pfs"));
    }

    private static Arguments seed(int parser, String name) {
        return FuzzSeeds.seed(name, parser, FuzzSeeds.bytes("server-config/" + name));
    }

    @MethodSource("recordedConfiguration")
    @FuzzTest
    void acceptOrRefuse(byte[] input) {
        byte[] file = FuzzSeeds.payload(input);
        String text = new String(file, StandardCharsets.ISO_8859_1);
        try {
            switch (FuzzSeeds.selector(input, 3)) {
                case CONF -> {
                    ServerConfigBuilder b = ServerConfig.builder();
                    ServerConfigParser.parse("fuzz.conf", text, b);
                    b.build();
                }
                case LIMITS -> LimitsConfig.parse("fuzz.limits", text).offeredModes(Mode.ALL_BITS,
                        InetAddress.getLoopbackAddress());
                default -> {
                    PassphraseStore store = PassphraseStore.of("fuzz.pfs", file);
                    store.lookupPrefix("alice");
                    store.lookupPrefix("a");
                    store.parseAll(new ArrayList<>());
                    ServerPassphrases.of(store).lookup("alice");
                }
            }
        } catch (ConfigException expected) {
            if (expected.getMessage() == null || expected.getMessage().isEmpty()) {
                throw new AssertionError("a refusal without a message:\n" + FuzzSeeds.show(input), expected);
            }
        }
    }
}
