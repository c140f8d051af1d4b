"""`python -m pytest_mobile_agent <command>`: the command line (pytest_mobile_agent.cli.main)."""

from pytest_mobile_agent.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
