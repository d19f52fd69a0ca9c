package dev.countersign.executor;

import java.net.SocketTimeoutException;

/**
 * Test fixture, never run: names a type whose name starts like a raw client's ({@code java/net/Socket...}) without
 * being one. ExternalGateArchitectureTest shows the scan does not flag it.
 */
final class PlantedTimeoutHandling {

    private PlantedTimeoutHandling() {
    }

    static boolean isTimeout(Throwable failure) {
        return failure instanceof SocketTimeoutException;
    }
}
