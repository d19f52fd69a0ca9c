package dev.countersign.executor.decision;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.UUID;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.web.ProblemException;

/** The opaque cursor of {@code GET /api/actions}: the last row's (proposedAt, id), base64url. */
record PageCursor(Instant proposedAt, UUID id) {

    static PageCursor after(ActionRow last) {
        return new PageCursor(last.proposedAt(), last.id());
    }

    String encode() {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((proposedAt + "|" + id).getBytes(StandardCharsets.UTF_8));
    }

    static PageCursor decode(String cursor) {
        try {
            String[] parts = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8).split("\\|");
            if (parts.length != 2) {
                throw new IllegalArgumentException("two parts expected");
            }
            return new PageCursor(Instant.parse(parts[0]), UUID.fromString(parts[1]));
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "The cursor is not one this API gave out; start again without it.");
        }
    }
}
