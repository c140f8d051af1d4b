"""The fronts of the virtual device: what the host connects to, on loopback only.

`adb_endpoint` (the built-in adb server: the smart-socket protocol, host services, forwards),
`adbd_endpoint` (adbd's transport: CNXN, OPEN, WRTE... for a real adb server to attach), `console`
(the emulator console, `adb emu`), `controller` (the emulator controller double, gRPC) and
`silent_port` (a port that accepts and never answers). They share one accept loop
(`loopback.AcceptLoop`; the controller's gRPC server keeps its own) and reach a device only
through `seam.ServedDevice`. Above every other room of the double; the lab assembles them.
"""
