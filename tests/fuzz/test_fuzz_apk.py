"""The binary manifest reader and the APK reader fed arbitrary and mutated bytes: a manifest or
errors.InvalidApk, never another exception."""

from __future__ import annotations

import contextlib

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent import axml
from pytest_mobile_agent.apk import build_apk, manifest_element, read_apk, read_manifest
from pytest_mobile_agent.errors import InvalidApk
from tests.support.apks import OTHER_MANIFEST

VALID = axml.serialize(manifest_element(OTHER_MANIFEST))
APK = build_apk(OTHER_MANIFEST)


def _mutate(data: bytes, edits: list[tuple[int, int]]) -> bytes:
    out = bytearray(data)
    for position, value in edits:
        out[position % len(out)] = value
    return bytes(out)


edits = st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=8)


@given(edits)
def test_a_mutated_manifest_is_a_manifest_or_invalid_apk(changes):
    with contextlib.suppress(InvalidApk):
        read_manifest(_mutate(VALID, changes))


@given(st.binary(max_size=400))
def test_any_bytes_as_a_manifest_are_a_manifest_or_invalid_apk(data):
    with contextlib.suppress(InvalidApk):
        read_manifest(b"\x03\x00\x08\x00" + data)


@given(edits)
def test_a_mutated_apk_is_an_apk_or_invalid_apk(changes):
    with contextlib.suppress(InvalidApk):
        read_apk(_mutate(APK, changes))
