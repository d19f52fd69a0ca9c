package dev.countersign.executor.imports.csv;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import dev.countersign.contracts.catalogue.Violation;

/**
 * An upload's bytes as text in its declared charset, decoded strictly: a byte that is not text in that charset is
 * refused with its line, never replaced (a windows-1252 file sent as UTF-8 is told to declare its charset, not stored
 * garbled). A UTF-8 byte-order mark is dropped; one in a file declared windows-1252, or a UTF-16 mark, is refused.
 * Knows the line of each character: CR, LF and CRLF end a line, as they end a CSV record.
 */
final class DecodedText {

    private static final byte[] UTF8_BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

    private final String text;
    private final int[] lineStarts;

    private DecodedText(String text) {
        this.text = text;
        int[] starts = new int[16];
        int count = 1;
        for (int i = 0; i < text.length(); i++) {
            if (endsLine(text, i)) {
                if (count == starts.length) {
                    starts = Arrays.copyOf(starts, count * 2);
                }
                starts[count++] = i + 1;
            }
        }
        this.lineStarts = Arrays.copyOf(starts, count);
    }

    /** Whether the character at {@code i} ends a line: LF, or CR not followed by LF (CRLF ends at its LF). */
    static boolean endsLine(CharSequence text, int i) {
        char c = text.charAt(i);
        return c == '\n' || c == '\r' && (i + 1 == text.length() || text.charAt(i + 1) != '\n');
    }

    /** The text of {@code body}, or the violation that refuses it. */
    static Decoded decode(byte[] body, Charset charset) {
        int skip = 0;
        if (startsWith(body, UTF8_BOM)) {
            if (!charset.equals(StandardCharsets.UTF_8)) {
                return Decoded.refused(new Violation("line 1", "the file starts with a UTF-8 byte-order mark but is"
                        + " declared " + charset.name() + "; declare charset=utf-8"));
            }
            skip = UTF8_BOM.length;
        } else if (startsWith(body, new byte[]{(byte) 0xFF, (byte) 0xFE})
                || startsWith(body, new byte[]{(byte) 0xFE, (byte) 0xFF})) {
            return Decoded.refused(new Violation("line 1", "the file is UTF-16; export it as UTF-8 or windows-1252"));
        }
        CharsetDecoder decoder = charset.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(body, skip, body.length - skip);
        CharBuffer out = CharBuffer.allocate((int) (body.length * (double) decoder.maxCharsPerByte()) + 1);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            int line = 1 + lineBreaks(body, skip, in.position());
            return Decoded.refused(new Violation("line " + line, "holds bytes that are not " + charset.name()
                    + " text" + (charset.equals(StandardCharsets.UTF_8)
                            ? "; if the file is windows-1252, declare it: text/csv; charset=windows-1252"
                            : "")));
        }
        return new Decoded(new DecodedText(out.flip().toString()), null);
    }

    String text() {
        return text;
    }

    /**
     * The line (from 1) of the record that Commons CSV says starts at {@code position}: its position is where it began
     * reading, before the empty lines it skips, so those are passed over here.
     */
    int lineOf(long position) {
        int start = (int) Math.min(position, text.length());
        while (isLineBreak(start)) {
            start++;
        }
        int found = Arrays.binarySearch(lineStarts, start);
        return found >= 0 ? found + 1 : -found - 1;
    }

    /** The first line after line {@code read} that is not empty: where the record after that line starts. */
    int nextFilledLine(long read) {
        int line = (int) Math.min(read, lineStarts.length) + 1;
        while (line < lineStarts.length && isLineBreak(lineStarts[line - 1])) {
            line++;
        }
        return line;
    }

    private boolean isLineBreak(int position) {
        return position < text.length() && (text.charAt(position) == '\n' || text.charAt(position) == '\r');
    }

    private static boolean startsWith(byte[] body, byte[] prefix) {
        return body.length >= prefix.length && Arrays.equals(body, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** Line breaks (CR, LF, CRLF once) among the bytes before {@code to}; both charsets write them as one byte. */
    private static int lineBreaks(byte[] body, int from, int to) {
        int count = 0;
        for (int i = from; i < to; i++) {
            count += body[i] == '\n' || body[i] == '\r' && (i + 1 >= body.length || body[i + 1] != '\n') ? 1 : 0;
        }
        return count;
    }

    record Decoded(DecodedText text, Violation refusal) {

        static Decoded refused(Violation refusal) {
            return new Decoded(null, refusal);
        }
    }
}
