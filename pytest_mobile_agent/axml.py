"""Android's binary XML (the compiled AndroidManifest.xml in an APK): read it into elements, write it.

The format is AOSP's libandroidfw ResourceTypes.h: chunks of `ResChunk_header` (u16 type, u16
header size, u32 size), little-endian. A file is one RES_XML_TYPE (0x0003) chunk holding a string
pool (0x0001: counts, flags with UTF8_FLAG 0x100, offsets, strings as UTF-16 or UTF-8 with their
lengths in front), a resource map (0x0180: the attribute names' resource ids, index for index with
the pool), and the tree: START_NAMESPACE (0x0100), START_ELEMENT (0x0102: `ResXMLTree_attrExt`
then `ResXMLTree_attribute`s of 20 bytes, each ending in a `Res_value`), END_ELEMENT (0x0103),
END_NAMESPACE (0x0101), CDATA (0x0104). Each node chunk starts with `ResXMLTree_node` (line
number, comment).

An attribute of the android namespace is named by its resource id where the map gives one (aapt2
keeps the name too; a shrunk manifest may not), so `versionCode` is found either way. Anything
malformed is an `errors.InvalidApk`, never another exception.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_mobile_agent.errors import InvalidApk

ANDROID_NS = "http://schemas.android.com/apk/res/android"

RES_STRING_POOL = 0x0001
RES_XML = 0x0003
RES_XML_START_NAMESPACE = 0x0100
RES_XML_END_NAMESPACE = 0x0101
RES_XML_START_ELEMENT = 0x0102
RES_XML_END_ELEMENT = 0x0103
RES_XML_CDATA = 0x0104
RES_XML_RESOURCE_MAP = 0x0180
UTF8_FLAG = 0x100
NO_INDEX = 0xFFFFFFFF

TYPE_NULL, TYPE_REFERENCE, TYPE_STRING = 0x00, 0x01, 0x03
TYPE_INT_DEC, TYPE_INT_HEX, TYPE_INT_BOOLEAN = 0x10, 0x11, 0x12

#: the android: attributes a manifest reader needs, by their ids in the framework's public.xml
ANDROID_ATTRS = {
    0x01010001: "label", 0x01010002: "icon", 0x01010003: "name", 0x01010010: "exported",
    0x0101020C: "minSdkVersion", 0x0101021B: "versionCode", 0x0101021C: "versionName",
    0x01010202: "targetActivity", 0x01010270: "targetSdkVersion",
    # an intent filter's <data> (android.R.attr.scheme, host, pathPrefix) and its autoVerify (API 23)
    0x01010027: "scheme", 0x01010028: "host", 0x0101002B: "pathPrefix", 0x010104EE: "autoVerify",
}
_IDS_BY_NAME = {name: rid for rid, name in ANDROID_ATTRS.items()}

_CHUNK = struct.Struct("<HHI")
_NODE = struct.Struct("<HHIII")
_POOL = struct.Struct("<HHIIIIII")
_ATTR_EXT = struct.Struct("<IIHHHHHH")
_ATTR = struct.Struct("<IIIHBBI")
_NS_EXT = struct.Struct("<II")
_MAX_DEPTH = 256

Value = str | int | bool | None


@dataclass
class Element:
    """An element: its name, its attributes (`android:` ones keyed as `android:NAME`), children."""

    name: str
    attrs: dict[str, Value] = field(default_factory=dict)
    children: list[Element] = field(default_factory=list)

    def find_all(self, name: str) -> list[Element]:
        return [child for child in self.children if child.name == name]

    def android(self, name: str) -> Value:
        return self.attrs.get(f"android:{name}")


# --- reading -----------------------------------------------------------------------------------------


def _need(condition: bool, what: str) -> None:
    if not condition:
        raise InvalidApk(f"the binary AndroidManifest.xml is malformed: {what}")


def _unpack(layout: struct.Struct, data: bytes, offset: int, what: str) -> tuple[int, ...]:
    _need(offset >= 0 and offset + layout.size <= len(data), f"{what} runs past the end")
    return layout.unpack_from(data, offset)


def _read_pool(data: bytes, start: int, size: int) -> list[str]:
    _, header_size, _, count, _, flags, strings_start, _ = _unpack(_POOL, data, start, "the string pool")
    end = start + size
    _need(count <= size // 4 and start + header_size + 4 * count <= end, "the string pool's offsets")
    base = start + strings_start
    utf8 = bool(flags & UTF8_FLAG)
    strings = []
    for i in range(count):
        (offset,) = struct.unpack_from("<I", data, start + header_size + 4 * i)
        strings.append(_read_string(data, base + offset, end, utf8))
    return strings


def _read_string(data: bytes, at: int, end: int, utf8: bool) -> str:
    _need(0 <= at < end, "a string offset is outside the pool")
    if utf8:
        _, at = _utf8_length(data, at, end)  # the length in UTF-16 units, unused
        length, at = _utf8_length(data, at, end)
        _need(at + length <= end, "a UTF-8 string runs past the pool")
        return data[at : at + length].decode("utf-8", "replace")
    _need(at + 2 <= end, "a string length runs past the pool")
    (length,) = struct.unpack_from("<H", data, at)
    at += 2
    if length & 0x8000:
        _need(at + 2 <= end, "a string length runs past the pool")
        (low,) = struct.unpack_from("<H", data, at)
        length, at = ((length & 0x7FFF) << 16) | low, at + 2
    _need(at + 2 * length <= end, "a UTF-16 string runs past the pool")
    return data[at : at + 2 * length].decode("utf-16-le", "replace")


def _utf8_length(data: bytes, at: int, end: int) -> tuple[int, int]:
    _need(at < end, "a string length runs past the pool")
    first = data[at]
    if first & 0x80:
        _need(at + 1 < end, "a string length runs past the pool")
        return ((first & 0x7F) << 8) | data[at + 1], at + 2
    return first, at + 1


class _Strings:
    def __init__(self) -> None:
        self.strings: list[str] = []

    def get(self, index: int) -> str:
        if index == NO_INDEX:
            return ""
        _need(index < len(self.strings), f"string index {index} outside the pool of {len(self.strings)}")
        return self.strings[index]


def parse(data: bytes) -> Element:
    """The root element of a binary XML document."""
    kind, header_size, total = _unpack(_CHUNK, data, 0, "the file header")
    _need(kind == RES_XML, f"the file starts with chunk type 0x{kind:04x}, not RES_XML_TYPE (a text XML file?)")
    _need(header_size >= 8 and total <= len(data), "the file header's sizes")
    table = _Strings()
    string = table.get
    resource_ids: list[int] = []
    prefixes: dict[str, str] = {}
    stack: list[Element] = []
    root: Element | None = None
    offset = header_size
    while offset + _CHUNK.size <= total:
        kind, header_size, size = _unpack(_CHUNK, data, offset, "a chunk header")
        _need(
            size >= _CHUNK.size and header_size >= _CHUNK.size and offset + size <= total,
            f"a chunk of type 0x{kind:04x} has bad sizes",
        )
        if kind == RES_STRING_POOL:
            table.strings = _read_pool(data, offset, size)
        elif kind == RES_XML_RESOURCE_MAP:
            count = max(0, size - header_size) // 4
            _need(offset + header_size + 4 * count <= len(data), "the resource map runs past the end")
            resource_ids = list(struct.unpack_from(f"<{count}I", data, offset + header_size))
        elif kind == RES_XML_START_NAMESPACE:
            prefix, uri = _unpack(_NS_EXT, data, offset + header_size, "a namespace")
            prefixes[string(uri)] = string(prefix)
        elif kind == RES_XML_START_ELEMENT:
            element = _element(data, offset, header_size, size, string, resource_ids, prefixes)
            _need(len(stack) < _MAX_DEPTH, "elements nested too deep")
            if stack:
                stack[-1].children.append(element)
            elif root is None:
                root = element
            else:
                raise InvalidApk("the binary AndroidManifest.xml is malformed: two root elements")
            stack.append(element)
        elif kind == RES_XML_END_ELEMENT:
            _need(bool(stack), "an end tag without a start")
            stack.pop()
        offset += size
    _need(root is not None, "no element")
    assert root is not None
    return root


def _element(
    data: bytes,
    offset: int,
    header_size: int,
    size: int,
    string: Callable[[int], str],
    resource_ids: list[int],
    prefixes: dict[str, str],
) -> Element:
    ext = offset + header_size
    _, name, attr_start, attr_size, count, _, _, _ = _unpack(_ATTR_EXT, data, ext, "an element")
    _need(attr_size >= _ATTR.size and ext + attr_start + count * attr_size <= offset + size, "an element's attributes")
    element = Element(string(name))
    for i in range(count):
        ns, attr_name, raw, _, _, kind, value = _unpack(_ATTR, data, ext + attr_start + i * attr_size, "an attribute")
        uri = string(ns)
        known = ANDROID_ATTRS.get(resource_ids[attr_name]) if attr_name < len(resource_ids) else None
        local = known if known is not None and uri == ANDROID_NS else string(attr_name)
        key = f"{prefixes.get(uri, 'ns')}:{local}" if uri else local
        if uri == ANDROID_NS:
            key = f"android:{local}"
        element.attrs[key] = _value(kind, value, raw, string)
    return element


def _value(kind: int, value: int, raw: int, string) -> Value:  # type: ignore[no-untyped-def]
    if kind == TYPE_STRING:
        return str(string(value))
    if kind == TYPE_INT_BOOLEAN:
        return value != 0
    if kind in (TYPE_INT_DEC, TYPE_INT_HEX):
        return value - (1 << 32) if value & 0x80000000 else value
    if kind == TYPE_REFERENCE:
        return f"@0x{value:08x}"
    if raw != NO_INDEX:
        return str(string(raw))
    return None


# --- writing -----------------------------------------------------------------------------------------


class _Pool:
    def __init__(self, first: list[str]) -> None:
        self.strings: list[str] = []
        self.index: dict[str, int] = {}
        for text in first:
            self.add(text)

    def add(self, text: str) -> int:
        if text not in self.index:
            self.index[text] = len(self.strings)
            self.strings.append(text)
        return self.index[text]

    def encode(self) -> bytes:
        body = bytearray()
        offsets = []
        for text in self.strings:
            offsets.append(len(body))
            units = text.encode("utf-16-le")
            body += struct.pack("<H", len(units) // 2) + units + b"\0\0"
        body += bytes(-len(body) % 4)
        header_size = _POOL.size
        strings_start = header_size + 4 * len(offsets)
        size = strings_start + len(body)
        return (_POOL.pack(RES_STRING_POOL, header_size, size, len(offsets), 0, 0, strings_start, 0)
                + struct.pack(f"<{len(offsets)}I", *offsets) + bytes(body))


def serialize(root: Element) -> bytes:
    """`root` as binary XML, the way aapt2 lays it out: android attributes' names first in the pool,
    with their resource ids in the map; `android:` keys in the android namespace."""
    names = sorted(
        {key.split(":", 1)[1] for element in _walk(root) for key in element.attrs if key.startswith("android:")},
        key=lambda name: _IDS_BY_NAME.get(name, 0x7FFFFFFF),
    )
    mapped = [name for name in names if name in _IDS_BY_NAME]
    pool = _Pool(mapped)
    nodes = bytearray()
    uses_android = bool(names)
    if uses_android:
        prefix, uri = pool.add("android"), pool.add(ANDROID_NS)
        nodes += _node(RES_XML_START_NAMESPACE, _NS_EXT.pack(prefix, uri))
    for element, closing in _events(root):
        name = pool.add(element.name)
        if closing:
            nodes += _node(RES_XML_END_ELEMENT, struct.pack("<II", NO_INDEX, name))
            continue
        attrs = bytearray()
        for key, value in element.attrs.items():
            android = key.startswith("android:")
            local = key.split(":", 1)[1] if android else key
            ns = pool.add(ANDROID_NS) if android else NO_INDEX
            attrs += _attribute(ns, pool.add(local), value, pool)
        ext = _ATTR_EXT.pack(NO_INDEX, name, _ATTR_EXT.size, _ATTR.size, len(element.attrs), 0, 0, 0)
        nodes += _node(RES_XML_START_ELEMENT, ext + bytes(attrs))
    if uses_android:
        nodes += _node(RES_XML_END_NAMESPACE, _NS_EXT.pack(pool.index["android"], pool.index[ANDROID_NS]))
    resource_map = struct.pack(f"<{len(mapped)}I", *(_IDS_BY_NAME[name] for name in mapped))
    body = pool.encode() + _CHUNK.pack(RES_XML_RESOURCE_MAP, 8, 8 + len(resource_map)) + resource_map + bytes(nodes)
    return _CHUNK.pack(RES_XML, 8, 8 + len(body)) + body


def _attribute(ns: int, name: int, value: Value, pool: _Pool) -> bytes:
    if isinstance(value, bool):
        return _ATTR.pack(ns, name, NO_INDEX, 8, 0, TYPE_INT_BOOLEAN, 0xFFFFFFFF if value else 0)
    if isinstance(value, int):
        return _ATTR.pack(ns, name, NO_INDEX, 8, 0, TYPE_INT_DEC, value & 0xFFFFFFFF)
    if value is None:
        return _ATTR.pack(ns, name, NO_INDEX, 8, 0, TYPE_NULL, 0)
    index = pool.add(value)
    return _ATTR.pack(ns, name, index, 8, 0, TYPE_STRING, index)


def _node(kind: int, ext: bytes) -> bytes:
    return _NODE.pack(kind, _NODE.size, _NODE.size + len(ext), 1, NO_INDEX) + ext


def _walk(element: Element) -> list[Element]:
    found = [element]
    for child in element.children:
        found.extend(_walk(child))
    return found


def _events(element: Element) -> list[tuple[Element, bool]]:
    events = [(element, False)]
    for child in element.children:
        events.extend(_events(child))
    events.append((element, True))
    return events
