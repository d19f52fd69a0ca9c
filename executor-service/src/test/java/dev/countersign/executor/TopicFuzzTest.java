package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.ReliabilityReport;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.devsupport.testing.fuzz.Credential;
import dev.countersign.devsupport.testing.fuzz.DomainChecksum;
import dev.countersign.devsupport.testing.fuzz.FuzzRun;
import dev.countersign.devsupport.testing.fuzz.HostileValues;
import dev.countersign.devsupport.testing.fuzz.RecordInput;
import dev.countersign.devsupport.testing.fuzz.TopicInputs;
import dev.countersign.devsupport.testing.fuzz.TopicInputs.Defect;
import dev.countersign.devsupport.testing.fuzz.TopicInputs.HeaderVariants;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 19, bad input on the topics the executor consumes: {@code countersign.fuzz.inputs} (default 1000) generated
 * records per topic from a recorded seed ({@link FuzzRun}), each carrying a defect its consumer really refuses. Every
 * record must meet its fate, found by the key or event id the test gave it: parked on the topic's dead-letter topic
 * (key kept), or recorded as processed and refused ({@code processed_events}; for a proposal with an
 * {@code ActionRejected} in the outbox). No record may be lost, nothing staged, applied or appended, and the consumers
 * must still work afterwards.
 * <p>
 * The checksum covers every table of the domain schema, {@code processed_events} and {@code outbox} included; it leaves
 * out only the rows that record a refusal: in {@code processed_events} a proposal's or decision's event id that a fuzz
 * record carried (the refusal is recorded as processed), in {@code outbox} and {@code conversation_events} an
 * {@code ActionRejected} (a rejection is appended to its conversation's ledger too). That a refusal row stands for a
 * record that was not also dead-lettered (two fates, one of them a partial write) is checked record by record.
 */
@QuarkusTest
@ExecutorTestResources
class TopicFuzzTest {

    private static final Duration FATES_WITHIN = Duration.ofSeconds(120);
    /**
     * The {@code ActionRejected} of a refused proposal is also appended to its conversation's ledger (by the outbox
     * writer); a consumed conversation event is never of that type, so a fuzz record appended would still show.
     */
    private static final String REJECTION_IN_THE_LEDGER = "t.type = 'ActionRejected'";
    /**
     * An {@code ActionRejected} in the outbox: of the outcome events only it and {@code ActionFailed} have a
     * {@code code}, and only {@code ActionFailed} a {@code summary}. Matched as text (a payload with an escaped NUL is
     * no jsonb); a hostile value cannot forge {@code "code":}, its quotes are escaped.
     */
    private static final String REJECTION_IN_THE_OUTBOX = "position('\"code\":' in t.payload) > 0"
            + " AND position('\"summary\":' in t.payload) = 0";
    /** How long {@code processed_events} must stay still before the first checksum (other classes' late records). */
    private static final Duration QUIET_FOR = Duration.ofSeconds(3);
    private static final List<String> BAD_CONVERSATION_IDS = List.of("", "c fuzz", "c/fuzz", "x".repeat(65),
            "c-fuzz\u0000", "c-fuzz'; DROP TABLE actions; --", "c\u202Efuzz", "c-f\u00fczz", "c.fuzz", " c-fuzz");

    private final TopicRecords kafka = TopicRecords.fromTestProperties();

    /** Per topic, the keys of the records without a fate; and the keys found on the dead-letter topics. */
    private record Fates(Map<String, Set<String>> missing, Set<String> parked) {
    }

    /** One consumed topic under fuzz: its records and where a refused one ends. */
    private record Target(String topic, String deadLetterTopic, String consumer, List<RecordInput> inputs) {
    }

    @Test
    void everyConsumedTopicParksOrRefusesGeneratedBadRecordsAndChangesNothing() throws Exception {
        FuzzRun run = FuzzRun.fromSystemProperties("executor TopicFuzzTest");
        TestTenant tenant = TestTenant.withCheckingWallet();
        ProposalMother waiting = ProposalMother.staged(kafka, tenant, "12.50");
        ProposalMother cancelled = ProposalMother.staged(kafka, tenant, "7.00");
        cancelled.decide("cancel", tenant.executorBearer("alice")).then().statusCode(200);
        String nonce = UUID.randomUUID().toString().substring(0, 8);

        List<Target> targets = List.of(
                new Target(Topics.ACTIONS_PROPOSED, Topics.ACTIONS_PROPOSED_DEAD_LETTER, "executor.proposals",
                        proposals(run, tenant, nonce)),
                new Target(Topics.ACTIONS_DECISIONS, Topics.ACTIONS_DECISIONS_DEAD_LETTER, "executor.decisions",
                        decisions(run, tenant, nonce, waiting, cancelled)),
                new Target(Topics.CONVERSATION_EVENTS, Topics.CONVERSATION_EVENTS_DEAD_LETTER, null,
                        conversationEvents(run, tenant, nonce)));

        awaitQuiet(tenant);
        DomainChecksum checksum;
        Map<String, String> before;
        try (var owner = Db.owner()) {
            // approver_token_uses records an approver token spent on a decision that reached its action, refused or
            // not: a token is used once whatever the decision came to (SingleUseApprovals).
            checksum = DomainChecksum.startingNow(owner, Set.of("approver_token_uses"), Map.of(
                    "conversation_events", REJECTION_IN_THE_LEDGER,
                    "outbox", REJECTION_IN_THE_OUTBOX,
                    "processed_events", refusalsRecorded(targets)), Set.of(tenant.id()));
            before = checksum.take(owner);
        }
        long started = System.nanoTime();
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        targets.forEach(target -> target.inputs().forEach(input -> records.add(record(input))));
        kafka.sendAll(records);
        long sentAfter = (System.nanoTime() - started) / 1_000_000;

        Fates fates = awaitFates(targets);
        Map<String, Set<String>> missing = fates.missing();
        long seconds = (System.nanoTime() - started) / 1_000_000_000;
        int total = records.size();
        targets.forEach(target -> System.out.printf(
                "executor TopicFuzzTest: %s: %d records, %d dead-lettered, %d without a fate%n", target.topic(),
                target.inputs().size(), target.inputs().stream().filter(i -> fates.parked().contains(i.key())).count(),
                missing.get(target.topic()).size()));
        System.out.printf("executor TopicFuzzTest: %d records to %d topics, sent in %d ms, all fates in %d s, %s%n",
                total, targets.size(), sentAfter, seconds, run.replay());

        List<String> lost = new ArrayList<>();
        for (Target target : targets) {
            target.inputs().stream().filter(input -> missing.get(target.topic()).contains(input.key())).limit(5)
                    .forEach(input -> lost.add(input.describe()));
        }
        assertThat(lost).as("records neither dead-lettered nor recorded as refused within %s, %s; first: %s",
                FATES_WITHIN, run.replay(), lost).isEmpty();
        List<String> twoFates = bothParkedAndRecorded(targets, fates.parked());
        assertThat(twoFates).as("records dead-lettered and yet recorded as processed, %s; first: %s", run.replay(),
                twoFates).isEmpty();
        try (var owner = Db.owner()) {
            assertThat(checksum.take(owner)).as("domain tables after %d refused records, %s", total, run.replay())
                    .isEqualTo(before);
        }
        assertThat(Db.status(waiting.actionId)).isEqualTo("proposed");
        assertThat(Db.status(cancelled.actionId)).isEqualTo("cancelled");
        consumersStillWork(tenant, waiting);
        ReliabilityReport.record(new ReliabilityReport.Row("TopicFuzzTest",
                "%d topics x %d records, seed %d".formatted(targets.size(), run.inputs(), run.seed()),
                "malformed and hostile events, bad evidence", total, lost.size(), 0, 0));
    }

    /** Proposals of the fuzz tenant's alice, with her evidence half the time: each names a wrong paramsHash. */
    private static List<RecordInput> proposals(FuzzRun run, TestTenant tenant, String nonce) {
        ObjectNode template = new ProposalMother(tenant, "3.00").event;
        Defect wrongHash = new Defect("paramsHash", "wrong-paramsHash", hostile -> hostile.chance(0.7)
                ? HostileValues.quote(hex64(hostile))
                : hostile.value(0));
        HeaderVariants evidence = new HeaderVariants(KafkaHeaders.EVIDENCE,
                TopicInputs.tokens(agentCredentials(tenant)),
                0.5, "valid");
        return new TopicInputs(new HostileValues(run.randomFor(Topics.ACTIONS_PROPOSED), TopicInputs.LARGE),
                Topics.ACTIONS_PROPOSED,
                "fuzz-" + nonce + "-proposal-", List.of(template), List.of(wrongHash), List.of(evidence))
                .generate(run.inputs());
    }

    /**
     * Confirms and cancels of a waiting and of a cancelled action of the fuzz tenant, with and without an approver
     * token (valid or not): each carries a confirm token that is not the action's (the executor minted that one and
     * showed it to no one).
     */
    private static List<RecordInput> decisions(FuzzRun run, TestTenant tenant, String nonce, ProposalMother waiting,
            ProposalMother cancelled) {
        List<ObjectNode> templates = List.of(waiting.decided("confirm", "x"), waiting.decided("cancel", "x"),
                cancelled.decided("confirm", "x"), cancelled.decided("cancel", "x"));
        Defect wrongToken = new Defect("token", "wrong-token", hostile -> hostile.chance(0.6)
                ? HostileValues.quote("tok-" + hostile.uuid())
                : hostile.value(0));
        Map<String, String> approvers = new LinkedHashMap<>(TopicInputs.tokens(Credential.variants(tenant.id(),
                "alice", Audiences.EXECUTOR, Audiences.AGENT)));
        HeaderVariants approver = new HeaderVariants(KafkaHeaders.APPROVER, approvers, 0.4, "none");
        return new TopicInputs(new HostileValues(run.randomFor(Topics.ACTIONS_DECISIONS), TopicInputs.LARGE),
                Topics.ACTIONS_DECISIONS,
                "fuzz-" + nonce + "-decision-", templates, List.of(wrongToken), List.of(approver))
                .generate(run.inputs());
    }

    /** Turns and plan deliverables of alice, with her evidence half the time: each breaks the ledger's envelope. */
    private static List<RecordInput> conversationEvents(FuzzRun run, TestTenant tenant, String nonce) {
        List<ObjectNode> templates = new ArrayList<>();
        for (String fixture : List.of(ContractFixtures.TURN_RECORDED, ContractFixtures.PLAN_REFUSED,
                ContractFixtures.PLAN_FELL_SHORT, ContractFixtures.PLAN_STATEMENT_DRAFTED)) {
            ObjectNode event = (ObjectNode) ContractFixtures.tree(fixture);
            templates.add(event.put("tenantId", tenant.id()).put("userId", "alice").put("conversationId", "c-fuzz")
                    .put("turnId", UUID.randomUUID().toString()));
        }
        List<Defect> defects = List.of(
                new Defect("schemaVersion", "unknown-schemaVersion",
                        hostile -> hostile.pick(List.of("0", "2", "-1", "2147483647", "99"))),
                new Defect("conversationId", "bad-conversationId",
                        hostile -> HostileValues.quote(hostile.pick(BAD_CONVERSATION_IDS))));
        HeaderVariants evidence = new HeaderVariants(KafkaHeaders.EVIDENCE,
                TopicInputs.tokens(agentCredentials(tenant)),
                0.5, "valid");
        return new TopicInputs(new HostileValues(run.randomFor(Topics.CONVERSATION_EVENTS), TopicInputs.LARGE),
                Topics.CONVERSATION_EVENTS, "fuzz-" + nonce + "-conversation-", templates, defects, List.of(evidence))
                .generate(run.inputs());
    }

    private static List<Credential> agentCredentials(TestTenant tenant) {
        return Credential.variants(tenant.id(), "alice", Audiences.AGENT, Audiences.EXECUTOR);
    }

    private static String hex64(HostileValues hostile) {
        StringBuilder hex = new StringBuilder();
        while (hex.length() < 64) {
            hex.append(String.format("%016x", hostile.random().nextLong()));
        }
        return hex.toString();
    }

    private static ProducerRecord<String, String> record(RecordInput input) {
        var record = new ProducerRecord<String, String>(input.topic(), input.key(), input.value());
        input.headers().forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    /**
     * Waits until every record is found on its dead-letter topic (by key) or in {@code processed_events} (by event id),
     * or {@link #FATES_WITHIN} has passed.
     */
    private Fates awaitFates(List<Target> targets) throws SQLException {
        Set<String> parked = new HashSet<>();
        Map<String, Set<String>> missing = new LinkedHashMap<>();
        try (var deadLetters = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestProperties.require(TestProperties.BOOTSTRAP_SERVERS),
                ConsumerConfig.GROUP_ID_CONFIG, "fuzz-dead-letters-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 << 20), new StringDeserializer(),
                new StringDeserializer()); Connection owner = Db.owner()) {
            deadLetters.subscribe(targets.stream().map(Target::deadLetterTopic).toList());
            await().atMost(FATES_WITHIN).pollInterval(Duration.ofMillis(500)).until(() -> {
                deadLetters.poll(Duration.ofMillis(300)).forEach(record -> parked.add(record.key()));
                missing.clear();
                for (Target target : targets) {
                    missing.put(target.topic(), withoutFate(owner, target, parked));
                }
                return missing.values().stream().allMatch(Set::isEmpty);
            });
        } catch (org.awaitility.core.ConditionTimeoutException timedOut) {
            // Reported by the caller, record by record.
        }
        return new Fates(missing, parked);
    }

    private static Set<String> withoutFate(Connection owner, Target target, Set<String> parked) throws SQLException {
        Set<UUID> processed = target.consumer() == null ? Set.of() : processedEventIds(owner, target);
        Set<String> without = new HashSet<>();
        for (RecordInput input : target.inputs()) {
            if (!parked.contains(input.key()) && (input.eventId() == null || !processed.contains(input.eventId()))) {
                without.add(input.key());
            }
        }
        return without;
    }

    /** The event ids of {@code target}'s records that its consumer recorded in {@code processed_events}. */
    private static Set<UUID> processedEventIds(Connection owner, Target target) throws SQLException {
        Set<UUID> processed = new HashSet<>();
        try (var query = owner.prepareStatement(
                "SELECT event_id FROM processed_events WHERE consumer = ? AND event_id = ANY (?)")) {
            query.setString(1, target.consumer());
            query.setArray(2, owner.createArrayOf("uuid", target.inputs().stream().map(RecordInput::eventId)
                    .filter(java.util.Objects::nonNull).toArray()));
            try (var rows = query.executeQuery()) {
                while (rows.next()) {
                    processed.add(rows.getObject(1, UUID.class));
                }
            }
        }
        return processed;
    }

    /**
     * The rows of {@code processed_events} that may record a fuzz record's refusal: the proposals' and decisions'
     * consumers, under an event id a fuzz record of that topic carried. Any other row moves the checksum.
     */
    private static String refusalsRecorded(List<Target> targets) {
        List<String> conditions = new ArrayList<>();
        for (Target target : targets) {
            if (target.consumer() == null) {
                continue;
            }
            String ids = target.inputs().stream().map(RecordInput::eventId).filter(java.util.Objects::nonNull)
                    .distinct().map(UUID::toString).collect(java.util.stream.Collectors.joining(","));
            conditions.add("(t.consumer = '%s' AND t.event_id = ANY ('{%s}'::uuid[]))".formatted(target.consumer(),
                    ids));
        }
        return String.join(" OR ", conditions);
    }

    /**
     * The records recorded as processed although every record carrying their event id was dead-lettered: a refusal and
     * a park for one record, i.e. a write that should not have happened.
     */
    private static List<String> bothParkedAndRecorded(List<Target> targets, Set<String> parked) throws SQLException {
        List<String> both = new ArrayList<>();
        try (Connection owner = Db.owner()) {
            for (Target target : targets) {
                if (target.consumer() == null) {
                    continue;
                }
                Set<UUID> processed = processedEventIds(owner, target);
                Map<UUID, List<RecordInput>> byEventId = new LinkedHashMap<>();
                target.inputs().stream().filter(input -> input.eventId() != null).forEach(
                        input -> byEventId.computeIfAbsent(input.eventId(), id -> new ArrayList<>()).add(input));
                byEventId.forEach((eventId, inputs) -> {
                    if (processed.contains(eventId)
                            && inputs.stream().allMatch(input -> parked.contains(input.key()))) {
                        both.add(inputs.get(0).describe());
                    }
                });
            }
        }
        return both.stream().limit(5).toList();
    }

    /**
     * Before the first checksum: the relay has stamped the fuzz tenant's outbox rows, and {@code processed_events} (no
     * tenant column) has stood still for {@link #QUIET_FOR}, so records other test classes left on the topics do not
     * move it. Limit: one of those processed later, during the fuzz, would still fail the test (it never has so far).
     */
    private static void awaitQuiet(TestTenant tenant) {
        await().atMost(Duration.ofSeconds(30)).until(() -> Db.count(
                "SELECT count(*) FROM outbox WHERE tenant_id = ? AND published_at IS NULL", tenant.id()) == 0);
        // The notification planner deletes the requests the stagings wrote, on its own schedule.
        await().atMost(Duration.ofSeconds(30)).until(() -> Db.count(
                "SELECT count(*) FROM notification_requests WHERE tenant_id = ?", tenant.id()) == 0);
        var last = new java.util.concurrent.atomic.AtomicInteger(-1);
        await().atMost(Duration.ofSeconds(60)).during(QUIET_FOR).pollInterval(Duration.ofMillis(250)).until(() -> {
            int now = Db.count("SELECT count(*) FROM processed_events");
            return last.getAndSet(now) == now;
        });
    }

    /** After the fuzz, a valid proposal is staged, a valid decision cancels it and a valid turn is appended. */
    private void consumersStillWork(TestTenant tenant, ProposalMother waiting) throws Exception {
        ProposalMother valid = ProposalMother.staged(kafka, tenant, "4.00");
        kafka.send(Topics.ACTIONS_DECISIONS, valid.actionId.toString(),
                Json.write(valid.decided("cancel", valid.tokenFromExecutor())));
        Db.awaitStatus(valid.actionId, "cancelled");
        ObjectNode turn = (ObjectNode) ContractFixtures.tree(ContractFixtures.TURN_RECORDED);
        UUID eventId = UUID.randomUUID();
        turn.put("eventId", eventId.toString()).put("turnId", UUID.randomUUID().toString())
                .put("tenantId", tenant.id()).put("conversationId", "c-after-fuzz");
        kafka.send(Topics.CONVERSATION_EVENTS, "c-after-fuzz", Json.write(turn),
                Map.of(KafkaHeaders.EVIDENCE, TestProperties.agentBearer(tenant.id(), "alice")));
        await().atMost(Duration.ofSeconds(30)).until(() -> Db.count(
                "SELECT count(*) FROM conversation_events WHERE event_id = ?", eventId) == 1);
        assertThat(Db.status(waiting.actionId)).isEqualTo("proposed");
    }
}
