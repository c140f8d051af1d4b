"""The device shell: parsing, quoting, expansions, redirections, lists, subshells, builtins."""

from __future__ import annotations

import contextlib
import logging
import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.shell import syntax
from pytest_mobile_agent.virtual.shell.parser import parse
from pytest_mobile_agent.virtual.shell.syntax import ShellSyntaxError
from tests.support.virtual_shell import run_shell as run

# --- parser ----------------------------------------------------------------------------------------


def test_a_list_parses_into_and_or_items_with_background_flags() -> None:
    tree = parse("a && b || c; d & e")
    assert [item.background for item in tree.items] == [False, True, False]
    first = tree.items[0].and_or
    assert [op for op, _ in first.rest] == ["&&", "||"]


def test_redirections_parse_with_their_fds_and_targets() -> None:
    command = parse("cmd <in >out 2>&1 >>log </dev/null").items[0].and_or.first.commands[0]
    assert isinstance(command, syntax.Simple)
    assert [(r.fd, r.op, r.target.literal()) for r in command.redirects] == [
        (0, "<", "in"), (1, ">", "out"), (2, ">&", "1"), (1, ">>", "log"), (0, "<", "/dev/null")]


def test_prefix_assignments_are_kept_apart_from_the_words() -> None:
    command = parse('A=1 B="x y" exec prog arg').items[0].and_or.first.commands[0]
    assert isinstance(command, syntax.Simple)
    assert [a.name for a in command.assigns] == ["A", "B"]
    assert [w.literal() for w in command.words] == ["exec", "prog", "arg"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("echo 'open", "syntax error: no closing quote"),
        ('echo "open', "syntax error: no closing quote"),
        ("echo )", "syntax error: ')' unexpected"),
        ("&& echo", "syntax error: '&&' unexpected"),
        ("echo a |", "syntax error: unexpected EOF"),
        ("( echo a", "syntax error: '(' unmatched"),
        ("if true; then echo", "syntax error: 'if' unmatched"),
        ("echo >", "syntax error: unexpected EOF"),
        ("()", "syntax error: ')' unexpected"),
    ],
)
def test_bad_syntax_is_a_clean_error_with_the_shells_wording(text: str, message: str) -> None:
    with pytest.raises(ShellSyntaxError) as caught:
        parse(text)
    assert caught.value.message == message


SHELLISH = st.lists(st.sampled_from([
    "a", "b", " ", "$", "'", '"', "\\", "(", ")", "|", "&", ";", "<", ">", "{", "}", "\n", "#", "=", "*",
    "`", "1", "2", "$(", "$((", "))", "${", "if", "then", "fi", "while", "do", "done", "for", "in", "case",
    "esac", ";;", "&&", "||", "2>&1", "f()", "elif", "else", "<<", "<<-", "EOF", "'EOF'", "\t",
]), max_size=40).map("".join)


@given(st.one_of(st.text(max_size=200), SHELLISH))
def test_the_parser_never_raises_anything_but_a_syntax_error(text: str) -> None:
    with contextlib.suppress(ShellSyntaxError):
        parse(text)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=40))
def test_a_shlex_quoted_word_parses_back_to_itself(text: str) -> None:
    command = parse("echo " + shlex.quote(text)).items[0].and_or.first.commands[0]
    assert isinstance(command, syntax.Simple)
    assert command.words[1].literal() == text


# --- the interpreter ---------------------------------------------------------------------------------


HOSTILE = [
    "it's", 'say "hi"', "$HOME", "`id`", "$(id)", "a;b", "a && b", "a|b", "back\\slash", "new\nline",
    "tab\there", "*", "~", "-n", "'", '"', "  spaced  ", "ünïcødé ✓", "#not a comment", "a&", "(x)", "{y}",
    ">out", "<in", "2>&1",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_survive_shlex_quoting(vdev: VirtualDevice, text: str) -> None:
    status, out, err = run(vdev, f"printf '%s' {shlex.quote(text)}")
    assert (status, out, err) == (0, text, "")


def test_an_unknown_command_fails_with_127_and_the_shells_message(vdev: VirtualDevice) -> None:
    assert run(vdev, "nosuchtool --flag") == (127, "", "/system/bin/sh: nosuchtool: inaccessible or not found\n")


def test_an_unknown_command_in_a_list_does_not_stop_the_list(vdev: VirtualDevice) -> None:
    assert run(vdev, "nosuch; echo $?") == (0, "127\n", "/system/bin/sh: nosuch: inaccessible or not found\n")


def test_a_syntax_error_is_reported_on_stderr_with_status_1(vdev: VirtualDevice) -> None:
    assert run(vdev, "echo 'x") == (1, "", "/system/bin/sh: syntax error: no closing quote\n")


def test_and_or_and_sequence_follow_the_statuses(vdev: VirtualDevice) -> None:
    assert run(vdev, "true && echo a; false && echo b; false || echo c; true || echo d") == (0, "a\nc\n", "")


def test_the_exit_status_and_stderr_stay_apart(vdev: VirtualDevice) -> None:
    assert run(vdev, "echo out; echo err >&2; exit 7") == (7, "out\n", "err\n")


def test_variables_prefix_assignments_and_exports(vdev: VirtualDevice) -> None:
    status, out, _ = run(
        vdev, 'X=1; Y=2 env | cat > /data/local/tmp/env; echo "$X ${Y:-unset}"; cat /data/local/tmp/env'
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "1 unset"
    assert "Y=2" in lines and "X=1" not in lines and "HOME=/" in lines


def test_unquoted_expansions_split_and_quoted_ones_do_not(vdev: VirtualDevice) -> None:
    assert run(vdev, 'V="a  b"; printf "[%s]" $V; printf "[%s]" "$V"') == (0, "[a][b][a  b]", "")


def test_command_substitution_captures_the_output(vdev: VirtualDevice) -> None:
    assert run(vdev, 'echo "uid=$(id -u)" `echo back`') == (0, "uid=2000 back\n", "")


def test_redirections_write_append_and_read_files(vdev: VirtualDevice) -> None:
    script = ("echo one > /data/local/tmp/f; echo two >> /data/local/tmp/f; cat < /data/local/tmp/f; "
              "cat /data/local/tmp/f 2>&1 >/dev/null")
    assert run(vdev, script) == (0, "one\ntwo\n", "")


def test_two_to_one_merges_stderr_into_stdout(vdev: VirtualDevice) -> None:
    assert run(vdev, "cat /nope 2>&1") == (1, "cat: /nope: No such file or directory\n", "")


def test_a_refused_redirection_fails_the_command_with_the_shells_message(vdev: VirtualDevice) -> None:
    assert run(vdev, "echo x > /system/x; echo $?") == (
        0,
        "1\n",
        "/system/bin/sh: can't create /system/x: Read-only file system\n",
    )


def test_a_subshell_keeps_its_variables_and_exit_to_itself(vdev: VirtualDevice) -> None:
    assert run(vdev, "X=outer; (X=inner; echo $X; exit 3); echo $? $X") == (0, "inner\n3 outer\n", "")


def test_a_pipeline_connects_the_commands(vdev: VirtualDevice) -> None:
    assert run(vdev, "echo piped | cat | cat") == (0, "piped\n", "")


def test_read_r_takes_a_line_from_stdin_keeping_backslashes(vdev: VirtualDevice) -> None:
    assert run(vdev, 'read -r a b && echo "[$a][$b]"', stdin=b"x\\y rest of it\nnext\n") == (
        0,
        "[x\\y][rest of it]\n",
        "",
    )


def test_read_at_end_of_file_fails(vdev: VirtualDevice) -> None:
    assert run(vdev, "read -r t || echo eof") == (0, "eof\n", "")


def test_echo_and_printf_builtins(vdev: VirtualDevice) -> None:
    assert run(vdev, r"echo -n a; echo 'b\tc'; printf '%s=%d\n' x 5 y 6; printf '%05.1f|%x\n' 3.14159 255") == (
        0, "ab\tc\nx=5\ny=6\n003.1|ff\n", "")


def test_exec_replaces_the_shell_process(vdev: VirtualDevice) -> None:
    status, out, _ = run(vdev, "echo $$; exec sh -c 'echo $$'")
    first, second = out.split()
    assert status == 0 and first == second


def test_the_background_job_gets_its_pid_in_bang(vdev: VirtualDevice) -> None:
    status, out, _ = run(vdev, "sleep 5 & echo $!; kill $!")
    assert status == 0 and out.strip().isdigit()


def test_tty_on_a_pipe_is_not_a_tty(vdev: VirtualDevice) -> None:
    assert run(vdev, "tty") == (1, "not a tty\n", "")


def test_id_u_is_the_shell_user(vdev: VirtualDevice) -> None:
    assert run(vdev, "id -u") == (0, "2000\n", "")


def test_file_tools_rm_ls_mkdir_chmod_stat(vdev: VirtualDevice) -> None:
    script = (
        "cd /data/local/tmp && mkdir -p a/b/c && echo hi > a/f && chmod 640 a/f && stat -c '%a %s %U' a/f && "
        "ls a && rm a/f && rm a/f; echo $?; rm -f a/f; echo $?; mkdir a; echo $?"
    )
    status, out, err = run(vdev, script)
    assert out == "640 3 shell\nb\nf\n1\n0\n1\n"
    assert err == "rm: a/f: No such file or directory\nmkdir: 'a': File exists\n"


def test_ls_of_a_directory_the_shell_may_not_read_is_permission_denied(vdev: VirtualDevice) -> None:
    assert run(vdev, "ls /data") == (1, "", "ls: /data: Permission denied\n")


def test_trap_with_a_command_runs_it_on_exit(vdev: VirtualDevice) -> None:
    assert run(vdev, "trap 'echo bye' EXIT; echo hi") == (0, "hi\nbye\n", "")


def test_legacy_shell_and_exec_services_carry_raw_merged_output(vdev: VirtualDevice) -> None:
    for service in ("shell:echo out; echo err >&2", "exec:sh -c 'echo out; echo err >&2'"):
        stream = vdev.open_service(service)
        data = b""
        while True:
            chunk = stream.recv(2.0)
            if not chunk:
                break
            data += chunk
        assert data == b"out\nerr\n"


def test_an_interactive_shell_runs_line_by_line_with_the_prompt_on_a_pty(vdev: VirtualDevice) -> None:
    from tests.support.virtual_shell import ShellClient

    assert vdev.shell("", stdin=b"echo a\necho 'b\nc'\nexit 3\necho never\n") == (3, b"a\nb\nc\n", b"")
    client = ShellClient(vdev, "", pty=True)
    client.read_until(b"emu64xa:/ $ ")
    client.write(b"id -u\r")
    assert b"emu64xa:/ $ id -u\r\n2000\r\n" in client.read_until(b"2000\r\n")
    client.close()


def test_grep_head_and_wc_filter_the_output(vdev: VirtualDevice) -> None:
    assert run(
        vdev,
        "printf 'a1\\nb2\\na3\\n' | grep a | wc -l; printf 'x\\ny\\n' | head -n 1; echo z | grep -q q || echo none",
    ) == (0, "2\nx\nnone\n", "")


def test_pathname_expansion_matches_device_files_and_leaves_quoted_patterns(vdev: VirtualDevice) -> None:
    script = ("cd /data/local/tmp && touch mobile-agent-it-1 mobile-agent-it-2 other .hidden && "
              "echo mobile-agent-it-* '*' zz* && echo * && rm -f /data/local/tmp/mobile-agent-it-* && echo *")
    assert run(vdev, script) == (
        0,
        "mobile-agent-it-1 mobile-agent-it-2 * zz*\nmobile-agent-it-1 mobile-agent-it-2 other\nother\n",
        "",
    )


def test_a_missing_command_reports_on_its_redirected_stderr(vdev: VirtualDevice) -> None:
    assert run(vdev, "nosuch 2>/dev/null; echo $?") == (0, "127\n", "")


def test_a_prefix_assignment_applies_to_a_builtin_for_its_duration(vdev: VirtualDevice) -> None:
    assert run(vdev, 'IFS=, read -r a b; echo "$a|$b|${IFS:-unset}"', stdin=b"x,y\n") == (0, "x|y|unset\n", "")


def test_if_while_until_and_for(vdev: VirtualDevice) -> None:
    script = (
        "if [ -d /data/local/tmp ]; then echo dir; elif true; then echo no; else echo never; fi; "
        "for i in 1 2 3; do if [ $i = 2 ]; then continue; fi; echo $i; done; "
        "n=x; while [ $n != xxxx ]; do n=$n$n; done; echo $n; "
        "until true; do echo never; done; "
        "for w in a b; do for v in 1 2; do [ $v = 2 ] && break 2; echo $w$v; done; done"
    )
    assert run(vdev, script) == (0, "dir\n1\n3\nxxxx\na1\n", "")


def test_a_stray_reserved_word_is_a_syntax_error(vdev: VirtualDevice) -> None:
    assert run(vdev, "fi") == (1, "", "/system/bin/sh: syntax error: 'fi' unexpected\n")
    with pytest.raises(ShellSyntaxError):
        parse("if true; then echo x")


def test_an_executable_script_runs_and_a_plain_file_cannot_be_executed(vdev: VirtualDevice) -> None:
    script = (
        "cd /data/local/tmp && printf '#!/system/bin/sh\\necho in $0 $1\\n' > s.sh && ./s.sh; echo $?; "
        "chmod 755 s.sh && ./s.sh arg && sh s.sh other"
    )
    assert run(vdev, script) == (
        0,
        "126\nin ./s.sh arg\nin s.sh other\n",
        "/system/bin/sh: ./s.sh: can't execute: Permission denied\n",
    )


def test_toybox_echo_interprets_escapes_only_with_e(vdev: VirtualDevice) -> None:
    assert run(vdev, r"/system/bin/echo 'a\tb'; /system/bin/echo -e 'a\tb'; echo 'a\tb'") == (
        0,
        "a\\tb\na\tb\na\tb\n",
        "",
    )


def test_arithmetic_expansion_is_32_bit_integer_arithmetic(vdev: VirtualDevice) -> None:
    script = ('i=3; echo $((i+1)) $((2*(3+4))) $((7/2)) $((-7/2)) $((-7%2)) $((1<<4)) $((i>2 ? 10 : 20)) '
              '$((0x10 + 010)) "$(($i*$i))" $((2147483647+1))')
    assert run(vdev, script) == (0, "4 14 3 -3 -1 16 10 24 9 -2147483648\n", "")
    assert run(vdev, "n=0; while [ $n -lt 3 ]; do n=$((n+1)); done; echo $n") == (0, "3\n", "")


def test_an_arithmetic_error_ends_the_shell_with_its_message(vdev: VirtualDevice) -> None:
    assert run(vdev, "echo $((1/0)); echo after") == (1, "", "/system/bin/sh: 1/0: division by zero\n")


@given(st.text(max_size=60))
def test_arithmetic_never_raises_anything_but_a_syntax_error(text: str) -> None:
    from pytest_mobile_agent.virtual.shell import arith

    with contextlib.suppress(ShellSyntaxError):
        assert isinstance(arith.evaluate(text, lambda name: {"x": "x+1", "y": "2"}.get(name)), int)


def test_case_matches_patterns_with_quoting_and_alternatives(vdev: VirtualDevice) -> None:
    script = (
        "x=foo.txt; case $x in *.jpg) echo jpg;; *.txt|*.md) echo text;; esac; "
        'case "*" in "*") echo star;; *) echo other;; esac; case abc in (a?c) echo q ;; esac; case z in a) echo a;; '
        'esac'
    )
    assert run(vdev, script) == (0, "text\nstar\nq\n", "")


def test_functions_take_their_own_arguments_and_return_a_status(vdev: VirtualDevice) -> None:
    script = 'f() { echo "f $# $1"; return 3; echo never; }; f a b; echo $? $1; g() { f inner; }; g; (f sub); echo $?'
    assert run(vdev, script) == (0, "f 2 a\n3\nf 1 inner\nf 1 sub\n3\n", "")


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(SHELLISH)
def test_any_shellish_script_ends_with_a_status_and_no_internal_error(vdev: VirtualDevice, text: str) -> None:
    failures: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                failures.append(record.getMessage())

    handler = Collect()
    logger = logging.getLogger("pytest_mobile_agent.virtual")
    logger.addHandler(handler)
    try:
        status, _, _ = vdev.shell(text, timeout=3)
    finally:
        logger.removeHandler(handler)
    assert 0 <= status <= 255 and failures == []


def test_here_documents_expand_unless_the_delimiter_is_quoted(vdev: VirtualDevice) -> None:
    script = (
        "x=world\ncat <<EOF > /data/local/tmp/h\nhello $x\n\"q\" \\$x\nEOF\ncat /data/local/tmp/h; "
        "cat <<'END'\n$x literal\nEND\ncat <<-T\n\t\ttabbed\n\tT\necho after"
    )
    assert run(vdev, script) == (0, 'hello world\n"q" $x\n$x literal\ntabbed\nafter\n', "")
    assert run(vdev, "cat <<EOF") == (1, "", "/system/bin/sh: here document 'EOF' unclosed\n")
