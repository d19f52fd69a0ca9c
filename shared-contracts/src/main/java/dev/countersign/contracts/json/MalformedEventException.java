package dev.countersign.contracts.json;

/** An event that cannot be read at all: it goes to a dead-letter topic, never half-processed. */
public class MalformedEventException extends RuntimeException {

    public MalformedEventException(String message, Throwable cause) {
        super(message, cause);
    }
}
