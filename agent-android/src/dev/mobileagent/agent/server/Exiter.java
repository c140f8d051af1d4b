package dev.mobileagent.agent.server;

/** Ends the process; the host tests record the status instead. */
public interface Exiter {
    void exit(int status);

    Exiter SYSTEM = new Exiter() {
        @Override
        public void exit(int status) {
            System.exit(status);
        }
    };
}
