package io.github.twping.getopt;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class GetOptTest {
    private static final String SPEC = "64A:c:v::RQM";
    private static final List<GetOpt.LongOption> LONGS = List.of(
            new GetOpt.LongOption("spin", GetOpt.ArgKind.REQUIRED, 300),
            new GetOpt.LongOption("sync", GetOpt.ArgKind.NONE, 301),
            new GetOpt.LongOption("lang", GetOpt.ArgKind.OPTIONAL, 302));

    /** Runs getopt and renders every event as text: "c=10", "R", "?", then "ops=[...]" and errors. */
    private static String run(boolean posixly, String... argv) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        GetOpt g = new GetOpt(argv, "/bin/twping", SPEC, LONGS, posixly, new PrintStream(err, true, StandardCharsets.UTF_8));
        List<String> events = new ArrayList<>();
        int c;
        int guard = 0;
        while ((c = g.next()) != GetOpt.END && guard++ < 100) {
            String name = c >= 256 ? "--" + g.longName() : String.valueOf((char) c);
            events.add(g.optarg() == null ? name : name + "=" + g.optarg());
        }
        events.add("ops=" + g.operands());
        String e = err.toString(StandardCharsets.UTF_8);
        if (!e.isEmpty()) {
            events.add("err=" + e.strip());
        }
        return String.join(" ", events);
    }

    private static String run(String... argv) {
        return run(false, argv);
    }

    @Test
    void shouldHandleClustersAndAttachedArguments() {
        assertEquals("R Q M ops=[]", run("-RQM"));
        assertEquals("R c=10 ops=[h]", run("-Rc10", "h"));
        assertEquals("c=10 ops=[h]", run("-c", "10", "h"));
        assertEquals("c=-x ops=[]", run("-c", "-x"));
        assertEquals("c=-- ops=[h]", run("-c", "--", "h"));
    }

    @Test
    void shouldTakeOptionalArgumentsOnlyAttached() {
        assertEquals("v ops=[]", run("-v"));
        assertEquals("v=10 ops=[]", run("-v10"));
        assertEquals("v ops=[10]", run("-v", "10"));
        assertEquals("v==10 ops=[]", run("-v=10"));
        assertEquals("M v=R ops=[]", run("-MvR"));
    }

    @Test
    void shouldPermuteUnlessPosixlyCorrect() {
        assertEquals("c=3 R ops=[host, serv]", run("host", "-c", "3", "serv", "-R"));
        assertEquals("ops=[host, -c, 3]", run(true, "host", "-c", "3"));
        assertEquals("ops=[host, -c, 3]", new GetOptRunner("+" + SPEC).run("host", "-c", "3"));
    }

    @Test
    void shouldStopAtDoubleDashAndKeepLoneDash() {
        assertEquals("R ops=[a, -c, 3]", run("a", "-R", "--", "-c", "3"));
        assertEquals("ops=[-]", run("-"));
    }

    @Test
    void shouldPrintGlibcMessagesWithArgv0AsTyped() {
        assertEquals("? ops=[h] err=/bin/twping: invalid option -- 'x'", run("-x", "h"));
        assertEquals("R ? ops=[] err=/bin/twping: invalid option -- 'f'", run("-Rf"));
        assertEquals("? ops=[h] err=/bin/twping: option requires an argument -- 'c'", run("h", "-c"));
        assertEquals("? ops=[] err=/bin/twping: invalid option -- ':'", run("-:"));
    }

    @Test
    void shouldMatchLongOptions() {
        assertEquals("--spin=5 ops=[]", run("--spin=5"));
        assertEquals("--spin=5 ops=[h]", run("--spin", "5", "h"));
        assertEquals("--spin= ops=[]", run("--spin="));
        assertEquals("--sync ops=[]", run("--sync"));
        assertEquals("--spin=7 ops=[]", run("--sp", "7"));
        assertEquals("--lang ops=[ru]", run("--lang", "ru"));
        assertEquals("--lang=ru ops=[]", run("--lang=ru"));
    }

    @Test
    void shouldReportLongOptionErrors() {
        assertEquals("? ops=[] err=/bin/twping: unrecognized option '--foo'", run("--foo"));
        assertEquals("? ops=[] err=/bin/twping: unrecognized option '--foo=1'", run("--foo=1"));
        assertEquals("? ops=[] err=/bin/twping: option '--s' is ambiguous; possibilities: '--spin' '--sync'",
                run("--s"));
        assertEquals("? ops=[] err=/bin/twping: option '--sync' doesn't allow an argument", run("--sync=1"));
        assertEquals("? ops=[] err=/bin/twping: option '--spin' requires an argument", run("--spin"));
    }

    /** A runner with another option string. */
    private record GetOptRunner(String spec) {
        String run(String... argv) {
            GetOpt g = new GetOpt(argv, "t", spec, List.of(), false, new PrintStream(new ByteArrayOutputStream()));
            List<String> events = new ArrayList<>();
            int c;
            while ((c = g.next()) != GetOpt.END) {
                events.add(String.valueOf((char) c));
            }
            events.add("ops=" + g.operands());
            return String.join(" ", events);
        }
    }
}
