package dev.countersign.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.json.Json;

/** The claims of a JWT the stack obtained itself (read, not verified: the services verify). */
final class JwtClaims {

    private JwtClaims() {
    }

    static JsonNode of(String jwt) {
        String[] parts = jwt.split("\\.");
        if (parts.length != 3) {
            throw new IllegalArgumentException("Not a JWT");
        }
        try {
            return Json.mapper().readTree(Base64.getUrlDecoder().decode(parts[1]));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
