"""adbd's device side: the daemon (`daemon.Adbd`: its process, reverse rules, restarts) and the
services an OPEN reaches (`services.open_service`: shell, exec, abb, sync, sockets, reverse,
root/unroot). Above the kernel, beside the shell and the framework: adbd is a native daemon init
starts, not a framework service, and it reaches only files, processes, sockets, terminals and the
system properties. The host side of the transport (CNXN, OPEN, WRTE...) is fronts/adbd.py.
"""
