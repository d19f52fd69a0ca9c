package dev.countersign.devsupport;

import java.nio.file.Path;

import io.smallrye.reactive.messaging.kafka.companion.test.EmbeddedKafkaBroker;

/**
 * A real Apache Kafka broker in KRaft combined mode (broker and controller in one process), from Maven Central jars.
 * Dev and test only: one node, replication factor 1, no authentication.
 */
public final class LocalKafka implements AutoCloseable {

    /** Fixed so that a persistent log directory is recognised again after a restart. */
    private static final String CLUSTER_ID = "Y291bnRlcnNpZ24tbG9j";

    private final EmbeddedKafkaBroker broker;

    private LocalKafka(EmbeddedKafkaBroker broker) {
        this.broker = broker;
    }

    /**
     * @param port
     *            0 for any free port
     * @param logDirectory
     *            null for a throw-away directory; otherwise topics and offsets survive a restart
     */
    public static LocalKafka start(int port, Path logDirectory) {
        return start(port, logDirectory, 0, 0, 0);
    }

    /**
     * Like {@link #start(int, Path)}, telling clients to connect to {@code advertisedPort} (a proxy in front of the
     * broker; 0: the broker's own port), with the controller on {@code controllerPort} (0: any), so that a broker
     * stopped and started again on the same ports and log directory is the same cluster. With a proxy, the broker also
     * listens on {@code directPort} for clients that must bypass it.
     */
    public static LocalKafka start(int port, Path logDirectory, int advertisedPort, int controllerPort,
            int directPort) {
        EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker().withNodeId(1).withClusterId(CLUSTER_ID);
        // Ports not given are chosen here, together, so the broker's and the controller's differ (the embedded
        // broker picks each alone, and two picks once returned one port: "Each listener must have a different port").
        int kafkaPort = port > 0 ? port : FreePorts.one();
        broker.withKafkaPort(kafkaPort);
        broker.withControllerPort(controllerPort > 0 ? controllerPort : FreePorts.besides(kafkaPort));
        broker.withAdditionalProperties(properties -> {
            if (advertisedPort > 0) {
                // Clients are sent to the proxy; a second listener, advertised as itself, lets test tooling look at
                // the broker around the proxy while the proxy holds the services' traffic.
                properties.put("listeners", properties.getProperty("listeners") + ",DIRECT://localhost:" + directPort);
                properties.put("advertised.listeners",
                        "PLAINTEXT://localhost:" + advertisedPort + ",DIRECT://localhost:" + directPort);
                properties.put("listener.security.protocol.map",
                        properties.getProperty("listener.security.protocol.map") + ",DIRECT:PLAINTEXT");
            }
            properties.put("num.partitions", "3");
            properties.put("auto.create.topics.enable", "true");
            properties.put("group.initial.rebalance.delay.ms", "0");
            // The broker stamps every record when it appends it: the executor judges the evidence a proposal carries at
            // that time, which no producer (a compromised agent included) can choose (see docs/security/evidence.md).
            properties.put("log.message.timestamp.type", "LogAppendTime");
            if (logDirectory != null) {
                properties.put("log.dirs", logDirectory.toAbsolutePath().toString());
            }
        });
        broker.withDeleteLogDirsOnClose(logDirectory == null);
        return new LocalKafka(broker.start());
    }

    public String bootstrapServers() {
        return broker.getAdvertisedListeners();
    }

    @Override
    public void close() {
        broker.close();
    }
}
