"""`pm` / `cmd package` for installing and managing apps, `dumpsys package PKG`, and `sha256sum`.

Output as AOSP's PackageManagerShellCommand prints it:

* `pm install [-r] [-g] [-d] [-t] [--user N] [-i PKG] -S SIZE` reads SIZE bytes of the APK from
  stdin (how `adb install` streams it over `exec:`), or `pm install PATH` reads a file on the
  device; "Success", else "Failure [CODE: message]" (doCommitSession) with status 1; without -S
  and a path: "Error: must either specify a package size or an APK file".
* `pm uninstall [-k] [--user N] PKG`: "Success", or "Failure [DELETE_FAILED_INTERNAL_ERROR]".
* `pm clear [--user N] PKG`: "Success", or "Failed" on stderr (runClear), status 1.
* `pm grant|revoke [--user N] PKG PERMISSION`: nothing on success; a refusal is the exception
  ShellCommand prints, "Exception occurred while executing 'grant':" and the exception's line and
  stack on stderr, status 255.
* `pm list packages [-3] [-f] [--show-versioncode] [FILTER]`, `pm path PKG`,
  `cmd package resolve-activity [--brief] -c android.intent.category.LAUNCHER PKG` (the
  launchable activity as `PKG/.Activity` on the last line, "No activity found" without one).
* `dumpsys package PKG`: the package's block (`Package [PKG] (...)`, `versionCode=N minSdk=M
  targetSdk=T`, `versionName=V`, `codePath=`, `requested permissions:`, the user's `runtime
  permissions:` with `granted=`).
* `sha256sum FILE...`: toybox's "<64 hex>  FILE" lines.
"""

from __future__ import annotations

import hashlib
import time

from pytest_mobile_agent.virtual.android.activity import SYSTEM_PACKAGES
from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.android.packages import PERMISSION_FLAGS, RUNTIME_PERMISSIONS, InstallError, Package
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.programs.common import device_path

_VALUE_OPTIONS = {"--user", "-i", "--install-reason", "--originating-uri", "--referrer", "--abi", "-p", "--pkg"}
SHELL_EXCEPTION_STATUS = 255


def pm_command(framework: Framework, proc: pm.Process, args: list[str]) -> int | None:
    """The package commands this module answers; None for the others (the caller's)."""
    if not args:
        return None
    verb, rest = args[0], args[1:]
    if verb == "install":
        return _install(framework, proc, rest)
    if verb == "uninstall":
        return _uninstall(framework, proc, rest)
    if verb == "clear":
        return _clear(framework, proc, rest)
    if verb in ("grant", "revoke"):
        return _grant(framework, proc, verb, rest)
    if verb == "list" and rest[:1] == ["packages"]:
        return _list_packages(framework, proc, rest[1:])
    if verb == "path" and len(rest) == 1:
        return _path(framework, proc, rest[0])
    if verb == "dump" and len(rest) == 1:
        return dumpsys_package(framework, proc, rest)
    if verb == "resolve-activity":
        return _resolve_activity(framework, proc, rest)
    return None


def pm_(framework: Framework, proc: pm.Process, args: list[str] | None = None) -> int:
    """`pm` (and `cmd package`): pm_command's verbs, `list instrumentation` (none), else its usage."""
    args = list(proc.argv[1:] if args is None else args)
    answered = pm_command(framework, proc, args)  # install, uninstall, clear, grant, list, path, dump
    if answered is not None:
        return answered
    if args and args[0] == "list" and len(args) > 1 and args[1] == "instrumentation":
        return 0
    proc.stderr.write(f"Unknown command: {' '.join(args) or '(none)'}\n" if args
                      else "Package manager (package) commands:\n")
    return 255 if args else 0


def _resolve_activity(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    """`resolve-activity [--brief] [-c CATEGORY] PKG`: the launchable activity as PKG/.ACT."""
    names = [a for i, a in enumerate(args)
             if not a.startswith("-") and (i == 0 or args[i - 1] not in ("-c", "-a", "--user"))]
    package = framework.packages.packages.get(names[-1]) if names else None
    launchable = package.manifest.launchable if package is not None else None
    if package is None or launchable is None:
        proc.stdout.write("No activity found\n")
        return 0
    short = launchable[len(package.name) :] if launchable.startswith(package.name + ".") else launchable
    if "--brief" not in args:
        proc.stdout.write("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n")
    proc.stdout.write(f"{package.name}/{short}\n")
    return 0


def _options(args: list[str]) -> tuple[set[str], dict[str, str], list[str]]:
    flags: set[str] = set()
    values: dict[str, str] = {}
    rest: list[str] = []
    items = list(args)
    while items:
        arg = items.pop(0)
        if arg == "-S" or arg in _VALUE_OPTIONS:
            values[arg] = items.pop(0) if items else ""
        elif arg.startswith("-") and len(arg) > 1 and not rest:
            flags.add(arg)
        else:
            rest.append(arg)
    return flags, values, rest


def _install(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    flags, values, paths = _options(args)
    if "-S" in values:
        size = int(values["-S"]) if is_decimal(values["-S"]) else -1
        data = _read_exactly(proc, size) if size >= 0 else b""
    elif paths and paths[0] != "-":
        try:
            data = framework.system.fs.read_file(framework.system.fs.normalize(paths[0], proc.cwd), cred_of(proc))
        except OSError as exc:
            proc.stdout.write(f"Error: Unable to open file: {paths[0]}\nConsider using a file under /data/local/tmp/\n"
                              f"Error: Can't open file: {paths[0]} ({exc.strerror})\n")
            return 1
    else:
        proc.stdout.write("Error: must either specify a package size or an APK file\n")
        return 1
    try:
        framework.packages.install(data, grant_all="-g" in flags, allow_downgrade="-d" in flags)
    except InstallError as exc:
        proc.stdout.write(f"Failure [{exc.code}: {exc.message}]\n")
        return 1
    proc.stdout.write("Success\n")
    return 0


def _read_exactly(proc: pm.Process, size: int) -> bytes:
    """PackageManagerShellCommand wraps stdin in a SizedInputStream of -S bytes."""
    data = bytearray()
    while len(data) < size:
        chunk = proc.stdin.read(min(65536, size - len(data)))
        if not chunk:
            break
        data += chunk
    return bytes(data)


def _uninstall(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    _, _, names = _options(args)
    if not names:
        proc.stderr.write("Error: package name not specified\n")
        return 1
    if framework.packages.uninstall(names[0]):
        proc.stdout.write("Success\n")
        return 0
    proc.stdout.write("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
    return 1


def _clear(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    _, _, names = _options(args)
    if not names:
        proc.stderr.write("Error: no package specified\n")
        return 1
    if framework.packages.clear(names[0]):
        proc.stdout.write("Success\n")
        return 0
    proc.stderr.write("Failed\n")
    return 1


def _grant(framework: Framework, proc: pm.Process, verb: str, args: list[str]) -> int:
    _, _, rest = _options(args)
    if len(rest) < 2:
        proc.stderr.write("Error: no package specified\n" if not rest else "Error: no permission specified\n")
        return 1
    try:
        framework.packages.grant(rest[0], rest[1], grant=verb == "grant")
    except PermissionError as exc:
        method = "grantRuntimePermission" if verb == "grant" else "revokeRuntimePermission"
        proc.stderr.write(
            f"Exception occurred while executing '{verb}':\n{exc}\n"
            f"\tat com.android.server.pm.permission.PermissionManagerServiceImpl.{method}"
            "(PermissionManagerServiceImpl.java:1435)\n"
            f"\tat com.android.server.pm.permission.PermissionManagerService.{method}"
            "(PermissionManagerService.java:586)\n"
            "\tat com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission"
            "(PackageManagerShellCommand.java:2883)\n"
            "\tat com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:308)\n"
        )
        return SHELL_EXCEPTION_STATUS
    return 0


def _list_packages(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    flags, _, filters = _options(args)
    installed = framework.packages.packages
    others = sorted(p for p in installed if p not in SYSTEM_PACKAGES)
    names = sorted(installed) if "-3" in flags else [*SYSTEM_PACKAGES, *others]
    if filters:
        names = [name for name in names if filters[0] in name]
    lines = []
    for name in names:
        package = installed.get(name)
        where = f"{package.apk_path}=" if "-f" in flags and package else ""
        version = f" versionCode:{package.manifest.version_code}" if "--show-versioncode" in flags and package else ""
        lines.append(f"package:{where}{name}{version}\n")
    proc.stdout.write("".join(lines))
    return 0


def _path(framework: Framework, proc: pm.Process, name: str) -> int:
    package = framework.packages.packages.get(name)
    if package is not None:
        proc.stdout.write(f"package:{package.apk_path}\n")
        return 0
    if name in SYSTEM_PACKAGES:
        proc.stdout.write(f"package:/system/app/{name}/{name}.apk\n")
        return 0
    return 1


def dumpsys_package(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    names = [a for a in args if not a.startswith("-")]
    package = framework.packages.packages.get(names[0]) if names else None
    if package is None:
        proc.stdout.write("Database versions:\n  Internal:\n    sdkVersion=36 databaseVersion=3\n")
        return 0
    proc.stdout.write(_package_block(package))
    return 0


def _package_block(package: Package) -> str:
    manifest = package.manifest
    requested = "".join(f"      {p}\n" for p in manifest.permissions)
    runtime = "".join(f"        {p}: granted={'true' if p in package.granted else 'false'}, "
                      f"flags={_flags(package, p)}\n"
                      for p in manifest.permissions if p in RUNTIME_PERMISSIONS)
    return (
        "Packages:\n"
        f"  Package [{manifest.package}] ({package.uid:x}):\n"
        f"    userId={package.uid}\n"
        f"    codePath={package.code_path}\n"
        f"    resourcePath={package.code_path}\n"
        f"    versionCode={manifest.version_code} minSdk={manifest.min_sdk} "
        f"targetSdk={manifest.target_sdk or manifest.min_sdk}\n"
        f"    versionName={manifest.version_name or 'null'}\n"
        "    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n"
        f"    lastUpdateTime={_stamp(package.last_update)}\n"
        f"    firstInstallTime={_stamp(package.first_install)}\n"
        f"    requested permissions:\n{requested}"
        "    User 0: ceDataInode=0 installed=true hidden=false suspended=false distractionFlags=0 stopped=false "
        "notLaunched=false enabled=0 instant=false virtual=false\n"
        f"      runtime permissions:\n{runtime}"
    )


def _flags(package: Package, permission: str) -> str:
    """As PackageManager's dump prints them: `[ USER_SET|USER_FIXED]`, in bit order (`[ ]` for none)."""
    held = package.flags.get(permission, set())
    return "[ " + "|".join(flag for flag in PERMISSION_FLAGS if flag in held) + ("]" if held else " ]")


def _stamp(when: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))


def sha256sum(system: System, proc: pm.Process) -> int:
    status = 0
    for name in proc.argv[1:] or ["-"]:
        try:
            data = proc.stdin.read_all() if name == "-" else system.fs.read_file(device_path(proc, name), cred_of(proc))
        except OSError as exc:
            proc.stderr.write(f"sha256sum: {name}: {exc.strerror}\n")
            status = 1
            continue
        proc.stdout.write(f"{hashlib.sha256(data).hexdigest()}  {name}\n")
    return status
