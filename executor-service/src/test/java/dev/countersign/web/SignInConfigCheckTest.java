package dev.countersign.web;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Audiences;

/** A service starts only when it knows where its bearer tokens' keys come from, from exactly one place. */
class SignInConfigCheckTest {

    @Test
    void neitherAnIdentityProviderNorAKeyRefusesToStartAndSaysWhatToSet() {
        assertThatThrownBy(() -> SignInConfigCheck.require(Optional.empty(), Optional.of(" "), Optional.empty()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("OIDC_AUTH_SERVER_URL")
                .hasMessageContaining("OIDC_PUBLIC_KEY");
    }

    @Test
    void bothRefuseToStart() {
        assertThatThrownBy(() -> SignInConfigCheck.require(Optional.of("https://id.example/realms/c"),
                Optional.of("MIIB..."), Optional.of("https://id.example/realms/c")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("only one");
    }

    @Test
    void eitherOneStarts() {
        assertThatCode(() -> SignInConfigCheck.require(Optional.of("https://id.example/realms/c"), Optional.empty(),
                Optional.of("https://id.example/realms/c"))).doesNotThrowAnyException();
        assertThatCode(() -> SignInConfigCheck.require(Optional.empty(), Optional.of("MIIB..."),
                Optional.of(SignInConfigCheck.DEV_ISSUER))).doesNotThrowAnyException();
    }

    @Test
    void anIdentityProviderWithTheDevIssuerRefusesToStart() {
        assertThatThrownBy(() -> SignInConfigCheck.require(Optional.of("https://id.example/realms/c"),
                Optional.empty(), Optional.of(SignInConfigCheck.DEV_ISSUER))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("JWT_ISSUER");
    }

    @Test
    void aPagesClientNamedLikeAnApiAudienceIsRefusedSoNoIdTokenPassesAsABearerToken() {
        for (String audience : List.of(Audiences.EXECUTOR, Audiences.AGENT, Audiences.INTEGRATION)) {
            assertThatThrownBy(() -> SignInConfigCheck.requirePageClientIsNoAudience(Optional.of(audience)))
                    .as(audience).isInstanceOf(IllegalStateException.class).hasMessageContaining("API audience");
        }
        assertThatCode(() -> SignInConfigCheck.requirePageClientIsNoAudience(Optional.of("countersign-chat")))
                .doesNotThrowAnyException();
    }
}
