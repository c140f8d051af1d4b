"""`/proc/net/unix`: the device's unix sockets as the kernel lists them (net/unix/af_unix.c,
unix_seq_show), a header line and a line per socket:

    Num       RefCount Protocol Flags    Type St Inode Path
    0000000000000000: 00000002 00000000 00010000 0001 01 48213 @webview_devtools_remote_3012

`Num` is the socket's kernel address, printed with `%pK`, which Android's kptr_restrict (2) shows
as zeros to everyone; a listening stream socket has the reference count 2, the flag __SO_ACCEPTCON
(0x10000), type SOCK_STREAM (1) and state SS_UNCONNECTED (1); an abstract name is written with `@`
for its leading NUL. This is how tools find the DevTools sockets of WebViews and Chrome
(Playwright's android.ts `_refreshWebViews` greps this file for `webview_devtools_remote`,
Chrome's `chrome://inspect` reads it through adb for `*_devtools_remote`).
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.kernel.sockets import SocketNamespace

HEADER = "Num       RefCount Protocol Flags    Type St Inode Path\n"
SO_ACCEPTCON = 0x10000
SOCK_STREAM = 1
SS_UNCONNECTED = 1


def proc_net_unix(sockets: SocketNamespace) -> bytes:
    """The file's contents now: every listening abstract socket of the device."""
    lines = [HEADER]
    for listener in sockets.abstract_listeners():
        lines.append(f"{0:016x}: {2:08X} {0:08X} {SO_ACCEPTCON:08X} {SOCK_STREAM:04X} {SS_UNCONNECTED:02X} "
                     f"{listener.inode:5d} @{listener.address}\n")
    return "".join(lines).encode()
