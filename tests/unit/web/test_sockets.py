"""The debuggable sockets read from /proc/net/unix and their owners from ps, as Android lists them."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_mobile_agent.web.sockets import (
    DevToolsSocket,
    devtools_sockets,
    listening_devtools_names,
    owner_of,
    pid_of,
    process_names,
)

# rows as a Pixel running Android 14 lists them (flags 00010000: listening; St 01: unconnected)
PROC_NET_UNIX = """\
Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 5841881 @webview_devtools_remote_4242
0000000000000000: 00000002 00000000 00010000 0001 01 5841882 @chrome_devtools_remote
0000000000000000: 00000003 00000000 00000000 0001 03 5841883 @chrome_devtools_remote
0000000000000000: 00000002 00000000 00010000 0001 01 4711 @jdwp-control
0000000000000000: 00000002 00000000 00010000 0001 01 4712 /dev/socket/zygote
0000000000000000: 00000002 00000000 00010000 0001 01 4713 @com.brave.browser_devtools_remote
0000000000000000: 00000002 00000000 00000000 0002 01 4714
"""
PS = """\
  PID NAME
    1 init
 4242 dev.mobileagent.fixture
 5000 com.android.chrome
 5100 com.brave.browser
"""


def test_only_listening_abstract_devtools_sockets_are_found_once_each() -> None:
    assert listening_devtools_names(PROC_NET_UNIX) == [
        "webview_devtools_remote_4242", "chrome_devtools_remote", "com.brave.browser_devtools_remote"]


def test_a_webview_socket_names_its_pid_and_its_owner_is_that_process() -> None:
    sockets = devtools_sockets(PROC_NET_UNIX + "\n--- ps\n" + PS)
    assert sockets == [
        DevToolsSocket("webview_devtools_remote_4242", 4242, "dev.mobileagent.fixture"),
        DevToolsSocket("chrome_devtools_remote", None, "com.android.chrome"),
        DevToolsSocket("com.brave.browser_devtools_remote", None, "com.brave.browser"),
    ]
    assert [s.kind for s in sockets] == ["webview", "chrome", "browser"]


def test_names_playwright_reads_a_pid_from() -> None:
    # android.ts: webview_devtools_remote_32327, webview_devtools_remote_32327_zeus, webview_devtools_remote_zeus
    assert pid_of("webview_devtools_remote_32327") == 32327
    assert pid_of("webview_devtools_remote_32327_zeus") == 32327
    assert pid_of("webview_devtools_remote_zeus") is None
    assert pid_of("chrome_devtools_remote") is None


def test_an_owner_that_is_gone_is_unknown_not_guessed() -> None:
    assert owner_of("webview_devtools_remote_77", 77, process_names(PS)) == ""
    assert owner_of("chrome_devtools_remote", None, {1: "init"}) == ""


# the path is a string of @?[a-z_.0-9]{1,30}, drawn as an optional @ and text of that alphabet (from_regex
# draws the same strings at several times the CPU)
_PATH = st.tuples(st.sampled_from(["", "@"]), st.text(string.ascii_lowercase + "_." + string.digits, min_size=1,
                                                       max_size=30)).map("".join)
_ROW = st.tuples(st.sampled_from(["00010000", "00000000", "00010001", "zz"]), st.sampled_from(["01", "03"]), _PATH)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ROW, max_size=12))
def test_generated_tables_list_exactly_the_listening_devtools_rows(rows: list[tuple[str, str, str]]) -> None:
    text = "Num       RefCount Protocol Flags    Type St Inode Path\n" + "".join(
        f"0000000000000000: 00000002 00000000 {flags} 0001 {state} {inode} {path}\n"
        for inode, (flags, state, path) in enumerate(rows))
    expected: list[str] = []
    for flags, state, path in rows:
        name = path[1:]
        listening = flags != "zz" and int(flags, 16) & 0x10000 and state == "01"
        devtools = name.endswith("_devtools_remote") or name.startswith("webview_devtools_remote")
        if path.startswith("@") and listening and devtools and name not in expected:
            expected.append(name)
    assert listening_devtools_names(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_text_parses_without_raising(text: str) -> None:
    for socket in devtools_sockets(text):
        assert socket.name.endswith("_devtools_remote") or socket.name.startswith("webview_devtools_remote")
    process_names(text)


def test_android_7s_toolbox_ps_names_the_owner_too() -> None:
    toolbox = """\
USER      PID   PPID  VSIZE  RSS   WCHAN              PC  NAME
root      1     0     9564   1228  SyS_epoll_ 0000000000 S /init
u0_a77    4242  1734  1538404 98016 SyS_epoll_ 0000000000 S dev.mobileagent.fixture
"""
    assert process_names(toolbox) == {1: "/init", 4242: "dev.mobileagent.fixture"}
    assert devtools_sockets(PROC_NET_UNIX + "--- ps\n" + toolbox)[0].package == "dev.mobileagent.fixture"


def test_a_pid_column_of_other_digits_is_no_pid() -> None:
    assert process_names("  PID NAME\n² 0\n 42 init\n") == {42: "init"}
