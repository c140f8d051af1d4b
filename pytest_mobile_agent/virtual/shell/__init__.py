"""The device shell: Android's /system/bin/sh (mksh), the subset the driver and its users send.

`parser.parse(text)` gives the syntax tree (or ShellSyntaxError); `interp.sh_main(device)`
is the `sh` program the device's adbd runs as `/system/bin/sh -c CMD`.
"""
