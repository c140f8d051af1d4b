"""The agent's Android stubs against the manifest read from AOSP (agent-android/stubs/manifest.json).

The agent compiles against `agent-android/stubs/` on the host and against a real `android.jar` for
the device, so a stub that differs from the platform (a wrong constant, a parameter type, static or
not) would pass every host test and fail on a device. The manifest lists every framework member the
agent uses as AOSP's Android 16 sources declare it; these tests fail when a stub differs from it,
when the compiled agent refers to a framework member it does not list, or when the wrappers reach
by reflection a class or member its hidden section does not name.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.java_agent import CLIENT_JIT

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "agent-android"
MANIFEST = AGENT_DIR / "stubs" / "manifest.json"
WRAPPERS = AGENT_DIR / "src" / "dev" / "mobileagent" / "agent" / "wrappers"
JAVAP = shutil.which("javap")
JSON_JAR = Path("/usr/share/java/com.android.json.jar")

needs_jdk = pytest.mark.skipif(JAVAP is None or shutil.which("javac") is None or not JSON_JAR.is_file(),
                               reason="needs a JDK (javac, javap) and org.json (Debian: libandroid-json-java)")

_MODIFIERS = {"public", "protected", "private", "static", "final", "abstract", "native", "synchronized",
              "transient", "volatile", "default"}
_PRIMITIVES = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long", "S": "short",
               "Z": "boolean", "V": "void"}


# --- reading class files ------------------------------------------------------------------------


def erase(type_name: str) -> str:
    """`java.util.List<a.B$C>` to `java.util.List`; nested classes with dots."""
    out, depth = [], 0
    for ch in type_name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).replace("$", ".")


def parse_javap(text: str) -> dict[str, dict[str, Any]]:
    """The public and protected members of each class in `javap -p -constants` output."""
    classes: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    name = ""
    for raw in text.splitlines():
        line = raw.strip()
        head = re.search(r"\b(?:class|interface)\s+(\S+)(?:\s+extends\s+(\S+))?.*\{$", line)
        if head and not raw.startswith(" "):
            name = head.group(1).replace("$", ".")
            current = {"extends": erase(head.group(2)) if head.group(2) else None, "members": []}
            classes[name] = current
            continue
        if current is None or not line.endswith(";") or line == "static {};":
            continue
        member = _member(line[:-1], name, enum=current["extends"] == "java.lang.Enum")
        if member is not None:
            current["members"].append(member)
    return classes


def _member(declaration: str, class_name: str, *, enum: bool) -> dict[str, Any] | None:
    declaration = re.sub(r"\s+throws\s+.*$", "", declaration)
    words = declaration.split()
    mods = set()
    while words and words[0] in _MODIFIERS:
        mods.add(words.pop(0))
    if not mods & {"public", "protected"}:
        return None
    rest = " ".join(words)
    static = "static" in mods
    if "(" in rest:
        before, args = rest.split("(", 1)
        params = [erase(a.strip()) for a in args.rsplit(")", 1)[0].split(",") if a.strip()]
        parts = before.split()
        if erase(parts[-1]) == class_name:
            return {"kind": "constructor", "params": params}
        if enum and parts[-1] in ("values", "valueOf"):
            return None
        return {"kind": "method", "name": parts[-1], "static": static, "params": params,
                "returns": erase(" ".join(parts[:-1]))}
    value: Any = None
    if " = " in rest:
        rest, text = rest.split(" = ", 1)
        value = json.loads(text) if text.startswith('"') else int(text.rstrip("L"))
    parts = rest.split()
    field = {"kind": "field", "name": parts[-1], "static": static, "final": "final" in mods,
             "type": erase(" ".join(parts[:-1]))}
    if value is not None:
        field["value"] = value
    return field


def descriptor_types(descriptor: str) -> tuple[list[str], str]:
    """`(JLandroid/os/Bundle;[C)Z` to (["long", "android.os.Bundle", "char[]"], "boolean")."""
    def one(at: int) -> tuple[str, int]:
        dims = 0
        while descriptor[at] == "[":
            dims, at = dims + 1, at + 1
        if descriptor[at] == "L":
            end = descriptor.index(";", at)
            name, at = descriptor[at + 1:end].replace("/", ".").replace("$", "."), end + 1
        else:
            name, at = _PRIMITIVES[descriptor[at]], at + 1
        return name + "[]" * dims, at

    params, at = [], 1
    while descriptor[at] != ")":
        name, at = one(at)
        params.append(name)
    returns, _ = one(at + 1)
    return params, returns


def framework_references(javap_verbose: str) -> set[tuple[str, str, str]]:
    """(owner, member, descriptor) of every Methodref, InterfaceMethodref and Fieldref to android.*."""
    refs = set()
    for match in re.finditer(
        r"= (?:Methodref|InterfaceMethodref|Fieldref)\s+\S+\s+// (android/[\w/$]+)\.([\w<>\"]+):(\S+)", javap_verbose
    ):
        owner = match.group(1).replace("/", ".").replace("$", ".")
        refs.add((owner, match.group(2).strip('"'), match.group(3)))
    return refs


def runtime_references(javap_verbose: str) -> set[str]:
    """`owner.member descriptor` of every Methodref, InterfaceMethodref and Fieldref to java.*, as the
    manifest's runtime section names them (`java.lang.Process.waitFor(JLjava/util/concurrent/TimeUnit;)Z`)."""
    refs = set()
    for match in re.finditer(
        r"= (?:Methodref|InterfaceMethodref|Fieldref)\s+\S+\s+// (java/[\w/$]+)\.([\w<>\"]+):(\S+)", javap_verbose
    ):
        refs.add(f"{match.group(1).replace('/', '.')}.{match.group(2).strip(chr(34))}{match.group(3)}")
    return refs


# --- the checks -----------------------------------------------------------------------------------


def _without_since(member: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in member.items() if k != "since"}


def stub_differences(stubs: dict[str, dict[str, Any]], manifest: dict[str, Any]) -> list[str]:
    """How the stubs differ from the manifest's public section, one line per difference."""
    out = []
    listed = manifest["public"]
    for cls in sorted(set(stubs) | set(listed)):
        if cls not in listed:
            out.append(f"{cls}: a stub class the manifest does not list")
            continue
        if cls not in stubs:
            out.append(f"{cls}: listed in the manifest, not in the stubs")
            continue
        if stubs[cls]["extends"] != listed[cls]["extends"]:
            out.append(f"{cls}: extends {stubs[cls]['extends']}, the manifest says {listed[cls]['extends']}")
        declared = [json.dumps(m, sort_keys=True) for m in stubs[cls]["members"]]
        expected = [json.dumps(_without_since(m), sort_keys=True) for m in listed[cls]["members"]]
        out += [f"{cls}: the stub declares {m}, the manifest does not" for m in sorted(set(declared) - set(expected))]
        out += [f"{cls}: the manifest lists {m}, the stub does not" for m in sorted(set(expected) - set(declared))]
    return out


def unlisted_references(refs: set[tuple[str, str, str]], manifest: dict[str, Any]) -> list[str]:
    """The agent's references to framework members the manifest does not list (inherited members are
    looked up along the manifest's `extends`; one inherited from a java.* class is the runtime's)."""
    out = []
    listed = manifest["public"]
    for owner, name, descriptor in sorted(refs):
        params, returns = descriptor_types(descriptor) if descriptor.startswith("(") else ([], "")
        cls: str | None = owner
        found = False
        while cls is not None and cls in listed and not found:
            for m in listed[cls]["members"]:
                if name == "<init>":
                    found |= m["kind"] == "constructor" and m["params"] == params and cls == owner
                elif descriptor.startswith("("):
                    found |= m["kind"] == "method" and m["name"] == name and m["params"] == params \
                        and m["returns"] == returns
                else:
                    found |= m["kind"] == "field" and m["name"] == name
            cls = listed[cls]["extends"]
        found |= cls is not None and cls.startswith("java.")
        if not found:
            out.append(f"{owner}.{name}{descriptor}")
    return out


def runtime_level(reference: str, runtime: dict[str, Any]) -> int:
    """The API level of a java.* member: its own entry, else its class's, else its package's, else 1."""
    if reference in runtime["members"]:
        return int(runtime["members"][reference])
    owner = reference.split("(", 1)[0].split(":", 1)[0].rsplit(".", 1)[0]
    if owner in runtime["classes"]:
        return int(runtime["classes"][owner])
    package = owner
    while "." in package:
        package = package.rsplit(".", 1)[0]
        if package in runtime["packages"]:
            return int(runtime["packages"][package])
    return 1


def above_min_api(refs: set[str], runtime: dict[str, Any], min_api: int) -> list[str]:
    """The java.* references the runtime of the jar's lowest release lacks (desugared ones aside)."""
    desugared = tuple(runtime["desugared"])
    return sorted(f"{ref} (API {runtime_level(ref, runtime)})" for ref in refs
                  if not ref.startswith(desugared) and runtime_level(ref, runtime) > min_api)


def min_api() -> int:
    found = re.search(r'^MIN_API="(\d+)"', (AGENT_DIR / "build.env").read_text(encoding="utf-8"), re.MULTILINE)
    assert found, "build.env names MIN_API"
    return int(found.group(1))


def reflective_names(sources: list[str]) -> set[str]:
    """The class and member names the wrappers give Reflect.type/method/optional/field and Clipboards.call
    (the string literals within each call's parentheses)."""
    names = set()
    for text in sources:
        for call in re.finditer(r"(?:Reflect\.(?:type|method|optional|field)|\bcall)\(", text):
            depth, end = 1, call.end()
            while depth and end < len(text):
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            names.update(re.findall(r'"([\w.$]+)"', text[call.end():end]))
    return names


def unnamed_reflection(names: set[str], manifest: dict[str, Any]) -> list[str]:
    text = json.dumps(manifest["hidden"])
    return sorted(n for n in names if not re.search(r"(?<![\w$])" + re.escape(n) + r"(?![\w$])", text))


# --- the tests ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stubs")
    done = subprocess.run(["bash", str(AGENT_DIR / "build.sh"), "--host", str(out)], capture_output=True,
                          timeout=180, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return out / "agent"


def _javap(*args: str, files: list[Path]) -> str:
    assert JAVAP is not None
    done = subprocess.run([JAVAP, *CLIENT_JIT, *args, *map(str, files)], capture_output=True, text=True, timeout=120,
                          check=True)
    return done.stdout


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return loaded


@needs_jdk
def test_every_stub_is_as_the_manifest_read_from_aosp_says(compiled: Path, manifest: dict[str, Any]) -> None:
    stubs = parse_javap(_javap("-p", "-constants", files=sorted((compiled / "android").rglob("*.class"))))
    assert len(stubs) >= 30
    assert stub_differences(stubs, manifest) == []


@needs_jdk
def test_the_agent_refers_to_no_framework_member_the_manifest_does_not_list(
        compiled: Path, manifest: dict[str, Any]) -> None:
    refs = framework_references(_javap("-v", "-p", files=sorted((compiled / "dev").rglob("*.class"))))
    assert ("android.app.UiAutomation", "getWindows", "()Ljava/util/List;") in refs
    assert unlisted_references(refs, manifest) == []


@needs_jdk
def test_the_agent_calls_no_runtime_member_newer_than_the_jars_min_api(compiled: Path,
                                                                      manifest: dict[str, Any]) -> None:
    """Issue 37, cosmetic: the check goes beyond android.*: Screencap's Process.waitFor(long, TimeUnit)
    (API 26) passed it while the jar claims API 24."""
    refs = runtime_references(_javap("-v", "-p", files=sorted((compiled / "dev").rglob("*.class"))))
    assert "java.lang.Process.waitFor()I" in refs
    assert above_min_api(refs, manifest["runtime"], min_api()) == []


def test_a_runtime_member_newer_than_the_min_api_is_reported(manifest: dict[str, Any]) -> None:
    runtime = manifest["runtime"]
    refs = {"java.lang.Process.waitFor(JLjava/util/concurrent/TimeUnit;)Z", "java.lang.Process.waitFor()I",
            "java.util.function.UnaryOperator.apply(Ljava/lang/Object;)Ljava/lang/Object;",
            "java.time.Instant.now()Ljava/time/Instant;",
            "java.lang.invoke.LambdaMetafactory.metafactory(Ljava/lang/invoke/MethodHandles$Lookup;)V"}
    assert above_min_api(refs, runtime, 24) == [
        "java.lang.Process.waitFor(JLjava/util/concurrent/TimeUnit;)Z (API 26)",
        "java.time.Instant.now()Ljava/time/Instant; (API 26)"]
    assert above_min_api(refs, runtime, 26) == []


def test_every_class_and_member_the_wrappers_reflect_on_is_in_the_hidden_section(manifest: dict[str, Any]) -> None:
    names = reflective_names([p.read_text(encoding="utf-8") for p in sorted(WRAPPERS.glob("*.java"))])
    assert {"android.os.ServiceManager", "setArgV0", "unregisterUiTestAutomationService"} <= names
    assert unnamed_reflection(names, manifest) == []


def test_every_listed_member_names_the_api_level_that_added_it_and_every_class_its_source(
        manifest: dict[str, Any]) -> None:
    for cls, info in manifest["public"].items():
        outer = next(part for part in cls.split(".") if part[:1].isupper())  # Build of android.os.Build.VERSION
        assert info["source"].endswith(f"/{outer}.java"), cls
        assert all(isinstance(m["since"], int) and 1 <= m["since"] <= 36 for m in info["members"]), cls


# --- the checks can fail --------------------------------------------------------------------------


def test_a_stub_with_another_constant_value_a_parameter_type_or_staticness_is_reported(
        manifest: dict[str, Any]) -> None:
    stubs = {cls: {"extends": info["extends"], "members": [_without_since(m) for m in info["members"]]}
             for cls, info in manifest["public"].items()}
    assert stub_differences(stubs, manifest) == []
    window = stubs["android.view.accessibility.AccessibilityWindowInfo"]["members"]
    next(m for m in window if m.get("name") == "TYPE_SYSTEM")["value"] = 4
    ua = stubs["android.app.UiAutomation"]["members"]
    next(m for m in ua if m.get("name") == "findFocus")["params"] = ["long"]
    clock = stubs["android.os.SystemClock"]["members"]
    clock[0]["static"] = False
    found = stub_differences(stubs, manifest)
    assert len(found) == 6 and any("TYPE_SYSTEM" in line and '"value": 4' in line for line in found)


def test_a_reference_the_manifest_does_not_list_is_reported(manifest: dict[str, Any]) -> None:
    refs = {("android.view.accessibility.AccessibilityEvent", "getSource",
             "()Landroid/view/accessibility/AccessibilityNodeInfo;"),  # inherited from AccessibilityRecord
            ("android.view.MotionEvent", "obtain", "(JJIFFI)Landroid/view/MotionEvent;")}
    assert unlisted_references(refs, manifest) == []
    refs.add(("android.view.MotionEvent", "getX", "()F"))
    refs.add(("android.app.UiAutomation", "injectInputEvent", "(Landroid/view/InputEvent;ZZ)Z"))
    assert unlisted_references(refs, manifest) == [
        "android.app.UiAutomation.injectInputEvent(Landroid/view/InputEvent;ZZ)Z", "android.view.MotionEvent.getX()F"]
    assert unnamed_reflection({"setArgV0", "getRecentTasks"}, manifest) == ["getRecentTasks"]
