package dev.countersign.executor.members;

import java.util.Set;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.EmailAddresses;
import dev.countersign.contracts.Groups;

/**
 * A person as one verified token shows them: tenant, subject, approver and admin groups, username, and the e-mail
 * address only if the identity provider says it verified it ({@code email_verified}): an address a person typed in
 * unverified could be anyone's, and the notifications of their tenant would go there.
 */
public record Sighting(String tenantId, String userId, String username, String email, boolean approver,
        boolean admin) {

    static final int MAX_USERNAME = 256;

    /**
     * The person of {@code tenantId} and {@code userId} (as the caller's token was checked) that {@code token} shows.
     */
    public static Sighting of(String tenantId, String userId, Set<String> groups, JsonWebToken token) {
        return new Sighting(tenantId, userId, printable(token.getClaim("preferred_username"), MAX_USERNAME),
                verifiedEmail(token), groups.contains(Groups.APPROVER), groups.contains(Groups.ADMIN));
    }

    /**
     * The address, if verified and plain ({@link EmailAddresses#isPlain}, the rule for every address Countersign sends
     * to; stricter than the table's check, V34, so an address kept here is never refused there).
     */
    private static String verifiedEmail(JsonWebToken token) {
        Object verified = token.getClaim("email_verified");
        boolean isVerified = Boolean.TRUE.equals(verified) || "true".equals(String.valueOf(verified));
        return isVerified && token.getClaim("email") instanceof String email && EmailAddresses.isPlain(email)
                ? email
                : null;
    }

    /**
     * The claim if it is a string without control, format or line-separating characters (a superset of what the table's
     * check, V34, calls {@code [[:cntrl:]]} under the libc and ICU locales), else null.
     */
    private static String printable(Object claim, int maxLength) {
        return claim instanceof String value && !value.isBlank() && value.length() <= maxLength
                && value.chars().noneMatch(c -> Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
                        || c == '\u2028' || c == '\u2029')
                                ? value
                                : null;
    }
}
