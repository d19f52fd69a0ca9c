package dev.countersign.localstack;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

/**
 * A minimal OpenTelemetry collector for the end-to-end tests: it accepts OTLP/HTTP protobuf exports
 * ({@code POST /v1/traces}) from the services and keeps every span, with the name of the service that sent it.
 */
final class OtlpReceiver implements AutoCloseable {

    /** One received span, its ids in lower-case hex and its string attributes. */
    record ReceivedSpan(String service, String traceId, String spanId, String parentSpanId, String name,
            Span.SpanKind kind, Map<String, String> attributes, List<String> linkedTraceIds) {
    }

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new ArrayList<>();
    private final List<String> requests = new ArrayList<>();
    private final StringBuilder rawBodies = new StringBuilder();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    static OtlpReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        OtlpReceiver receiver = new OtlpReceiver(server);
        server.createContext("/", receiver::receive);
        server.start();
        return receiver;
    }

    /** The base URL to give as {@code OTEL_EXPORTER_OTLP_ENDPOINT}. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    synchronized Optional<ReceivedSpan> first(Predicate<ReceivedSpan> filter) {
        return spans.stream().filter(filter).findFirst();
    }

    synchronized List<ReceivedSpan> all() {
        return List.copyOf(spans);
    }

    /**
     * Every export received, as bytes read one to one into chars: a search for a secret here covers whatever the parsed
     * spans leave out (events, exception texts, link and resource attributes).
     */
    synchronized String rawExports() {
        return rawBodies.toString();
    }

    /** Method, path and content type of every request received, for a failing test's message. */
    synchronized List<String> requests() {
        return List.copyOf(requests);
    }

    private void receive(HttpExchange exchange) throws IOException {
        synchronized (this) {
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
                    + exchange.getRequestHeaders().getFirst("Content-Type"));
        }
        try (exchange) {
            byte[] body;
            try (InputStream in = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                    ? new GZIPInputStream(exchange.getRequestBody())
                    : exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            if (!"POST".equals(exchange.getRequestMethod()) || !exchange.getRequestURI().getPath()
                    .endsWith("/v1/traces")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            synchronized (this) {
                rawBodies.append(new String(body, StandardCharsets.ISO_8859_1));
            }
            try {
                keep(ExportTraceServiceRequest.parseFrom(body));
            } catch (IOException | RuntimeException | LinkageError unreadable) {
                synchronized (this) {
                    requests.add("unreadable: " + unreadable);
                }
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
        }
    }

    private synchronized void keep(ExportTraceServiceRequest request) {
        for (ResourceSpans resource : request.getResourceSpansList()) {
            String service = attributes(resource.getResource().getAttributesList()).get("service.name");
            for (ScopeSpans scope : resource.getScopeSpansList()) {
                for (Span span : scope.getSpansList()) {
                    spans.add(new ReceivedSpan(service, hex(span.getTraceId().toByteArray()),
                            hex(span.getSpanId().toByteArray()), hex(span.getParentSpanId().toByteArray()),
                            span.getName(), span.getKind(), attributes(span.getAttributesList()),
                            span.getLinksList().stream().map(link -> hex(link.getTraceId().toByteArray()))
                                    .toList()));
                }
            }
        }
    }

    private static Map<String, String> attributes(List<KeyValue> attributes) {
        return attributes.stream().collect(Collectors.toMap(KeyValue::getKey,
                attribute -> attribute.getValue().hasStringValue()
                        ? attribute.getValue().getStringValue()
                        : attribute.getValue().toString().strip(),
                (first, second) -> first));
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
