package dev.countersign.devsupport.testing.fuzz;

/**
 * One generated request.
 *
 * @param pathAndQuery
 *            percent-encoded
 * @param contentType
 *            null sends none
 * @param body
 *            null sends none
 * @param bodyKind
 *            which generator made the body (malformed, defective-object, ...)
 */
public record HttpInput(int index, Endpoint endpoint, String pathAndQuery, Credential credential,
        String contentType, String accept, byte[] body, String bodyKind) {

    /** What a failure message shows: enough to recognise the input, never a megabyte of it. */
    public String describe() {
        String bodyText = body == null ? "(none)" : new String(body, java.nio.charset.StandardCharsets.UTF_8);
        if (bodyText.length() > 300) {
            bodyText = bodyText.substring(0, 300) + "... (" + body.length + " bytes)";
        }
        String path = pathAndQuery.length() > 300 ? pathAndQuery.substring(0, 300) + "..." : pathAndQuery;
        return "#%d %s %s auth=%s content-type=%s accept=%s body[%s]=%s".formatted(index, endpoint.method(), path,
                credential.label(), contentType, accept, bodyKind, bodyText);
    }
}
