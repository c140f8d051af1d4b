"""`settings get|put|delete|list NAMESPACE [KEY [VALUE]]` on the settings provider's namespaces
(android/settings.py)."""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm


def settings_(framework: Framework, proc: pm.Process) -> int:
    args = [a for a in proc.argv[1:] if a not in ("--user", "0", "current")]
    if len(args) >= 2 and args[1] in framework.settings:
        verb, namespace = args[0], framework.settings[args[1]]
        if verb == "get" and len(args) == 3:
            proc.stdout.write(namespace.get(args[2], "null") + "\n")
            return 0
        if verb == "put" and len(args) >= 4:
            namespace[args[2]] = args[3]
            return 0
        if verb == "delete" and len(args) == 3:
            namespace.pop(args[2], None)
            return 0
        if verb == "list":
            proc.stdout.write("".join(f"{k}={v}\n" for k, v in sorted(namespace.items())))
            return 0
    proc.stderr.write("usage:  settings [--user <USER_ID> | current] get namespace key\n")
    return 1
