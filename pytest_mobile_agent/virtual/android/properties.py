"""The system properties an API 36 emulator (sdk_gphone64_x86_64, userdebug) reports, as `getprop`
lists them; each device of a lab has its own `ro.serialno`. The store itself is a plain
`dict[str, str]` every process reads (the kernel's `System.properties`); `setprop` and adbd's
root/unroot write it.
"""

from __future__ import annotations

from pytest_mobile_agent.adb.wire import VIRTUAL_DEVICE_PROPERTY


def default_properties(serial: str, index: int) -> dict[str, str]:
    return {
        "ro.build.version.sdk": "36",
        "ro.build.version.release": "16",
        "ro.build.version.release_or_codename": "16",
        "ro.build.version.codename": "REL",
        "ro.build.version.security_patch": "2025-06-05",
        "ro.build.id": "BP22.250325.006",
        "ro.build.type": "userdebug",
        "ro.build.tags": "dev-keys",
        "ro.build.flavor": "sdk_gphone64_x86_64-userdebug",
        "ro.build.fingerprint": "google/sdk_gphone64_x86_64/emu64xa:16/BP22.250325.006/13344233:userdebug/dev-keys",
        "ro.product.model": "sdk_gphone64_x86_64",
        "ro.product.name": "sdk_gphone64_x86_64",
        "ro.product.device": "emu64xa",
        "ro.product.brand": "google",
        "ro.product.manufacturer": "Google",
        "ro.product.board": "goldfish_x86_64",
        "ro.product.cpu.abi": "x86_64",
        "ro.product.cpu.abilist": "x86_64,arm64-v8a",
        "ro.product.cpu.abilist64": "x86_64,arm64-v8a",
        "ro.product.cpu.abilist32": "",
        "ro.hardware": "ranchu",
        "ro.boot.hardware": "ranchu",
        "ro.kernel.qemu": "1",
        "ro.boot.qemu": "1",
        # the emulator's androidboot.qemu.avd_name (aosp platform/external/qemu android/android-emu/android/
        # userspace-boot-properties.cpp): the AVD's name, the avd.id its controller's discovery file gives
        "ro.boot.qemu.avd_name": "Pixel_7_API_36",
        "ro.serialno": f"EMULATOR36X1X{index // 10}X{index % 10}",
        "ro.boot.serialno": f"EMULATOR36X1X{index // 10}X{index % 10}",
        "ro.debuggable": "1",
        "ro.secure": "1",
        "ro.adb.secure": "0",
        "ro.sf.lcd_density": "420",
        "sys.boot_completed": "1",
        "dev.bootcomplete": "1",
        "init.svc.adbd": "running",
        "service.adb.root": "0",
        "persist.sys.timezone": "GMT",
        "persist.sys.locale": "en-US",
        "ro.opengles.version": "196610",
        "net.hostname": "localhost",
        VIRTUAL_DEVICE_PROPERTY: "1",  # the double says what it is: the plugin gives it the stand-in jar
    }
