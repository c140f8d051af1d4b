"""`settings get|put|delete|list NAMESPACE [KEY [VALUE]]` on the settings provider's namespaces
(android/settings.py); a put or a delete is seen by the services that observe the setting (the
rotation: android/state.py), as SettingsProvider notifies its observers."""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm


def settings_(framework: Framework, proc: pm.Process) -> int:
    args = _without_user(proc.argv[1:])
    if len(args) >= 2 and args[1] in framework.settings:
        verb, namespace = args[0], framework.settings[args[1]]
        framework.state.before_settings_read()
        if verb == "get" and len(args) == 3:
            proc.stdout.write(namespace.get(args[2], "null") + "\n")
            return 0
        if verb == "put" and len(args) >= 4:
            namespace[args[2]] = args[3]
            framework.state.settings_changed(args[1], args[2])
            return 0
        if verb == "delete" and len(args) == 3:
            namespace.pop(args[2], None)
            framework.state.settings_changed(args[1], args[2])
            return 0
        if verb == "list":
            proc.stdout.write("".join(f"{k}={v}\n" for k, v in sorted(namespace.items())))
            return 0
    proc.stderr.write("usage:  settings [--user <USER_ID> | current] get namespace key\n")
    return 1


def _without_user(argv: list[str]) -> list[str]:
    """The arguments without `--user N|current`, which SettingsService's shell command takes anywhere."""
    args, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--user":
            skip = True
        else:
            args.append(arg)
    return args
