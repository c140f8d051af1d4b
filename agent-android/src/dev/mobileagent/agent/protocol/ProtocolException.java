package dev.mobileagent.agent.protocol;

/** A peer broke protocol 1's framing or message rules (docs/protocol.md §1): the connection closes. */
public final class ProtocolException extends Exception {
    public ProtocolException(String message) {
        super(message);
    }
}
