package dev.mobileagent.agent.core;

/** A request's failure with its protocol error code (docs/protocol.md §4). */
public final class AgentError extends Exception {
    public final String code;
    public final boolean retryable;

    public AgentError(String code, String message) {
        this(code, message, "deadline_exceeded".equals(code) || "busy".equals(code));
    }

    public AgentError(String code, String message, boolean retryable) {
        super(message);
        this.code = code;
        this.retryable = retryable;
    }

    public static AgentError invalid(String message) {
        return new AgentError("invalid_params", message, false);
    }
}
