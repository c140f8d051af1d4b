"""The app measured: what the platform's own counters say of the app under test.

`launch` reads `am start -W`'s timing, `gfxinfo` the renderer's frame statistics (`dumpsys
gfxinfo PKG [framestats]`), `meminfo` the app's memory (`dumpsys meminfo PKG`), `procstat` its CPU
time (`/proc/PID/stat`): each a parser of the device's words, nothing else. `sampler.Perf` runs the
commands on a device (the `perf` fixture), `budget.Budget` holds a test's limits
(`@pytest.mark.perf(...)`) and `step_sampling.StepPerf` measures each of a test's actions for the
trace and the budgets.
"""
