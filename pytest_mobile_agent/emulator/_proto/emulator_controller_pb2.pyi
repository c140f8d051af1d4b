from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DisplayModeValue(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHONE: _ClassVar[DisplayModeValue]
    FOLDABLE: _ClassVar[DisplayModeValue]
    TABLET: _ClassVar[DisplayModeValue]
    DESKTOP: _ClassVar[DisplayModeValue]
PHONE: DisplayModeValue
FOLDABLE: DisplayModeValue
TABLET: DisplayModeValue
DESKTOP: DisplayModeValue

class EntryList(_message.Message):
    __slots__ = ("entry",)
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    entry: _containers.RepeatedCompositeFieldContainer[Entry]
    def __init__(self, entry: _Optional[_Iterable[_Union[Entry, _Mapping]]] = ...) -> None: ...

class Entry(_message.Message):
    __slots__ = ("key", "value")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class VmConfiguration(_message.Message):
    __slots__ = ("hypervisorType", "numberOfCpuCores", "ramSizeBytes")
    class VmHypervisorType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[VmConfiguration.VmHypervisorType]
        NONE: _ClassVar[VmConfiguration.VmHypervisorType]
        KVM: _ClassVar[VmConfiguration.VmHypervisorType]
        HAXM: _ClassVar[VmConfiguration.VmHypervisorType]
        HVF: _ClassVar[VmConfiguration.VmHypervisorType]
        WHPX: _ClassVar[VmConfiguration.VmHypervisorType]
        AEHD: _ClassVar[VmConfiguration.VmHypervisorType]
    UNKNOWN: VmConfiguration.VmHypervisorType
    NONE: VmConfiguration.VmHypervisorType
    KVM: VmConfiguration.VmHypervisorType
    HAXM: VmConfiguration.VmHypervisorType
    HVF: VmConfiguration.VmHypervisorType
    WHPX: VmConfiguration.VmHypervisorType
    AEHD: VmConfiguration.VmHypervisorType
    HYPERVISORTYPE_FIELD_NUMBER: _ClassVar[int]
    NUMBEROFCPUCORES_FIELD_NUMBER: _ClassVar[int]
    RAMSIZEBYTES_FIELD_NUMBER: _ClassVar[int]
    hypervisorType: VmConfiguration.VmHypervisorType
    numberOfCpuCores: int
    ramSizeBytes: int
    def __init__(self, hypervisorType: _Optional[_Union[VmConfiguration.VmHypervisorType, str]] = ..., numberOfCpuCores: _Optional[int] = ..., ramSizeBytes: _Optional[int] = ...) -> None: ...

class EmulatorStatus(_message.Message):
    __slots__ = ("version", "uptime", "booted", "vmConfig", "hardwareConfig", "heartbeat", "guestConfig", "platformConfig")
    class GuestConfigEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class PlatformConfigEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VERSION_FIELD_NUMBER: _ClassVar[int]
    UPTIME_FIELD_NUMBER: _ClassVar[int]
    BOOTED_FIELD_NUMBER: _ClassVar[int]
    VMCONFIG_FIELD_NUMBER: _ClassVar[int]
    HARDWARECONFIG_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    GUESTCONFIG_FIELD_NUMBER: _ClassVar[int]
    PLATFORMCONFIG_FIELD_NUMBER: _ClassVar[int]
    version: str
    uptime: int
    booted: bool
    vmConfig: VmConfiguration
    hardwareConfig: EntryList
    heartbeat: int
    guestConfig: _containers.ScalarMap[str, str]
    platformConfig: _containers.ScalarMap[str, str]
    def __init__(self, version: _Optional[str] = ..., uptime: _Optional[int] = ..., booted: _Optional[bool] = ..., vmConfig: _Optional[_Union[VmConfiguration, _Mapping]] = ..., hardwareConfig: _Optional[_Union[EntryList, _Mapping]] = ..., heartbeat: _Optional[int] = ..., guestConfig: _Optional[_Mapping[str, str]] = ..., platformConfig: _Optional[_Mapping[str, str]] = ...) -> None: ...

class Rotation(_message.Message):
    __slots__ = ("rotation", "xAxis", "yAxis", "zAxis")
    class SkinRotation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PORTRAIT: _ClassVar[Rotation.SkinRotation]
        LANDSCAPE: _ClassVar[Rotation.SkinRotation]
        REVERSE_PORTRAIT: _ClassVar[Rotation.SkinRotation]
        REVERSE_LANDSCAPE: _ClassVar[Rotation.SkinRotation]
    PORTRAIT: Rotation.SkinRotation
    LANDSCAPE: Rotation.SkinRotation
    REVERSE_PORTRAIT: Rotation.SkinRotation
    REVERSE_LANDSCAPE: Rotation.SkinRotation
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    XAXIS_FIELD_NUMBER: _ClassVar[int]
    YAXIS_FIELD_NUMBER: _ClassVar[int]
    ZAXIS_FIELD_NUMBER: _ClassVar[int]
    rotation: Rotation.SkinRotation
    xAxis: float
    yAxis: float
    zAxis: float
    def __init__(self, rotation: _Optional[_Union[Rotation.SkinRotation, str]] = ..., xAxis: _Optional[float] = ..., yAxis: _Optional[float] = ..., zAxis: _Optional[float] = ...) -> None: ...

class ImageTransport(_message.Message):
    __slots__ = ("channel", "handle")
    class TransportChannel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TRANSPORT_CHANNEL_UNSPECIFIED: _ClassVar[ImageTransport.TransportChannel]
        MMAP: _ClassVar[ImageTransport.TransportChannel]
    TRANSPORT_CHANNEL_UNSPECIFIED: ImageTransport.TransportChannel
    MMAP: ImageTransport.TransportChannel
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    channel: ImageTransport.TransportChannel
    handle: str
    def __init__(self, channel: _Optional[_Union[ImageTransport.TransportChannel, str]] = ..., handle: _Optional[str] = ...) -> None: ...

class FoldedDisplay(_message.Message):
    __slots__ = ("width", "height", "xOffset", "yOffset")
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    XOFFSET_FIELD_NUMBER: _ClassVar[int]
    YOFFSET_FIELD_NUMBER: _ClassVar[int]
    width: int
    height: int
    xOffset: int
    yOffset: int
    def __init__(self, width: _Optional[int] = ..., height: _Optional[int] = ..., xOffset: _Optional[int] = ..., yOffset: _Optional[int] = ...) -> None: ...

class ImageFormat(_message.Message):
    __slots__ = ("format", "rotation", "width", "height", "display", "transport", "foldedDisplay", "displayMode")
    class ImgFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PNG: _ClassVar[ImageFormat.ImgFormat]
        RGBA8888: _ClassVar[ImageFormat.ImgFormat]
        RGB888: _ClassVar[ImageFormat.ImgFormat]
    PNG: ImageFormat.ImgFormat
    RGBA8888: ImageFormat.ImgFormat
    RGB888: ImageFormat.ImgFormat
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    TRANSPORT_FIELD_NUMBER: _ClassVar[int]
    FOLDEDDISPLAY_FIELD_NUMBER: _ClassVar[int]
    DISPLAYMODE_FIELD_NUMBER: _ClassVar[int]
    format: ImageFormat.ImgFormat
    rotation: Rotation
    width: int
    height: int
    display: int
    transport: ImageTransport
    foldedDisplay: FoldedDisplay
    displayMode: DisplayModeValue
    def __init__(self, format: _Optional[_Union[ImageFormat.ImgFormat, str]] = ..., rotation: _Optional[_Union[Rotation, _Mapping]] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., display: _Optional[int] = ..., transport: _Optional[_Union[ImageTransport, _Mapping]] = ..., foldedDisplay: _Optional[_Union[FoldedDisplay, _Mapping]] = ..., displayMode: _Optional[_Union[DisplayModeValue, str]] = ...) -> None: ...

class Image(_message.Message):
    __slots__ = ("format", "width", "height", "image", "seq", "timestampUs")
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMPUS_FIELD_NUMBER: _ClassVar[int]
    format: ImageFormat
    width: int
    height: int
    image: bytes
    seq: int
    timestampUs: int
    def __init__(self, format: _Optional[_Union[ImageFormat, _Mapping]] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., image: _Optional[bytes] = ..., seq: _Optional[int] = ..., timestampUs: _Optional[int] = ...) -> None: ...

class Touch(_message.Message):
    __slots__ = ("x", "y", "identifier", "pressure", "touch_major", "touch_minor", "expiration", "orientation")
    class EventExpiration(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        EVENT_EXPIRATION_UNSPECIFIED: _ClassVar[Touch.EventExpiration]
        NEVER_EXPIRE: _ClassVar[Touch.EventExpiration]
    EVENT_EXPIRATION_UNSPECIFIED: Touch.EventExpiration
    NEVER_EXPIRE: Touch.EventExpiration
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    PRESSURE_FIELD_NUMBER: _ClassVar[int]
    TOUCH_MAJOR_FIELD_NUMBER: _ClassVar[int]
    TOUCH_MINOR_FIELD_NUMBER: _ClassVar[int]
    EXPIRATION_FIELD_NUMBER: _ClassVar[int]
    ORIENTATION_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    identifier: int
    pressure: int
    touch_major: int
    touch_minor: int
    expiration: Touch.EventExpiration
    orientation: int
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., identifier: _Optional[int] = ..., pressure: _Optional[int] = ..., touch_major: _Optional[int] = ..., touch_minor: _Optional[int] = ..., expiration: _Optional[_Union[Touch.EventExpiration, str]] = ..., orientation: _Optional[int] = ...) -> None: ...

class TouchEvent(_message.Message):
    __slots__ = ("touches", "display")
    TOUCHES_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    touches: _containers.RepeatedCompositeFieldContainer[Touch]
    display: int
    def __init__(self, touches: _Optional[_Iterable[_Union[Touch, _Mapping]]] = ..., display: _Optional[int] = ...) -> None: ...

class InputEvent(_message.Message):
    __slots__ = ("key_event", "touch_event")
    KEY_EVENT_FIELD_NUMBER: _ClassVar[int]
    TOUCH_EVENT_FIELD_NUMBER: _ClassVar[int]
    key_event: KeyboardEvent
    touch_event: TouchEvent
    def __init__(self, key_event: _Optional[_Union[KeyboardEvent, _Mapping]] = ..., touch_event: _Optional[_Union[TouchEvent, _Mapping]] = ...) -> None: ...

class KeyboardEvent(_message.Message):
    __slots__ = ("codeType", "eventType", "keyCode", "key", "text")
    class KeyCodeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        Usb: _ClassVar[KeyboardEvent.KeyCodeType]
        Evdev: _ClassVar[KeyboardEvent.KeyCodeType]
        XKB: _ClassVar[KeyboardEvent.KeyCodeType]
        Win: _ClassVar[KeyboardEvent.KeyCodeType]
        Mac: _ClassVar[KeyboardEvent.KeyCodeType]
    Usb: KeyboardEvent.KeyCodeType
    Evdev: KeyboardEvent.KeyCodeType
    XKB: KeyboardEvent.KeyCodeType
    Win: KeyboardEvent.KeyCodeType
    Mac: KeyboardEvent.KeyCodeType
    class KeyEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        keydown: _ClassVar[KeyboardEvent.KeyEventType]
        keyup: _ClassVar[KeyboardEvent.KeyEventType]
        keypress: _ClassVar[KeyboardEvent.KeyEventType]
    keydown: KeyboardEvent.KeyEventType
    keyup: KeyboardEvent.KeyEventType
    keypress: KeyboardEvent.KeyEventType
    CODETYPE_FIELD_NUMBER: _ClassVar[int]
    EVENTTYPE_FIELD_NUMBER: _ClassVar[int]
    KEYCODE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    codeType: KeyboardEvent.KeyCodeType
    eventType: KeyboardEvent.KeyEventType
    keyCode: int
    key: str
    text: str
    def __init__(self, codeType: _Optional[_Union[KeyboardEvent.KeyCodeType, str]] = ..., eventType: _Optional[_Union[KeyboardEvent.KeyEventType, str]] = ..., keyCode: _Optional[int] = ..., key: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class ParameterValue(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, data: _Optional[_Iterable[float]] = ...) -> None: ...

class PhysicalModelValue(_message.Message):
    __slots__ = ("target", "status", "value")
    class State(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        OK: _ClassVar[PhysicalModelValue.State]
        NO_SERVICE: _ClassVar[PhysicalModelValue.State]
        DISABLED: _ClassVar[PhysicalModelValue.State]
        UNKNOWN: _ClassVar[PhysicalModelValue.State]
    OK: PhysicalModelValue.State
    NO_SERVICE: PhysicalModelValue.State
    DISABLED: PhysicalModelValue.State
    UNKNOWN: PhysicalModelValue.State
    class PhysicalType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        POSITION: _ClassVar[PhysicalModelValue.PhysicalType]
        ROTATION: _ClassVar[PhysicalModelValue.PhysicalType]
        MAGNETIC_FIELD: _ClassVar[PhysicalModelValue.PhysicalType]
        TEMPERATURE: _ClassVar[PhysicalModelValue.PhysicalType]
        PROXIMITY: _ClassVar[PhysicalModelValue.PhysicalType]
        LIGHT: _ClassVar[PhysicalModelValue.PhysicalType]
        PRESSURE: _ClassVar[PhysicalModelValue.PhysicalType]
        HUMIDITY: _ClassVar[PhysicalModelValue.PhysicalType]
        VELOCITY: _ClassVar[PhysicalModelValue.PhysicalType]
        AMBIENT_MOTION: _ClassVar[PhysicalModelValue.PhysicalType]
        HINGE_ANGLE0: _ClassVar[PhysicalModelValue.PhysicalType]
        HINGE_ANGLE1: _ClassVar[PhysicalModelValue.PhysicalType]
        HINGE_ANGLE2: _ClassVar[PhysicalModelValue.PhysicalType]
        ROLLABLE0: _ClassVar[PhysicalModelValue.PhysicalType]
        ROLLABLE1: _ClassVar[PhysicalModelValue.PhysicalType]
        ROLLABLE2: _ClassVar[PhysicalModelValue.PhysicalType]
        POSTURE: _ClassVar[PhysicalModelValue.PhysicalType]
        HEART_RATE: _ClassVar[PhysicalModelValue.PhysicalType]
        RGBC_LIGHT: _ClassVar[PhysicalModelValue.PhysicalType]
        WRIST_TILT: _ClassVar[PhysicalModelValue.PhysicalType]
    POSITION: PhysicalModelValue.PhysicalType
    ROTATION: PhysicalModelValue.PhysicalType
    MAGNETIC_FIELD: PhysicalModelValue.PhysicalType
    TEMPERATURE: PhysicalModelValue.PhysicalType
    PROXIMITY: PhysicalModelValue.PhysicalType
    LIGHT: PhysicalModelValue.PhysicalType
    PRESSURE: PhysicalModelValue.PhysicalType
    HUMIDITY: PhysicalModelValue.PhysicalType
    VELOCITY: PhysicalModelValue.PhysicalType
    AMBIENT_MOTION: PhysicalModelValue.PhysicalType
    HINGE_ANGLE0: PhysicalModelValue.PhysicalType
    HINGE_ANGLE1: PhysicalModelValue.PhysicalType
    HINGE_ANGLE2: PhysicalModelValue.PhysicalType
    ROLLABLE0: PhysicalModelValue.PhysicalType
    ROLLABLE1: PhysicalModelValue.PhysicalType
    ROLLABLE2: PhysicalModelValue.PhysicalType
    POSTURE: PhysicalModelValue.PhysicalType
    HEART_RATE: PhysicalModelValue.PhysicalType
    RGBC_LIGHT: PhysicalModelValue.PhysicalType
    WRIST_TILT: PhysicalModelValue.PhysicalType
    TARGET_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    target: PhysicalModelValue.PhysicalType
    status: PhysicalModelValue.State
    value: ParameterValue
    def __init__(self, target: _Optional[_Union[PhysicalModelValue.PhysicalType, str]] = ..., status: _Optional[_Union[PhysicalModelValue.State, str]] = ..., value: _Optional[_Union[ParameterValue, _Mapping]] = ...) -> None: ...

class Fingerprint(_message.Message):
    __slots__ = ("isTouching", "touchId")
    ISTOUCHING_FIELD_NUMBER: _ClassVar[int]
    TOUCHID_FIELD_NUMBER: _ClassVar[int]
    isTouching: bool
    touchId: int
    def __init__(self, isTouching: _Optional[bool] = ..., touchId: _Optional[int] = ...) -> None: ...

class GpsState(_message.Message):
    __slots__ = ("passiveUpdate", "latitude", "longitude", "speed", "bearing", "altitude", "satellites")
    PASSIVEUPDATE_FIELD_NUMBER: _ClassVar[int]
    LATITUDE_FIELD_NUMBER: _ClassVar[int]
    LONGITUDE_FIELD_NUMBER: _ClassVar[int]
    SPEED_FIELD_NUMBER: _ClassVar[int]
    BEARING_FIELD_NUMBER: _ClassVar[int]
    ALTITUDE_FIELD_NUMBER: _ClassVar[int]
    SATELLITES_FIELD_NUMBER: _ClassVar[int]
    passiveUpdate: bool
    latitude: float
    longitude: float
    speed: float
    bearing: float
    altitude: float
    satellites: int
    def __init__(self, passiveUpdate: _Optional[bool] = ..., latitude: _Optional[float] = ..., longitude: _Optional[float] = ..., speed: _Optional[float] = ..., bearing: _Optional[float] = ..., altitude: _Optional[float] = ..., satellites: _Optional[int] = ...) -> None: ...

class BatteryState(_message.Message):
    __slots__ = ("hasBattery", "isPresent", "charger", "chargeLevel", "health", "status")
    class BatteryStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[BatteryState.BatteryStatus]
        CHARGING: _ClassVar[BatteryState.BatteryStatus]
        DISCHARGING: _ClassVar[BatteryState.BatteryStatus]
        NOT_CHARGING: _ClassVar[BatteryState.BatteryStatus]
        FULL: _ClassVar[BatteryState.BatteryStatus]
    UNKNOWN: BatteryState.BatteryStatus
    CHARGING: BatteryState.BatteryStatus
    DISCHARGING: BatteryState.BatteryStatus
    NOT_CHARGING: BatteryState.BatteryStatus
    FULL: BatteryState.BatteryStatus
    class BatteryCharger(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        NONE: _ClassVar[BatteryState.BatteryCharger]
        AC: _ClassVar[BatteryState.BatteryCharger]
        USB: _ClassVar[BatteryState.BatteryCharger]
        WIRELESS: _ClassVar[BatteryState.BatteryCharger]
    NONE: BatteryState.BatteryCharger
    AC: BatteryState.BatteryCharger
    USB: BatteryState.BatteryCharger
    WIRELESS: BatteryState.BatteryCharger
    class BatteryHealth(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        GOOD: _ClassVar[BatteryState.BatteryHealth]
        FAILED: _ClassVar[BatteryState.BatteryHealth]
        DEAD: _ClassVar[BatteryState.BatteryHealth]
        OVERVOLTAGE: _ClassVar[BatteryState.BatteryHealth]
        OVERHEATED: _ClassVar[BatteryState.BatteryHealth]
    GOOD: BatteryState.BatteryHealth
    FAILED: BatteryState.BatteryHealth
    DEAD: BatteryState.BatteryHealth
    OVERVOLTAGE: BatteryState.BatteryHealth
    OVERHEATED: BatteryState.BatteryHealth
    HASBATTERY_FIELD_NUMBER: _ClassVar[int]
    ISPRESENT_FIELD_NUMBER: _ClassVar[int]
    CHARGER_FIELD_NUMBER: _ClassVar[int]
    CHARGELEVEL_FIELD_NUMBER: _ClassVar[int]
    HEALTH_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    hasBattery: bool
    isPresent: bool
    charger: BatteryState.BatteryCharger
    chargeLevel: int
    health: BatteryState.BatteryHealth
    status: BatteryState.BatteryStatus
    def __init__(self, hasBattery: _Optional[bool] = ..., isPresent: _Optional[bool] = ..., charger: _Optional[_Union[BatteryState.BatteryCharger, str]] = ..., chargeLevel: _Optional[int] = ..., health: _Optional[_Union[BatteryState.BatteryHealth, str]] = ..., status: _Optional[_Union[BatteryState.BatteryStatus, str]] = ...) -> None: ...

class Posture(_message.Message):
    __slots__ = ("value",)
    class PostureValue(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        POSTURE_UNKNOWN: _ClassVar[Posture.PostureValue]
        POSTURE_CLOSED: _ClassVar[Posture.PostureValue]
        POSTURE_HALF_OPENED: _ClassVar[Posture.PostureValue]
        POSTURE_OPENED: _ClassVar[Posture.PostureValue]
        POSTURE_FLIPPED: _ClassVar[Posture.PostureValue]
        POSTURE_TENT: _ClassVar[Posture.PostureValue]
        POSTURE_MAX: _ClassVar[Posture.PostureValue]
    POSTURE_UNKNOWN: Posture.PostureValue
    POSTURE_CLOSED: Posture.PostureValue
    POSTURE_HALF_OPENED: Posture.PostureValue
    POSTURE_OPENED: Posture.PostureValue
    POSTURE_FLIPPED: Posture.PostureValue
    POSTURE_TENT: Posture.PostureValue
    POSTURE_MAX: Posture.PostureValue
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: Posture.PostureValue
    def __init__(self, value: _Optional[_Union[Posture.PostureValue, str]] = ...) -> None: ...
