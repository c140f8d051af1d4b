package dev.mobileagent.agent.core;

import org.json.JSONObject;

/** Where the agent's events go: the current connection, after its welcome. */
public interface EventOut {
    /** Sends an event with the connection's next seq; dropped when no host is welcomed. */
    void emit(String name, JSONObject data);

    /** The seq of the last event sent on the current connection (0 when none). */
    long lastSeq();

    EventOut NONE = new EventOut() {
        @Override
        public void emit(String name, JSONObject data) {}

        @Override
        public long lastSeq() {
            return 0;
        }
    };
}
