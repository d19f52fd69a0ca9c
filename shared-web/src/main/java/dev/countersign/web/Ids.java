package dev.countersign.web;

import java.util.UUID;

import dev.countersign.contracts.ErrorCode;

/** Path identifiers. */
public final class Ids {

    private Ids() {
    }

    /**
     * A malformed id answers exactly like an unknown one (the given not-found code), never with a parse error, so the
     * answer reveals nothing about what exists. A missing id (an absent query parameter) is not found either.
     */
    public static UUID parseOrNotFound(String id, ErrorCode notFound, String detail) {
        if (id == null) {
            throw new ProblemException(notFound, detail);
        }
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new ProblemException(notFound, detail);
        }
    }
}
