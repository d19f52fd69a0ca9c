package dev.countersign.executor.catalogue;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.api.KindView;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.executor.execution.ExecutorRegistry;
import io.quarkus.security.Authenticated;

/**
 * {@code GET /api/kinds}: every declared kind as the decision page shows it (its label, whether this executor can undo
 * it), so the page names no kind. For anyone signed in (the page asks once it has a session).
 */
@Path("/api/kinds")
@Authenticated
public class KindsResource {

    private final List<KindView> kinds;

    public KindsResource(ExecutorRegistry executors) {
        this.kinds = ActionCatalogue.all().stream()
                .map(definition -> KindView.of(definition, executors.undoerFor(definition.kind()).isPresent()))
                .toList();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<KindView> all() {
        return kinds;
    }
}
