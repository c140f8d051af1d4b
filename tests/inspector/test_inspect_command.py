"""`python -m pytest_mobile_agent inspect`: it prints its URL, serves on 127.0.0.1 behind the token,
and on SIGTERM stops the virtual device it started and exits 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest

pytest.importorskip("aiohttp", reason="the inspector's extra: pip install 'pytest-mobile-agent[inspect]'")


def test_the_command_serves_the_page_behind_its_token_and_stops_cleanly_on_sigterm() -> None:
    command = subprocess.Popen([sys.executable, "-m", "pytest_mobile_agent", "inspect", "--android-serial", "virtual"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ})
    try:
        assert command.stdout is not None
        line = command.stdout.readline()
        assert line.startswith("inspector: http://127.0.0.1:"), line
        url = line.split(": ", 1)[1].strip()
        parts = urlsplit(url)
        assert parts.query.startswith("token=") and len(parts.query) > len("token=") + 20
        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200 and b"mobile-agent inspector" in page.read()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{parts.scheme}://{parts.netloc}/", timeout=10)
        assert refused.value.code == 403
        command.send_signal(signal.SIGTERM)
        assert command.wait(timeout=30) == 0
        _, stderr = command.communicate(timeout=5)
        assert "target emulator-5554" in stderr
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()


def test_a_port_in_use_is_a_clear_error() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "pytest_mobile_agent", "inspect", "--port", str(port)],
                             capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in run.stderr
