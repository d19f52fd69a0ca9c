package dev.countersign.agent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;

/** The web UI's files, its settings endpoint and the Content-Security-Policy they are served with. */
@QuarkusTest
@AgentTestResources
class WebUiTest {

    @Test
    void thePageAndItsScriptsComeWithAStrictContentSecurityPolicy() {
        for (String path : new String[]{"/", "/ui/app.js", "/shared/dom.js", "/shared/base.css", "/api/ui/config"}) {
            given().get(path).then().statusCode(200)
                    .header("Content-Security-Policy", containsString("default-src 'self'"))
                    .header("Content-Security-Policy", containsString("script-src 'self';"))
                    .header("Content-Security-Policy", containsString("frame-ancestors 'none'"))
                    .header("Content-Security-Policy", not(containsString("unsafe")))
                    .header("X-Content-Type-Options", "nosniff");
        }
    }

    /** The DOM helpers and base styles come from shared-web's jar, one file for both services, as a module script. */
    @Test
    void theSharedPageFilesAreServedFromSharedWebsJar() {
        given().get("/shared/dom.js").then().statusCode(200).contentType(containsString("javascript"))
                .body(containsString("export function h("));
        given().get("/shared/base.css").then().statusCode(200).contentType(containsString("text/css"));
        given().get("/ui/dom.js").then().statusCode(404);
    }

    @Test
    void aBearerClientHasNoBrowserSessionAndNoCsrfToken() {
        given().header("Authorization", "Bearer " + TestProperties.agentBearer("acme", "alice"))
                .get("/api/session").then().statusCode(404).contentType("application/problem+json")
                .body("code", equalTo("not_found")).body(not(containsString("csrfToken")));
        given().get("/api/session").then().statusCode(401);
    }

    @Test
    void thePageHasNoInlineScript() {
        given().get("/").then().statusCode(200)
                .body(containsString("<script type=\"module\" src=\"/ui/app.js\"></script>"))
                .body(not(containsString("<script>")))
                .body(not(containsString("onclick=")));
    }

    @Test
    void theSettingsNeedNoSignInAndNameNoDevTokenEndpointOutsideTheLocalStack() {
        given().get("/api/ui/config").then().statusCode(200)
                .body("executorUrl", equalTo(""))
                .body("devTokenUrl", nullValue()).body("session", equalTo(false));
    }

    /** The chat's cards name no kind: their labels come from the declarations, with the settings. */
    @Test
    void theSettingsCarryEveryDeclaredKindsLabel() {
        var kinds = given().get("/api/ui/config").then().statusCode(200).extract().jsonPath();

        assertThat(kinds.getList("kinds.kind", String.class)).containsExactlyElementsOf(
                ActionCatalogue.all().stream()
                        .map(ActionDefinition::kind).toList());
        assertThat(kinds.getString("kinds.find { it.kind == 'mail.send' }.label"))
                .isEqualTo("Send an e-mail (leaves the system)");
        // Which parameters name a wallet, so the card shows its name: from the declaration, not the page.
        assertThat(kinds.getMap("kinds.find { it.kind == 'ledger.wallet.transfer' }.refersTo"))
                .containsEntry("fromWalletId", "wallet").containsEntry("toWalletId", "wallet").hasSize(2);
    }
}
