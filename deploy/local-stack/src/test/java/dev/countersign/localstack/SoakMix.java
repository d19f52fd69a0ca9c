package dev.countersign.localstack;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.producer.KafkaProducer;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Audiences;

/**
 * The soak's fixed mix of operations, one person (alice, requester and approver) of one tenant using both services the
 * way the API allows, spread over the executor instances in turn. Every answer goes to the {@link OperationTally}; what
 * the answers said about each action is kept, so the database can be held against it afterwards.
 * <p>
 * A proposal (chat turn or Kafka record) is staged asynchronously; the mix learns which are staged from the list read
 * ({@code GET /api/actions?status=proposed}), as a client would, so confirms and cancels only name staged actions and a
 * 404 is never an expected answer. Per cycle of {@link #CYCLE} more actions are proposed than decided, so there is
 * always something staged; the surplus stays proposed.
 */
final class SoakMix {

    /** One slot of the cycle, run at the soak's rate, in this order, over and over. */
    enum Operation {
        CHAT, PROPOSE, LIST_PROPOSED, CONFIRM, GET_ACTION, CANCEL, WALLETS, CONFIRM_RACING_CANCEL, LIST_ACTIONS, UNDO, WALLET_TRANSACTIONS
    }

    /**
     * 20 slots: 7 proposals (2 chat turns, 5 on Kafka) against 6 decisions (4 confirms, 1 cancel, 1 confirm racing a
     * cancel), 1 undo, 6 reads.
     */
    static final List<Operation> CYCLE = List.of(Operation.CHAT, Operation.PROPOSE, Operation.PROPOSE,
            Operation.LIST_PROPOSED, Operation.CONFIRM, Operation.GET_ACTION, Operation.PROPOSE, Operation.CONFIRM,
            Operation.CANCEL, Operation.WALLETS, Operation.CHAT, Operation.PROPOSE, Operation.CONFIRM,
            Operation.CONFIRM_RACING_CANCEL, Operation.LIST_ACTIONS, Operation.UNDO, Operation.WALLET_TRANSACTIONS,
            Operation.PROPOSE, Operation.CONFIRM, Operation.GET_ACTION);

    /**
     * The only answers besides a 2xx the soak allows (docs/api.md): a decision that met an action another decision
     * already moved, {@code 409 invalid_state_transition} with its current status. Only the racing pair and a cancel
     * can meet one; a plain confirm or an undo names an action nothing else touches, so any refusal there is a fault.
     */
    static final Map<String, Set<String>> ALLOWED_CONFLICTS = Map.of(
            "confirm (racing a cancel)", Set.of("409 invalid_state_transition"),
            "cancel (racing a confirm)", Set.of("409 invalid_state_transition"));

    /** An action the mix proposed and was told was accepted, and what the answers since said happened to it. */
    static final class Known {

        final UUID id;
        final String paramsHash;
        final BigDecimal amount;
        final String source;
        volatile boolean confirmed;
        volatile boolean cancelled;
        volatile boolean undone;

        Known(UUID id, String paramsHash, BigDecimal amount, String source) {
            this.id = id;
            this.paramsHash = paramsHash;
            this.amount = amount;
            this.source = source;
        }

        /** The status the answers imply: what the database must hold once everything settled. */
        String expectedStatus() {
            if (undone) {
                return "undone";
            }
            return confirmed ? "executed" : cancelled ? "cancelled" : "proposed";
        }
    }

    private final LocalStack stack;
    private final String tenant;
    private final UUID wallet;
    private final String executorBearer;
    private final String agentBearer;
    private final String evidence;
    private final KafkaProducer<String, String> producer;
    private final ExecutorService secondLegs;
    private final OperationTally tally;

    private final Map<UUID, Known> known = new ConcurrentHashMap<>();
    private final Set<UUID> seenStaged = ConcurrentHashMap.newKeySet();
    private final Queue<Known> staged = new ConcurrentLinkedQueue<>();
    private final Queue<Known> executed = new ConcurrentLinkedQueue<>();
    private final AtomicInteger executorTurn = new AtomicInteger();
    private final AtomicInteger sequence = new AtomicInteger();

    SoakMix(LocalStack stack, String tenant, UUID wallet, KafkaProducer<String, String> producer,
            ExecutorService secondLegs, OperationTally tally) {
        this.stack = stack;
        this.tenant = tenant;
        this.wallet = wallet;
        this.producer = producer;
        this.secondLegs = secondLegs;
        this.tally = tally;
        this.executorBearer = stack.tokens().mint(tenant, "alice", Audiences.EXECUTOR,
                Duration.ofHours(2));
        this.agentBearer = stack.tokens().mint(tenant, "alice", Audiences.AGENT,
                Duration.ofHours(2));
        this.evidence = AgentEvidence.of(stack, tenant, "alice");
    }

    /** Every proposal an answer acknowledged, by action id. */
    Map<UUID, Known> known() {
        return Map.copyOf(known);
    }

    /** Runs slot {@code slot} of the cycle; exceptions other than I/O are the test's own faults and propagate. */
    void run(long slot) throws InterruptedException {
        Operation operation = CYCLE.get((int) (slot % CYCLE.size()));
        switch (operation) {
            case CHAT -> chat(slot);
            case PROPOSE -> propose();
            case LIST_PROPOSED -> listProposed();
            case CONFIRM -> decide("confirm", "/confirm", nextStaged("confirm"), known -> known.confirmed = true);
            case CANCEL -> decide("cancel", "/cancel", nextStaged("cancel"), known -> known.cancelled = true);
            case CONFIRM_RACING_CANCEL -> confirmRacingCancel();
            case UNDO -> undo();
            case GET_ACTION -> getAction();
            case LIST_ACTIONS -> read("list actions", executorUrl() + "/api/actions?limit=20", executorBearer);
            case WALLETS -> read("agent wallets", stack.agentUrl() + "/api/wallets", agentBearer);
            case WALLET_TRANSACTIONS -> read("agent wallet transactions",
                    stack.agentUrl() + "/api/wallets/" + wallet + "/transactions", agentBearer);
        }
    }

    /**
     * A chat turn the demo model answers with one {@code propose_expense} call; a conversation per ten slots' worth of
     * cycles, so the model context (the conversation's earlier turns) stays the size of a real conversation.
     */
    private void chat(long slot) throws InterruptedException {
        int cents = 100 + sequence.incrementAndGet() % 9_000;
        String text = "add a %d.%02d coffee expense to Checking".formatted(cents / 100, cents % 100);
        String conversation = "soak-" + slot / (CYCLE.size() * 10);
        long started = System.nanoTime();
        try {
            Http.Answer answer = Http.post(stack.agentUrl() + "/api/conversations/" + conversation + "/messages",
                    agentBearer, Map.of("text", text));
            tally.record("chat turn (proposes)", answer, started);
            if (answer.status() == 200) {
                for (JsonNode card : answer.body().get("proposals")) {
                    UUID id = UUID.fromString(card.get("actionId").asText());
                    known.put(id, new Known(id, card.get("paramsHash").asText(),
                            new BigDecimal(card.get("params").get("amount").asText()), "chat"));
                }
            }
        } catch (IOException broken) {
            tally.record("chat turn (proposes)", "io error", started, broken.toString());
        }
    }

    /** An expense published as the agent publishes it; acknowledged once the broker acked it (acks=all). */
    private void propose() throws InterruptedException {
        BigDecimal amount = BigDecimal.valueOf(100 + sequence.incrementAndGet() % 40_000, 2);
        ExpenseProposal proposal = ExpenseProposal.of(tenant, "alice", wallet, amount, "coffee", "soak",
                "soak-kafka-" + sequence.get() % 50);
        long started = System.nanoTime();
        try {
            producer.send(AgentEvidence.proposal(proposal, evidence)).get(30, TimeUnit.SECONDS);
            known.put(proposal.id(), new Known(proposal.id(), proposal.paramsHash(), amount, "kafka"));
            tally.record("propose (Kafka)", OperationTally.ACKED, started, null);
        } catch (ExecutionException | TimeoutException failed) {
            tally.record("propose (Kafka)", "not acked", started, failed.toString());
        }
    }

    /** The read that tells the mix which of its proposals are staged (newest first, so the fresh ones). */
    private void listProposed() throws InterruptedException {
        long started = System.nanoTime();
        try {
            Http.Answer answer = Http.get(executorUrl() + "/api/actions?status=proposed&limit=50", executorBearer);
            tally.record("list proposed", answer, started);
            if (answer.status() == 200) {
                for (JsonNode item : answer.body().get("items")) {
                    UUID id = UUID.fromString(item.get("id").asText());
                    Known proposal = known.get(id);
                    if (proposal != null && seenStaged.add(id)) {
                        staged.add(proposal);
                    }
                }
            }
        } catch (IOException broken) {
            tally.record("list proposed", "io error", started, broken.toString());
        }
    }

    private Known nextStaged(String operation) {
        Known next = staged.poll();
        if (next == null) {
            tally.skipped(operation);
        }
        return next;
    }

    private interface Effect {

        void on(Known known);
    }

    private void decide(String operation, String path, Known action, Effect onSuccess) throws InterruptedException {
        if (action == null) {
            return;
        }
        boolean won = post(operation, executorUrl() + "/api/actions/" + action.id + path, action);
        if (won) {
            onSuccess.on(action);
            if (path.equals("/confirm")) {
                executed.add(action);
            }
        }
    }

    /**
     * A confirm and a cancel of one staged action sent at once to different executors: one wins, the other is told
     * {@code 409 invalid_state_transition} with the winner's status.
     */
    private void confirmRacingCancel() throws InterruptedException {
        Known action = nextStaged("confirm (racing a cancel)");
        if (action == null) {
            return;
        }
        List<String> urls = stack.executorUrls();
        int first = executorTurn.getAndIncrement();
        String confirmUrl = urls.get(Math.floorMod(first, urls.size())) + "/api/actions/" + action.id + "/confirm";
        String cancelUrl = urls.get(Math.floorMod(first + 1, urls.size())) + "/api/actions/" + action.id + "/cancel";
        CompletableFuture<Boolean> cancel = CompletableFuture.supplyAsync(() -> {
            try {
                return post("cancel (racing a confirm)", cancelUrl, action);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }, secondLegs);
        boolean confirmed = post("confirm (racing a cancel)", confirmUrl, action);
        boolean cancelled = cancel.join();
        action.confirmed |= confirmed;
        action.cancelled |= cancelled;
        if (confirmed && !cancelled) {
            executed.add(action);
        }
    }

    /** An undo of an action this mix saw executed (each at most once). */
    private void undo() throws InterruptedException {
        Known action = executed.poll();
        if (action == null) {
            tally.skipped("undo");
            return;
        }
        if (post("undo", executorUrl() + "/api/actions/" + action.id + "/undo", action)) {
            action.undone = true;
        }
    }

    private void getAction() throws InterruptedException {
        Known any = staged.peek();
        if (any == null) {
            any = executed.peek();
        }
        if (any == null) {
            tally.skipped("get action");
            return;
        }
        read("get action", executorUrl() + "/api/actions/" + any.id, executorBearer);
    }

    /** Whether the answer was a 2xx. */
    private boolean post(String operation, String url, Known action) throws InterruptedException {
        long started = System.nanoTime();
        try {
            Http.Answer answer = Http.post(url, executorBearer, Map.of("paramsHash", action.paramsHash));
            tally.record(operation, answer, started);
            return answer.status() / 100 == 2;
        } catch (IOException broken) {
            tally.record(operation, "io error", started, broken.toString());
            return false;
        }
    }

    private void read(String operation, String url, String bearer) throws InterruptedException {
        long started = System.nanoTime();
        try {
            tally.record(operation, Http.get(url, bearer), started);
        } catch (IOException broken) {
            tally.record(operation, "io error", started, broken.toString());
        }
    }

    /** The executors in turn, one request each. */
    private String executorUrl() {
        List<String> urls = stack.executorUrls();
        return urls.get(Math.floorMod(executorTurn.getAndIncrement(), urls.size()));
    }
}
