"""The emulated hardware a virtual device's emulator drives from outside the guest: the network
link's speed and latency (the console's `network speed|delay|status`), the fingerprint sensor
(sendFingerprint) and a foldable's posture (setPosture).

The link's names and figures are the emulator's (android/network/constants.h,
ANDROID_NETWORK_LIST_MODES, and constants.cpp: kbit/s times 1000, latency in ms; `5g` and `full`
mean no limit, `none` no latency; a number sets both directions, `UP:DOWN` or `MIN:MAX` each;
android_network_speed_parse / android_network_latency_parse).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# name: (upload kbit/s, download kbit/s, min latency ms, max latency ms)
NETWORK_MODES: dict[str, tuple[float, float, int, int]] = {
    "gsm": (14.4, 14.4, 150, 550), "hscsd": (14.4, 57.6, 80, 400), "gprs": (28.8, 57.6, 35, 200),
    "umts": (384.0, 384.0, 35, 200), "edge": (473.6, 473.6, 80, 400), "hsdpa": (5760.0, 13980.0, 0, 0),
    "lte": (58000.0, 173000.0, 0, 0), "evdo": (75000.0, 280000.0, 0, 0),
}
#: the display names `help network speed` lists (dump_network_speeds)
SPEED_NAMES = {"gsm": "GSM/CD", "hscsd": "HSCSD", "gprs": "GPRS", "umts": "UMTS/3G", "edge": "EDGE/EGPRS",
               "hsdpa": "HSDPA", "lte": "LTE", "evdo": "EVDO", "5g": "no limit", "full": "no limit"}
UNLIMITED_SPEEDS = ("5g", "full")
NO_LATENCY = ("5g", "none")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")


@dataclass
class NetworkLink:
    upload_bps: float = 0.0  # 0: no limit (`full`, the default)
    download_bps: float = 0.0
    min_latency_ms: float = 0.0
    max_latency_ms: float = 0.0

    def set_speed(self, text: str) -> bool:
        """android_network_speed_parse: False for a value it cannot read."""
        if text in NETWORK_MODES:
            up, down, _, _ = NETWORK_MODES[text]
            self.upload_bps, self.download_bps = up * 1000, down * 1000
            return True
        if text in UNLIMITED_SPEEDS:
            self.upload_bps = self.download_bps = 0.0
            return True
        pair = _pair(text)
        if pair is None:
            return False
        self.upload_bps, self.download_bps = pair[0] * 1000, pair[1] * 1000
        return True

    def set_latency(self, text: str) -> bool:
        """android_network_latency_parse."""
        if text in NETWORK_MODES:
            _, _, low, high = NETWORK_MODES[text]
            self.min_latency_ms, self.max_latency_ms = low, high
            return True
        if text in NO_LATENCY:
            self.min_latency_ms = self.max_latency_ms = 0.0
            return True
        pair = _pair(text)
        if pair is None:
            return False
        self.min_latency_ms, self.max_latency_ms = pair
        return True


def _pair(text: str) -> tuple[float, float] | None:
    """strtod on the text, then on what follows a colon (the second value defaults to the first)."""
    first = _NUMBER.match(text)
    if first is None:
        return None
    value = float(first.group(0))
    rest = text[first.end():]
    if rest.startswith(":"):
        second = _NUMBER.match(rest[1:])
        if second is not None:
            return value, float(second.group(0))
    return value, value


@dataclass
class Sensors:
    """The fingerprint sensor's touches, (finger id, touching) in order, and the posture (the
    proto's Posture values: 1 closed, 2 half opened, 3 opened, 4 flipped, 5 tent; 0 unknown on a
    phone, which has no hinge)."""

    fingerprint_touches: list[tuple[int, bool]] = field(default_factory=list)
    posture: int = 0
