"""`python -m pytest_mobile_agent show-trace PATH`: a failed test's step trace, served on 127.0.0.1 as
an offline page built from the inspector's (its styles, its screen-and-highlight stage)."""
