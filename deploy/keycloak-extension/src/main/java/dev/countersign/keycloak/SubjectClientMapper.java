package dev.countersign.keycloak;

import java.util.List;
import java.util.Map;

import jakarta.ws.rs.core.MultivaluedMap;

import org.keycloak.OAuth2Constants;
import org.keycloak.jose.jws.JWSInput;
import org.keycloak.jose.jws.JWSInputException;
import org.keycloak.models.ClientModel;
import org.keycloak.models.ClientSessionContext;
import org.keycloak.models.KeycloakSession;
import org.keycloak.models.ProtocolMapperModel;
import org.keycloak.models.UserSessionModel;
import org.keycloak.protocol.oidc.mappers.AbstractOIDCProtocolMapper;
import org.keycloak.protocol.oidc.mappers.OIDCAccessTokenMapper;
import org.keycloak.provider.ProviderConfigProperty;
import org.keycloak.representations.AccessToken;

/**
 * Names, in a token issued by a token exchange (RFC 8693), the client the exchanged token was issued to: the claim
 * {@code act} is {@code {"client_id": <the subject token's azp>}}. On agent-service's exchange client, it tells the
 * executor which MCP client a person used (docs/mcp.md), signed by the identity provider instead of written by the
 * agent.
 * <p>
 * For Keycloak's standard token exchange (V2) only: under the legacy V1 exchange the context's client is another one,
 * and the self-exchange check below would compare with the wrong client. Keycloak's standard token exchange (26.5)
 * impersonates: the new token's {@code azp} is the exchanging client and it has no {@code act} claim, so who held the
 * subject token is lost. This mapper reads the subject token from the token request. It runs while Keycloak issues the
 * new token, which it does only after it verified the subject token (its signature, its session, that the exchanging
 * client is among its audiences), so the subject token's {@code azp} is one Keycloak signed in this request.
 * <p>
 * Limits: it names the client, not a program. A public client (every MCP client signs in as one) has no secret, so any
 * program a person runs can use its id; the claim says which client registration the person signed in through, and
 * nothing about the software behind it. Tokens of any other grant get no claim, and so do a subject token without
 * {@code azp}, one issued to the exchanging client itself and one that names an actor already.
 */
public final class SubjectClientMapper extends AbstractOIDCProtocolMapper implements OIDCAccessTokenMapper {

    public static final String PROVIDER_ID = "countersign-subject-client-mapper";
    /** RFC 8693 section 4.1: the acting party, here the client the person's token was issued to. */
    public static final String CLAIM = "act";
    public static final String CLIENT_ID = "client_id";

    @Override
    public String getId() {
        return PROVIDER_ID;
    }

    @Override
    public String getDisplayType() {
        return "Countersign: exchanged token's client as act";
    }

    @Override
    public String getDisplayCategory() {
        return TOKEN_MAPPER_CATEGORY;
    }

    @Override
    public String getHelpText() {
        return "In a token exchange, adds act.client_id: the azp of the subject token Keycloak verified.";
    }

    @Override
    public List<ProviderConfigProperty> getConfigProperties() {
        return List.of();
    }

    @Override
    public AccessToken transformAccessToken(AccessToken token, ProtocolMapperModel mappingModel,
            KeycloakSession session, UserSessionModel userSession, ClientSessionContext clientSessionCtx) {
        String client = subjectClient(session);
        if (client != null) {
            token.getOtherClaims().put(CLAIM, Map.of(CLIENT_ID, client));
        }
        return token;
    }

    /**
     * The subject token's {@code azp} when this request is a token exchange of a person's token issued to another
     * client, else null. Null too when the subject token was issued to the exchanging client itself (an exchanged token
     * exchanged again: Keycloak lets a client exchange its own tokens, and the client it names would be the exchanging
     * one) or already names an actor ({@code act}): the claim only ever names the client a person signed in through.
     */
    static String subjectClient(KeycloakSession session) {
        if (session.getContext().getHttpRequest() == null) {
            return null;
        }
        MultivaluedMap<String, String> form = session.getContext().getHttpRequest().getDecodedFormParameters();
        if (form == null
                || !OAuth2Constants.TOKEN_EXCHANGE_GRANT_TYPE.equals(form.getFirst(OAuth2Constants.GRANT_TYPE))) {
            return null;
        }
        String subjectToken = form.getFirst(OAuth2Constants.SUBJECT_TOKEN);
        String subjectType = form.getFirst(OAuth2Constants.SUBJECT_TOKEN_TYPE);
        if (subjectToken == null
                || subjectType != null && !OAuth2Constants.ACCESS_TOKEN_TYPE.equals(subjectType)) {
            return null;
        }
        try {
            AccessToken subject = new JWSInput(subjectToken).readJsonContent(AccessToken.class);
            String azp = subject.getIssuedFor();
            ClientModel exchanging = session.getContext().getClient();
            if (azp == null || azp.isBlank() || subject.getOtherClaims().containsKey(CLAIM)
                    || exchanging != null && azp.equals(exchanging.getClientId())) {
                return null;
            }
            return azp;
        } catch (JWSInputException unreadable) {
            // Keycloak refuses such a subject token before it issues anything; nothing to name.
            return null;
        }
    }
}
