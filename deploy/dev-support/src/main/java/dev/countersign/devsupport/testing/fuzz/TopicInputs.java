package dev.countersign.devsupport.testing.fuzz;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.json.Json;

/**
 * Generates the records for one consumed topic from a seeded {@link HostileValues}: malformed JSON, values of the wrong
 * type, deep nesting, tombstones, and (most of them) a valid event of the topic with one to three members replaced by
 * hostile values (wrong types, unknown kinds, bad UUIDs, unicode edge cases, SQL-looking text, about 200 KB strings or
 * 10,000-element arrays) or removed, with headers drawn from the caller's variants (valid, missing, expired, forged or
 * wrong-audience evidence).
 * <p>
 * Why no record may be accepted: every event-shaped record also carries one of the caller's {@link Defect}s, a member
 * set to a value the consumer really refuses (a wrong {@code paramsHash}, a wrong confirm token, an unknown schema
 * version); its member is never touched by the other mutations, so nothing can repair it. Limit: values stay under
 * about 300 KB, below the broker's and the producers' 1 MB record limit, so what the consumers do with a record their
 * dead-letter producer cannot forward is not tried here.
 */
public final class TopicInputs {

    /** Big enough to exceed every field limit of the consumers, small enough for a dead-letter copy to fit a record. */
    public static final int LARGE = 200_000;
    private static final List<String> UNKNOWN_KINDS = List.of("ledger.transaction.drop", "ledger.wallet.delete",
            "LEDGER.TRANSACTION.CREATE", "ledger.transaction.create ", "PlanAccepted", "TurnRecorded", "CONFIRM",
            "approve", "", "act\u0000", "plan\u202E", "__proto__", "../kind", "ledger.transaction.create\u0000");

    /**
     * A member set to a value the consumer always refuses.
     *
     * @param value
     *            JSON text of the refused value, drawn from the seeded generator
     */
    public record Defect(String member, String label, Function<HostileValues, String> value) {
    }

    /**
     * One header the records may carry, with its variants by label; a null value leaves the header out.
     */
    public record HeaderVariants(String name, Map<String, String> variants, double validShare, String validLabel) {
    }

    private final HostileValues hostile;
    private final String topic;
    private final String keyPrefix;
    private final List<ObjectNode> templates;
    private final List<Defect> defects;
    private final List<HeaderVariants> headers;

    /**
     * @param templates
     *            valid events of the topic (the golden fixtures with the fuzz tenant's ids)
     * @param keyPrefix
     *            unique to this run and topic; keys are prefix plus index
     */
    public TopicInputs(HostileValues hostile, String topic, String keyPrefix, List<ObjectNode> templates,
            List<Defect> defects, List<HeaderVariants> headers) {
        this.hostile = hostile;
        this.topic = topic;
        this.keyPrefix = keyPrefix;
        this.templates = templates;
        this.defects = defects;
        this.headers = headers;
    }

    public List<RecordInput> generate(int count) {
        List<RecordInput> inputs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            inputs.add(next(i));
        }
        return inputs;
    }

    private RecordInput next(int index) {
        Map<String, String> recordHeaders = new LinkedHashMap<>();
        StringBuilder labels = new StringBuilder();
        for (HeaderVariants header : headers) {
            String label = hostile.chance(header.validShare())
                    ? header.validLabel()
                    : hostile.pick(new ArrayList<>(new java.util.TreeSet<>(header.variants().keySet())));
            String value = header.variants().get(label);
            if (value != null) {
                recordHeaders.put(header.name(), value);
            }
            labels.append(' ').append(header.name()).append('=').append(label);
        }
        ObjectNode template = hostile.pick(templates).deepCopy();
        template.put("eventId", hostile.uuid().toString());
        String value;
        String kind;
        double draw = hostile.random().nextDouble();
        if (draw < 0.12) {
            value = hostile.malformed(Json.write(template));
            kind = "malformed";
        } else if (draw < 0.2) {
            value = hostile.incompatibleWith("object");
            kind = "wrong-type";
        } else if (draw < 0.22) {
            value = hostile.deepNesting();
            kind = "deep-nesting";
        } else if (draw < 0.24) {
            value = null;
            kind = "tombstone";
        } else {
            Defect defect = hostile.pick(defects);
            boolean large = draw < 0.3;
            value = mutated(template, defect, large);
            kind = (large ? "large" : "mutated") + "+" + defect.label();
        }
        return new RecordInput(index, topic, keyPrefix + index, value, Map.copyOf(recordHeaders), eventIdOf(value),
                kind + labels);
    }

    /** The template as JSON text, one to three members replaced or removed, the defect's member set to the defect. */
    private String mutated(ObjectNode template, Defect defect, boolean large) {
        List<String> members = new ArrayList<>();
        template.fieldNames().forEachRemaining(members::add);
        List<String> mutable = new ArrayList<>(members);
        mutable.remove(defect.member());
        Set<String> mutate = new java.util.LinkedHashSet<>();
        int mutations = 1 + hostile.random().nextInt(3);
        for (int i = 0; i < mutations; i++) {
            mutate.add(hostile.pick(mutable));
        }
        String largeMember = large ? hostile.pick(new ArrayList<>(mutate)) : null;
        // Half the records keep every member's JSON type, so more of them are readable and meet the consumer's own
        // checks (evidence, envelope, catalogue) rather than the JSON mapper's.
        boolean keepTypes = hostile.chance(0.5);
        Map<String, String> json = new LinkedHashMap<>();
        for (String member : members) {
            if (member.equals(defect.member())) {
                json.put(member, defect.value().apply(hostile));
            } else if (member.equals(largeMember)) {
                json.put(member, hostile.chance(0.5) ? HostileValues.quote(hugeText()) : largeArray());
            } else if (mutate.contains(member)) {
                if (hostile.chance(0.15)) {
                    continue; // removed
                }
                json.put(member, keepTypes
                        ? sameTypeAs(template.get(member))
                        : hostileFor(member, template.get(member)));
            } else {
                json.put(member, Json.write(template.get(member)));
            }
        }
        if (!json.containsKey(defect.member())) {
            json.put(defect.member(), defect.value().apply(hostile));
        }
        if (hostile.chance(0.1)) {
            json.put(hostile.string(), hostile.value(0));
        }
        StringBuilder text = new StringBuilder("{");
        json.forEach((member, memberValue) -> text.append(text.length() > 1 ? "," : "")
                .append(HostileValues.quote(member)).append(':').append(memberValue));
        return text.append('}').toString();
    }

    /** A hostile value for one member, shaped by what the member holds: ids get bad ids, kinds unknown kinds. */
    private String hostileFor(String member, JsonNode original) {
        String lower = member.toLowerCase();
        double draw = hostile.random().nextDouble();
        if ((lower.endsWith("id") && draw < 0.5)) {
            return HostileValues.quote(hostile.badId());
        }
        if ((lower.equals("kind") || lower.equals("type") || lower.equals("decision") || lower.equals("mode")
                || lower.equals("channel")) && draw < 0.6) {
            return HostileValues.quote(hostile.pick(UNKNOWN_KINDS));
        }
        if (original != null && original.isObject() && draw < 0.7) {
            return hostile.object(1);
        }
        if (draw < 0.8) {
            return hostile.stringLiteral();
        }
        return hostile.value(0);
    }

    /** A hostile value of the original's JSON type; for a UUID, another UUID or an almost-UUID. */
    private String sameTypeAs(JsonNode original) {
        if (original == null || original.isNull()) {
            return hostile.chance(0.5) ? "null" : hostile.stringLiteral();
        }
        if (original.isTextual()) {
            boolean uuid = original.asText().matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
            return uuid
                    ? HostileValues.quote(hostile.chance(0.5) ? hostile.uuid().toString() : hostile.badId())
                    : hostile.stringLiteral();
        }
        if (original.isNumber()) {
            return hostile.pick(List.of("0", "-1", "2147483647", "-2147483648", "1", "3"));
        }
        if (original.isBoolean()) {
            return hostile.random().nextBoolean() ? "true" : "false";
        }
        return original.isObject() ? hostile.object(1) : hostile.array(1);
    }

    private String hugeText() {
        return hostile.pick(List.of("h", "\u00e9", "\uD83D\uDCA5", "'; ")).repeat(LARGE / 4);
    }

    private String largeArray() {
        return "[" + "\"x\",".repeat(9_999) + "\"x\"]";
    }

    /** The event id a consumer would read from {@code value}, or null. */
    private static UUID eventIdOf(String value) {
        if (value == null) {
            return null;
        }
        try {
            JsonNode tree = Json.mapper().readTree(value);
            return tree != null && tree.path("eventId").isTextual()
                    ? UUID.fromString(tree.get("eventId").asText())
                    : null;
        } catch (Exception unreadable) {
            return null;
        }
    }

    /** The record headers of {@code credentials}, without the {@code Bearer} prefix, by label (none: no header). */
    public static Map<String, String> tokens(List<Credential> credentials) {
        Map<String, String> tokens = new HashMap<>();
        for (Credential credential : credentials) {
            String header = credential.authorization();
            tokens.put(credential.label(), header == null ? null : header.replaceFirst("^Bearer ", ""));
        }
        return tokens;
    }
}
