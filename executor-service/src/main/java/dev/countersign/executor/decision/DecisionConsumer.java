package dev.countersign.executor.decision;

import java.util.Set;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.events.ActionDecided;
import dev.countersign.contracts.json.ConfirmTokens;
import dev.countersign.contracts.json.MalformedEventException;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.action.DecisionOutcome;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TransientFailures;
import dev.countersign.executor.evidence.ApproverVerifier;
import dev.countersign.executor.evidence.Evidence;
import dev.countersign.executor.execution.ExternalExecution;
import dev.countersign.executor.execution.ExternalRecovery;
import dev.countersign.executor.expiry.ExpirySweeper;
import dev.countersign.executor.messaging.KeyedLanes;
import dev.countersign.executor.messaging.ReadPayload;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;

/**
 * Consumes {@code countersign.actions.decisions}: the same confirm and cancel as over HTTP, relayed by integrations.
 * Idempotent by event id (recorded in the decision's transaction). A record that can never be processed (unreadable, a
 * channel or identifier that breaks the rules, data PostgreSQL refuses) is parked, token redacted, by
 * {@link DecisionDeadLetters}; transient database failures are retried for as long as they last.
 * <p>
 * A decision may carry its approver's own executor-audience token ({@link KafkaHeaders#APPROVER}), verified as over
 * HTTP ({@link ApproverVerifier}); its user is then a verified approver. The token is single use: the first decision
 * that carries it binds it to its action and parameters hash, and any other is decided nothing and parked
 * ({@link SingleUseApprovals}); a token without a {@code jti} is refused. Without one, the decision still works as the
 * token holder's confirm or cancel, but for a tenant's k-of-n rule it counts as the one unverified approver
 * ({@link Principal#UNVERIFIED_INTEGRATION}) whatever user id it names. A decision whose approver token is refused is
 * parked.
 * <p>
 * A decision with a wrong token or for an unknown action changes nothing and is only logged (without the token):
 * answering it on a topic would be an oracle for ids and tokens. Limit: that includes a decision that arrives before
 * its proposal was staged (the token is on the card before the executor has consumed the proposal); integrations should
 * relay decisions for actions they have seen staged.
 */
@ApplicationScoped
public class DecisionConsumer {

    static final String CONSUMER = "executor.decisions";
    private static final Logger LOG = Logger.getLogger(DecisionConsumer.class);
    private static final Pattern CHANNEL = Pattern.compile("[a-z0-9_-]{1,32}");
    /** Channels the executor writes into the history itself; an integration cannot claim them. */
    private static final Set<String> RESERVED_CHANNELS = Set.of(TenantTransactions.AGENT, TenantTransactions.HTTP,
            TenantTransactions.AUTO_APPLY, "sql", ExpirySweeper.CHANNEL, ExpirySweeper.ACTOR, ExternalExecution.CHANNEL,
            ExternalRecovery.CHANNEL, DecisionRequest.SECOND_DEVICE);

    private final DecisionService decisions;
    private final DecisionDeadLetters deadLetters;
    private final ApproverVerifier approvers;
    private final KeyedLanes lanes;

    public DecisionConsumer(DecisionService decisions, DecisionDeadLetters deadLetters, ApproverVerifier approvers,
            @ConfigProperty(name = "countersign.decisions.lanes") int lanes) {
        this.decisions = decisions;
        this.deadLetters = deadLetters;
        this.approvers = approvers;
        this.lanes = KeyedLanes.withLanes(lanes);
    }

    /** The approver token, removed from the record's headers so that no copy of the record carries it. */
    private static String takeApproverToken(IncomingKafkaRecordMetadata<?, ?> metadata) {
        if (metadata.getHeaders() == null) {
            return null;
        }
        var header = metadata.getHeaders().lastHeader(KafkaHeaders.APPROVER);
        metadata.getHeaders().remove(KafkaHeaders.APPROVER);
        return header == null || header.value() == null
                ? null
                : new String(header.value(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Every record ends parked or acknowledged: this channel's failure strategy is {@code fail}, so a failure that
     * escaped (an exception thrown while reading a record, before any Uni existed) would stop the consumer for every
     * tenant. Anything the checks below did not foresee is parked with the exception's class as its reason.
     * <p>
     * Decisions on different actions are processed side by side ({@link KeyedLanes}, {@code DECISION_LANES}), those on
     * one action in their order on the topic: the lane is the payload's action id, not the record key an integration
     * chose (an unreadable record goes by its key). A record is acknowledged when its decision is committed or parked,
     * in any order, and the channel's throttled commit strategy commits only offsets below which everything was
     * acknowledged. If parking fails, the record is refused (nack) and the channel stops, as before.
     */
    @Incoming("decisions")
    public Uni<Void> consume(Message<String> message) {
        // The approver token comes off the headers before anything can fail, so no copy of the record carries it.
        String approverToken = message.getMetadata(IncomingKafkaRecordMetadata.class)
                .map(DecisionConsumer::takeApproverToken).orElse(null);
        String payload = message.getPayload();
        String key = message.getMetadata(IncomingKafkaRecordMetadata.class)
                .map(metadata -> String.valueOf(metadata.getKey())).orElse("");
        ReadPayload<ActionDecided> read = ReadPayload.of(payload, ActionDecided.class);
        return lanes.submit(read.laneKey(ActionDecided::actionId, key), () -> Uni.createFrom()
                .deferred(() -> decide(message, key, payload, read, approverToken))
                .onFailure().recoverWithUni(unforeseen -> park(message, key, payload,
                        "could not be processed: " + unforeseen.getClass().getSimpleName()))
                .onFailure().call(failure -> Uni.createFrom().completionStage(message.nack(failure))));
    }

    private Uni<Void> decide(Message<String> message, String key, String payload, ReadPayload<ActionDecided> read,
            String approverToken) {
        if (read.failure() instanceof MalformedEventException e) {
            return park(message, key, payload, "unreadable: " + e.getMessage());
        }
        if (read.failure() != null) {
            return Uni.createFrom().failure(read.failure());
        }
        ActionDecided decided = read.event();
        String problem = problemWith(decided);
        if (problem != null) {
            return park(message, key, payload, problem);
        }
        if (approverToken == null) {
            return decideAs(message, key, payload, decided, null, null);
        }
        return approvers.verify(approverToken, decided.tenantId(), decided.userId()).flatMap(approver -> {
            if (approver instanceof Evidence.Rejected rejected) {
                return park(message, key, payload, "approver token refused: " + rejected.reason());
            }
            // The decision rule judges this person as over HTTP: their groups, whether their token is a service's.
            Evidence.Verified verified = (Evidence.Verified) approver;
            if (verified.tokenId() == null || verified.tokenId().isEmpty() || verified.tokenId().length() > 256) {
                return park(message, key, payload, "approver token refused: no_token_id");
            }
            return decideAs(message, key, payload, decided,
                    Principal.of(decided.userId(), verified.groups(), verified.service()),
                    new DecisionRequest.ApproverToken(verified.tokenId(), verified.expiresAt()));
        });
    }

    /** Decides {@code decided} as {@code decider} (null: no approver token came with it). */
    private Uni<Void> decideAs(Message<String> message, String key, String payload, ActionDecided decided,
            Principal decider, DecisionRequest.ApproverToken usedUp) {
        DecisionRequest request = new DecisionRequest(decided.actionId(), decided.tenantId(), decided.userId(),
                new DecisionAuthority.Token(decided.token()), decided.channel(), decided.eventId(), decided.turnId(),
                decided.paramsHash(), decider, Channel.TOPIC, usedUp);
        Uni<DecisionOutcome> outcome = decided.decision() == ActionDecided.Decision.CONFIRM
                ? decisions.confirm(request)
                : decisions.cancel(request);
        return TransientFailures.retryWhileTransient(outcome, LOG, "Decision " + decided.eventId())
                .invoke(result -> LOG.infof("Decision %s (%s via %s) on action %s: %s", decided.eventId(),
                        decided.decision().wireName(), decided.channel(), decided.actionId(),
                        result.getClass().getSimpleName()))
                .replaceWithVoid()
                .onFailure(SingleUseApprovals.AlreadyUsed.class)
                .recoverWithUni(used -> deadLetters.park(key, payload, "approver token refused: already_used"))
                .onFailure().recoverWithUni(failure -> deadLetters.park(key, payload,
                        "failed for good: " + failure.getClass().getSimpleName()))
                .onItemOrFailure().transformToUni((ignored, failure) -> Uni.createFrom()
                        .completionStage(message.ack()));
    }

    private Uni<Void> park(Message<String> message, String key, String payload, String reason) {
        LOG.warnf("Parking a decision on the dead-letter topic: %s", reason);
        return deadLetters.park(key, payload, reason)
                .onItem().transformToUni(ignored -> Uni.createFrom().completionStage(message.ack()));
    }

    /** Null if the decision may be processed; otherwise why it never can be. */
    static String problemWith(ActionDecided decided) {
        if (!Identifiers.isPrintableId(decided.tenantId()) || !Identifiers.isPrintableId(decided.userId())) {
            return "tenantId and userId must be 1 to 128 printable characters";
        }
        String channel = decided.channel();
        if (!CHANNEL.matcher(channel).matches() || RESERVED_CHANNELS.contains(channel)) {
            return "channel must be 1 to 32 of a-z, 0-9, '-', '_', and not one of " + RESERVED_CHANNELS;
        }
        if (DecisionRequest.CHAT.equals(channel) && decided.turnId() == null) {
            return "a decision relayed from the chat must name its turnId";
        }
        if (!ConfirmTokens.isWellFormed(decided.token())) {
            return "token must be 1 to %d characters".formatted(ConfirmTokens.MAX_LENGTH);
        }
        if (decided.decision() == ActionDecided.Decision.CONFIRM && !ParamsHash.isWellFormed(decided.paramsHash())) {
            return "a confirm must name the paramsHash of the parameters the person was shown (64 lower-case hex)";
        }
        return null;
    }
}
