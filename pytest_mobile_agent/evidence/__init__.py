"""The evidence of a device test, typed: what records it and the formats it is kept in.

    trace.py      the step trace's recorder (a StepListener: each step, its screens, its tree)
    video.py      the video of a target: the controller's frames through PyAV, or screenrecord segments
    tracefile.py  the trace's file format (docs/trace-format.md): its one reader and writer
    steptext.py   how a step reads as text (its arguments, its outcome, its line)
    logtimes.py   logcat's lines on the host's clock

Below the pytest surface and the command line: the plugin decides when to keep what
(plugin/evidence.py), the trace viewer reads what was kept (cli/trace_viewer).
"""
