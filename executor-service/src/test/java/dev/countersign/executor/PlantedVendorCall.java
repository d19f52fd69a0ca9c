package dev.countersign.executor;

import java.net.http.HttpClient;

import io.quarkus.mailer.reactive.ReactiveMailer;

/**
 * Test fixture, never run: code outside the gate that holds the raw clients. ExternalGateArchitectureTest shows its
 * scan flags this class, so a scan that finds nothing in the shipped classes means something.
 */
final class PlantedVendorCall {

    private PlantedVendorCall() {
    }

    static Object bypassTheGate(ReactiveMailer mailer) {
        return HttpClient.newHttpClient() == null ? mailer : null;
    }
}
