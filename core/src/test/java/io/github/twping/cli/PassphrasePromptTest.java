package io.github.twping.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PassphrasePromptTest {

    private static byte[] read(byte[] input, ByteArrayOutputStream promptOut) throws IOException {
        return PassphrasePrompt.fromStreams(new ByteArrayInputStream(input),
                new PrintStream(promptOut, true, StandardCharsets.UTF_8)).read("P: ");
    }

    @Test
    void shouldWritePromptThenNewlineAndReadUpToTheLineEnd() throws IOException {
        ByteArrayOutputStream prompt = new ByteArrayOutputStream();
        assertArrayEquals("s3cret".getBytes(StandardCharsets.UTF_8), read("s3cret\nnext\n".getBytes(StandardCharsets.UTF_8), prompt));
        assertEquals("P: \n", prompt.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldStopAtCarriageReturnAndKeepRawBytes() throws IOException {
        byte[] raw = {(byte) 0xff, 0x00, 'a', '\r', 'b'};
        assertArrayEquals(new byte[] {(byte) 0xff, 0x00, 'a'}, read(raw, new ByteArrayOutputStream()));
    }

    @Test
    void shouldGiveAnEmptyPassphraseAtEndOfFile() throws IOException {
        assertArrayEquals(new byte[0], read(new byte[0], new ByteArrayOutputStream()));
    }

    @Test
    void shouldBoundEndlessInput() throws IOException {
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                return 'x';
            }
        };
        assertEquals(PassphrasePrompt.MAX_PASSPHRASE_BYTES, PassphrasePrompt.readLine(endless).length);
    }

    @Test
    void shouldWriteTheNewlineEvenWhenReadingFails() {
        ByteArrayOutputStream prompt = new ByteArrayOutputStream();
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("Input/output error");
            }
        };
        PassphrasePrompt p = PassphrasePrompt.fromStreams(failing, new PrintStream(prompt, true, StandardCharsets.UTF_8));
        assertThrows(IOException.class, () -> p.read("P: "));
        assertEquals("P: \n", prompt.toString(StandardCharsets.UTF_8));
    }
}
