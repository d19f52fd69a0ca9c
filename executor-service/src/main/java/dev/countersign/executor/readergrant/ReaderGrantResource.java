package dev.countersign.executor.readergrant;

import java.time.Duration;
import java.time.Instant;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.Requesters;
import dev.countersign.contracts.api.ReaderGrant;
import dev.countersign.contracts.api.ReaderGrantRequest;
import dev.countersign.executor.evidence.Evidence;
import dev.countersign.executor.evidence.EvidenceVerifier;
import dev.countersign.executor.evidence.RecordTime;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;

/**
 * {@code POST /api/reader-grants}: the only way agent-service's database roles get to read a tenant. The agent sends
 * the signed-in person's own agent-audience token ({@link ReaderGrantRequest#evidence()}, in the body: this service's
 * bearer mechanism refuses that audience, and no endpoint accepts it as a caller's identity); this resource verifies it
 * exactly as the evidence of a proposal ({@link EvidenceVerifier}, judged now) and mints a grant for that person of
 * that tenant in the database (R__reader_grants.sql), ending with the token or
 * {@link ReaderGrantsConfig#maxLifetime()}, whichever comes first.
 * <p>
 * Limits: anyone holding a person's live agent token may mint that person's grant, which is worth nothing without the
 * agent's database credentials; so a compromised agent reads, of each tenant, what the people signed in to it may read,
 * while their tokens live. A service principal's token mints nothing (the agent reads only for persons). Not rate
 * limited: each call is one small insert, a person keeps at most 20 live grants (the oldest are revoked), and ended
 * ones are deleted as new ones come. It is on the public port (the Ingress routes /api there), where it is worth
 * nothing to whoever lacks the agent's database credentials.
 */
@Path("/api/reader-grants")
@PermitAll
public class ReaderGrantResource {

    /** A grant that would end sooner than this after it is minted is not worth minting: the token is about to end. */
    static final Duration SHORTEST = Duration.ofSeconds(5);

    private final EvidenceVerifier verifier;
    private final ReaderGrantRepository grants;
    private final ReaderGrantsConfig config;

    public ReaderGrantResource(EvidenceVerifier verifier, ReaderGrantRepository grants, ReaderGrantsConfig config) {
        this.verifier = verifier;
        this.grants = grants;
        this.config = config;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<ReaderGrant> mint(ReaderGrantRequest request) {
        if (request == null || !Identifiers.isPrintableId(request.tenantId())
                || !Identifiers.isPrintableId(request.userId()) || Requesters.isService(request.userId())) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "A reader grant names the tenant and the person (1 to 128 printable characters) whose token it"
                            + " carries in 'evidence'; service principals get none.");
        }
        Instant now = Instant.now();
        return verifier
                .verify(request.evidence(), request.tenantId(), request.userId(), new RecordTime(now, false, now))
                .flatMap(evidence -> open(evidence, now));
    }

    private Uni<ReaderGrant> open(Evidence evidence, Instant now) {
        if (!(evidence instanceof Evidence.Verified verified)) {
            throw new ProblemException(ErrorCode.UNAUTHENTICATED,
                    "The evidence is not a live agent token of this person of this tenant (%s): sign in again."
                            .formatted(((Evidence.Rejected) evidence).reason()));
        }
        Instant longest = now.plus(config.maxLifetime());
        Instant expiresAt = verified.expiresAt().isBefore(longest) ? verified.expiresAt() : longest;
        if (expiresAt.isBefore(now.plus(SHORTEST))) {
            // The evidence check allows a clock skew past the token's end; a grant would end before it is used.
            throw new ProblemException(ErrorCode.UNAUTHENTICATED, "The token is about to expire: sign in again.");
        }
        return grants.open(verified.tenantId(), verified.requester(), expiresAt)
                .map(secret -> new ReaderGrant(secret, expiresAt));
    }
}
