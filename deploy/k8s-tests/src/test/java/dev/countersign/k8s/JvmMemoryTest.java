package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Each service's heap leaves room in its pod's memory limit for what the JVM needs besides the heap
 * (docs/benchmarks.md, "Memory and start-up": metaspace, code cache, symbols, class space, the shared archive, thread
 * stacks and what glibc keeps came to 190 to 240 MB under load), so a heap that grows to its maximum does not get the
 * pod OOM-killed; and an OutOfMemoryError ends the process (Kubernetes restarts it) instead of leaving it running in an
 * unknown state.
 * <p>
 * Limits: it reads the options the ConfigMap gives ({@code JAVA_TOOL_OPTIONS}); flags an image's own launcher puts on
 * the command line would override them, and the room was measured with the local stack's options, not a pod's.
 */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class JvmMemoryTest {

    /** What the benchmarks measured besides the heap (up to about 240 MB), with a margin. */
    static final long NON_HEAP_MIB = 300;

    private static final Pattern PERCENTAGE = Pattern.compile("-XX:MaxRAMPercentage=([0-9.]+)");
    private static final Pattern XMX = Pattern.compile("-Xmx([0-9]+[mMgG])\\b");

    private final Manifests manifests;

    JvmMemoryTest(String overlay) {
        this.manifests = Manifests.of(overlay);
    }

    @Test
    void theMaximumHeapLeavesRoomForTheRestOfTheJvmAndAnOutOfMemoryErrorEndsTheProcess() {
        for (String service : new String[]{"agent-service", "executor-service"}) {
            String options = Node.str(manifests.get("ConfigMap", service + "-config"), "data", "JAVA_TOOL_OPTIONS");
            Map<String, Object> container = Node.containers(manifests.podSpec("Deployment", service)).get(0);
            long limitMib = mebibytes(Node.str(container, "resources", "limits", "memory"));
            long heapMib = maximumHeapMib(options, limitMib);
            assertThat(limitMib - heapMib).as("%s: limit %d MiB, heap up to %d MiB (%s)", service, limitMib, heapMib,
                    options).isGreaterThanOrEqualTo(NON_HEAP_MIB);
            assertThat(options).as(service).contains("-XX:+ExitOnOutOfMemoryError")
                    .doesNotContain("-XX:-ExitOnOutOfMemoryError");
        }
    }

    private static long maximumHeapMib(String options, long limitMib) {
        // The JVM takes the last of a repeated option.
        String xmx = last(XMX, options);
        if (xmx != null) {
            long size = Long.parseLong(xmx.substring(0, xmx.length() - 1));
            return xmx.toLowerCase().endsWith("g") ? size * 1024 : size;
        }
        String percentage = last(PERCENTAGE, options);
        // Without either, the JVM's default is a quarter of the container's memory.
        double share = percentage != null ? Double.parseDouble(percentage) : 25.0;
        return (long) Math.ceil(limitMib * share / 100);
    }

    private static String last(Pattern option, String options) {
        Matcher matcher = option.matcher(options);
        String last = null;
        while (matcher.find()) {
            last = matcher.group(1);
        }
        return last;
    }

    private static long mebibytes(String quantity) {
        if (quantity.endsWith("Gi")) {
            return Long.parseLong(quantity.substring(0, quantity.length() - 2)) * 1024;
        }
        assertThat(quantity).as("memory limit in Mi or Gi").endsWith("Mi");
        return Long.parseLong(quantity.substring(0, quantity.length() - 2));
    }
}
