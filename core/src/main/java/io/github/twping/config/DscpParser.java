package io.github.twping.config;

/**
 * Parser for the {@code -D} DSCP argument (docs/CLI.md): a number 0..63 (C base-0 {@code strtoul}: decimal,
 * {@code 0x} hex, leading-0 octal) or a symbolic name ({@code none}, {@code default}, {@code df},
 * {@code ef}, {@code CS0}..{@code CS7}, {@code AF11}..{@code AF43}).
 *
 * <p>Quirks reproduced: {@code AF} needs an upper-case {@code A} ({@code af11} is rejected);
 * {@code none}/{@code default}/{@code df}/{@code ef} allow nothing after them while {@code CSx} and
 * {@code AFxy} allow trailing white space; an empty argument is DSCP 0.
 */
public final class DscpParser {
    /** Returned by {@link #parse(String)} for an invalid argument. */
    public static final int INVALID = -1;
    /** The largest DSCP (6 bits). */
    public static final int MAX_DSCP = 63;

    private DscpParser() {
    }

    /** @return the DSCP 0..63, or {@link #INVALID} */
    public static int parse(String arg) {
        CNumbers.IntegerParse number = CNumbers.strtoul(arg, 0, 0);
        if (number.end() == arg.length() && Long.compareUnsigned(number.value(), MAX_DSCP) <= 0) {
            return (int) number.value();
        }
        int i = 0;
        while (i < arg.length() && CNumbers.isSpace(arg.charAt(i))) {
            i++;
        }
        String s = arg.substring(i);
        if (s.equalsIgnoreCase("none") || s.equalsIgnoreCase("default") || s.equalsIgnoreCase("df")) {
            return 0;
        }
        if (s.equalsIgnoreCase("ef")) {
            return 46;
        }
        if (s.length() >= 3 && (s.charAt(0) == 'C' || s.charAt(0) == 'c') && (s.charAt(1) == 'S' || s.charAt(1) == 's')) {
            char d = s.charAt(2);
            if (d >= '0' && d <= '7' && onlySpaceFrom(s, 3)) {
                return 8 * (d - '0');
            }
            return INVALID;
        }
        if (s.length() >= 4 && s.charAt(0) == 'A' && (s.charAt(1) == 'F' || s.charAt(1) == 'f')) {
            char x = s.charAt(2);
            char y = s.charAt(3);
            if (x >= '1' && x <= '4' && y >= '1' && y <= '3' && onlySpaceFrom(s, 4)) {
                return 8 * (x - '0') + 2 * (y - '0');
            }
        }
        return INVALID;
    }

    /** @return the Type-P descriptor for a DSCP: {@code dscp << 24} (first byte {@code 00DDDDDD}) */
    public static int typeP(int dscp) {
        return dscp << 24;
    }

    /** @return the DSCP a Type-P descriptor carries: its first byte's low six bits (RFC 4656 §3.5, RFC 5357 §3.5) */
    public static int dscpOfTypeP(int typeP) {
        return (typeP >>> 24) & 0x3F;
    }

    /** @return the IP TOS / IPv6 traffic-class byte for a DSCP: {@code dscp << 2} */
    public static int tosByte(int dscp) {
        return dscp << 2;
    }

    private static boolean onlySpaceFrom(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            if (!CNumbers.isSpace(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
