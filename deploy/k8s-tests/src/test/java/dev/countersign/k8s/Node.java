package dev.countersign.k8s;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Null-tolerant navigation in parsed YAML: a missing step yields null, an empty map or an empty list. */
final class Node {

    private Node() {
    }

    static Object at(Object node, String... path) {
        Object current = node;
        for (String step : path) {
            if (!(current instanceof Map<?, ?> map)) {
                return null;
            }
            current = map.get(step);
        }
        return current;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object node, String... path) {
        Object value = at(node, path);
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> maps(Object node, String... path) {
        Object value = at(node, path);
        if (!(value instanceof List<?> list)) {
            return List.of();
        }
        List<Map<String, Object>> maps = new ArrayList<>();
        for (Object item : list) {
            maps.add(item instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of());
        }
        return maps;
    }

    static List<String> strs(Object node, String... path) {
        Object value = at(node, path);
        if (!(value instanceof List<?> list)) {
            return List.of();
        }
        return list.stream().map(String::valueOf).toList();
    }

    static String str(Object node, String... path) {
        Object value = at(node, path);
        return value == null ? null : String.valueOf(value);
    }

    static Map<String, String> strings(Map<String, Object> map) {
        Map<String, String> strings = new LinkedHashMap<>();
        map.forEach((k, v) -> strings.put(k, String.valueOf(v)));
        return strings;
    }

    /** Containers and init containers of a pod spec. */
    static List<Map<String, Object>> containers(Map<String, Object> podSpec) {
        List<Map<String, Object>> all = new ArrayList<>(maps(podSpec, "initContainers"));
        all.addAll(maps(podSpec, "containers"));
        return all;
    }
}
