package dev.countersign.web;

import jakarta.enterprise.context.RequestScoped;

import org.eclipse.microprofile.jwt.JsonWebToken;

import io.quarkus.security.UnauthorizedException;

/**
 * The caller, from the verified bearer token: the tenant from the {@code tenant} claim, the user from {@code sub}. A
 * token without either is refused as unauthenticated.
 */
@RequestScoped
public class CurrentUser {

    public static final String TENANT_CLAIM = "tenant";

    private final JsonWebToken token;

    public CurrentUser(JsonWebToken token) {
        this.token = token;
    }

    public String tenantId() {
        // A claim of another JSON type (a number, an object) is no tenant either.
        Object tenant = token.getClaim(TENANT_CLAIM);
        if (!(tenant instanceof String name) || name.isBlank()) {
            throw new UnauthorizedException("the bearer token names no tenant");
        }
        return name;
    }

    public String userId() {
        String subject = token.getSubject();
        if (subject == null || subject.isBlank()) {
            throw new UnauthorizedException("the bearer token names no user");
        }
        return subject;
    }
}
