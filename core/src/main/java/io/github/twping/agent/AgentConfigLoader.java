package io.github.twping.agent;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.NodePath;
import io.github.twping.config.BoundedFile;
import io.github.twping.config.DscpParser;
import io.github.twping.config.PassphraseStore;
import io.github.twping.protocol.Mode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.StampSenderSpec;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.stamp.TimestampFormat;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;

/**
 * Reads an agent configuration file (YAML, docs/FLEET.md): syntax, then the JSON Schema
 * (docs/agent-config.schema.json, shipped in the jar), then the checks a schema cannot express (unique names,
 * key files). Every problem becomes one {@link AgentConfigException} naming the file, the line and the field.
 */
public final class AgentConfigLoader {
    /** Classpath location of the schema (copied from docs/ by the build). */
    public static final String SCHEMA_RESOURCE = "/io/github/twping/agent/agent-config.schema.json";
    /** Largest configuration file read. */
    static final long MAX_FILE_BYTES = 8L << 20;

    private static final int DEFAULT_OPEN_PADDING = -1;

    static {
        // The schema validator logs through SLF4J; without a provider SLF4J prints a warning on stderr, and
        // naming one prints an info line: both would break the one-line error. No provider, no SLF4J chatter.
        if (System.getProperty("slf4j.provider") == null) {
            System.setProperty("slf4j.provider", "org.slf4j.helpers.NOP_FallbackServiceProvider");
        }
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
    }

    private final Schema schema;
    private final ObjectMapper yaml;

    private AgentConfigLoader(Schema schema) {
        this.schema = schema;
        this.yaml = new ObjectMapper(YAMLFactory.builder().build());
        this.yaml.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }

    /** @return a loader with the schema from the jar. */
    public static AgentConfigLoader create() {
        try (InputStream in = AgentConfigLoader.class.getResourceAsStream(SCHEMA_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("schema resource missing: " + SCHEMA_RESOURCE);
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
            return new AgentConfigLoader(registry.getSchema(text, InputFormat.JSON));
        } catch (IOException e) {
            throw new IllegalStateException("schema resource unreadable: " + SCHEMA_RESOURCE, e);
        }
    }

    /** Reads and validates {@code file}. */
    public AgentConfig load(Path file) throws AgentConfigException {
        String name = file.toString();
        byte[] bytes;
        try {
            if (Files.isDirectory(file)) {
                throw new AgentConfigException(name, 1, "", "is a directory");
            }
            // read through the limit, not by the size the file claims: a device such as /dev/zero has size 0
            // and no end (a pipe, e.g. /dev/stdin, still works)
            bytes = BoundedFile.readBounded(file, (int) MAX_FILE_BYTES);
        } catch (BoundedFile.Refused e) {
            throw new AgentConfigException(name, 1, "", e.tooLarge() ? "larger than " + (MAX_FILE_BYTES >> 20) + " MiB"
                    : "cannot read: " + e.reason());
        }
        return parse(name, new String(bytes, StandardCharsets.UTF_8), file);
    }

    /** Validates configuration text; {@code name} is used in messages, {@code file} for relative key files. */
    public AgentConfig parse(String name, String text, Path file) throws AgentConfigException {
        Map<String, Integer> lines = new HashMap<>();
        JsonNode root;
        try (JsonParser p = yaml.getFactory().createParser(text)) {
            p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            if (p.nextToken() == null) {
                throw new AgentConfigException(name, 1, "targets", "missing (required); the file is empty");
            }
            recordLines(p, "", lines);
            root = yaml.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            int line = at == null ? 1 : Math.max(1, at.getLineNr());
            throw new AgentConfigException(name, line, "", "YAML: " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new AgentConfigException(name, 1, "", "cannot read: " + describe(e));
        }
        if (root == null || !root.isObject()) {
            throw new AgentConfigException(name, 1, "", "must be a mapping with a 'targets' list");
        }
        List<Error> errors;
        try {
            errors = schema.validate(text, InputFormat.YAML);
        } catch (RuntimeException e) {
            throw new AgentConfigException(name, 1, "", "YAML: " + firstLine(String.valueOf(e.getMessage())));
        }
        if (!errors.isEmpty()) {
            throw first(name, errors, lines);
        }
        return bind(name, root, lines, file);
    }

    // ---- line numbers ------------------------------------------------------------------------------------

    /** Records the line of every value (members by their key's line) under a JSON pointer. */
    private static void recordLines(JsonParser p, String pointer, Map<String, Integer> lines) throws IOException {
        lines.putIfAbsent(pointer, p.currentTokenLocation().getLineNr());
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String child = pointer + "/" + p.currentName();
                lines.put(child, p.currentTokenLocation().getLineNr());
                p.nextToken();
                recordLines(p, child, lines);
            }
        } else if (t == JsonToken.START_ARRAY) {
            int i = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                recordLines(p, pointer + "/" + i++, lines);
            }
        }
    }

    private static int lineOf(Map<String, Integer> lines, String pointer) {
        for (String p = pointer; ; p = p.substring(0, p.lastIndexOf('/'))) {
            Integer l = lines.get(p);
            if (l != null) {
                return Math.max(1, l);
            }
            if (p.isEmpty()) {
                return 1;
            }
        }
    }

    /** {@code /targets/0/rate} -> {@code targets[0].rate}. */
    static String fieldName(String pointer) {
        StringBuilder sb = new StringBuilder();
        for (String part : pointer.split("/")) {
            if (part.isEmpty()) {
                continue;
            }
            if (!part.isEmpty() && part.chars().allMatch(Character::isDigit) && sb.length() > 0) {
                sb.append('[').append(part).append(']');
            } else {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(part);
            }
        }
        return sb.toString();
    }

    private static String pointer(NodePath path) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < path.getNameCount(); i++) {
            sb.append('/').append(path.getElement(i));
        }
        return sb.toString();
    }

    // ---- schema errors -----------------------------------------------------------------------------------

    /**
     * The error to report: the first in the file, preferring real violations over {@code unevaluatedProperties}
     * (a failing {@code allOf} branch leaves its valid properties unevaluated, which is a consequence, not the cause).
     */
    private static AgentConfigException first(String name, List<Error> errors, Map<String, Integer> lines) {
        AgentConfigException best = null;
        boolean bestIsConsequence = true;
        for (Error e : errors) {
            AgentConfigException c = convert(name, e, lines);
            boolean consequence = "unevaluatedProperties".equals(e.getKeyword());
            if (best == null || (bestIsConsequence && !consequence)
                    || (consequence == bestIsConsequence && c.line() < best.line())) {
                best = c;
                bestIsConsequence = consequence;
            }
        }
        return best;
    }

    private static AgentConfigException convert(String name, Error e, Map<String, Integer> lines) {
        String at = pointer(e.getInstanceLocation());
        String keyword = String.valueOf(e.getKeyword());
        String property = e.getProperty();
        switch (keyword) {
            case "required" -> {
                return new AgentConfigException(name, lineOf(lines, at), fieldName(at + "/" + property),
                        "missing (required)");
            }
            case "additionalProperties", "unevaluatedProperties" -> {
                String child = property == null ? at : at + "/" + property;
                return new AgentConfigException(name, lineOf(lines, child), fieldName(child),
                        "unknown field");
            }
            default -> {
                String message = e.getMessage();
                int colon = message.indexOf(": ");
                if (colon >= 0 && message.startsWith("$")) {
                    message = message.substring(colon + 2);
                }
                return new AgentConfigException(name, lineOf(lines, at), fieldName(at), message);
            }
        }
    }

    // ---- binding -----------------------------------------------------------------------------------------

    private AgentConfig bind(String name, JsonNode root, Map<String, Integer> lines, Path file)
            throws AgentConfigException {
        JsonNode agent = root.path("agent");
        double backoffInitial = agent.path("backoff_initial").asDouble(1.0);
        double backoffMax = agent.path("backoff_max").asDouble(60.0);
        if (backoffMax < backoffInitial) {
            throw new AgentConfigException(name, lineOf(lines, "/agent/backoff_max"), "agent.backoff_max",
                    "must not be smaller than agent.backoff_initial (" + backoffInitial + ")");
        }
        double connectTimeout = agent.path("connect_timeout").asDouble(10.0);
        double interval = agent.path("json_stream_interval").asDouble(AgentConfig.DEFAULT_INTERVAL_SECONDS);
        if (interval != 0 && interval < AgentConfig.MIN_INTERVAL_SECONDS) {
            throw new AgentConfigException(name, lineOf(lines, "/agent/json_stream_interval"),
                    "agent.json_stream_interval", "must be 0 (none) or 0.01-86400 seconds");
        }
        JsonNode defaults = root.path("defaults");
        List<TargetConfig> targets = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        JsonNode list = root.path("targets");
        for (int i = 0; i < list.size(); i++) {
            String at = "/targets/" + i;
            JsonNode t = list.get(i);
            String targetName = t.path("name").asText();
            Integer previous = seen.putIfAbsent(targetName, lineOf(lines, at + "/name"));
            if (previous != null) {
                throw new AgentConfigException(name, lineOf(lines, at + "/name"), fieldName(at + "/name"),
                        "duplicate name '" + targetName + "' (first on line " + previous + ")");
            }
            targets.add(target(name, t, defaults, at, lines, file));
        }
        return new AgentConfig(file, targets, backoffInitial, backoffMax, connectTimeout, interval);
    }

    private static JsonNode setting(JsonNode target, JsonNode defaults, String key) {
        JsonNode v = target.get(key);
        return v != null ? v : defaults.get(key);
    }

    /** Pointer of a setting: in the target when it is set there, else in {@code defaults}. */
    private static String settingPointer(JsonNode target, String at, String key) {
        return target.has(key) ? at + "/" + key : "/defaults/" + key;
    }

    private static TargetConfig target(String name, JsonNode t, JsonNode defaults, String at,
                                       Map<String, Integer> lines, Path file) throws AgentConfigException {
        String hostText = t.path("host").asText();
        String[] hostPort = splitHost(hostText);
        if (hostPort == null) {
            throw new AgentConfigException(name, lineOf(lines, at + "/host"), fieldName(at + "/host"),
                    "'" + hostText + "' is not HOST:PORT (IPv6 as [ADDRESS]:PORT)");
        }
        int port;
        try {
            port = hostPort[1] == null ? 862 : Integer.parseInt(hostPort[1]);
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw new AgentConfigException(name, lineOf(lines, at + "/host"), fieldName(at + "/host"),
                    "port '" + hostPort[1] + "' is not 1-65535");
        }
        JsonNode rateNode = setting(t, defaults, "rate");
        JsonNode sessionNode = setting(t, defaults, "session");
        if (rateNode == null || sessionNode == null) {
            throw new AgentConfigException(name, lineOf(lines, at), fieldName(at + (rateNode == null ? "/rate" : "/session")),
                    "missing (required here or in defaults)");
        }
        double rate = rateNode.asDouble();
        double session = sessionNode.asDouble();
        if (rate * session > 10_000_000) {
            throw new AgentConfigException(name, lineOf(lines, settingPointer(t, at, "session")),
                    fieldName(settingPointer(t, at, "session")), "rate x session exceeds 10,000,000 packets per session");
        }
        JsonNode protocolNode = setting(t, defaults, "protocol");
        Protocol protocol = protocolNode == null ? Protocol.TWAMP : Protocol.ofConfigName(protocolNode.asText());
        JsonNode scheduleNode = setting(t, defaults, "schedule");
        boolean exponential = scheduleNode != null && scheduleNode.asText().equals("exponential");
        JsonNode modeNode = setting(t, defaults, "mode");
        int modeMask = modeNode == null ? Mode.OPEN.bits() : Mode.parseLetters(modeNode.asText());
        JsonNode identityNode = setting(t, defaults, "identity");
        JsonNode keyNode = setting(t, defaults, "key_file");
        String identity = identityNode == null ? null : identityNode.asText();
        Path keyFile = null;
        if (keyNode != null) {
            Path k = Path.of(keyNode.asText());
            Path base = file == null ? null : file.toAbsolutePath().getParent();
            keyFile = k.isAbsolute() || base == null ? k : base.resolve(k);
        }
        if ((identity == null) != (keyFile == null)) {
            String missing = identity == null ? "identity" : "key_file";
            String present = identity == null ? "key_file" : "identity";
            throw new AgentConfigException(name, lineOf(lines, settingPointer(t, at, present)),
                    fieldName(at + "/" + missing), "missing: " + present + " needs " + missing);
        }
        int keyLength = -1;
        if (keyFile != null) {
            keyLength = checkKeyFile(name, keyFile, identity, lines, settingPointer(t, at, "key_file"));
        }
        if (!protocol.controlled()) {
            checkConnectionlessMode(name, protocol, modeMask, identity, lines, t, at);
            if (protocol == Protocol.LIGHT && modeMask == Mode.AUTHENTICATED.bits()
                    && keyLength != StampReflectorSpec.LIGHT_KEY_LENGTH) {
                String p = settingPointer(t, at, "key_file");
                throw new AgentConfigException(name, lineOf(lines, p), fieldName(p), "authenticated TWAMP-Light needs a "
                        + "pass-phrase of exactly " + StampReflectorSpec.LIGHT_KEY_LENGTH
                        + " octets (AES test key 16, HMAC test key 32) for '" + identity + "', not " + keyLength);
            }
        }
        JsonNode dscpNode = setting(t, defaults, "dscp");
        int dscp = 0;
        if (dscpNode != null) {
            dscp = dscpNode.isInt() ? dscpNode.asInt() : DscpParser.parse(dscpNode.asText());
            if (dscp < 0 || dscp > DscpParser.MAX_DSCP) {
                String p = settingPointer(t, at, "dscp");
                throw new AgentConfigException(name, lineOf(lines, p), fieldName(p),
                        "'" + dscpNode.asText() + "' is not a DSCP (0-63, EF, AF41, CS5, ...)");
            }
        }
        JsonNode paddingNode = setting(t, defaults, "padding");
        int padding = paddingNode == null ? DEFAULT_OPEN_PADDING : paddingNode.asInt();
        JsonNode lossNode = setting(t, defaults, "loss_timeout");
        double loss = lossNode == null ? 2.0 : lossNode.asDouble();
        JsonNode spinNode = setting(t, defaults, "spin_us");
        long spin = spinNode == null ? 20 : spinNode.asLong();
        StampOptions stamp = stampOptions(name, protocol, modeMask, padding, t, defaults, at, lines);
        return new TargetConfig(t.path("name").asText(), hostPort[0], port, protocol, rate, session, exponential,
                modeMask, identity, keyFile, dscp, padding, loss, spin, stamp, lineOf(lines, at));
    }

    /** Settings that apply to one protocol only: an error when the target sets them itself for another one. */
    private static final String[][] PROTOCOL_ONLY = {
        {"ssid", "stamp"}, {"timestamp_format", "stamp"}, {"tlv", "stamp"}, {"symmetric", "light"}};

    /**
     * The STAMP/TWAMP-Light options: SSID, timestamp format and TLVs (STAMP), symmetric size (TWAMP-Light). Values
     * from {@code defaults} apply to the targets of their protocol only; set in a target of another protocol they
     * are an error.
     */
    private static StampOptions stampOptions(String name, Protocol protocol, int modeMask, int padding, JsonNode t,
                                             JsonNode defaults, String at, Map<String, Integer> lines)
            throws AgentConfigException {
        for (String[] only : PROTOCOL_ONLY) {
            if (t.has(only[0]) && !protocol.configName().equals(only[1])) {
                throw new AgentConfigException(name, lineOf(lines, at + "/" + only[0]), fieldName(at + "/" + only[0]),
                        "applies to protocol: " + only[1] + " only");
            }
        }
        boolean authenticated = modeMask == Mode.AUTHENTICATED.bits();
        if (protocol == Protocol.LIGHT) {
            JsonNode symmetricNode = setting(t, defaults, "symmetric");
            boolean symmetric = symmetricNode == null || symmetricNode.asBoolean();
            int symmetricPadding = authenticated ? 64 : 27;
            if (symmetric && padding >= 0 && padding < symmetricPadding) {
                String p = settingPointer(t, at, "padding");
                throw new AgentConfigException(name, lineOf(lines, p), fieldName(p), padding + " octets make the "
                        + "request shorter than the reply (symmetric size needs at least " + symmetricPadding
                        + "; symmetric: false allows less)");
            }
            return new StampOptions(0, TimestampFormat.NTP,
                    StampTlvRequest.NONE, null, symmetric);
        }
        if (protocol != Protocol.STAMP) {
            return StampOptions.DEFAULT;
        }
        JsonNode ssidNode = setting(t, defaults, "ssid");
        int ssid = ssidNode == null ? 0 : ssidNode.asInt();
        JsonNode formatNode = setting(t, defaults, "timestamp_format");
        TimestampFormat format = formatNode != null && formatNode.asText().equals("ptp")
                ? TimestampFormat.PTP : TimestampFormat.NTP;
        JsonNode tlvNode = setting(t, defaults, "tlv");
        StampTlvRequest tlvs = StampTlvRequest.NONE;
        String tlvText = null;
        if (tlvNode != null) {
            String p = settingPointer(t, at, "tlv");
            if (tlvNode.isArray()) {
                List<String> parts = new ArrayList<>();
                tlvNode.forEach(e -> parts.add(e.asText()));
                tlvText = String.join(",", parts);
            } else {
                tlvText = tlvNode.asText();
            }
            try {
                tlvs = StampTlvRequest.parse(tlvText, authenticated);
            } catch (IllegalArgumentException e) {
                String why = e.getMessage().startsWith("the HMAC TLV")
                        ? "the HMAC TLV needs the authenticated format (mode: A with identity and key_file)"
                        : e.getMessage();
                throw new AgentConfigException(name, lineOf(lines, p), fieldName(p), why);
            }
            int extra = Math.max(0, padding);
            if (extra + tlvs.bytes() > StampSenderSpec.MAX_EXTRA_PADDING) {
                throw new AgentConfigException(name, lineOf(lines, p), fieldName(p), "padding " + extra + " and the "
                        + tlvs.bytes() + " octets of these TLVs exceed "
                        + StampSenderSpec.MAX_EXTRA_PADDING + " octets");
            }
        }
        return new StampOptions(ssid, format, tlvs, tlvText, true);
    }

    /**
     * STAMP and TWAMP-Light take {@code O} (unauthenticated) or {@code A} (authenticated: identity and key file
     * required; STAMP's HMAC key is the identity's pass-phrase, TWAMP-Light's the 48 octets of its test keys).
     */
    private static void checkConnectionlessMode(String name, Protocol protocol, int modeMask, String identity,
                                                Map<String, Integer> lines, JsonNode t, String at)
            throws AgentConfigException {
        String p = settingPointer(t, at, "mode");
        boolean open = modeMask == Mode.OPEN.bits();
        boolean authenticated = modeMask == Mode.AUTHENTICATED.bits();
        String label = protocol == Protocol.LIGHT ? "TWAMP-Light" : "STAMP";
        if (!open && !authenticated) {
            throw new AgentConfigException(name, lineOf(lines, p), fieldName(p),
                    label + " is open (O) or authenticated (A), one of them");
        }
        if (authenticated && identity == null) {
            throw new AgentConfigException(name, lineOf(lines, p), fieldName(at + "/identity"),
                    "missing: authenticated " + label + " needs identity and key_file (the key)");
        }
    }

    /** @return the length of the identity's pass-phrase */
    private static int checkKeyFile(String name, Path keyFile, String identity, Map<String, Integer> lines,
                                    String pointer) throws AgentConfigException {
        PassphraseStore.Opened opened = PassphraseStore.open(keyFile);
        if (!opened.ok()) {
            throw new AgentConfigException(name, lineOf(lines, pointer), fieldName(pointer), opened.error());
        }
        PassphraseStore.Lookup lookup = opened.store().lookupExact(identity);
        if (lookup instanceof PassphraseStore.Found found) {
            int length = found.passphrase().length;
            Arrays.fill(found.passphrase(), (byte) 0);
            return length;
        }
        String why = lookup instanceof PassphraseStore.SyntaxError e ? e.describe()
                : "no pass-phrase for identity '" + identity + "'";
        throw new AgentConfigException(name, lineOf(lines, pointer), fieldName(pointer), keyFile + ": " + why);
    }

    /** @return {host, port-or-null} for {@code host}, {@code host:port}, {@code [v6]} or {@code [v6]:port}; null if malformed. */
    static String[] splitHost(String text) {
        if (text.isEmpty() || text.chars().anyMatch(Character::isWhitespace)) {
            return null;
        }
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 2) {
                return null;
            }
            String host = text.substring(1, close);
            String rest = text.substring(close + 1);
            if (rest.isEmpty()) {
                return new String[] {host, null};
            }
            return rest.startsWith(":") && rest.length() > 1 ? new String[] {host, rest.substring(1)} : null;
        }
        int colon = text.indexOf(':');
        if (colon < 0) {
            return new String[] {text, null};
        }
        if (text.indexOf(':', colon + 1) >= 0) {
            return null; // a bare IPv6 literal is ambiguous: brackets required
        }
        if (colon == 0 || colon == text.length() - 1) {
            return null;
        }
        return new String[] {text.substring(0, colon), text.substring(colon + 1)};
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "invalid";
        }
        int nl = s.indexOf('\n');
        return (nl >= 0 ? s.substring(0, nl) : s).strip();
    }

    private static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
