package io.github.twping.server;

import io.github.twping.protocol.Mode;
import java.math.BigInteger;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Arrays;

/**
 * The twampd policy file {@code twamp-server.limits} (docs/SERVER.md): a hierarchy of limit classes and the
 * rules that assign a connection to one of them (by user, then longest-prefix network, then default).
 * Immutable after parsing; safe to share between connection threads.
 */
public final class LimitsConfig {
    /** One limit class with its own settings (null = not set here, inherited from the parent). */
    public record LimitClass(String name, LimitClass parent, Boolean allowOpenMode, Long testSessions,
            Long bandwidth, Long disk, Boolean deleteOnFetch) {

        /** Whether Open mode is allowed: the nearest explicit setting up the hierarchy, default on. */
        public boolean openModeAllowed() {
            for (LimitClass c = this; c != null; c = c.parent) {
                if (c.allowOpenMode != null) {
                    return c.allowOpenMode;
                }
            }
            return true;
        }

        /** Test sessions allowed per control connection: the smallest non-zero limit up to the root; 0 = unlimited. */
        public long testSessionLimit() {
            long limit = 0;
            for (LimitClass c = this; c != null; c = c.parent) {
                if (c.testSessions != null && c.testSessions != 0 && (limit == 0 || c.testSessions < limit)) {
                    limit = c.testSessions;
                }
            }
            return limit;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private record NetRule(byte[] network, int bits, LimitClass limitClass) {
        boolean matches(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return (address[full] & mask) == (network[full] & mask);
        }
    }

    private final Map<String, LimitClass> classes;
    private final Map<String, LimitClass> users;
    private final List<NetRule> nets;
    private final LimitClass defaultClass;

    private LimitsConfig(Map<String, LimitClass> classes, Map<String, LimitClass> users, List<NetRule> nets,
            LimitClass defaultClass) {
        this.classes = Collections.unmodifiableMap(classes);
        this.users = Collections.unmodifiableMap(users);
        this.nets = List.copyOf(nets);
        this.defaultClass = defaultClass;
    }

    /** The policy used when no limits file exists: one unlimited class {@code root}, assigned by default. */
    public static LimitsConfig permissive() {
        LimitClass root = new LimitClass("root", null, null, null, null, null, null);
        Map<String, LimitClass> classes = new LinkedHashMap<>();
        classes.put("root", root);
        return new LimitsConfig(classes, Map.of(), List.of(), root);
    }

    /** Loads {@code file}; a missing file gives {@link #permissive()}. */
    public static LimitsConfig load(Path file) throws ConfigException {
        if (!Files.exists(file)) {
            return permissive();
        }
        return parse(file.toString(), ConfigLines.read(file));
    }

    /** Parses limits text (the contents of a file called {@code name}). */
    public static LimitsConfig parse(String name, String text) throws ConfigException {
        return parse(name, ConfigLines.split(name, text));
    }

    private static LimitsConfig parse(String name, List<ConfigLines.Line> lines) throws ConfigException {
        Map<String, LimitClass> classes = new LinkedHashMap<>();
        Map<String, LimitClass> users = new LinkedHashMap<>();
        List<NetRule> nets = new ArrayList<>();
        LimitClass defaultClass = null;
        for (ConfigLines.Line line : lines) {
            String[] words = line.text().split("\\s+");
            String directive = words[0].toLowerCase(Locale.ROOT);
            try {
                switch (directive) {
                    case "limit" -> {
                        LimitClass c = parseLimit(line.text(), classes);
                        classes.put(c.name(), c);
                    }
                    case "assign" -> {
                        if (words.length < 3) {
                            throw new IllegalArgumentException("assign: expected \"assign <authtype> [args] <class>\"");
                        }
                        String type = words[1].toLowerCase(Locale.ROOT);
                        switch (type) {
                            case "default" -> {
                                expectWords(words, 3, "assign default <class>");
                                if (defaultClass != null) {
                                    throw new IllegalArgumentException("assign default: already assigned");
                                }
                                defaultClass = lookup(classes, words[2]);
                            }
                            case "user" -> {
                                expectWords(words, 4, "assign user <identity> <class>");
                                if (words[2].length() > 80) {
                                    throw new IllegalArgumentException("assign user: identity longer than 80 characters");
                                }
                                if (users.containsKey(words[2])) {
                                    throw new IllegalArgumentException("assign user " + words[2] + ": already assigned");
                                }
                                users.put(words[2], lookup(classes, words[3]));
                            }
                            case "net" -> {
                                expectWords(words, 4, "assign net <address>/<bits> <class>");
                                NetRule rule = parseNet(words[2], lookup(classes, words[3]));
                                for (NetRule r : nets) {
                                    if (r.bits == rule.bits && Arrays.equals(r.network, rule.network)) {
                                        throw new IllegalArgumentException("assign net " + words[2] + ": already assigned");
                                    }
                                }
                                nets.add(rule);
                            }
                            default -> throw new IllegalArgumentException("assign: unknown authtype \"" + words[1]
                                    + "\" (expected default, net or user)");
                        }
                    }
                    default -> throw new IllegalArgumentException("Unknown directive \"" + words[0]
                            + "\" (expected limit or assign)");
                }
            } catch (IllegalArgumentException e) {
                throw ConfigException.at(name, line.number(), e.getMessage());
            }
        }
        return new LimitsConfig(classes, users, nets, defaultClass);
    }

    private static void expectWords(String[] words, int n, String syntax) {
        if (words.length != n) {
            throw new IllegalArgumentException("expected \"" + syntax + "\"");
        }
    }

    private static LimitClass lookup(Map<String, LimitClass> classes, String name) {
        LimitClass c = classes.get(name);
        if (c == null) {
            throw new IllegalArgumentException("limit class \"" + name + "\" is not defined (define it with a limit line first)");
        }
        return c;
    }

    private static LimitClass parseLimit(String text, Map<String, LimitClass> classes) {
        String rest = text.substring(5).strip();
        String[] head = rest.split("\\s+", 3);
        if (head.length < 2 || !head[1].equalsIgnoreCase("with")) {
            throw new IllegalArgumentException("expected \"limit <class> with <type>=<value>[, <type>=<value>]*\"");
        }
        String className = head[0];
        if (classes.containsKey(className)) {
            throw new IllegalArgumentException("limit class \"" + className + "\" is already defined");
        }
        LimitClass parent = null;
        boolean parentSeen = false;
        Boolean allowOpen = null;
        Boolean deleteOnFetch = null;
        Long testSessions = null;
        Long bandwidth = null;
        Long disk = null;
        String body = head.length > 2 ? head[2] : "";
        if (body.isBlank()) {
            throw new IllegalArgumentException("limit " + className + ": no limits given");
        }
        for (String item : body.split(",", -1)) {
            String kv = item.strip();
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("limit " + className + ": expected <type>=<value>, got \"" + kv + "\"");
            }
            String type = kv.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            String value = kv.substring(eq + 1).strip();
            switch (type) {
                case "parent" -> {
                    parent = lookup(classes, value);
                    parentSeen = true;
                }
                case "allow_open_mode" -> allowOpen = onOff(type, value);
                case "delete_on_fetch" -> deleteOnFetch = onOff(type, value);
                case "test_sessions" -> testSessions = integer(type, value);
                case "bandwidth" -> bandwidth = integer(type, value);
                case "disk" -> disk = integer(type, value);
                default -> throw new IllegalArgumentException("limit " + className + ": unknown limit type \"" + type + "\"");
            }
        }
        if (classes.isEmpty() && parentSeen) {
            throw new IllegalArgumentException("limit " + className + ": the first (root) class cannot have a parent");
        }
        if (!classes.isEmpty() && !parentSeen) {
            throw new IllegalArgumentException("limit " + className + ": parent=<class> is required (only the first class is the root)");
        }
        return new LimitClass(className, parent, allowOpen, testSessions, bandwidth, disk, deleteOnFetch);
    }

    private static Boolean onOff(String type, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "on" -> Boolean.TRUE;
            case "off" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException(type + ": expected on or off, got \"" + value + "\"");
        };
    }

    /** An unsigned integer with an optional multiplier letter k m g t p e z (powers of 1000). */
    static long integer(String type, String value) {
        String digits = value;
        int exp = 0;
        if (!value.isEmpty()) {
            int idx = "kmgtpez".indexOf(Character.toLowerCase(value.charAt(value.length() - 1)));
            if (idx >= 0) {
                exp = idx + 1;
                digits = value.substring(0, value.length() - 1);
            }
        }
        if (digits.isEmpty() || digits.length() > 20 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(type + ": invalid integer \"" + value + "\"");
        }
        BigInteger v = new BigInteger(digits).multiply(BigInteger.valueOf(1000).pow(exp));
        if (v.bitLength() > 63) {
            throw new IllegalArgumentException(type + ": value \"" + value + "\" is too large");
        }
        return v.longValue();
    }

    private static NetRule parseNet(String spec, LimitClass c) {
        int slash = spec.indexOf('/');
        String addr = slash < 0 ? spec : spec.substring(0, slash);
        if (addr.startsWith("[") && addr.endsWith("]")) {
            addr = addr.substring(1, addr.length() - 1);
        }
        byte[] bytes = literal(addr);
        if (bytes == null) {
            throw new IllegalArgumentException("assign net: \"" + spec + "\" is not an address/bits subnet");
        }
        int max = bytes.length * 8;
        int bits = max;
        if (slash >= 0) {
            String b = spec.substring(slash + 1);
            if (b.isEmpty() || b.length() > 3 || !b.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
                throw new IllegalArgumentException("assign net: invalid prefix length in \"" + spec + "\"");
            }
            bits = Integer.parseInt(b);
            if (bits > max) {
                throw new IllegalArgumentException("assign net: prefix length " + bits + " too long in \"" + spec + "\"");
            }
        }
        for (int bit = bits; bit < max; bit++) {
            if ((bytes[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
                throw new IllegalArgumentException("assign net: \"" + spec + "\" has bits set outside the mask");
            }
        }
        return new NetRule(bytes, bits, c);
    }

    /** Parses a numeric IPv4/IPv6 literal without any name lookup; null if it is not one. */
    private static byte[] literal(String s) {
        if (s.isEmpty()) {
            return null;
        }
        boolean v6 = s.indexOf(':') >= 0;
        if (!v6 && !s.chars().allMatch(ch -> (ch >= '0' && ch <= '9') || ch == '.')) {
            return null;
        }
        if (v6 && !s.chars().allMatch(ch -> Character.digit(ch, 16) >= 0 || ch == ':' || ch == '.')) {
            return null;
        }
        if (!v6 && s.split("\\.", -1).length != 4) {
            return null;
        }
        try {
            byte[] b = InetAddress.getByName(s).getAddress(); // a literal: no resolver involved
            return b;
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** Normalises a peer address: IPv4-mapped IPv6 becomes the IPv4 address. */
    private static byte[] peerBytes(InetAddress peer) {
        byte[] b = peer.getAddress();
        if (peer instanceof Inet6Address && b.length == 16) {
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            mapped &= (b[10] & 0xFF) == 0xFF && (b[11] & 0xFF) == 0xFF;
            if (mapped) {
                return new byte[] {b[12], b[13], b[14], b[15]};
            }
        }
        return b;
    }

    /**
     * The class of a connection: the user's class when {@code identity} is non-null and assigned, else
     * the longest-prefix network match of {@code peer}, else the default class; null if nothing applies
     * (the connection is then denied).
     */
    public LimitClass classify(String identity, InetAddress peer) {
        if (identity != null) {
            LimitClass c = users.get(identity);
            if (c != null) {
                return c;
            }
        }
        if (peer != null) {
            byte[] addr = peerBytes(peer);
            NetRule best = null;
            for (NetRule r : nets) {
                if (r.matches(addr) && (best == null || r.bits > best.bits)) {
                    best = r;
                }
            }
            if (best != null) {
                return best.limitClass;
            }
        }
        return defaultClass;
    }

    /** The modes to offer a peer in the greeting: {@code configured} minus Open if its class disallows it. */
    public int offeredModes(int configured, InetAddress peer) {
        LimitClass c = classify(null, peer);
        if (c == null) {
            return 0;
        }
        return c.openModeAllowed() ? configured : configured & ~Mode.OPEN.bits();
    }

    /** The class named {@code name}, or null. */
    public LimitClass limitClass(String name) {
        return classes.get(name);
    }

    /** The class assigned to {@code identity} explicitly, or null. */
    public LimitClass userClass(String identity) {
        return users.get(identity);
    }

    /** The default class, or null if the file has no {@code assign default}. */
    public LimitClass defaultClass() {
        return defaultClass;
    }

    /** Number of limit classes defined. */
    public int classCount() {
        return classes.size();
    }
}
