package dev.countersign.executor.external.egress;

/** An external call was attempted outside an open {@link GateScope}: refused before anything left the process. */
public class UngatedCallException extends IllegalStateException {

    public UngatedCallException(String message) {
        super(message);
    }
}
