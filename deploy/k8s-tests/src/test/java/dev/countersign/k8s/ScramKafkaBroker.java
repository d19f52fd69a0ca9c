package dev.countersign.k8s;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.scram.ScramLoginModule;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;

import io.smallrye.reactive.messaging.kafka.companion.test.EmbeddedKafkaBroker;

/**
 * A real Kafka broker (KRaft, broker and controller in one process, in this JVM) that authenticates clients with
 * SCRAM-SHA-512 and authorizes every request with Kafka's {@link StandardAuthorizer}, the authorizer Strimzi configures
 * for {@code authorization.type: simple} on a KRaft cluster.
 * <p>
 * Two client listeners: {@code SASL_PLAINTEXT}, where the users under test connect, each as {@code User:<name>}; and
 * the broker's own {@code PLAINTEXT} listener, where the broker, its controller and this class's admin connect as
 * {@code User:ANONYMOUS}, the one super user (it creates topics, users and ACLs). Limits: no TLS (Strimzi's listener is
 * SASL over TLS; the authorizer sees the same principal either way), and the PLAINTEXT super-user listener has no
 * counterpart in the manifests' cluster, which lists no super users.
 */
final class ScramKafkaBroker implements AutoCloseable {

    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PROPAGATION_TIMEOUT = Duration.ofSeconds(20);

    private final EmbeddedKafkaBroker broker;
    private final String saslBootstrapServers;
    private final Admin admin;
    private final Map<String, String> passwords = new HashMap<>();

    private ScramKafkaBroker(EmbeddedKafkaBroker broker, int saslPort) {
        this.broker = broker;
        this.saslBootstrapServers = "localhost:" + saslPort;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, superUserBootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) PROPAGATION_TIMEOUT.toMillis()));
    }

    static ScramKafkaBroker start() {
        int saslPort = EmbeddedKafkaBroker.endpoint(SecurityProtocol.SASL_PLAINTEXT, "localhost", 0).port();
        EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker().withAdditionalProperties(properties -> {
            properties.put("listeners",
                    properties.getProperty("listeners") + ",SASL_PLAINTEXT://localhost:" + saslPort);
            properties.put("listener.security.protocol.map",
                    properties.getProperty("listener.security.protocol.map") + ",SASL_PLAINTEXT:SASL_PLAINTEXT");
            properties.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
            properties.put("listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
                    ScramLoginModule.class.getName() + " required;");
            properties.put("authorizer.class.name", StandardAuthorizer.class.getName());
            properties.put("super.users", "User:ANONYMOUS");
            // Kafka's default, and Strimzi's: a resource without ACLs is refused, not open.
            properties.put("allow.everyone.if.no.acl.found", "false");
            properties.put("auto.create.topics.enable", "false");
        });
        return new ScramKafkaBroker(broker.start(), saslPort);
    }

    /** The PLAINTEXT listener, where a client is the super user. */
    String superUserBootstrapServers() {
        String listeners = broker.getAdvertisedListeners();
        return Arrays.stream(listeners.split(","))
                .filter(l -> l.startsWith("PLAINTEXT://"))
                .map(l -> l.substring("PLAINTEXT://".length()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no PLAINTEXT listener in " + listeners));
    }

    void createTopics(Collection<String> topics) {
        await(admin.createTopics(topics.stream().map(t -> new NewTopic(t, 1, (short) 1)).toList()).all());
    }

    /** A SCRAM-SHA-512 user with a random password, usable once this returns. */
    void createUser(String name) {
        String password = UUID.randomUUID().toString();
        await(admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(name,
                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password))).all());
        passwords.put(name, password);
        awaitAuthenticates(name);
    }

    /** Adds the bindings and returns once the broker's authorizer holds them all. */
    void grant(Collection<AclBinding> bindings) {
        await(admin.createAcls(bindings).all());
        Instant deadline = Instant.now().plus(PROPAGATION_TIMEOUT);
        while (!new HashSet<>(await(admin.describeAcls(AclBindingFilter.ANY).values())).containsAll(bindings)) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(
                        "the broker's authorizer did not load the ACLs in " + PROPAGATION_TIMEOUT);
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Client settings for a user on the SASL listener, with short timeouts: a refusal must come back as an
     * authorization error within them, and a client that only waits fails the test with a timeout instead.
     */
    Properties clientProperties(String user) {
        String password = passwords.get(user);
        if (password == null) {
            throw new IllegalArgumentException("no user " + user + " on this broker");
        }
        Properties properties = new Properties();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, saslBootstrapServers);
        properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, SecurityProtocol.SASL_PLAINTEXT.name);
        properties.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        properties.put(SaslConfigs.SASL_JAAS_CONFIG, "%s required username=\"%s\" password=\"%s\";"
                .formatted(ScramLoginModule.class.getName(), user, password));
        properties.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
        properties.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
        return properties;
    }

    /** As the services' producers: acks=all, idempotent (Kafka's default), no lingering. */
    Properties producerProperties(String user) {
        Properties properties = clientProperties(user);
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
        return properties;
    }

    /**
     * @param group
     *            null for a consumer without a group (assigned partitions only)
     */
    Properties consumerProperties(String user, String group) {
        Properties properties = clientProperties(user);
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        if (group != null) {
            properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        return properties;
    }

    /** A producer as the super user, to put records where a test reads them. */
    Properties superUserProducerProperties() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, superUserBootstrapServers());
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
        return properties;
    }

    /** SCRAM credentials reach the broker's cache through the metadata log, a moment after the controller took them. */
    private void awaitAuthenticates(String user) {
        Instant deadline = Instant.now().plus(PROPAGATION_TIMEOUT);
        Properties properties = clientProperties(user);
        while (true) {
            try (Admin asUser = Admin.create(properties)) {
                asUser.describeCluster().nodes().get(CLIENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof SaslAuthenticationException) || Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException(user + " cannot sign in to the broker", e);
                }
            } catch (TimeoutException e) {
                throw new IllegalStateException(user + " cannot sign in to the broker", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static <T> T await(KafkaFuture<T> future) {
        try {
            return future.get(PROPAGATION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
        broker.close();
    }
}
