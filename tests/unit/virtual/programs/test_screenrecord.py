"""The virtual device's screenrecord, against AOSP's cmds/screenrecord/screenrecord.cpp (API 34+): its
argument errors and exit statuses, the time limit, a whole MP4 after SIGINT, what SIGTERM leaves."""

from __future__ import annotations

import io
import time

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel.creds import ROOT
from tests.support.virtual_shell import run_shell as run


@pytest.mark.parametrize(("command", "message"), [
    ("screenrecord", "Must specify output file (see --help)."),
    ("screenrecord a.mp4 b.mp4", "Must specify output file (see --help)."),
    ("screenrecord --time-limit x a.mp4", "Error parsing time limit argument"),
    ("screenrecord --time-limit -1 a.mp4", "Time limit -1s outside acceptable range [0,4294967295] seconds"),
    ("screenrecord --bit-rate 5 a.mp4", "Bit rate 5bps outside acceptable range [100000,200000000]"),
    ("screenrecord --bit-rate 4q a.mp4", "Unrecognized value: 4q"),
    ("screenrecord --size 10 a.mp4", "Invalid size '10', must be width x height"),
    ("screenrecord --size 0x10 a.mp4", "Invalid size 0x10, width and height may not be zero"),
    ("screenrecord --output-format avi a.mp4", "Unknown format 'avi'"),
    ("screenrecord --nope a.mp4", "screenrecord: unrecognized option '--nope'"),
])
def test_usage_errors_exit_2_with_the_tools_messages(vdev: VirtualDevice, command: str, message: str) -> None:
    status, out, err = run(vdev, command)
    assert (status, out, err) == (2, "", message + "\n")


def test_help_names_the_limit_and_how_to_lift_it(vdev: VirtualDevice) -> None:
    status, _, err = run(vdev, "screenrecord --help")
    assert status == 0
    assert "Default is 180. Set to 0\n    to remove the time limit." in err


def test_an_unwritable_file_fails_before_recording(vdev: VirtualDevice) -> None:
    status, _, err = run(vdev, "screenrecord /system/x.mp4")
    assert status == 1 and err.startswith("Unable to open '/system/x.mp4': ")


def test_the_time_limit_ends_the_recording_with_a_whole_mp4(vdev: VirtualDevice) -> None:
    av = pytest.importorskip("av")
    started = time.monotonic()
    status, out, _ = run(vdev, "screenrecord --verbose --time-limit 1 --size 270x600 /data/local/tmp/a.mp4")
    assert status == 0 and time.monotonic() - started >= 1.0
    assert out.splitlines()[0] == "Configuring recorder for 270x600 video/avc at 20.00Mbps"
    assert "Time limit reached" in out
    data = vdev.system.fs.read_file("/data/local/tmp/a.mp4", ROOT)
    with av.open(io.BytesIO(data)) as container:
        assert container.streams.video[0].codec_context.name == "h264"
        assert container.duration / 1e6 >= 0.9


def test_sigint_stops_it_and_the_file_is_whole(vdev: VirtualDevice) -> None:
    av = pytest.importorskip("av")
    status, _, _ = run(vdev, "screenrecord --size 270x600 /data/local/tmp/b.mp4 & sleep 0.5; kill -INT $!; wait $!",
                       timeout=20)
    assert status == 0
    with av.open(io.BytesIO(vdev.system.fs.read_file("/data/local/tmp/b.mp4", ROOT))) as container:
        assert container.streams.video[0].frames >= 1


def test_sigterm_kills_it_leaving_a_file_without_its_index(vdev: VirtualDevice) -> None:
    av = pytest.importorskip("av")
    status, _, _ = run(vdev, "screenrecord --size 270x600 /data/local/tmp/c.mp4 & sleep 0.5; kill $!; wait $!",
                       timeout=20)
    assert status == 143
    data = vdev.system.fs.read_file("/data/local/tmp/c.mp4", ROOT)
    with pytest.raises(av.error.InvalidDataError):
        av.open(io.BytesIO(data))
