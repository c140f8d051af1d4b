"""Write tests/golden/xxh3_vectors.json: XXH3-64 (seed 0, default secret) of deterministic inputs.

The input of length n is made by a 64-bit linear congruential generator seeded with n:
    state = n
    for each byte: state = (state * 6364136223846793005 + 1442695040888963407) mod 2**64
                   byte  = state >> 56
The Java test (agent-android/test/.../Xxh3Test.java) rebuilds the same inputs and checks its digests;
the Python side (AgentJar.build) can check against the same file.
Run: python3 agent-android/tools/make_xxh3_vectors.py
"""

from __future__ import annotations

import json
import pathlib

import xxhash

LENGTHS = [0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 4096, 100000]
MASK = (1 << 64) - 1


def generate(n: int) -> bytes:
    state = n
    out = bytearray(n)
    for i in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK
        out[i] = state >> 56
    return bytes(out)


def main() -> None:
    root = pathlib.Path(__file__).resolve().parents[2]
    vectors = [
        {"length": n, "xxh3_64": xxhash.xxh3_64_hexdigest(generate(n)), "head": generate(n)[:8].hex()}
        for n in LENGTHS
    ]
    doc = {
        "algorithm": "XXH3-64, seed 0, default secret; digest as 16 lowercase hex digits, big-endian",
        "generator": "input of length n: state = n; per byte: state = (state * 6364136223846793005 "
        "+ 1442695040888963407) mod 2**64, byte = state >> 56",
        "made_by": "python3 agent-android/tools/make_xxh3_vectors.py (xxhash.xxh3_64_hexdigest)",
        "build": "the agent's build is the first 12 hex digits of the digest of the jar's bytes",
        "vectors": vectors,
    }
    path = root / "tests" / "golden" / "xxh3_vectors.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
