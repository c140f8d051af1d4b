"""The device shell: Android's /system/bin/sh (mksh), the subset the driver and its users send.

Above the kernel, below the programs. The language: `syntax` (the tree and ShellSyntaxError),
`words` (the scanner and words), `parser` (the grammar; `parse(text)`), `arith` (`$((...))`).
Running it: `interpreter` (lists, pipelines, commands, over `redirection`, `expansion` and
`context`, the process and kernel services a shell has), `builtins` (with `formatting` for echo and
printf), `lookup` (command search), `state` (variables, traps, control flow) and `main`
(`sh_main(system)`, the `sh` program adbd runs as `/system/bin/sh -c CMD`).
"""
