package dev.countersign.executor;

import static io.restassured.RestAssured.given;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.junit.QuarkusTest;

/**
 * /q/ (health, metrics, OpenAPI) is on the management interface only: the public port, the one the Ingress routes,
 * answers 404 there, so an unauthenticated caller on the public network reads no metrics and no API description.
 */
@QuarkusTest
@ExecutorTestResources
class ManagementInterfaceTest {

    @ParameterizedTest
    @ValueSource(strings = {"/q/health", "/q/health/ready", "/q/health/live", "/q/metrics", "/q/openapi",
            "/q/swagger-ui/"})
    void thePublicPortServesNothingUnderQ(String path) {
        given().get(path).then().statusCode(404);
    }

    @Test
    void theManagementPortServesHealthMetricsAndTheApiDescription() {
        given().get(Management.url("/health/ready")).then().statusCode(200);
        given().get(Management.url("/health/live")).then().statusCode(200);
        given().get(Management.url("/metrics")).then().statusCode(200);
        given().get(Management.url("/openapi?format=json")).then().statusCode(200);
    }
}
