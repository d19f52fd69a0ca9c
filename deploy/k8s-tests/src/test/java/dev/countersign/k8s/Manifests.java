package dev.countersign.k8s;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * One overlay of deploy/k8s as {@code kubectl kustomize} renders it, parsed into plain maps and lists. Rendered once
 * per overlay and test run. kubectl is required: CI installs it (.ci/run), and a missing kubectl fails the build rather
 * than skipping the checks.
 */
final class Manifests {

    static final List<String> OVERLAYS = List.of("dev", "prod");

    private static final Map<String, Manifests> RENDERED = new ConcurrentHashMap<>();

    private final String overlay;
    private final List<Map<String, Object>> resources;

    private Manifests(String overlay, List<Map<String, Object>> resources) {
        this.overlay = overlay;
        this.resources = resources;
    }

    static Manifests of(String overlay) {
        return RENDERED.computeIfAbsent(overlay, Manifests::render);
    }

    static Path repoRoot() {
        String root = System.getProperty("countersign.repo.root");
        Path path = root != null ? Path.of(root) : Path.of("../..");
        return path.toAbsolutePath().normalize();
    }

    @SuppressWarnings("unchecked")
    private static Manifests render(String overlay) {
        Path dir = repoRoot().resolve("deploy/k8s/overlays").resolve(overlay);
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("No overlay at " + dir);
        }
        String yaml = kubectl("kustomize", dir.toString());
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(yaml)) {
            if (doc != null) {
                docs.add((Map<String, Object>) doc);
            }
        }
        return new Manifests(overlay, List.copyOf(docs));
    }

    private static String kubectl(String... args) {
        List<String> command = new ArrayList<>();
        command.add("kubectl");
        command.addAll(List.of(args));
        Process process;
        try {
            Path stderr = Files.createTempFile("kubectl", ".err");
            process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("kubectl did not finish within 60 s: " + command);
            }
            String err = Files.readString(stderr);
            Files.deleteIfExists(stderr);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(
                        "%s failed (exit %d):%n%s".formatted(command, process.exitValue(), err));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("""
                    kubectl is needed to render deploy/k8s and was not found or could not run (%s). \
                    .ci/run installs it when missing (apt-get install -y kubectl); install it the same way.""" //
                    .formatted(e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String overlay() {
        return overlay;
    }

    List<Map<String, Object>> all() {
        return resources;
    }

    List<Map<String, Object>> ofKind(String kind) {
        return resources.stream().filter(r -> kind.equals(r.get("kind"))).toList();
    }

    Map<String, Object> get(String kind, String name) {
        return ofKind(kind).stream()
                .filter(r -> name.equals(Node.str(r, "metadata", "name")))
                .findFirst()
                .orElseThrow(
                        () -> new AssertionError("overlay %s renders no %s named %s".formatted(overlay, kind, name)));
    }

    String namespace() {
        return Objects.requireNonNull(Node.str(ofKind("Namespace").get(0), "metadata", "name"));
    }

    /** The pod templates of every workload, by "Kind/name". */
    Map<String, Map<String, Object>> podSpecs() {
        Map<String, Map<String, Object>> specs = new java.util.LinkedHashMap<>();
        for (String kind : List.of("Deployment", "StatefulSet", "DaemonSet", "Job")) {
            for (Map<String, Object> r : ofKind(kind)) {
                specs.put(kind + "/" + Node.str(r, "metadata", "name"), Node.map(r, "spec", "template", "spec"));
            }
        }
        for (Map<String, Object> r : ofKind("CronJob")) {
            specs.put("CronJob/" + Node.str(r, "metadata", "name"),
                    Node.map(r, "spec", "jobTemplate", "spec", "template", "spec"));
        }
        return specs;
    }

    Map<String, Object> podSpec(String kind, String name) {
        return Node.map(get(kind, name), "spec", "template", "spec");
    }

    Map<String, String> podLabels(String deployment) {
        return Node.strings(Node.map(get("Deployment", deployment), "spec", "template", "metadata", "labels"));
    }
}
