package dev.countersign.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.netcrusher.core.reactor.NioReactor;

import dev.countersign.devsupport.FreePorts;

/**
 * The fault suite's proxies: one in front of Kafka (the broker advertises the proxy's port, so every client's every
 * connection goes through it) and one in front of PostgreSQL (the services' URLs name it; the owner connection tests
 * use goes straight to the server). Started before the servers, on free ports, and kept across their restarts.
 */
final class StackFaults implements AutoCloseable {

    private final NioReactor reactor;
    private final FaultProxy kafka;
    private final FaultProxy postgres;
    private final int kafkaControllerPort;
    private final int kafkaDirectPort;

    private StackFaults(NioReactor reactor, FaultProxy kafka, FaultProxy postgres, int kafkaControllerPort,
            int kafkaDirectPort) {
        this.reactor = reactor;
        this.kafka = kafka;
        this.postgres = postgres;
        this.kafkaControllerPort = kafkaControllerPort;
        this.kafkaDirectPort = kafkaDirectPort;
    }

    static StackFaults start(StackSettings settings) {
        if (settings.kafkaBootstrapServers() != null || settings.postgresHost() != null) {
            throw new IllegalArgumentException("FAULT_PROXIES needs the stack's own Kafka and PostgreSQL");
        }
        try {
            NioReactor reactor = new NioReactor();
            // The broker's controller and its direct listener: two listeners of one server, so chosen together.
            int[] ports = FreePorts.distinct(2);
            return new StackFaults(reactor, FaultProxy.start(reactor, 0, settings.kafkaPort()),
                    FaultProxy.start(reactor, 0, settings.postgresPort()), ports[0], ports[1]);
        } catch (IOException e) {
            throw new UncheckedIOException("The fault proxies did not start", e);
        }
    }

    FaultProxy kafka() {
        return kafka;
    }

    FaultProxy postgres() {
        return postgres;
    }

    /** Fixed, so that a restarted broker is the same KRaft quorum member. */
    int kafkaControllerPort() {
        return kafkaControllerPort;
    }

    /** The broker's listener that bypasses the proxy, for test tooling only. */
    int kafkaDirectPort() {
        return kafkaDirectPort;
    }

    @Override
    public void close() {
        kafka.close();
        postgres.close();
        reactor.close();
    }
}
