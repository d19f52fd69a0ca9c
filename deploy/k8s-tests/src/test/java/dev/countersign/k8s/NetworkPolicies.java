package dev.countersign.k8s;

import java.util.List;
import java.util.Map;

/**
 * A small reading of Kubernetes NetworkPolicy semantics over the rendered policies: a pod is isolated for a direction
 * once any policy of its namespace selects it for that direction, and then only what some rule allows passes. A
 * connection needs both the sender's egress and the receiver's ingress. ipBlock peers are assumed to match pod
 * addresses in the private ranges (the stricter reading: plugins differ here).
 */
final class NetworkPolicies {

    /** A pod (or an address outside the cluster, when namespace is null) as a policy sees it. */
    record Peer(String namespace, Map<String, String> labels, String ip) {

        static Peer pod(String namespace, Map<String, String> labels, String ip) {
            return new Peer(namespace, labels, ip);
        }

        static Peer external(String ip) {
            return new Peer(null, Map.of(), ip);
        }

        boolean isPod() {
            return namespace != null;
        }
    }

    private final List<Map<String, Object>> policies;
    private final String namespace;

    NetworkPolicies(Manifests manifests) {
        this.policies = manifests.ofKind("NetworkPolicy");
        this.namespace = manifests.namespace();
    }

    boolean connects(Peer from, Peer to, int port, String protocol) {
        return (!from.isPod() || egressAllowed(from, to, port, protocol))
                && (!to.isPod() || ingressAllowed(from, to, port, protocol));
    }

    boolean egressAllowed(Peer from, Peer to, int port, String protocol) {
        return allowed(from, to, port, protocol, "Egress", "egress", "to");
    }

    boolean ingressAllowed(Peer from, Peer to, int port, String protocol) {
        return allowed(to, from, port, protocol, "Ingress", "ingress", "from");
    }

    /** The policies that select a pod for a direction. */
    List<Map<String, Object>> selecting(Peer pod, String type) {
        return policies.stream().filter(p -> namespace.equals(pod.namespace()))
                .filter(p -> types(p).contains(type))
                .filter(p -> selects(Node.map(p, "spec", "podSelector"), pod.labels()))
                .toList();
    }

    private boolean allowed(Peer subject, Peer other, int port, String protocol, String type, String rulesKey,
            String peersKey) {
        List<Map<String, Object>> selecting = selecting(subject, type);
        if (selecting.isEmpty()) {
            return true;
        }
        for (Map<String, Object> policy : selecting) {
            for (Map<String, Object> rule : Node.maps(policy, "spec", rulesKey)) {
                if (portMatches(rule, port, protocol) && peerMatches(rule, peersKey, other)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<String> types(Map<String, Object> policy) {
        List<String> types = Node.strs(policy, "spec", "policyTypes");
        if (!types.isEmpty()) {
            return types;
        }
        return Node.map(policy, "spec").containsKey("egress") ? List.of("Ingress", "Egress") : List.of("Ingress");
    }

    private static boolean portMatches(Map<String, Object> rule, int port, String protocol) {
        List<Map<String, Object>> ports = Node.maps(rule, "ports");
        if (ports.isEmpty()) {
            return true;
        }
        for (Map<String, Object> p : ports) {
            String proto = Node.str(p, "protocol") == null ? "TCP" : Node.str(p, "protocol");
            String number = Node.str(p, "port");
            if (!proto.equals(protocol)) {
                continue;
            }
            if (number == null) {
                return true;
            }
            if (!number.matches("\\d+")) {
                // A named port: it could be any port of the receiving pod. Count it as matching (stricter).
                return true;
            }
            int from = Integer.parseInt(number);
            int to = Node.str(p, "endPort") == null ? from : Integer.parseInt(Node.str(p, "endPort"));
            if (port >= from && port <= to) {
                return true;
            }
        }
        return false;
    }

    private boolean peerMatches(Map<String, Object> rule, String peersKey, Peer other) {
        if (!rule.containsKey(peersKey)) {
            return true;
        }
        for (Map<String, Object> peer : Node.maps(rule, peersKey)) {
            if (peer.containsKey("ipBlock")) {
                if (inBlock(Node.map(peer, "ipBlock"), other.ip())) {
                    return true;
                }
                continue;
            }
            if (!other.isPod()) {
                continue;
            }
            boolean namespaceOk = peer.containsKey("namespaceSelector")
                    ? selects(Node.map(peer, "namespaceSelector"),
                            Map.of("kubernetes.io/metadata.name", other.namespace()))
                    : namespace.equals(other.namespace());
            boolean podOk = !peer.containsKey("podSelector") || selects(Node.map(peer, "podSelector"), other.labels());
            if (namespaceOk && podOk) {
                return true;
            }
        }
        return false;
    }

    static boolean selects(Map<String, Object> selector, Map<String, String> labels) {
        for (Map.Entry<String, String> e : Node.strings(Node.map(selector, "matchLabels")).entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        for (Map<String, Object> expression : Node.maps(selector, "matchExpressions")) {
            String key = Node.str(expression, "key");
            List<String> values = Node.strs(expression, "values");
            boolean ok = switch (Node.str(expression, "operator")) {
                case "In" -> labels.containsKey(key) && values.contains(labels.get(key));
                case "NotIn" -> !labels.containsKey(key) || !values.contains(labels.get(key));
                case "Exists" -> labels.containsKey(key);
                case "DoesNotExist" -> !labels.containsKey(key);
                default -> throw new IllegalArgumentException("operator " + Node.str(expression, "operator"));
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    static boolean inBlock(Map<String, Object> block, String ip) {
        if (ip == null || !inCidr(Node.str(block, "cidr"), ip)) {
            return false;
        }
        return Node.strs(block, "except").stream().noneMatch(except -> inCidr(except, ip));
    }

    static boolean inCidr(String cidr, String ip) {
        if (!cidr.contains(".") || !ip.contains(".")) {
            return cidr.startsWith("::/0");
        }
        String[] parts = cidr.split("/");
        int bits = Integer.parseInt(parts[1]);
        long mask = bits == 0 ? 0 : (0xFFFFFFFFL << (32 - bits)) & 0xFFFFFFFFL;
        return (ipv4(parts[0]) & mask) == (ipv4(ip) & mask);
    }

    /** The first host address of an IPv4 block: an address the block's rule allows. */
    static String firstHost(String cidr) {
        long address = ipv4(cidr.split("/")[0]) + 1;
        return "%d.%d.%d.%d".formatted(address >> 24 & 0xFF, address >> 16 & 0xFF, address >> 8 & 0xFF, address & 0xFF);
    }

    private static long ipv4(String address) {
        long value = 0;
        for (String octet : address.split("\\.")) {
            value = (value << 8) | Integer.parseInt(octet);
        }
        return value;
    }
}
