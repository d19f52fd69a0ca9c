package dev.countersign.devsupport.testing.fuzz;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The HTTP operations ({@code "POST /api/actions/{id}/confirm"}) that a module's JAX-RS resource classes declare, found
 * by reflection over its compiled classes: the check that the endpoints read from the OpenAPI document are all of them.
 * Annotations are matched by name, so this needs no JAX-RS on the class path.
 */
public final class ResourceMethods {

    private static final String PATH = "jakarta.ws.rs.Path";
    private static final String HTTP_METHOD = "jakarta.ws.rs.HttpMethod";

    private ResourceMethods() {
    }

    /** Every operation of the resource classes compiled next to {@code anyClassOfModule}. */
    public static Set<String> declaredNextTo(Class<?> anyClassOfModule) throws Exception {
        Path classes = Path.of(anyClassOfModule.getProtectionDomain().getCodeSource().getLocation().toURI());
        Set<String> operations = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                Class<?> type = Class.forName(name, false, anyClassOfModule.getClassLoader());
                String root = path(type);
                if (root != null) {
                    for (Method method : type.getDeclaredMethods()) {
                        String verb = httpMethod(method);
                        if (verb != null) {
                            String sub = path(method);
                            operations.add(verb + " " + join(root, sub == null ? "" : sub));
                        }
                    }
                }
            }
        }
        return operations;
    }

    private static String join(String root, String sub) {
        String joined = ("/" + root + "/" + sub).replaceAll("/+", "/");
        return joined.length() > 1 && joined.endsWith("/") ? joined.substring(0, joined.length() - 1) : joined;
    }

    private static String path(AnnotatedElement element) throws Exception {
        for (Annotation annotation : element.getAnnotations()) {
            if (annotation.annotationType().getName().equals(PATH)) {
                return (String) annotation.annotationType().getMethod("value").invoke(annotation);
            }
        }
        return null;
    }

    private static String httpMethod(Method method) {
        for (Annotation annotation : method.getAnnotations()) {
            for (Annotation meta : annotation.annotationType().getAnnotations()) {
                if (meta.annotationType().getName().equals(HTTP_METHOD)) {
                    return annotation.annotationType().getSimpleName();
                }
            }
        }
        return null;
    }
}
