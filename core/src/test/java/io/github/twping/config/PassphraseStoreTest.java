package io.github.twping.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.github.twping.testdata.RecordedVectors;

class PassphraseStoreTest {
    private static final byte[] SECRET = "s3cret-lab-key".getBytes(StandardCharsets.US_ASCII);

    private static PassphraseStore store(String content) {
        return PassphraseStore.of("test.pfs", content.getBytes(StandardCharsets.UTF_8));
    }

    private static Path vectors() {
        return RecordedVectors.dir();
    }

    @Test
    void shouldReadTheRecordedClientFile() {
        PassphraseStore.Opened opened = PassphraseStore.open(vectors().resolve("server-config/alice.pfs"));
        assertTrue(opened.ok(), opened.error());
        PassphraseStore.Found f = assertInstanceOf(PassphraseStore.Found.class, opened.store().lookupPrefix("alice"));
        assertArrayEquals(SECRET, f.passphrase());
        assertEquals("alice", f.identity());
        assertInstanceOf(PassphraseStore.NotFound.class, opened.store().lookupPrefix("carol"));
    }

    @Test
    void shouldMatchPrefixesOnTheClient() {
        PassphraseStore s = store("alice 7333637265742d6c61622d6b6579\nbob 00\n");
        assertArrayEquals(SECRET, ((PassphraseStore.Found) s.lookupPrefix("ali")).passphrase());
        assertArrayEquals(SECRET, ((PassphraseStore.Found) s.lookupPrefix("alicexyz")).passphrase());
        assertArrayEquals(new byte[] {0}, ((PassphraseStore.Found) s.lookupPrefix("bob")).passphrase());
        assertInstanceOf(PassphraseStore.NotFound.class, s.lookupPrefix(""));
    }

    @Test
    void shouldMatchExactlyOnTheServer() {
        PassphraseStore s = store("alice 7333637265742d6c61622d6b6579\n");
        assertInstanceOf(PassphraseStore.NotFound.class, s.lookupExact("ali"));
        assertInstanceOf(PassphraseStore.NotFound.class, s.lookupExact("alicexyz"));
        assertArrayEquals(SECRET, ((PassphraseStore.Found) s.lookupExact("alice")).passphrase());
    }

    @Test
    void shouldAcceptCommentsBlankLinesTabsUpperCaseHexAndTrailingSpace() {
        PassphraseStore s = store("# comment\n\n   \n   # indented comment\nalice\t7333637265742D6C61622D6B6579   \r\n");
        assertArrayEquals(SECRET, ((PassphraseStore.Found) s.lookupPrefix("alice")).passphrase());
        assertArrayEquals(SECRET, ((PassphraseStore.Found) s.lookupExact("alice")).passphrase());
    }

    @Test
    void shouldReportLeadingSpaceWithZeroBasedLine() {
        PassphraseStore.SyntaxError e = assertInstanceOf(PassphraseStore.SyntaxError.class,
                store("  alice 7333637265742d6c61622d6b6579\n").lookupPrefix("alice"));
        assertEquals("Leading spaces not allowed: line 0", e.message());
        PassphraseStore.SyntaxError third = assertInstanceOf(PassphraseStore.SyntaxError.class,
                store("# c\n\n\tbob 00\n").lookupPrefix("alice"));
        assertEquals("Leading spaces not allowed: line 2", third.message());
        assertEquals(2, third.lineIndex());
    }

    @Test
    void shouldRejectBadHexOnTheMatchingLine() {
        PassphraseStore.SyntaxError odd = assertInstanceOf(PassphraseStore.SyntaxError.class,
                store("alice 733\n").lookupPrefix("alice"));
        assertNull(odd.message());
        assertTrue(odd.describe().contains("odd"));
        PassphraseStore.SyntaxError notHex = assertInstanceOf(PassphraseStore.SyntaxError.class,
                store("alice 7g\n").lookupPrefix("alice"));
        assertEquals("Invalid key: not hex?", notHex.message());
        assertInstanceOf(PassphraseStore.SyntaxError.class, store("alice 00 extra\n").lookupPrefix("alice"));
        assertInstanceOf(PassphraseStore.SyntaxError.class, store("alice \n").lookupPrefix("alice"));
        assertInstanceOf(PassphraseStore.SyntaxError.class, store("alice\n").lookupPrefix("alice"));
    }

    @Test
    void shouldCheckOtherLinesOnlyUpToTheSeparatorOnTheClient() {
        // bob's bad hex is not examined by the client lookup, but the server validates every line
        PassphraseStore s = store("bob zz\nalice 00\n");
        assertInstanceOf(PassphraseStore.Found.class, s.lookupPrefix("alice"));
        assertInstanceOf(PassphraseStore.SyntaxError.class, s.lookupExact("alice"));
        // a missing separator is an error on any line
        assertInstanceOf(PassphraseStore.SyntaxError.class, store("bob\nalice 00\n").lookupPrefix("alice"));
        // lines after the match are not read
        assertInstanceOf(PassphraseStore.Found.class, store("alice 00\n  broken\n").lookupPrefix("alice"));
    }

    @Test
    void shouldListAllEntries() {
        List<PassphraseStore.Found> all = new ArrayList<>();
        assertFalse(store("a 01\nb 0203\n").parseAll(all).isPresent());
        assertEquals(2, all.size());
        assertEquals("b", all.get(1).identity());
        assertArrayEquals(new byte[] {2, 3}, all.get(1).passphrase());
    }

    /** A key file that group or others may read or write gets one warning, as ssh does for keys (issue 26, item 7). */
    @Test
    void shouldWarnAboutAFileOthersCanReadOrWrite(@TempDir Path dir) throws Exception {
        Path pfs = dir.resolve("k.pfs");
        Files.writeString(pfs, "alice 7333\n");
        for (String mode : List.of("rw-------", "r--------", "rwx--x--x")) {
            Files.setPosixFilePermissions(pfs, PosixFilePermissions.fromString(mode));
            assertNull(PassphraseStore.exposureWarning(pfs, "k.pfs"), mode);
        }
        for (String mode : List.of("rw-r-----", "rw--w----", "rw----r--", "rw-----w-", "rw-rw-rw-")) {
            Files.setPosixFilePermissions(pfs, PosixFilePermissions.fromString(mode));
            String octal = String.format("%04o", octal(mode));
            assertEquals("WARNING: pass-phrase file k.pfs can be read or written by group or others (mode " + octal
                    + "); chmod go-rw k.pfs", PassphraseStore.exposureWarning(pfs, "k.pfs"), mode);
        }
        assertNull(PassphraseStore.exposureWarning(dir.resolve("missing.pfs"), "missing.pfs"));
        assertNull(PassphraseStore.exposureWarning(Path.of("/dev/null"), "/dev/null"), "not a regular file");
    }

    private static int octal(String mode) {
        int v = 0;
        for (int i = 0; i < 9; i++) {
            v = v << 1 | (mode.charAt(i) == '-' ? 0 : 1);
        }
        return v;
    }

    @Test
    void shouldReportAMissingFileWithStrerror(@TempDir Path dir) {
        PassphraseStore.Opened o = PassphraseStore.open(dir.resolve("none.pfs"), "none.pfs");
        assertFalse(o.ok());
        assertEquals("Unable to open none.pfs: No such file or directory", o.error());
    }

    @Test
    void shouldTreatADirectoryAsEmpty(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("x.pfs");
        Files.createDirectory(f);
        assertInstanceOf(PassphraseStore.NotFound.class, PassphraseStore.open(f).store().lookupPrefix("alice"));
    }
}
