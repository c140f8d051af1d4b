package dev.mobileagent.agent.core;

/** Standard base64 with padding (java.util.Base64 needs Android API 26; this runs everywhere). */
public final class Base64Codec {
    private static final char[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();

    private Base64Codec() {}

    public static String encode(byte[] data) {
        StringBuilder sb = new StringBuilder((data.length + 2) / 3 * 4);
        int i = 0;
        for (; i + 2 < data.length; i += 3) {
            int n = (data[i] & 0xff) << 16 | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff);
            sb.append(ALPHABET[n >>> 18]).append(ALPHABET[(n >>> 12) & 63]).append(ALPHABET[(n >>> 6) & 63]).append(ALPHABET[n & 63]);
        }
        int rest = data.length - i;
        if (rest == 1) {
            int n = (data[i] & 0xff) << 16;
            sb.append(ALPHABET[n >>> 18]).append(ALPHABET[(n >>> 12) & 63]).append("==");
        } else if (rest == 2) {
            int n = (data[i] & 0xff) << 16 | (data[i + 1] & 0xff) << 8;
            sb.append(ALPHABET[n >>> 18]).append(ALPHABET[(n >>> 12) & 63]).append(ALPHABET[(n >>> 6) & 63]).append('=');
        }
        return sb.toString();
    }
}
