"""A fake Android SDK and JDK for the agent builder's tests: the layout Android's tools install,
with `javac` and `d8` as small Python scripts that record their arguments and write what the real
tools would (class files; a jar holding classes.dex), so a build runs in a fraction of a second;
and `sdkmanager`, which lays out that SDK for the release workflow's test.

The dex the fake d8 writes is the input's bytes behind the dex magic, so it carries the
`mobile-agent-android <VERSION>` string of the generated Version class, which is what the virtual
device's agent double reads from the jar it is started from.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

FAKE_JAVAC = r'''#!{python}
import json, os, pathlib, sys
log = pathlib.Path(__file__).with_name("javac.calls")
args = sys.argv[1:]
with log.open("a") as out:
    out.write(json.dumps(args) + "\n")
out_dir = pathlib.Path(args[args.index("-d") + 1])
sources = [arg for arg in args if arg.endswith(".java")]  # build.sh names them; the builder uses @argfile
for arg in args:
    if arg.startswith("@"):
        for line in pathlib.Path(arg[1:]).read_text().splitlines():
            sources.append(line.strip().strip('"'))
for source in sources:
    path = pathlib.Path(source)
    target = out_dir / (path.stem + ".class")
    target.write_bytes(b"\xca\xfe\xba\xbe" + path.read_bytes())
if os.environ.get("FAKE_JAVAC_FAIL"):
    sys.stderr.write("Main.java:1: error: cannot find symbol\n")
    sys.exit(1)
'''

FAKE_D8 = r'''#!{python}
import json, os, pathlib, sys, time, zipfile
log = pathlib.Path(__file__).with_name("d8.calls")
args = sys.argv[1:]
with log.open("a") as out:
    out.write(json.dumps(args) + "\n")
delay = float(os.environ.get("FAKE_D8_SECONDS", "0"))
time.sleep(delay)
output = args[args.index("--output") + 1]
inputs = [a for i, a in enumerate(args) if a.endswith(".jar") and args[i - 1] not in ("--lib", "--output")]
body = b""
for name in inputs:
    with zipfile.ZipFile(name) as jar:
        for entry in sorted(jar.namelist()):
            body += jar.read(entry)
with zipfile.ZipFile(output, "w") as jar:
    jar.writestr("classes.dex", b"dex\n035\x00" + bytes(24) + body)
'''


FAKE_SDKMANAGER = r'''#!{python}
# sdkmanager as the release workflow calls it: --sdk_root=DIR, then --licenses (answers read from
# standard input) or --install PACKAGE..., which the real one refuses before the licenses are accepted.
import json, pathlib, sys
sys.path.insert(0, {support!r})
from fake_sdk import make_sdk
log = pathlib.Path(__file__).with_name("sdkmanager.calls")
args = sys.argv[1:]
with log.open("a") as out:
    out.write(json.dumps(args) + "\n")
roots = [a.split("=", 1)[1] for a in args if a.startswith("--sdk_root=")]
if not roots:
    sys.exit("Error: Could not determine SDK root.")
root = pathlib.Path(roots[0])
licenses = root / "licenses" / "android-sdk-license"
if "--licenses" in args:
    sys.stdin.read(2)  # `yes` answers; the rest of its output is never read
    licenses.parent.mkdir(parents=True, exist_ok=True)
    licenses.write_text("accepted by the fake\n")
    sys.exit(0)
if not licenses.exists():
    sys.exit("Failed to install the following SDK components: the licenses are not accepted")
packages = args[args.index("--install") + 1:]
for package in packages:
    kind, _, version = package.partition(";")
    if kind == "build-tools":
        make_sdk(root, build_tools=(version,), platforms=())
    elif kind == "platforms":
        make_sdk(root, build_tools=(), platforms=(version,))
    else:
        sys.exit(f"Warning: Failed to find package '{package}'")
'''


def make_sdkmanager(bin_dir: Path) -> Path:
    """`bin_dir/sdkmanager`: installs the fake build-tools and platforms into the --sdk_root it is given."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    tool = bin_dir / "sdkmanager"
    tool.write_text(FAKE_SDKMANAGER.replace("{python}", sys.executable).replace("{support!r}",
                                                                                repr(str(Path(__file__).parent))))
    tool.chmod(0o755)
    return tool


def make_sdk(root: Path, *, build_tools: tuple[str, ...] = ("36.0.0",), platforms: tuple[str, ...] = ("android-36",),
             windows: bool = False) -> Path:
    """`root` laid out as an SDK: build-tools/<v>/d8 for each version and platforms/<p>/android.jar."""
    for version in build_tools:
        tools = root / "build-tools" / version
        tools.mkdir(parents=True, exist_ok=True)
        d8 = tools / ("d8.bat" if windows else "d8")
        d8.write_text(FAKE_D8.replace("{python}", sys.executable))
        d8.chmod(0o755)
    for name in platforms:
        platform = root / "platforms" / name
        platform.mkdir(parents=True, exist_ok=True)
        (platform / "android.jar").write_bytes(b"PK\x05\x06" + bytes(18))
    return root


def make_jdk(root: Path) -> Path:
    """A JAVA_HOME whose bin/javac is the fake."""
    bin_dir = root / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    javac = bin_dir / "javac"
    javac.write_text(FAKE_JAVAC.replace("{python}", sys.executable))
    javac.chmod(0o755)
    return root


def calls(tool: Path) -> list[list[str]]:
    """The argument lists a fake tool was called with, oldest first."""
    log = tool.with_name(f"{tool.name.removesuffix('.bat')}.calls")
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]
