"""Which controller proto the driver speaks, and whether the installed emulator's copy agrees.

The driver always speaks its own declaration (`proto/emulator_controller.proto`, shipped beside the
generated modules in `_proto/`). At run time it looks for the proto the installed emulator ships,
in the seed's order, and compares the messages, enums and rpcs the driver declares with it field by
field (number, type, repeated or not), not by hash alone: an emulator update that leaves these
messages alone changes nothing for the driver.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_mobile_agent.errors import ProtocolError

PROTO_ENV = "MOBILE_AGENT_EMULATOR_PROTO"
SDK_RELATIVE = Path("emulator", "lib", "emulator_controller.proto")
MAX_NESTING = 32  # messages inside messages; the emulator's proto nests two deep
OWN_PROTO = Path(__file__).resolve().parent / "_proto" / "emulator_controller.proto"
# The emulator release our declaration was written against (emulator-facts.md, the seed).
WRITTEN_AGAINST = "emulator 37.1.11.0 (build 15917651)"
WRITTEN_AGAINST_SHA256 = "1d62c6bcad5f06621f90ec2bf26c661ba769ccd0f1416b5314d25a68e04eee5f"
WRITTEN_AGAINST_LINES = 1865


# --- where the SDK's proto is ----------------------------------------------------------------------


def sdk_proto_candidates(env: Mapping[str, str] | None = None, platform: str | None = None) -> list[Path]:
    """MOBILE_AGENT_EMULATOR_PROTO, $ANDROID_HOME/emulator/lib/emulator_controller.proto, the same
    under $ANDROID_SDK_ROOT, then under the SDK's default location for the OS."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    out: list[Path] = []
    explicit = env.get(PROTO_ENV, "").strip()
    if explicit:
        out.append(Path(explicit))
    for name in ("ANDROID_HOME", "ANDROID_SDK_ROOT"):
        root = env.get(name, "").strip()
        if root:
            out.append(Path(root) / SDK_RELATIVE)
    default = _default_sdk(env, platform)
    if default is not None:
        out.append(default / SDK_RELATIVE)
    return out


def _default_sdk(env: Mapping[str, str], platform: str) -> Path | None:
    if platform.startswith("win"):
        local = env.get("LOCALAPPDATA", "").strip()
        return Path(local) / "Android" / "Sdk" if local else None
    home = env.get("HOME", "").strip()
    if not home:
        return None
    if platform == "darwin":
        return Path(home) / "Library" / "Android" / "sdk"
    return Path(home) / "Android" / "Sdk"


def find_sdk_proto(env: Mapping[str, str] | None = None, platform: str | None = None) -> Path | None:
    for candidate in sdk_proto_candidates(env, platform):
        if candidate.is_file():
            return candidate
    return None


# --- a small .proto reader -------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<word>[A-Za-z_][A-Za-z0-9_.]*|\.[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<number>[-+]?(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?))
  | (?P<punct>[{}\[\]()<>;=,:])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

_SCALARS = {
    1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32",
    8: "bool", 9: "string", 12: "bytes", 13: "uint32", 15: "sfixed32", 16: "sfixed64",
    17: "sint32", 18: "sint64",
}  # FieldDescriptor.TYPE_* numbers; 10 group, 11 message, 14 enum
_SCALAR_NAMES = set(_SCALARS.values())


@dataclass(frozen=True)
class FieldInfo:
    number: int
    type: str  # a scalar keyword, a full message or enum name, or map<K,V>
    repeated: bool = False


@dataclass(frozen=True)
class RpcInfo:
    request: str
    response: str
    client_streaming: bool = False
    server_streaming: bool = False


@dataclass
class ProtoModel:
    """Messages (full name -> field name -> FieldInfo), enums (full name -> value name -> number)
    and services (full name -> rpc name -> RpcInfo) of one proto file."""

    package: str = ""
    messages: dict[str, dict[str, FieldInfo]] = field(default_factory=dict)
    enums: dict[str, dict[str, int]] = field(default_factory=dict)
    services: dict[str, dict[str, RpcInfo]] = field(default_factory=dict)


def _tokens(text: str) -> list[str]:
    out = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("ws", "line_comment", "block_comment"):
            continue
        out.append(match.group())
    return out


class _Parser:
    """Reads the declarations a comparison needs; skips options, reserved ranges and extensions."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.model = ProtoModel()
        self._raw: list[tuple[str, str, str, str, bool]] = []  # (message, field, scope, type, repeated)
        self._numbers: dict[tuple[str, str], int] = {}

    # token helpers
    def peek(self, offset: int = 0) -> str | None:
        j = self.i + offset
        return self.toks[j] if j < len(self.toks) else None

    def take(self) -> str:
        tok = self.peek()
        if tok is None:
            raise ProtocolError("the proto ends in the middle of a declaration")
        self.i += 1
        return tok

    def expect(self, want: str) -> None:
        got = self.take()
        if got != want:
            raise ProtocolError(f"the proto has {got!r} where {want!r} belongs (token {self.i})")

    def skip_statement(self) -> None:
        """Up to and including the next `;` at this level, or a whole `{...}` block."""
        depth = 0
        while True:
            tok = self.take()
            if tok in "{[(" and len(tok) == 1:
                depth += 1
            elif tok in "}])" and len(tok) == 1:
                depth -= 1
                if depth == 0 and tok == "}":
                    return
            elif tok == ";" and depth == 0:
                return

    def skip_block(self) -> None:
        while self.peek() != "{":
            self.take()
        self.skip_statement()

    # grammar
    def parse(self) -> ProtoModel:
        while self.peek() is not None:
            tok = self.take()
            if tok == "package":
                self.model.package = self.take()
                self.expect(";")
            elif tok == "message":
                self.message(self.model.package)
            elif tok == "enum":
                self.enum(self.model.package)
            elif tok == "service":
                self.service()
            elif tok == "extend":
                self.skip_block()
            elif tok != ";":
                self.i -= 1
                self.skip_statement()  # syntax, edition, import, option
        self._resolve()
        return self.model

    def message(self, scope: str) -> None:
        if scope.count(".") - self.model.package.count(".") >= MAX_NESTING:
            raise ProtocolError(f"messages nested more than {MAX_NESTING} deep in {scope}")
        name = _join(scope, self.take())
        self.model.messages.setdefault(name, {})
        self.expect("{")
        while (tok := self.peek()) != "}":
            if tok is None:
                raise ProtocolError(f"message {name} is not closed")
            self.member(name)
        self.take()

    def member(self, message: str) -> None:
        tok = self.take()
        if tok == "message":
            self.message(message)
        elif tok == "enum":
            self.enum(message)
        elif tok == "oneof":
            self.take()
            self.expect("{")
            while self.peek() != "}":
                if self.peek() in ("option",):
                    self.skip_statement()
                else:
                    self.field(message, self.take())
            self.take()
        elif tok in ("option", "reserved", "extensions"):
            self.skip_statement()
        elif tok == "extend":
            self.skip_block()
        elif tok == ";":
            return
        else:
            self.field(message, tok)

    def field(self, message: str, first: str) -> None:
        repeated = first == "repeated"
        type_name = self.take() if first in ("repeated", "optional", "required") else first
        if type_name == "map":
            self.expect("<")
            key = self.take()
            self.expect(",")
            value = self.take()
            self.expect(">")
            type_name = f"map<{key},{value}>"
        elif type_name == "group":
            raise ProtocolError(f"message {message} uses a group, which the driver does not read")
        name = self.take()
        self.expect("=")
        number = _int(self.take())
        self._raw.append((message, name, message, type_name, repeated))
        self._numbers[(message, name)] = number
        if self.peek() == "[":
            self.skip_statement()  # options ... ;
        else:
            self.expect(";")

    def enum(self, scope: str) -> None:
        name = _join(scope, self.take())
        values = self.model.enums.setdefault(name, {})
        self.expect("{")
        while (tok := self.peek()) != "}":
            if tok is None:
                raise ProtocolError(f"enum {name} is not closed")
            tok = self.take()
            if tok in ("option", "reserved"):
                self.skip_statement()
            elif tok == ";":
                continue
            else:
                self.expect("=")
                values[tok] = _int(self.take())
                if self.peek() == "[":
                    self.skip_statement()
                else:
                    self.expect(";")
        self.take()

    def service(self) -> None:
        name = _join(self.model.package, self.take())
        rpcs = self.model.services.setdefault(name, {})
        self.expect("{")
        while (tok := self.peek()) != "}":
            if tok is None:
                raise ProtocolError(f"service {name} is not closed")
            tok = self.take()
            if tok != "rpc":
                if tok != ";":
                    self.i -= 1
                    self.skip_statement()
                continue
            rpc = self.take()
            client, request = self.rpc_type()
            self.expect("returns")
            server, response = self.rpc_type()
            if self.peek() == "{":
                self.skip_statement()
            else:
                self.expect(";")
            rpcs[rpc] = RpcInfo(request, response, client, server)
        self.take()

    def rpc_type(self) -> tuple[bool, str]:
        self.expect("(")
        streaming = self.peek() == "stream"
        if streaming:
            self.take()
        type_name = self.take()
        self.expect(")")
        return streaming, type_name

    def _resolve(self) -> None:
        known = set(self.model.messages) | set(self.model.enums)
        for message, name, scope, type_name, repeated in self._raw:
            resolved = _resolve_type(type_name, scope, known)
            self.model.messages[message][name] = FieldInfo(self._numbers[(message, name)], resolved, repeated)
        for service, rpcs in self.model.services.items():
            for rpc, info in rpcs.items():
                rpcs[rpc] = RpcInfo(
                    _resolve_type(info.request, service, known),
                    _resolve_type(info.response, service, known),
                    info.client_streaming,
                    info.server_streaming,
                )


def _join(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope else name


def _int(token: str) -> int:
    try:
        return int(token, 0)
    except ValueError:
        raise ProtocolError(f"the proto has {token!r} where a number belongs") from None


def _resolve_type(type_name: str, scope: str, known: set[str]) -> str:
    """protoc's scoping: innermost scope outward; a leading dot is already absolute."""
    if type_name.startswith("map<"):
        key, value = type_name[4:-1].split(",", 1)
        return f"map<{key},{_resolve_type(value, scope, known)}>"
    if type_name in _SCALAR_NAMES:
        return type_name
    if type_name.startswith("."):
        return type_name[1:]
    parts = scope.split(".") if scope else []
    while True:
        candidate = _join(".".join(parts), type_name)
        if candidate in known:
            return candidate
        if not parts:
            return type_name  # an imported type, e.g. google.protobuf.Empty
        parts.pop()


def parse_proto(text: str) -> ProtoModel:
    """The messages, enums and services of a .proto file's text. Raises errors.ProtocolError."""
    return _Parser(text).parse()


# --- our declaration, from the generated descriptors ---------------------------------------------


def own_model() -> ProtoModel:
    from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb

    model = ProtoModel(package=pb.DESCRIPTOR.package)
    for message in pb.DESCRIPTOR.message_types_by_name.values():
        _add_message(model, message)
    for enum in pb.DESCRIPTOR.enum_types_by_name.values():
        model.enums[enum.full_name] = {v.name: v.number for v in enum.values}
    for service in pb.DESCRIPTOR.services_by_name.values():
        model.services[service.full_name] = {
            m.name: RpcInfo(m.input_type.full_name, m.output_type.full_name,
                            bool(m.client_streaming), bool(m.server_streaming))
            for m in service.methods
        }
    return model


def _add_message(model: ProtoModel, message: Any) -> None:
    if message.GetOptions().map_entry:
        return
    fields = {}
    for f in message.fields:
        fields[f.name] = FieldInfo(f.number, _descriptor_type(f), _is_repeated(f))
    model.messages[message.full_name] = fields
    for nested in message.nested_types:
        _add_message(model, nested)
    for enum in message.enum_types:
        model.enums[enum.full_name] = {v.name: v.number for v in enum.values}


def _is_repeated(f: Any) -> bool:
    if f.message_type is not None and f.message_type.GetOptions().map_entry:
        return False
    repeated = getattr(f, "is_repeated", None)  # protobuf >= 5.28; `label` is gone in 7
    return bool(repeated if repeated is not None else f.label == f.LABEL_REPEATED)


def _descriptor_type(f: Any) -> str:
    if f.message_type is not None:
        if f.message_type.GetOptions().map_entry:
            key = f.message_type.fields_by_name["key"]
            value = f.message_type.fields_by_name["value"]
            return f"map<{_descriptor_type(key)},{_descriptor_type(value)}>"
        return str(f.message_type.full_name)
    if f.enum_type is not None:
        return str(f.enum_type.full_name)
    return _SCALARS.get(f.type, f"type {f.type}")


# --- the comparison --------------------------------------------------------------------------------


def compare(ours: ProtoModel, theirs: ProtoModel) -> list[str]:
    """What the other proto declares differently for everything ours declares. Empty: the same."""
    return [*_compare_messages(ours, theirs), *_compare_enums(ours, theirs), *_compare_services(ours, theirs)]


def _compare_messages(ours: ProtoModel, theirs: ProtoModel) -> Iterator[str]:
    for name, fields in ours.messages.items():
        other = theirs.messages.get(name)
        if other is None:
            yield f"message {name} is missing"
            continue
        by_number = {info.number: fname for fname, info in other.items()}
        for fname, info in fields.items():
            got = other.get(fname)
            if got is None:
                if info.number in by_number:
                    yield f"{name}: field {info.number} is {by_number[info.number]!r}, not {fname!r}"
                else:
                    yield f"{name}.{fname} (field {info.number}) is missing"
                continue
            if got.number != info.number:
                yield f"{name}.{fname} is field {got.number}, not {info.number}"
            if got.type != info.type:
                yield f"{name}.{fname} is {got.type}, not {info.type}"
            if got.repeated != info.repeated:
                got_kind, wanted_kind = ("repeated" if f.repeated else "singular" for f in (got, info))
                yield f"{name}.{fname} is {got_kind}, not {wanted_kind}"


def _compare_enums(ours: ProtoModel, theirs: ProtoModel) -> Iterator[str]:
    for name, values in ours.enums.items():
        other = theirs.enums.get(name)
        if other is None:
            yield f"enum {name} is missing"
            continue
        for vname, number in values.items():
            if vname not in other:
                yield f"{name}.{vname} (= {number}) is missing"
            elif other[vname] != number:
                yield f"{name}.{vname} is {other[vname]}, not {number}"


def _compare_services(ours: ProtoModel, theirs: ProtoModel) -> Iterator[str]:
    for name, rpcs in ours.services.items():
        other = theirs.services.get(name)
        if other is None:
            yield f"service {name} is missing"
            continue
        for rpc, info in rpcs.items():
            got = other.get(rpc)
            if got is None:
                yield f"rpc {name}.{rpc} is missing"
            elif got != info:
                yield f"rpc {name}.{rpc} is {_signature(got)}, not {_signature(info)}"


def _signature(info: RpcInfo) -> str:
    req = f"stream {info.request}" if info.client_streaming else info.request
    resp = f"stream {info.response}" if info.server_streaming else info.response
    return f"({req}) returns ({resp})"


# --- the report ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProtoSource:
    """The proto the driver speaks and what the installed emulator's copy says about it."""

    speaks: Path
    sdk_proto: Path | None = None
    sdk_sha256: str | None = None
    sdk_lines: int | None = None
    differences: tuple[str, ...] = ()
    problem: str | None = None  # the SDK's proto could not be read or parsed, or the env names none

    @property
    def matches_sdk(self) -> bool | None:
        """True when the SDK's copy declares the same for every message we use; None without one."""
        if self.sdk_proto is None or self.problem is not None and self.sdk_sha256 is None:
            return None
        return not self.differences and self.problem is None

    def describe(self) -> str:
        head = f"controller proto: the driver's own declaration ({self.speaks.name}, written against {WRITTEN_AGAINST})"
        if self.sdk_proto is None:
            where = f"; {self.problem}" if self.problem else ""
            looked = f"{PROTO_ENV}, $ANDROID_HOME, $ANDROID_SDK_ROOT, the default SDK"
            return f"{head}; no installed emulator proto found ({looked}){where}"
        facts = f"{self.sdk_proto}, {self.sdk_lines} lines, sha256 {self.sdk_sha256}"
        if self.problem is not None:
            return f"{head}; the installed emulator's proto ({facts}) could not be compared: {self.problem}"
        if not self.differences:
            return (
                f"{head}; the installed emulator's proto ({facts}) declares the same for every message the driver uses"
            )
        return (
            f"{head}; the installed emulator's proto ({facts}) declares {len(self.differences)} "
            f"difference(s) for the messages the driver uses: " + "; ".join(self.differences)
        )


def inspect(sdk_proto: Path | None = None, env: Mapping[str, str] | None = None) -> ProtoSource:
    """Find the SDK's proto (unless given) and compare ours with it."""
    env = os.environ if env is None else env
    problem = None
    explicit = env.get(PROTO_ENV, "").strip()
    if sdk_proto is None:
        if explicit and not Path(explicit).is_file():
            problem = f"{PROTO_ENV} names {explicit}, which is not a file"
        sdk_proto = find_sdk_proto(env)
    if sdk_proto is None:
        return ProtoSource(speaks=OWN_PROTO, problem=problem)
    try:
        data = sdk_proto.read_bytes()
    except OSError as exc:
        return ProtoSource(speaks=OWN_PROTO, sdk_proto=sdk_proto, problem=f"cannot read it: {exc}")
    sha = hashlib.sha256(data).hexdigest()
    lines = data.count(b"\n")
    try:
        theirs = parse_proto(data.decode("utf-8", errors="replace"))
    except ProtocolError as exc:
        return ProtoSource(speaks=OWN_PROTO, sdk_proto=sdk_proto, sdk_sha256=sha, sdk_lines=lines, problem=str(exc))
    return ProtoSource(
        speaks=OWN_PROTO,
        sdk_proto=sdk_proto,
        sdk_sha256=sha,
        sdk_lines=lines,
        differences=tuple(compare(own_model(), theirs)),
    )


@lru_cache(maxsize=1)
def proto_source() -> ProtoSource:
    """`inspect()` once per process: what `emulator.PROTO_SOURCE` is."""
    return inspect()
