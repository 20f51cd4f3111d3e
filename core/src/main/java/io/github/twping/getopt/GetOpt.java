package io.github.twping.getopt;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A command-line scanner with glibc {@code getopt_long} semantics, so that twping accepts and rejects
 * argument vectors exactly as the C program does.
 *
 * <p>Short options come from a getopt option string ({@code "c:v::h"}: {@code :} = mandatory argument,
 * attached {@code -c10} or separate {@code -c 10}; {@code ::} = optional argument, attached only).
 * Flags may be clustered ({@code -RQ}). Options and operands may be mixed (GNU permutation) unless
 * {@code posixlyCorrect} is set or the option string starts with {@code +}; {@code --} ends options;
 * a lone {@code -} is an operand. Long options ({@code --name}, {@code --name=value}, {@code --name value},
 * unique abbreviations) are matched as glibc does.
 *
 * <p>Errors are printed to {@code err} with glibc's wording, prefixed with {@code argv0} as typed, and
 * {@link #next()} then returns {@code '?'}.
 */
public final class GetOpt {
    /** Returned by {@link #next()} when all options have been read. */
    public static final int END = -1;
    /** Returned by {@link #next()} after an error message was printed. */
    public static final int ERROR = '?';

    /** How a long option takes its argument. */
    public enum ArgKind { NONE, REQUIRED, OPTIONAL }

    /**
     * A long option.
     *
     * @param name the name without the leading {@code --}
     * @param kind whether it takes an argument
     * @param id   the value {@link #next()} returns for it (a short option letter or any int above 255)
     */
    public record LongOption(String name, ArgKind kind, int id) {
    }

    private final String[] argv;
    private final String argv0;
    private final String shortSpec;
    private final List<LongOption> longOptions;
    private final boolean permute;
    private final PrintStream err;
    private final List<String> operands = new ArrayList<>();

    private int index;
    private int clusterPos;
    private boolean done;
    private String optarg;
    private int optopt;
    private String longName;

    /**
     * @param argv           the arguments, without the program name
     * @param argv0          the program name as typed, used as the error-message prefix
     * @param shortSpec      the getopt option string
     * @param longOptions    the long options (may be empty)
     * @param posixlyCorrect true to stop at the first operand ({@code POSIXLY_CORRECT} set)
     * @param err            where error messages go
     */
    public GetOpt(String[] argv, String argv0, String shortSpec, List<LongOption> longOptions,
                  boolean posixlyCorrect, PrintStream err) {
        this.argv = argv.clone();
        this.argv0 = argv0;
        boolean plus = shortSpec.startsWith("+");
        this.shortSpec = plus ? shortSpec.substring(1) : shortSpec;
        this.longOptions = List.copyOf(longOptions);
        this.permute = !plus && !posixlyCorrect;
        this.err = err;
    }

    /** @return the argument of the option last returned, or null */
    public String optarg() {
        return optarg;
    }

    /** @return the option character that caused the last error (0 for long-option errors) */
    public int optopt() {
        return optopt;
    }

    /** @return the long option name last matched (without {@code --}), or null for a short option */
    public String longName() {
        return longName;
    }

    /** @return the operands (positional arguments) in order; complete once {@link #next()} returned END */
    public List<String> operands() {
        return List.copyOf(operands);
    }

    /** @return the next option's letter or long-option id, {@link #ERROR}, or {@link #END} */
    public int next() {
        optarg = null;
        longName = null;
        optopt = 0;
        if (clusterPos > 0) {
            return shortOption(argv[index]);
        }
        while (!done && index < argv.length) {
            String arg = argv[index];
            if (arg.equals("--")) {
                index++;
                takeRestAsOperands();
                break;
            }
            if (arg.startsWith("--")) {
                index++;
                return longOption(arg.substring(2));
            }
            if (arg.length() > 1 && arg.charAt(0) == '-') {
                clusterPos = 1;
                return shortOption(arg);
            }
            if (!permute) {
                takeRestAsOperands();
                break;
            }
            operands.add(arg);
            index++;
        }
        done = true;
        return END;
    }

    private void takeRestAsOperands() {
        while (index < argv.length) {
            operands.add(argv[index++]);
        }
        done = true;
    }

    private int shortOption(String arg) {
        char c = arg.charAt(clusterPos++);
        boolean last = clusterPos >= arg.length();
        int spec = c == ':' || c == '+' ? -1 : shortSpec.indexOf(c);
        if (spec < 0) {
            endCluster(last);
            optopt = c;
            err.println(argv0 + ": invalid option -- '" + c + "'");
            return ERROR;
        }
        boolean takesArg = spec + 1 < shortSpec.length() && shortSpec.charAt(spec + 1) == ':';
        boolean optional = takesArg && spec + 2 < shortSpec.length() && shortSpec.charAt(spec + 2) == ':';
        if (!takesArg) {
            endCluster(last);
            return c;
        }
        if (!last) {
            optarg = arg.substring(clusterPos);
            endCluster(true);
            return c;
        }
        endCluster(true);
        if (optional) {
            return c;
        }
        if (index < argv.length) {
            optarg = argv[index++];
            return c;
        }
        optopt = c;
        err.println(argv0 + ": option requires an argument -- '" + c + "'");
        return ERROR;
    }

    private void endCluster(boolean last) {
        if (last) {
            clusterPos = 0;
            index++;
        }
    }

    private int longOption(String body) {
        int eq = body.indexOf('=');
        String name = eq >= 0 ? body.substring(0, eq) : body;
        LongOption match = null;
        List<LongOption> candidates = new ArrayList<>();
        for (LongOption o : longOptions) {
            if (o.name().equals(name)) {
                match = o;
                break;
            }
            if (!name.isEmpty() && o.name().startsWith(name)) {
                candidates.add(o);
            }
        }
        if (match == null && candidates.size() == 1) {
            match = candidates.get(0);
        }
        if (match == null && candidates.size() > 1) {
            StringBuilder sb = new StringBuilder(argv0).append(": option '--").append(name)
                    .append("' is ambiguous; possibilities:");
            for (LongOption o : candidates) {
                sb.append(" '--").append(o.name()).append('\'');
            }
            err.println(sb);
            return ERROR;
        }
        if (match == null) {
            err.println(argv0 + ": unrecognized option '--" + body + "'");
            return ERROR;
        }
        longName = match.name();
        switch (match.kind()) {
            case NONE -> {
                if (eq >= 0) {
                    err.println(argv0 + ": option '--" + match.name() + "' doesn't allow an argument");
                    return ERROR;
                }
            }
            case REQUIRED -> {
                if (eq >= 0) {
                    optarg = body.substring(eq + 1);
                } else if (index < argv.length) {
                    optarg = argv[index++];
                } else {
                    err.println(argv0 + ": option '--" + match.name() + "' requires an argument");
                    return ERROR;
                }
            }
            case OPTIONAL -> {
                if (eq >= 0) {
                    optarg = body.substring(eq + 1);
                }
            }
        }
        return match.id();
    }
}
