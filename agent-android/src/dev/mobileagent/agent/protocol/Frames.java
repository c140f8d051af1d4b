package dev.mobileagent.agent.protocol;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.json.JSONException;
import org.json.JSONObject;
import org.json.JSONTokener;

/** The frame codec of docs/protocol.md §1: a 4-byte big-endian length, then one UTF-8 JSON object. */
public final class Frames {
    public static final int MAX_FRAME = 16 * 1024 * 1024;

    private Frames() {}

    /** One whole frame, length prefix included. */
    public static byte[] encode(JSONObject message) throws ProtocolException {
        if (!(message.opt("type") instanceof String)) throw new ProtocolException("a message needs a string `type`");
        byte[] payload = message.toString().getBytes(StandardCharsets.UTF_8);
        if (payload.length > MAX_FRAME) {
            throw new ProtocolException("a frame of " + payload.length + " bytes exceeds the limit of " + MAX_FRAME);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + 4);
        int n = payload.length;
        out.write(n >>> 24);
        out.write(n >>> 16);
        out.write(n >>> 8);
        out.write(n);
        out.write(payload, 0, n);
        return out.toByteArray();
    }

    /** Writes one frame in a single write, so frames from several threads never interleave under a lock. */
    public static void write(OutputStream out, JSONObject message) throws IOException, ProtocolException {
        byte[] frame = encode(message);
        out.write(frame);
        out.flush();
    }

    /**
     * Reads one frame. Returns null at a clean end of stream (before any byte of a frame).
     * Throws ProtocolException for a bad length, bytes that are not UTF-8 or not a JSON object with a
     * string `type`; EOFException for a stream that ends inside a frame.
     */
    public static JSONObject read(InputStream in) throws IOException, ProtocolException {
        return read(in, MAX_FRAME);
    }

    /** As {@link #read(InputStream)}, with a lower limit (the agent's limit before a peer authenticated). */
    public static JSONObject read(InputStream in, int limit) throws IOException, ProtocolException {
        byte[] header = new byte[4];
        int got = readFully(in, header);
        if (got == 0) return null;
        if (got < 4) throw new EOFException("the stream ended inside a frame's length");
        long n = ((header[0] & 0xffL) << 24) | ((header[1] & 0xffL) << 16) | ((header[2] & 0xffL) << 8)
            | (header[3] & 0xffL);
        if (n == 0) throw new ProtocolException("a frame of length 0");
        if (n > limit) throw new ProtocolException("a frame of " + n + " bytes exceeds the limit of " + limit);
        byte[] payload = new byte[(int) n];
        if (readFully(in, payload) < n) throw new EOFException("the stream ended inside a frame");
        return decodePayload(payload);
    }

    /** The message of a frame's payload (the bytes after the length). */
    public static JSONObject decodePayload(byte[] payload) throws ProtocolException {
        String text;
        try {
            CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
            CharBuffer chars = decoder.decode(ByteBuffer.wrap(payload));
            text = chars.toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException("a frame that is not UTF-8");
        }
        text = JsonSyntax.check(text);
        Object value;
        try {
            value = new JSONTokener(text).nextValue();
        } catch (JSONException e) {
            throw new ProtocolException("a frame that is not JSON (" + e.getMessage() + ")");
        } catch (StackOverflowError e) {
            throw new ProtocolException("a frame nested too deeply");
        }
        if (!(value instanceof JSONObject)) throw new ProtocolException("a frame that is not a JSON object");
        JSONObject message = (JSONObject) value;
        if (!(message.opt("type") instanceof String)) throw new ProtocolException("a frame without a string `type`");
        return message;
    }

    /** The message of exactly one whole frame (length prefix included). */
    public static JSONObject decode(byte[] frame) throws ProtocolException {
        if (frame.length < 4) throw new ProtocolException("a frame shorter than its length prefix");
        long n = ((frame[0] & 0xffL) << 24) | ((frame[1] & 0xffL) << 16) | ((frame[2] & 0xffL) << 8) | (frame[3] & 0xffL);
        if (n == 0 || n > MAX_FRAME) throw new ProtocolException("a frame of length " + n);
        if (frame.length - 4 != n) {
            throw new ProtocolException("a frame of length " + n + " holding " + (frame.length - 4) + " bytes");
        }
        byte[] payload = new byte[(int) n];
        System.arraycopy(frame, 4, payload, 0, (int) n);
        return decodePayload(payload);
    }

    private static int readFully(InputStream in, byte[] buf) throws IOException {
        int off = 0;
        while (off < buf.length) {
            int r = in.read(buf, off, buf.length - off);
            if (r < 0) break;
            off += r;
        }
        return off;
    }
}
