"""The agent double: `dev.mobileagent.agent.Main` of the virtual device's `app_process`.

It speaks agent protocol 1 exactly as docs/protocol.md says and as the Java agent does, over the
device's abstract socket, and serves snapshots, events, input, screenshots and bounds from the
device's UI model (`virtual/ui`). Its modules follow the Java agent's packages, so the two read side
by side:

=================  ==============================================  ================================
module             what it holds                                   Java agent
=================  ==============================================  ================================
``server``         connections, handshake, replacement, requests,  ``server/``, ``core/Agent``
                   events, pings (``AgentCore``, ``Identity``)
``tree``           tree reading, the per-window cache, window      ``tree/``
                   metadata, serialisation
``idle``           the bounded idle wait                           ``core/IdleTracker``
``input``          taps, long presses, swipes, keys                ``input/Gestures``
``text``           text entry: direct, keys, clipboard             ``input/TextEntry``
``screenshot``     screenshots                                     ``core/Agent.screenshot``
``toasts``         the toast buffer                                ``core/Toasts``
``params``         request errors and parameter checks             ``core/AgentError``, ``Params``
``platform``       the seam to the device and the thread gate      ``platform/``
``process``        the process: launch lines, UI automation,       ``Main``, ``android/AndroidAgent``
                   accept loop, idle exit
=================  ==============================================  ================================
"""

from pytest_mobile_agent.virtual.agent.params import RequestError
from pytest_mobile_agent.virtual.agent.platform import (
    AgentHost,
    Gate,
    Platform,
    ProcessGate,
    Running,
)
from pytest_mobile_agent.virtual.agent.process import (
    MAIN_CLASS,
    Args,
    conflict_line,
    display_info,
    error_line,
    main,
    parse_args,
    ready_line,
    register,
)
from pytest_mobile_agent.virtual.agent.server import (
    AGENT_NAME,
    CAPABILITIES,
    PROTOCOLS,
    SHELL_UID,
    AgentCore,
    Connection,
    Identity,
    build_of,
    version_in,
)

__all__ = [
    "AGENT_NAME", "CAPABILITIES", "MAIN_CLASS", "PROTOCOLS", "SHELL_UID", "AgentCore", "AgentHost", "Args",
    "Connection",
    "Gate", "Identity", "Platform", "ProcessGate", "RequestError", "Running", "build_of", "conflict_line",
    "display_info", "error_line", "main", "parse_args", "ready_line", "register",
    "version_in",
]
