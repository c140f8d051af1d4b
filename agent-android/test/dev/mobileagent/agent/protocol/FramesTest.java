package dev.mobileagent.agent.protocol;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.mobileagent.agent.Support;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import org.json.JSONObject;
import org.junit.Test;

/** The frame codec: length prefix, UTF-8 JSON object with a string type, the 16 MiB limit. */
public class FramesTest {
    public static byte[] frame(byte[] payload) {
        byte[] f = new byte[payload.length + 4];
        int n = payload.length;
        f[0] = (byte) (n >>> 24);
        f[1] = (byte) (n >>> 16);
        f[2] = (byte) (n >>> 8);
        f[3] = (byte) n;
        System.arraycopy(payload, 0, f, 4, n);
        return f;
    }

    static void rejected(byte[] bytes) throws Exception {
        try {
            Frames.read(new ByteArrayInputStream(bytes));
            fail("accepted a bad frame");
        } catch (ProtocolException expected) {
            // the connection closes
        }
    }

    @Test
    public void aMessageRoundTripsWithABigEndianLength() throws Exception {
        JSONObject m = Support.obj("{\"type\":\"text\",\"text\":\"héllo 👋\",\"n\":7}");
        byte[] f = Frames.encode(m);
        int n = ((f[0] & 0xff) << 24) | ((f[1] & 0xff) << 16) | ((f[2] & 0xff) << 8) | (f[3] & 0xff);
        assertEquals(f.length - 4, n);
        JSONObject back = Frames.read(new ByteArrayInputStream(f));
        assertEquals("héllo 👋", back.getString("text"));
        assertEquals(7, back.getInt("n"));
    }

    @Test
    public void aCleanEndOfStreamIsNoFrame() throws Exception {
        assertNull(Frames.read(new ByteArrayInputStream(new byte[0])));
    }

    @Test(expected = EOFException.class)
    public void aStreamEndingInsideAFrameIsAnError() throws Exception {
        byte[] f = Frames.encode(Support.obj("{\"type\":\"ping\",\"nonce\":1}"));
        byte[] cut = new byte[f.length - 2];
        System.arraycopy(f, 0, cut, 0, cut.length);
        Frames.read(new ByteArrayInputStream(cut));
    }

    @Test
    public void aZeroLengthIsAProtocolError() throws Exception {
        rejected(new byte[] {0, 0, 0, 0});
    }

    @Test
    public void aLengthOverSixteenMebibytesIsAProtocolErrorBeforeAnyPayloadIsRead() throws Exception {
        rejected(new byte[] {0x01, 0x00, 0x00, 0x01});
    }

    @Test
    public void bytesThatAreNotUtf8AreAProtocolError() throws Exception {
        rejected(frame(new byte[] {'{', '"', 't', 'y', 'p', 'e', '"', ':', '"', (byte) 0xff, '"', '}'}));
    }

    @Test
    public void jsonThatIsNotAnObjectIsAProtocolError() throws Exception {
        rejected(frame("[1,2]".getBytes(StandardCharsets.UTF_8)));
        rejected(frame("\"auth\"".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    public void anObjectWithoutAStringTypeIsAProtocolError() throws Exception {
        rejected(frame("{\"token\":\"x\"}".getBytes(StandardCharsets.UTF_8)));
        rejected(frame("{\"type\":5}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    public void bytesThatAreNotJsonAreAProtocolError() throws Exception {
        rejected(frame("{\"type\":".getBytes(StandardCharsets.UTF_8)));
        rejected(frame("{\"type\":\"ping\"} trailing".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    public void whatAndroidsLenientOrgJsonWouldAcceptButJsonIsNotIsAProtocolError() throws Exception {
        String[] lenient = {"{type:\"ping\",\"nonce\":1}", "{'type':'ping'}", "{\"type\":\"ping\",}",
            "{\"type\":\"ping\"} // comment", "{\"type\":\"ping\",\"nonce\":NaN}", "{\"type\":\"ping\",\"nonce\":01}",
            "{\"type\":\"pi\u0001ng\"}", "{\"type\":\"ping\";\"nonce\":1}", "{\"type\":\"ping\",\"a\":[1,]}",
            "{\"type\":\"ping\",\"a\":.5}", "{\"type\":\"ping\",\"a\":\"\\x41\"}", "{\"type\":\"ping\",\"a\":tru}"};
        for (String text : lenient) rejected(frame(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    public void validJsonOfEveryShapeIsAccepted() throws Exception {
        String text = " {\"type\":\"x\",\"a\":[1,-2.5e+3,0,true,false,null,{}],\"b\":\"\\u00e9\\n\\\"\\/\",\"c\":{\"d\":[]}} \n";
        JSONObject m = Frames.read(new ByteArrayInputStream(frame(text.getBytes(StandardCharsets.UTF_8))));
        assertEquals("é\n\"/", m.getString("b"));
        assertEquals(-2500.0, m.getJSONArray("a").getDouble(1), 0.0);
    }

    @Test
    public void nestingBeyondTheLimitIsAProtocolErrorNotAStackOverflow() throws Exception {
        StringBuilder deep = new StringBuilder("{\"type\":\"x\",\"a\":");
        for (int i = 0; i < 100_000; i++) deep.append('[');
        rejected(frame(deep.toString().getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    public void arbitraryPayloadsAreMessagesOrProtocolErrorsNeverAnythingElse() throws Exception {
        java.util.Random random = new java.util.Random(20261201L);
        byte[] valid = "{\"type\":\"request\",\"id\":1,\"method\":\"tap\",\"deadline_ms\":5,\"params\":{\"x\":[1,{\"y\":\"\\u00e9\"}]}}"
            .getBytes(StandardCharsets.UTF_8);
        int messages = 0;
        for (int i = 0; i < 5000; i++) {
            byte[] payload;
            if (i % 2 == 0) {
                payload = new byte[1 + random.nextInt(64)];
                random.nextBytes(payload);
            } else {
                payload = valid.clone();
                for (int k = 0; k <= random.nextInt(4); k++) payload[random.nextInt(payload.length)] = (byte) random.nextInt(256);
            }
            try {
                JSONObject m = Frames.decodePayload(payload);
                assertEquals(String.class, m.get("type").getClass());
                messages++;
            } catch (ProtocolException expected) {
                // the connection closes with protocol_error
            }
        }
        assertTrue("some mutations stay valid messages", messages > 0);
    }

    @Test
    public void aMessageWithoutATypeCannotBeEncoded() {
        try {
            Frames.encode(Support.obj("{\"nonce\":1}"));
            fail("encoded a message without a type");
        } catch (ProtocolException expected) {
            // refused
        }
    }

    private static byte[] utf8(String text) {
        return frame(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    public void anObjectNamingAKeyTwiceIsAProtocolErrorEvenSpelledWithAnEscape() throws Exception {
        rejected(utf8("{\"type\":\"auth\",\"token\":\"a\",\"token\":\"b\"}"));
        rejected(utf8("{\"type\":\"auth\",\"token\":\"a\",\"t\\u006fken\":\"b\"}"));
        rejected(utf8("{\"type\":\"x\",\"a\":[{\"b\":1,\"b\":2}]}"));
        JSONObject apart = Frames.read(new ByteArrayInputStream(utf8("{\"type\":\"x\",\"a\":{\"b\":1},\"c\":{\"b\":2}}")));
        assertEquals(2, apart.getJSONObject("c").getInt("b")); // the same name in two objects is fine
    }

    @Test
    public void aNumberPastADoubleIsReadAsTheLargestDoubleNotAnUnreadableFrame() throws Exception {
        StringBuilder digits = new StringBuilder("1");
        for (int k = 0; k < 400; k++) digits.append('0');
        JSONObject m = Frames.read(new ByteArrayInputStream(utf8(
            "{\"type\":\"request\",\"deadline_ms\":" + digits + ",\"x\":-1e400,\"y\":1e5,\"z\":123}")));
        assertEquals(Double.MAX_VALUE, m.getDouble("deadline_ms"), 0.0);
        assertEquals(-Double.MAX_VALUE, m.getDouble("x"), 0.0);
        assertEquals(100000.0, m.getDouble("y"), 0.0);
        assertEquals(123, m.get("z"));
    }
}
