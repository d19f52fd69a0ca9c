package dev.countersign.executor.policy;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;

/** Reads a user's earned-trust run in the caller's tenant session; a user never counted has a run of zero. */
@ApplicationScoped
public class UserTrustRepository implements PanacheRepositoryBase<UserTrust, UserTrust.Key> {

    public Uni<TrustRepository.Run> run(String tenantId, String userId) {
        return find("tenantId = ?1 and userId = ?2", tenantId, userId).firstResult()
                .map(found -> found == null ? TrustRepository.Run.NONE : found.run());
    }
}
