"""The controller proto: the committed modules are what proto/ generates, the messages are
wire-compatible with the emulator's field numbers, and the SDK's copy is compared field by field."""

from __future__ import annotations

import ast
import contextlib
import re
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.emulator import proto_source, regenerate
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb
from pytest_mobile_agent.emulator.proto_source import (
    PROTO_ENV,
    compare,
    inspect,
    own_model,
    parse_proto,
    sdk_proto_candidates,
)
from pytest_mobile_agent.errors import ProtocolError

REPO = Path(__file__).resolve().parents[3]
SOURCE = REPO / "proto" / "emulator_controller.proto"
COMMITTED = REPO / "pytest_mobile_agent" / "emulator" / "_proto"


# --- the generated modules ---------------------------------------------------------------------


def _serialized_descriptor(text: str) -> bytes:
    match = re.search(r"AddSerializedFile\((b'.*?')\)\n", text, re.DOTALL)
    assert match, "no serialized descriptor in the generated module"
    return bytes(ast.literal_eval(match.group(1)))


def _without_versions(text: str) -> str:
    text = re.sub(
        r"ValidateProtobufRuntimeVersion\(.*?\)", "ValidateProtobufRuntimeVersion(...)", text, flags=re.DOTALL
    )
    text = re.sub(r"(Protobuf Python Version: |GRPC_GENERATED_VERSION = )\S+", r"\1<version>", text)
    return text


def test_the_committed_modules_are_what_proto_generates(tmp_path: Path) -> None:
    written = regenerate.generate(SOURCE, tmp_path)
    committed_files = {p.name for p in COMMITTED.iterdir() if p.is_file() and p.suffix != ".pyc"}
    assert {p.name for p in written} == committed_files - {"__init__.py"}
    for name in ("emulator_controller_pb2.pyi", regenerate.PROTO_NAME):  # no version stamps in these
        assert (tmp_path / name).read_text() == (COMMITTED / name).read_text(), name
    committed = (COMMITTED / "emulator_controller_pb2.py").read_text()
    fresh = (tmp_path / "emulator_controller_pb2.py").read_text()
    assert _serialized_descriptor(fresh) == _serialized_descriptor(committed)
    committed_grpc = (COMMITTED / "emulator_controller_pb2_grpc.py").read_text()
    fresh_grpc = (tmp_path / "emulator_controller_pb2_grpc.py").read_text()
    same_tools = f"GRPC_GENERATED_VERSION = '{_tools_version()}'" in committed_grpc
    if same_tools:  # the same grpcio-tools: byte for byte
        assert fresh == committed and fresh_grpc == committed_grpc
    else:  # another release of the tools: the same code apart from its version stamps
        assert _without_versions(fresh) == _without_versions(committed)
        assert _without_versions(fresh_grpc) == _without_versions(committed_grpc)


def _tools_version() -> str:
    from importlib.metadata import version

    return version("grpcio-tools")


def test_the_packaged_proto_is_the_repositorys_proto() -> None:
    assert (COMMITTED / "emulator_controller.proto").read_bytes() == SOURCE.read_bytes()


# --- wire compatibility: bytes encoded by hand with the emulator's field numbers ----------------


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def vint(number: int, value: int) -> bytes:
    return tag(number, 0) + varint(value)


def ldelim(number: int, payload: bytes) -> bytes:
    return tag(number, 2) + varint(len(payload)) + payload


def test_an_image_decodes_from_the_emulators_field_numbers() -> None:
    fmt = vint(1, 2) + ldelim(2, vint(1, 1)) + vint(3, 540) + vint(4, 1200) + vint(5, 0)
    wire = ldelim(1, fmt) + ldelim(4, b"\x01\x02\x03") + vint(5, 7) + vint(6, 1_767_225_600_000_000)
    image = pb.Image.FromString(wire)
    assert image.format.format == pb.ImageFormat.RGB888 == 2
    assert image.format.rotation.rotation == pb.Rotation.LANDSCAPE == 1
    assert (image.format.width, image.format.height) == (540, 1200)
    assert (image.image, image.seq, image.timestampUs) == (b"\x01\x02\x03", 7, 1_767_225_600_000_000)
    assert pb.ImageFormat.PNG == 0 and pb.ImageFormat.RGBA8888 == 1


def test_a_status_decodes_hardware_config_and_platform_config() -> None:
    entry = ldelim(1, ldelim(1, b"hw.lcd.width") + ldelim(2, b"1080"))
    vm = vint(1, 2) + vint(2, 4) + vint(3, 2 << 30)
    wire = (
        ldelim(1, b"37.1.11.0") + vint(2, 5000) + vint(3, 1) + ldelim(4, vm) + ldelim(5, entry) + vint(6, 5)
        + ldelim(7, ldelim(1, b"androidVersion") + ldelim(2, b"16"))
        + ldelim(8, ldelim(1, b"hw.keyboard") + ldelim(2, b"false"))
    )
    status = pb.EmulatorStatus.FromString(wire)
    assert (status.version, status.uptime, status.booted, status.heartbeat) == ("37.1.11.0", 5000, True, 5)
    assert status.vmConfig.hypervisorType == pb.VmConfiguration.KVM
    assert (status.vmConfig.numberOfCpuCores, status.vmConfig.ramSizeBytes) == (4, 2 << 30)
    assert [(e.key, e.value) for e in status.hardwareConfig.entry] == [("hw.lcd.width", "1080")]
    assert dict(status.guestConfig) == {"androidVersion": "16"}
    assert dict(status.platformConfig) == {"hw.keyboard": "false"}


def test_touches_and_keys_encode_with_the_emulators_field_numbers() -> None:
    event = pb.TouchEvent(
        touches=[pb.Touch(x=250, y=50, identifier=3, pressure=1024, expiration=pb.Touch.NEVER_EXPIRE)], display=0
    )
    touch = vint(1, 250) + vint(2, 50) + vint(3, 3) + vint(4, 1024) + vint(7, 1)
    assert event.SerializeToString() == ldelim(1, touch)
    lift = pb.Touch(x=250, y=50, identifier=3, pressure=0, touch_major=5, touch_minor=6, orientation=8)
    assert lift.SerializeToString() == vint(1, 250) + vint(2, 50) + vint(3, 3) + vint(5, 5) + vint(6, 6) + vint(8, 8)
    key = pb.KeyboardEvent(
        codeType=pb.KeyboardEvent.Evdev, eventType=pb.KeyboardEvent.keypress, keyCode=158, key="GoBack", text="hi"
    )
    assert key.SerializeToString() == vint(1, 1) + vint(2, 2) + vint(3, 158) + ldelim(4, b"GoBack") + ldelim(5, b"hi")
    # streamInputEvent's InputEvent: oneof type { key_event = 1; touch_event = 2; ... } (emulator-facts.md)
    assert pb.InputEvent(touch_event=event).SerializeToString() == ldelim(2, ldelim(1, touch))
    assert pb.InputEvent(key_event=key).SerializeToString() == ldelim(1, key.SerializeToString())
    service = pb.DESCRIPTOR.services_by_name["EmulatorController"]
    assert service.methods_by_name["streamInputEvent"].client_streaming


def test_the_service_paths_are_the_emulators() -> None:
    service = pb.DESCRIPTOR.services_by_name["EmulatorController"]
    assert service.full_name == "android.emulation.control.EmulatorController"
    methods = {m.name: (m.input_type.full_name, m.output_type.full_name, m.server_streaming) for m in service.methods}
    assert methods == {
        "getStatus": ("google.protobuf.Empty", "android.emulation.control.EmulatorStatus", False),
        "getScreenshot": ("android.emulation.control.ImageFormat", "android.emulation.control.Image", False),
        "streamScreenshot": ("android.emulation.control.ImageFormat", "android.emulation.control.Image", True),
        "sendTouch": ("android.emulation.control.TouchEvent", "google.protobuf.Empty", False),
        "streamInputEvent": ("android.emulation.control.InputEvent", "google.protobuf.Empty", False),
        "sendKey": ("android.emulation.control.KeyboardEvent", "google.protobuf.Empty", False),
        "setBattery": ("android.emulation.control.BatteryState", "google.protobuf.Empty", False),
        "getBattery": ("google.protobuf.Empty", "android.emulation.control.BatteryState", False),
        "setGps": ("android.emulation.control.GpsState", "google.protobuf.Empty", False),
        "getGps": ("google.protobuf.Empty", "android.emulation.control.GpsState", False),
        "sendFingerprint": ("android.emulation.control.Fingerprint", "google.protobuf.Empty", False),
        "getPhysicalModel": ("android.emulation.control.PhysicalModelValue",
                             "android.emulation.control.PhysicalModelValue", False),
        "setPosture": ("android.emulation.control.Posture", "google.protobuf.Empty", False),
    }


def test_the_device_state_messages_encode_with_the_emulators_field_numbers() -> None:
    """BatteryState, GpsState, Fingerprint and Posture as emulator 37.1.11's proto numbers them
    (Posture's one field is 3)."""
    battery = pb.BatteryState(hasBattery=True, isPresent=True, charger=pb.BatteryState.USB, chargeLevel=42,
                              health=pb.BatteryState.OVERHEATED, status=pb.BatteryState.CHARGING)
    assert battery.SerializeToString() == vint(1, 1) + vint(2, 1) + vint(3, 2) + vint(4, 42) + vint(5, 4) + vint(6, 1)
    gps = pb.GpsState.FromString(tag(2, 1) + struct.pack("<d", 48.85) + tag(3, 1) + struct.pack("<d", 2.35)
                                 + tag(6, 1) + struct.pack("<d", 35.0) + vint(7, 9) + vint(1, 1))
    assert (gps.latitude, gps.longitude, gps.altitude) == (48.85, 2.35, 35.0)
    assert (gps.satellites, gps.passiveUpdate) == (9, True)
    assert pb.Fingerprint(isTouching=True, touchId=2).SerializeToString() == vint(1, 1) + vint(2, 2)
    assert pb.Posture(value=pb.Posture.POSTURE_HALF_OPENED).SerializeToString() == vint(3, 2)
    assert pb.Posture.POSTURE_TENT == 5 and pb.BatteryState.FULL == 4 and pb.BatteryState.WIRELESS == 3
    model = pb.PhysicalModelValue(target=pb.PhysicalModelValue.POSTURE, value=pb.ParameterValue(data=[2.0]))
    assert model.SerializeToString() == vint(1, 16) + ldelim(3, ldelim(1, struct.pack("<f", 2.0)))


# --- the SDK's proto, compared field by field --------------------------------------------------

SDK_LIKE = '''
// An SDK-shaped proto: comments, options, nesting, oneofs, rpcs with bodies, and more than we use.
syntax = "proto3";
option java_multiple_files = true;
option java_package = "com.android.emulator.control";
package android.emulation.control;
import "google/protobuf/empty.proto";

/* service EmulatorController { rpc getStatus(Nothing) returns (Nothing); } -- a block comment */
service EmulatorController {
    rpc streamSensor(SensorValue) returns (stream SensorValue) {}
    rpc setBattery(BatteryState) returns (google.protobuf.Empty) {}
    rpc getBattery(google.protobuf.Empty) returns (BatteryState) {}
    rpc setGps(GpsState) returns (google.protobuf.Empty) {}
    rpc getGps(google.protobuf.Empty) returns (GpsState) {}
    rpc sendFingerprint(Fingerprint) returns (google.protobuf.Empty) {}
    rpc getPhysicalModel(PhysicalModelValue) returns (PhysicalModelValue) {}
    rpc sendKey(KeyboardEvent) returns (google.protobuf.Empty) {}
    rpc sendTouch(TouchEvent) returns (google.protobuf.Empty) {}
    rpc injectWheel(stream WheelEvent) returns (google.protobuf.Empty) {}
    rpc streamInputEvent(stream InputEvent) returns (google.protobuf.Empty) {}
    rpc getStatus(google.protobuf.Empty) returns (EmulatorStatus) {}
    rpc getScreenshot(ImageFormat) returns (Image) {}
    rpc streamScreenshot(ImageFormat)
            returns (stream Image) {}
    rpc getLogcat(LogMessage) returns (LogMessage) {
        option deprecated = true;
    }
    rpc setPosture(Posture) returns (google.protobuf.Empty) {}
}
message Fingerprint { bool isTouching = 1; int32 touchId = 2; }
message GpsState {
    bool passiveUpdate = 1; double latitude = 2; double longitude = 3; double speed = 4;
    double bearing = 5; double altitude = 6; int32 satellites = 7;
}
message BatteryState {
    enum BatteryStatus { UNKNOWN = 0; CHARGING = 1; DISCHARGING = 2; NOT_CHARGING = 3; FULL = 4; }
    enum BatteryCharger { NONE = 0; AC = 1; USB = 2; WIRELESS = 3; }
    enum BatteryHealth { GOOD = 0; FAILED = 1; DEAD = 2; OVERVOLTAGE = 3; OVERHEATED = 4; }
    bool hasBattery = 1; bool isPresent = 2; BatteryCharger charger = 3; int32 chargeLevel = 4;
    BatteryHealth health = 5; BatteryStatus status = 6;
}
message Posture {
    enum PostureValue {
        POSTURE_UNKNOWN = 0; POSTURE_CLOSED = 1; POSTURE_HALF_OPENED = 2; POSTURE_OPENED = 3;
        POSTURE_FLIPPED = 4; POSTURE_TENT = 5; POSTURE_MAX = 6;
    }
    PostureValue value = 3;
}
message SensorValue { enum State { OK = 0; NO_SERVICE = -3; } State status = 2; }
message PhysicalModelValue {
    enum State { OK = 0; NO_SERVICE = -3; DISABLED = -2; UNKNOWN = -1; }
    enum PhysicalType {
        POSITION = 0; ROTATION = 1; MAGNETIC_FIELD = 2; TEMPERATURE = 3; PROXIMITY = 4; LIGHT = 5; PRESSURE = 6;
        HUMIDITY = 7; VELOCITY = 8; AMBIENT_MOTION = 9; HINGE_ANGLE0 = 10; HINGE_ANGLE1 = 11; HINGE_ANGLE2 = 12;
        ROLLABLE0 = 13; ROLLABLE1 = 14; ROLLABLE2 = 15; POSTURE = 16; HEART_RATE = 17; RGBC_LIGHT = 18; WRIST_TILT = 19;
    }
    PhysicalType target = 1; State status = 2; ParameterValue value = 3;
    enum Interpolation { SMOOTH = 0; STEP = 1; }
    Interpolation interpolation = 4;
}
message WheelEvent { int32 dx = 1; }
message LogMessage { string contents = 1; int64 start = 2 [deprecated = true]; }
message ParameterValue { repeated float data = 1 [packed = true]; }
message VmConfiguration {
    enum VmHypervisorType { UNKNOWN = 0; NONE = 1; KVM = 2; HAXM = 3 [deprecated = true]; HVF = 4; WHPX = 5; AEHD = 6; }
    VmHypervisorType hypervisorType = 1;
    int32 numberOfCpuCores = 2;
    int64 ramSizeBytes = 3;
}
message Touch {
    int32 x = 1; int32 y = 2; int32 identifier = 3; int32 pressure = 4;
    int32 touch_major = 5; int32 touch_minor = 6;
    enum EventExpiration { EVENT_EXPIRATION_UNSPECIFIED = 0; NEVER_EXPIRE = 1; }
    EventExpiration expiration = 7;
    int32 orientation = 8;
}
message TouchEvent { repeated Touch touches = 1; int32 display = 2; }
message KeyboardEvent {
    enum KeyCodeType { Usb = 0; Evdev = 1; XKB = 2; Win = 3; Mac = 4; }
    enum KeyEventType { keydown = 0; keyup = 1; keypress = 2; }
    KeyCodeType codeType = 1; KeyEventType eventType = 2; int32 keyCode = 3; string key = 4; string text = 5;
}
message InputEvent {
    oneof type { KeyboardEvent key_event = 1; TouchEvent touch_event = 2; }
};
message ImageTransport {
    enum TransportChannel { TRANSPORT_CHANNEL_UNSPECIFIED = 0; MMAP = 1; }
    TransportChannel channel = 1; string handle = 2;
}
message FoldedDisplay { uint32 width = 1; uint32 height = 2; uint32 xOffset = 3; uint32 yOffset = 4; }
enum DisplayModeValue { PHONE = 0; FOLDABLE = 1; TABLET = 2; DESKTOP = 3; }
message ImageFormat {
    enum ImgFormat { PNG = 0; RGBA8888 = 1; RGB888 = 2; }
    ImgFormat format = 1;
    Rotation rotation = 2;
    uint32 width = 3; uint32 height = 4; uint32 display = 5;
    ImageTransport transport = 6; FoldedDisplay foldedDisplay = 7; DisplayModeValue displayMode = 8;
}
message Image {
    ImageFormat format = 1;
    uint32 width = 2 [deprecated = true];   // width is contained in format.
    uint32 height = 3 [deprecated = true];
    bytes image = 4; uint32 seq = 5; uint64 timestampUs = 6;
}
message Rotation {
    enum SkinRotation { PORTRAIT = 0; LANDSCAPE = 1; REVERSE_PORTRAIT = 2; REVERSE_LANDSCAPE = 3; }
    SkinRotation rotation = 1; double xAxis = 2; double yAxis = 3; double zAxis = 4;
}
message Entry { string key = 1; string value = 2; }
message EntryList { repeated Entry entry = 1; }
message EmulatorStatus {
    string version = 1; uint64 uptime = 2; bool booted = 3; VmConfiguration vmConfig = 4;
    EntryList hardwareConfig = 5 [deprecated = true];
    uint64 heartbeat = 6;
    map<string, string> guestConfig = 7;
    map<string, string> platformConfig = 8;
    reserved 9 to 11;
}
'''


def test_an_sdk_proto_with_comments_options_and_nesting_matches_ours() -> None:
    assert compare(own_model(), parse_proto(SDK_LIKE)) == []


def test_our_own_proto_text_matches_our_generated_modules() -> None:
    assert compare(own_model(), parse_proto(SOURCE.read_text())) == []
    assert compare(parse_proto(SOURCE.read_text()), own_model()) == []


def test_a_renumbered_or_retyped_field_is_reported() -> None:
    changed = SDK_LIKE.replace("uint32 seq = 5;", "uint32 seq = 9;").replace(
        "int32 pressure = 4;", "float pressure = 4;"
    )
    assert compare(own_model(), parse_proto(changed)) == [
        "android.emulation.control.Image.seq is field 9, not 5",
        "android.emulation.control.Touch.pressure is float, not int32",
    ]


def test_an_older_emulator_without_platform_config_is_reported() -> None:
    older = SDK_LIKE.replace("map<string, string> platformConfig = 8;", "").replace(
        "rpc streamScreenshot(ImageFormat)\n            returns (stream Image) {}", ""
    )
    assert compare(own_model(), parse_proto(older)) == [
        "android.emulation.control.EmulatorStatus.platformConfig (field 8) is missing",
        "rpc android.emulation.control.EmulatorController.streamScreenshot is missing",
    ]


def test_a_renamed_field_and_a_changed_enum_are_reported() -> None:
    changed = SDK_LIKE.replace("int32 identifier = 3;", "int32 id = 3;").replace("RGB888 = 2;", "RGB888 = 3;")
    assert compare(own_model(), parse_proto(changed)) == [
        "android.emulation.control.Touch: field 3 is 'id', not 'identifier'",
        "android.emulation.control.ImageFormat.ImgFormat.RGB888 is 3, not 2",
    ]


def test_a_truncated_proto_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        parse_proto(SDK_LIKE[: SDK_LIKE.index("message Image {") + 30])


def test_the_sdk_proto_is_looked_for_in_the_seeds_order() -> None:
    env = {
        PROTO_ENV: "/explicit.proto",
        "ANDROID_HOME": "/home-sdk",
        "ANDROID_SDK_ROOT": "/root-sdk",
        "HOME": "/home/u",
    }
    rel = Path("emulator/lib/emulator_controller.proto")
    assert sdk_proto_candidates(env, "linux") == [
        Path("/explicit.proto"), Path("/home-sdk") / rel, Path("/root-sdk") / rel, Path("/home/u/Android/Sdk") / rel
    ]
    assert sdk_proto_candidates({"HOME": "/Users/u"}, "darwin") == [Path("/Users/u/Library/Android/sdk") / rel]
    assert sdk_proto_candidates({"LOCALAPPDATA": r"C:\L"}, "win32") == [Path(r"C:\L") / "Android" / "Sdk" / rel]


def test_proto_source_reports_an_installed_sdk_proto_that_matches(tmp_path: Path) -> None:
    sdk = tmp_path / "sdk"
    proto = sdk / "emulator" / "lib" / "emulator_controller.proto"
    proto.parent.mkdir(parents=True)
    proto.write_text(SDK_LIKE)
    source = inspect(env={"ANDROID_HOME": str(sdk), "HOME": str(tmp_path)})
    assert source.sdk_proto == proto and source.differences == () and source.matches_sdk is True
    assert "declares the same for every message the driver uses" in source.describe()
    proto.write_text(SDK_LIKE.replace("uint32 seq = 5;", "uint32 seq = 9;"))
    source = inspect(env={"ANDROID_HOME": str(sdk), "HOME": str(tmp_path)})
    assert source.matches_sdk is False
    assert (
        "1 difference(s) for the messages the driver uses: android.emulation.control.Image.seq is field 9, not 5"
        in source.describe()
    )


def test_proto_source_says_when_no_sdk_proto_is_installed(tmp_path: Path) -> None:
    source = inspect(env={PROTO_ENV: str(tmp_path / "missing.proto"), "HOME": str(tmp_path)})
    assert source.sdk_proto is None and source.matches_sdk is None
    assert source.speaks == COMMITTED / "emulator_controller.proto"
    assert "no installed emulator proto found" in source.describe()
    assert f"{PROTO_ENV} names {tmp_path / 'missing.proto'}, which is not a file" in source.describe()


def test_the_package_exposes_proto_source() -> None:
    import pytest_mobile_agent.emulator as emulator

    assert emulator.PROTO_SOURCE is proto_source.proto_source()
    assert emulator.PROTO_SOURCE.speaks.name == "emulator_controller.proto"


TOKENS = ["message", "enum", "service", "rpc", "returns", "stream", "oneof", "option", "map", "repeated",
          "package", "reserved", "{", "}", "(", ")", "<", ">", "[", "]", ";", "=", ",", "x", "Image", "1",
          "-3", "0x1f", "1.5", '"s"', "//c\n", "/*c*/", "int32", "google.protobuf.Empty"]


@given(st.lists(st.sampled_from(TOKENS), max_size=80))
def test_the_proto_reader_fails_only_with_a_protocol_error_on_token_soup(tokens: list[str]) -> None:
    with contextlib.suppress(ProtocolError):
        model = parse_proto(" ".join(tokens))
        assert all(isinstance(d, str) for d in compare(own_model(), model))  # and it compares


@given(st.text(max_size=400))
def test_the_proto_reader_fails_only_with_a_protocol_error_on_any_text(text: str) -> None:
    with contextlib.suppress(ProtocolError):
        model = parse_proto(text)
        assert all(isinstance(d, str) for d in compare(own_model(), model))


def test_deep_nesting_is_a_protocol_error_not_a_recursion_error() -> None:
    with pytest.raises(ProtocolError, match="nested more than"):
        parse_proto("message m { " * 500)
