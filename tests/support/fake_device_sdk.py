"""A fake Android SDK for the device workflow's test (.github/workflows/device-tests.yml): the
sdkmanager it calls lays out the packages it installs, each a stand-in that records its arguments
(`<tool>.calls`, one JSON list a line, as tests/support/fake_sdk.py's tools do):

* `build-tools;V` and `platforms;P`: fake_sdk's d8 and android.jar (the agent jar's build);
* `platform-tools`: Debian's adb client, which the virtual device's adb endpoint serves as its adb
  server: its `adb` waits for that server to listen before it runs Debian's (the client would
  otherwise start a server of its own on the port, as it does with no server there), and refuses
  `adb emu` (the console on 5554 may be another user's virtual device on this machine);
* `emulator`: a fake `emulator` that checks what the workflow starts it with (an AVD avdmanager
  made, `-port 5554`, `-grpc PORT -grpc-use-token`) and becomes the virtual device: `python -m
  pytest_mobile_agent.virtual` on the adb server's port, its controller on the `-grpc` port;
* `cmdline-tools;latest`: a fake avdmanager that makes the AVD of an installed system image;
* `system-images;android-N;TAG;ABI`: the image's directory and source.properties.

And `gradle`, which builds the fixture app's APK from fixture-app/'s own build file, manifest and
strings (the package, versions, SDK levels, label, permissions and launcher activity) with the
package's APK writer, where the Android Gradle plugin would write it.
"""

from __future__ import annotations

import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.support.fake_sdk import make_sdk

ANDROID = "{http://schemas.android.com/apk/res/android}"
SUPPORT = Path(__file__).resolve().parent
REPO = SUPPORT.parents[1]
APK_OUTPUT = Path("app/build/outputs/apk/debug/app-debug.apk")
VIRTUAL_API = 36  # the virtual device doubles an API 36 emulator

_PRELUDE = r'''#!{python}
import json, os, pathlib, sys
sys.path[:0] = [{repo!r}]
log = pathlib.Path(__file__).with_name(pathlib.Path(__file__).name + ".calls")
args = sys.argv[1:]
with log.open("a") as out:
    out.write(json.dumps(args) + "\n")
'''

FAKE_SDKMANAGER = _PRELUDE + r'''
from tests.support.fake_device_sdk import install
roots = [a.split("=", 1)[1] for a in args if a.startswith("--sdk_root=")]
if not roots:
    sys.exit("Error: Could not determine SDK root.")
root = pathlib.Path(roots[0])
licenses = root / "licenses" / "android-sdk-license"
if "--licenses" in args:
    sys.stdin.read(2)
    licenses.parent.mkdir(parents=True, exist_ok=True)
    licenses.write_text("accepted by the fake\n")
    sys.exit(0)
if not licenses.exists():
    sys.exit("Failed to install the following SDK components: the licenses are not accepted")
for package in args[args.index("--install") + 1:]:
    problem = install(root, package)
    if problem:
        sys.exit(problem)
'''

FAKE_AVDMANAGER = _PRELUDE + r'''
sdk = pathlib.Path(__file__).resolve().parents[3]
if args[:3] != ["create", "avd", "--force"]:
    sys.exit(f"the fake avdmanager does `create avd --force ...`, not {args}")
name, package = args[args.index("--name") + 1], args[args.index("--package") + 1]
sys.stdin.read()  # "no": no custom hardware profile
image = sdk.joinpath(*package.split(";"))
if not (image / "source.properties").exists():
    sys.exit(f"Error: Package path is not valid. Valid system image paths are: (none for {package})")
home = pathlib.Path(os.environ.get("ANDROID_AVD_HOME") or pathlib.Path.home() / ".android" / "avd")
home.mkdir(parents=True, exist_ok=True)
api = package.split(";")[1].removeprefix("android-")
(home / f"{name}.ini").write_text(f"path={home / (name + '.avd')}\ntarget=android-{api}\n")
(home / f"{name}.avd").mkdir(exist_ok=True)
(home / f"{name}.avd" / "config.ini").write_text(f"image.sysdir.1={package.replace(';', '/')}/\n")
print(f"created AVD {name} of {package}")
'''

FAKE_EMULATOR = _PRELUDE + r'''
def value(flag):
    if flag not in args:
        sys.exit(f"the fake emulator needs {flag} (the workflow starts the emulator with it)")
    return args[args.index(flag) + 1]
name = value("-avd")
ini = pathlib.Path(os.environ.get("ANDROID_AVD_HOME") or pathlib.Path.home() / ".android" / "avd") / f"{name}.ini"
if not ini.exists():
    sys.exit(f"PANIC: Unknown AVD name [{name}], use -list-avds to see valid list.")
api = dict(line.split("=", 1) for line in ini.read_text().splitlines())["target"].removeprefix("android-")
if api != "{virtual_api}":
    sys.exit(f"the fake emulator is the virtual device, an API {virtual_api} emulator: not API {api}")
if value("-port") != "5554" or "-grpc-use-token" not in args:
    sys.exit("the fake emulator wants -port 5554 and -grpc PORT -grpc-use-token")
grpc = value("-grpc")
port = os.environ.get("ANDROID_ADB_SERVER_PORT", "5037")
os.execv(sys.executable, [sys.executable, "-m", "pytest_mobile_agent.virtual", "--adb-port", port, "--grpc", grpc])
'''

FAKE_ADB = _PRELUDE + r'''
import socket, time
real = {real_adb!r}
if "emu" in args:
    sys.exit("the fake adb reaches no emulator console: the workflow's fake emulator is stopped by its pid")
port = int(os.environ.get("ANDROID_ADB_SERVER_PORT", "5037"))
deadline = time.monotonic() + 60
while True:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit(f"the fake adb: no adb server on 127.0.0.1:{port} within 60 s (the fake emulator serves it)")
        time.sleep(0.1)
os.execv(real, [real, *args])
'''

FAKE_GRADLE = _PRELUDE + r'''
from tests.support.fake_device_sdk import assemble_debug
project = pathlib.Path(args[args.index("-p") + 1]) if "-p" in args else pathlib.Path.cwd()
if "assembleDebug" not in args:
    sys.exit(f"the fake gradle runs assembleDebug, not {args}")
print(f"BUILD SUCCESSFUL: {assemble_debug(project)}")
'''


def _script(path: Path, template: str, real_adb: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(template.replace("{python}", sys.executable).replace("{repo!r}", repr(str(REPO)))
                    .replace("{virtual_api}", str(VIRTUAL_API)).replace("{real_adb!r}", repr(real_adb)))
    path.chmod(0o755)
    return path


def make_tools(bin_dir: Path) -> None:
    """`bin_dir/sdkmanager` (as android-actions/setup-android puts it on PATH) and `bin_dir/gradle`
    (as gradle/actions/setup-gradle does)."""
    _script(bin_dir / "sdkmanager", FAKE_SDKMANAGER)
    _script(bin_dir / "gradle", FAKE_GRADLE)


def install(root: Path, package: str) -> str | None:
    """Lay out `package` under the SDK `root`; what went wrong, or None."""
    kind, _, rest = package.partition(";")
    if kind == "build-tools":
        make_sdk(root, build_tools=(rest,), platforms=())
    elif kind == "platforms":
        make_sdk(root, build_tools=(), platforms=(rest,))
    elif package == "platform-tools":
        adb = shutil.which("adb")
        if adb is None:
            return "the fake platform-tools is Debian's adb, and there is none (apt-get install adb)"
        _script(root / "platform-tools" / "adb", FAKE_ADB, real_adb=adb)
    elif package == "emulator":
        _script(root / "emulator" / "emulator", FAKE_EMULATOR)
    elif package == "cmdline-tools;latest":
        _script(root / "cmdline-tools" / "latest" / "bin" / "avdmanager", FAKE_AVDMANAGER)
    elif kind == "system-images" and re.fullmatch(r"android-\d+;[\w-]+;[\w-]+", rest):
        api, tag, abi = rest.split(";")
        image = root / "system-images" / api / tag / abi
        image.mkdir(parents=True, exist_ok=True)
        (image / "source.properties").write_text(
            f"AndroidVersion.ApiLevel={api.removeprefix('android-')}\nSystemImage.TagId={tag}\nSystemImage.Abi={abi}\n")
    else:
        return f"Warning: Failed to find package '{package}'"
    return None


def assemble_debug(project: Path) -> Path:
    """The project's debug APK, from its app module's build file, manifest and strings."""
    from pytest_mobile_agent.apk import Activity, Manifest, build_apk

    app = project / "app"
    gradle = (app / "build.gradle.kts").read_text()

    def setting(name: str) -> str:
        found = re.search(rf"^\s+{name} = (.+)$", gradle, re.M)
        if found is None:
            raise SystemExit(f"{app / 'build.gradle.kts'}: no {name}")
        return found[1].strip().strip('"')

    manifest = ET.parse(app / "src" / "main" / "AndroidManifest.xml").getroot()
    strings = ET.parse(app / "src" / "main" / "res" / "values" / "strings.xml").getroot()
    label_ref = manifest.find("application").get(f"{ANDROID}label", "")  # type: ignore[union-attr]
    label = strings.find(f"string[@name='{label_ref.removeprefix('@string/')}']")
    package = setting("applicationId")
    launcher = "android.intent.category.LAUNCHER"
    activities = tuple(
        Activity(package + a.get(f"{ANDROID}name", ""), exported=a.get(f"{ANDROID}exported") == "true",
                 launcher=any(c.get(f"{ANDROID}name") == launcher for c in a.iter("category")))
        for a in manifest.iter("activity"))
    built = Manifest(package=package, version_code=int(setting("versionCode")), version_name=setting("versionName"),
                     min_sdk=int(setting("minSdk")), target_sdk=int(setting("targetSdk")),
                     label=label.text if label is not None and label.text else package, activities=activities,
                     permissions=tuple(p.get(f"{ANDROID}name", "") for p in manifest.iter("uses-permission")))
    output = project / APK_OUTPUT
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(build_apk(built))
    return output
