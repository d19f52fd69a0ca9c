package dev.countersign.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.TreeMap;

import jakarta.ws.rs.container.ContainerRequestContext;

import org.junit.jupiter.api.Test;

class ContentTypeCheckTest {

    private final ContentTypeCheck check = new ContentTypeCheck();

    /** A request context that answers only its method and headers (case-insensitive), as the filter reads it. */
    private static ContainerRequestContext request(String method, Map<String, String> headers) {
        Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(headers);
        return (ContainerRequestContext) Proxy.newProxyInstance(ContentTypeCheckTest.class.getClassLoader(),
                new Class<?>[]{ContainerRequestContext.class}, (proxy, called, args) -> switch (called.getName()) {
                    case "getHeaderString" -> byName.get((String) args[0]);
                    case "getMethod" -> method;
                    default -> throw new UnsupportedOperationException(called.getName());
                });
    }

    @Test
    void aBodilessGetWithAJunkContentTypeIsNotRefused() {
        assertThatCode(() -> check.refuseUnparseableContentType(request("GET", Map.of("Content-Type", "json"))))
                .doesNotThrowAnyException();
        assertThatCode(() -> check.refuseUnparseableContentType(
                request("GET", Map.of("Content-Type", "application/", "Content-Length", "0"))))
                .doesNotThrowAnyException();
    }

    @Test
    void aBodyWithAJunkContentTypeIsRefusedAs415UnsupportedRequest() {
        for (Map<String, String> headers : java.util.List.of(Map.of("Content-Type", "json", "Content-Length", "2"),
                Map.of("Content-Type", "application/", "Transfer-Encoding", "chunked"))) {
            ProblemException refused = catchThrowableOfType(ProblemException.class,
                    () -> check.refuseUnparseableContentType(request("POST", headers)));
            assertThat(refused).as("%s", headers).isNotNull();
            assertThat(refused.problem().code()).isEqualTo("unsupported_request");
            assertThat(refused.problem().status()).isEqualTo(415);
        }
    }

    @Test
    void aPostWithAJunkContentTypeIsRefusedEvenWithoutABody() {
        for (Map<String, String> headers : java.util.List.of(Map.of("Content-Type", "json"),
                Map.of("Content-Type", "json", "Content-Length", "0"))) {
            ProblemException refused = catchThrowableOfType(ProblemException.class,
                    () -> check.refuseUnparseableContentType(request("POST", headers)));
            assertThat(refused).as("%s", headers).isNotNull();
            assertThat(refused.problem().status()).isEqualTo(415);
        }
    }

    @Test
    void aBodyWithAMediaTypeOrWithoutAContentTypeIsLeftToTheFramework() {
        assertThatCode(() -> check.refuseUnparseableContentType(
                request("POST", Map.of("Content-Type", "application/json", "Content-Length", "2"))))
                .doesNotThrowAnyException();
        assertThatCode(() -> check.refuseUnparseableContentType(request("POST", Map.of("Content-Length", "2"))))
                .doesNotThrowAnyException();
    }
}
