"""The command-line tools: `python -m pytest_mobile_agent` (main.py), the doctor and the inspector.

They open the driver through `pytest_mobile_agent.stack`, as the pytest fixtures do, and never import
the pytest surface (`pytest_mobile_agent.plugin`).
"""
