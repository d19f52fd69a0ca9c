package dev.countersign.agent.tools;

/** An argument a tool cannot accept; the message names the argument and what would have been accepted. */
public class ArgumentRefused extends RuntimeException {

    public ArgumentRefused(String message) {
        super(message, null, false, false);
    }
}
