package dev.countersign.k8s;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACLs of a rendered Strimzi KafkaUser as Kafka {@link AclBinding}s, translated the way Strimzi's User Operator
 * does for {@code authorization.type: simple}: principal {@code User:<metadata.name>}, {@code type} allow (default) or
 * deny, {@code host} {@code *} unless given, resource type, name and pattern ({@code literal} default, {@code prefix})
 * as written, one binding per operation. This is a model of the operator's translation, not the operator: a field it
 * reads and this class does not would go untested, so anything unknown fails here rather than being skipped.
 */
final class KafkaUserAcls {

    /** The name Kafka gives the cluster resource; Strimzi's {@code type: cluster} needs none in the YAML. */
    private static final String CLUSTER_RESOURCE_NAME = "kafka-cluster";

    private KafkaUserAcls() {
    }

    static String principal(Map<String, Object> kafkaUser) {
        return "User:" + Node.str(kafkaUser, "metadata", "name");
    }

    static List<AclBinding> of(Map<String, Object> kafkaUser) {
        String authorization = Node.str(kafkaUser, "spec", "authorization", "type");
        if (!"simple".equals(authorization)) {
            throw new IllegalArgumentException("%s: authorization type %s is not the simple authorizer's"
                    .formatted(principal(kafkaUser), authorization));
        }
        List<AclBinding> bindings = new ArrayList<>();
        for (Map<String, Object> acl : Node.maps(kafkaUser, "spec", "authorization", "acls")) {
            ResourcePattern resource = resource(acl);
            String host = Node.str(acl, "host") == null ? "*" : Node.str(acl, "host");
            AclPermissionType permission = "deny".equals(Node.str(acl, "type"))
                    ? AclPermissionType.DENY
                    : AclPermissionType.ALLOW;
            for (AclOperation operation : operations(acl)) {
                bindings.add(new AclBinding(resource,
                        new AccessControlEntry(principal(kafkaUser), host, operation, permission)));
            }
        }
        return bindings;
    }

    private static ResourcePattern resource(Map<String, Object> acl) {
        String type = Node.str(acl, "resource", "type");
        ResourceType resourceType = switch (String.valueOf(type)) {
            case "topic" -> ResourceType.TOPIC;
            case "group" -> ResourceType.GROUP;
            case "cluster" -> ResourceType.CLUSTER;
            case "transactionalId" -> ResourceType.TRANSACTIONAL_ID;
            default -> throw new IllegalArgumentException("unknown ACL resource type " + type);
        };
        String name = resourceType == ResourceType.CLUSTER
                ? CLUSTER_RESOURCE_NAME
                : Node.str(acl, "resource", "name");
        String pattern = Node.str(acl, "resource", "patternType");
        PatternType patternType = switch (pattern == null ? "literal" : pattern) {
            case "literal" -> PatternType.LITERAL;
            case "prefix" -> PatternType.PREFIXED;
            default -> throw new IllegalArgumentException("unknown ACL pattern type " + pattern);
        };
        return new ResourcePattern(resourceType, name, patternType);
    }

    /** {@code operations} (a list) and the older single {@code operation}; Strimzi's names are Kafka's in CamelCase. */
    private static List<AclOperation> operations(Map<String, Object> acl) {
        List<String> names = new ArrayList<>(Node.strs(acl, "operations"));
        if (Node.str(acl, "operation") != null) {
            names.add(Node.str(acl, "operation"));
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("an ACL without operations: " + acl);
        }
        return names.stream().map(KafkaUserAcls::operation).toList();
    }

    private static AclOperation operation(String camelCase) {
        String constant = camelCase.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
        try {
            AclOperation operation = AclOperation.valueOf(constant);
            if (operation == AclOperation.ANY || operation == AclOperation.UNKNOWN) {
                throw new IllegalArgumentException(camelCase);
            }
            return operation;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown ACL operation " + camelCase, e);
        }
    }
}
