package dev.mobileagent.agent.digest;

/**
 * XXH3-64 with seed 0 and the default secret, for every input length, as xxHash 0.8 defines it.
 * Written without Math.multiplyHigh (Android API 31+), so it runs on every supported device.
 */
public final class Xxh3 {
    private static final long P32_1 = 0x9E3779B1L;
    private static final long P32_2 = 0x85EBCA77L;
    private static final long P32_3 = 0xC2B2AE3DL;
    private static final long P64_1 = 0x9E3779B185EBCA87L;
    private static final long P64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P64_3 = 0x165667B19E3779F9L;
    private static final long P64_4 = 0x85EBCA77C2B2AE63L;
    private static final long P64_5 = 0x27D4EB2F165667C5L;
    private static final long PRIME_MX1 = 0x165667919E3779F9L;
    private static final long PRIME_MX2 = 0x9FB21C651E98DF25L;

    private static final int STRIPE_LEN = 64;
    private static final int SECRET_CONSUME_RATE = 8;
    private static final int SECRET_SIZE = 192;
    private static final int STRIPES_PER_BLOCK = (SECRET_SIZE - STRIPE_LEN) / SECRET_CONSUME_RATE;
    private static final int BLOCK_LEN = STRIPE_LEN * STRIPES_PER_BLOCK;

    private static final byte[] SECRET = bytes(
        0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
        0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
        0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
        0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
        0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
        0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
        0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
        0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
        0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
        0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
        0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
        0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e);

    private Xxh3() {}

    /** The digest as 16 lowercase hex digits (big-endian, as xxhash's hexdigest writes it). */
    public static String hex64(byte[] data) {
        String h = Long.toHexString(hash64(data));
        StringBuilder sb = new StringBuilder(16);
        for (int i = h.length(); i < 16; i++) sb.append('0');
        return sb.append(h).toString();
    }

    public static long hash64(byte[] in) {
        int len = in.length;
        if (len <= 16) return len0to16(in, len);
        if (len <= 128) return len17to128(in, len);
        if (len <= 240) return len129to240(in, len);
        return hashLong(in, len);
    }

    private static long len0to16(byte[] in, int len) {
        if (len > 8) {
            long bitflip1 = le64(SECRET, 24) ^ le64(SECRET, 32);
            long bitflip2 = le64(SECRET, 40) ^ le64(SECRET, 48);
            long lo = le64(in, 0) ^ bitflip1;
            long hi = le64(in, len - 8) ^ bitflip2;
            long acc = len + Long.reverseBytes(lo) + hi + mulFold64(lo, hi);
            return avalanche(acc);
        }
        if (len >= 4) {
            long in1 = le32(in, 0);
            long in2 = le32(in, len - 4);
            long bitflip = le64(SECRET, 8) ^ le64(SECRET, 16);
            long keyed = (in2 + (in1 << 32)) ^ bitflip;
            return rrmxmx(keyed, len);
        }
        if (len > 0) {
            int c1 = in[0] & 0xff;
            int c2 = in[len >> 1] & 0xff;
            int c3 = in[len - 1] & 0xff;
            long combined = ((c1 << 16) | (c2 << 24) | c3 | (len << 8)) & 0xffffffffL;
            long bitflip = (le32(SECRET, 0) ^ le32(SECRET, 4));
            return xxh64Avalanche(combined ^ bitflip);
        }
        return xxh64Avalanche(le64(SECRET, 56) ^ le64(SECRET, 64));
    }

    private static long len17to128(byte[] in, int len) {
        long acc = len * P64_1;
        if (len > 32) {
            if (len > 64) {
                if (len > 96) {
                    acc += mix16(in, 48, 96);
                    acc += mix16(in, len - 64, 112);
                }
                acc += mix16(in, 32, 64);
                acc += mix16(in, len - 48, 80);
            }
            acc += mix16(in, 16, 32);
            acc += mix16(in, len - 32, 48);
        }
        acc += mix16(in, 0, 0);
        acc += mix16(in, len - 16, 16);
        return avalanche(acc);
    }

    private static long len129to240(byte[] in, int len) {
        long acc = len * P64_1;
        int rounds = len / 16;
        for (int i = 0; i < 8; i++) acc += mix16(in, 16 * i, 16 * i);
        long accEnd = mix16(in, len - 16, 136 - 17);
        acc = avalanche(acc);
        for (int i = 8; i < rounds; i++) accEnd += mix16(in, 16 * i, 16 * (i - 8) + 3);
        return avalanche(acc + accEnd);
    }

    private static long hashLong(byte[] in, int len) {
        long[] acc = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};
        int blocks = (len - 1) / BLOCK_LEN;
        for (int n = 0; n < blocks; n++) {
            accumulate(acc, in, n * BLOCK_LEN, STRIPES_PER_BLOCK);
            scramble(acc, SECRET_SIZE - STRIPE_LEN);
        }
        int stripes = ((len - 1) - BLOCK_LEN * blocks) / STRIPE_LEN;
        accumulate(acc, in, blocks * BLOCK_LEN, stripes);
        accumulate512(acc, in, len - STRIPE_LEN, SECRET_SIZE - STRIPE_LEN - 7);
        long result = len * P64_1;
        for (int i = 0; i < 4; i++) {
            int s = 11 + 16 * i;
            result += mulFold64(acc[2 * i] ^ le64(SECRET, s), acc[2 * i + 1] ^ le64(SECRET, s + 8));
        }
        return avalanche(result);
    }

    private static void accumulate(long[] acc, byte[] in, int off, int stripes) {
        for (int s = 0; s < stripes; s++) {
            accumulate512(acc, in, off + s * STRIPE_LEN, s * SECRET_CONSUME_RATE);
        }
    }

    private static void accumulate512(long[] acc, byte[] in, int off, int secretOff) {
        for (int i = 0; i < 8; i++) {
            long value = le64(in, off + 8 * i);
            long key = value ^ le64(SECRET, secretOff + 8 * i);
            acc[i ^ 1] += value;
            acc[i] += (key & 0xffffffffL) * (key >>> 32);
        }
    }

    private static void scramble(long[] acc, int secretOff) {
        for (int i = 0; i < 8; i++) {
            long a = acc[i];
            a ^= a >>> 47;
            a ^= le64(SECRET, secretOff + 8 * i);
            acc[i] = a * P32_1;
        }
    }

    private static long mix16(byte[] in, int off, int secretOff) {
        return mulFold64(le64(in, off) ^ le64(SECRET, secretOff), le64(in, off + 8) ^ le64(SECRET, secretOff + 8));
    }

    /** The low and high halves of the unsigned 128-bit product, xored. */
    static long mulFold64(long a, long b) {
        long aLo = a & 0xffffffffL, aHi = a >>> 32;
        long bLo = b & 0xffffffffL, bHi = b >>> 32;
        long ll = aLo * bLo;
        long hl = aHi * bLo;
        long lh = aLo * bHi;
        long hh = aHi * bHi;
        long cross = (ll >>> 32) + (hl & 0xffffffffL) + lh;
        long upper = (hl >>> 32) + (cross >>> 32) + hh;
        long lower = (cross << 32) | (ll & 0xffffffffL);
        return lower ^ upper;
    }

    private static long avalanche(long h) {
        h ^= h >>> 37;
        h *= PRIME_MX1;
        return h ^ (h >>> 32);
    }

    private static long rrmxmx(long h, int len) {
        h ^= Long.rotateLeft(h, 49) ^ Long.rotateLeft(h, 24);
        h *= PRIME_MX2;
        h ^= (h >>> 35) + len;
        h *= PRIME_MX2;
        return h ^ (h >>> 28);
    }

    private static long xxh64Avalanche(long h) {
        h ^= h >>> 33;
        h *= P64_2;
        h ^= h >>> 29;
        h *= P64_3;
        return h ^ (h >>> 32);
    }

    private static long le64(byte[] b, int i) {
        return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24
            | (b[i + 4] & 0xffL) << 32 | (b[i + 5] & 0xffL) << 40 | (b[i + 6] & 0xffL) << 48
            | (b[i + 7] & 0xffL) << 56;
    }

    private static long le32(byte[] b, int i) {
        return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24;
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) out[i] = (byte) values[i];
        return out;
    }
}
