package dev.countersign.devsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.util.Arrays;

import org.junit.jupiter.api.RepeatedTest;

class FreePortsTest {

    /** Ports asked for together are distinct and free: each can be bound once the answer is given. */
    @RepeatedTest(20)
    void portsAskedForTogetherAreDistinctAndFree() throws Exception {
        int[] ports = FreePorts.distinct(3);

        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(3);
        for (int port : ports) {
            try (ServerSocket bound = new ServerSocket(port)) {
                assertThat(bound.getLocalPort()).isEqualTo(port);
            }
        }
    }
}
