package dev.countersign.contracts.catalogue;

/** One broken rule: which parameter, and what would have been accepted. */
public record Violation(String field, String message) {

    @Override
    public String toString() {
        return field + ": " + message;
    }
}
