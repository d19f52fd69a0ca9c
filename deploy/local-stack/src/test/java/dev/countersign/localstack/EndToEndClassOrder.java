package dev.countersign.localstack;

import java.util.Comparator;
import java.util.List;

import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The order the end-to-end classes are handed to JUnit's two threads (failsafe's configuration in this module's pom),
 * so that both threads start with their longest classes and end about together. It changes no test's outcome, only how
 * long the lane takes: in CI's order of the day (FaultsIT and LocalStackIT first, WebUiIT late) the lane took 9 min 13
 * s of which WebUiIT's last 4 minutes ran next to nothing.
 * <p>
 * JUnit forks the classes in this order and then joins them in reverse: the thread that forked runs the last class
 * first and works backwards, the other thread steals from the front. So {@link #FRONT} is run front to back by one
 * thread and {@link #BACK} back to front by the other (its first entry runs first), each a list of about the same
 * length. The classes on the shared two-executor stack, which take its lock, are all in {@link #FRONT}, so one thread
 * runs them one after another instead of one thread waiting on the lock. A class in neither list runs in between,
 * whenever a thread gets to it. Limit: this leans on how JUnit's fork-join executor schedules (stated in its source,
 * not in its documentation); were that to change, the classes still all run, only possibly slower.
 */
public final class EndToEndClassOrder implements ClassOrderer {

    /** Run first to last by one thread: the longest class, then those on the shared stack. */
    static final List<String> FRONT = List.of("WebUiIT", "TwoAgentsIT", "SoakIT", "HostileModelIT",
            "TwoExecutorsLoadIT", "TwoExecutorsIT");
    /** Run first to last by the other thread (placed at the end of the order, reversed). */
    static final List<String> BACK = List.of("FaultsIT", "LocalStackIT", "TracingIT", "McpIT", "SecondDeviceIT",
            "NotificationsCrashIT",
            "ExternalWritesCrashIT", "ExternalInfrastructureIT", "ShippedArtifactsIT", "ConfigValidationIT");
    /** Run by another test engine (jqwik), after the Jupiter classes and alone: this order does not apply to them. */
    static final List<String> OTHER_ENGINES = List.of("ActionLifecyclePropertyIT");

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors()
                .sort(Comparator.comparingInt(descriptor -> position(descriptor.getTestClass().getSimpleName())));
    }

    /** FRONT's classes first, in their order; unknown classes next; BACK's last, in reverse order. */
    static int position(String simpleName) {
        int front = FRONT.indexOf(simpleName);
        if (front >= 0) {
            return front;
        }
        int back = BACK.indexOf(simpleName);
        return back >= 0 ? FRONT.size() + 1 + BACK.size() - back : FRONT.size();
    }
}
