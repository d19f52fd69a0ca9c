package dev.countersign.executor.kinds.ticket.create;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.core.MediaType;

import org.jboss.resteasy.reactive.RestResponse;

import io.smallrye.mutiny.Uni;

/**
 * The ticket system's API as the REST Client calls it, at the configured URL ({@link TicketConfig#url()}): create one
 * ticket, idempotently under the key. Any status comes back as an answer ({@link CreateTicketKind#ticketOf} reads it).
 */
public interface TicketSystemApi {

    /**
     * @param authorization
     *            {@code Bearer <token>}, or null when the ticket system takes none (the header is then not sent)
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    Uni<RestResponse<String>> create(@HeaderParam("Idempotency-Key") String idempotencyKey,
            @HeaderParam("Authorization") String authorization, NewTicket ticket);

    record NewTicket(String title, String description) {
    }
}
