package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The decision page's shared files (the DOM helpers and base styles, one copy in shared-web's jar for both services)
 * are served on this origin with the page's strict policy.
 */
@QuarkusTest
@ExecutorTestResources
class DecisionPageFilesTest {

    @Test
    void theSharedFilesComeFromSharedWebsJarWithThePagesPolicy() {
        for (String path : new String[]{"/shared/dom.js", "/shared/base.css"}) {
            given().get(path).then().statusCode(200)
                    .header("Content-Security-Policy", containsString("script-src 'self';"))
                    .header("Content-Security-Policy", containsString("frame-ancestors 'none'"))
                    .header("Content-Security-Policy", not(containsString("unsafe")))
                    .header("X-Content-Type-Options", "nosniff");
        }
        given().get("/shared/dom.js").then().contentType(containsString("javascript"))
                .body(containsString("export function h("));
        given().get("/shared/base.css").then().contentType(containsString("text/css"));
    }
}
