"""The kernel of the virtual device: the bottom layer, which imports no other part of the double.

Processes and signals (`process`), credentials (`creds`), the file system and its mounts (`fs`,
`mounts`), what the kernel synthesizes there (`procfs`: /proc, /dev/tty), byte channels (`streams`:
pipes, open files, the seam's `DeviceStream`), pseudo-terminals (`pty`), sockets (`sockets`), the
programs installed in /system/bin (`binaries`), Landlock confinement of host tools (`confine`) and
the digits the tools accept (`numbers`).
"""
