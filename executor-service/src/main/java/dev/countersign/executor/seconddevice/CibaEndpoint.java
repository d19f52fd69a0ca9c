package dev.countersign.executor.seconddevice;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.quarkus.rest.client.reactive.Url;
import io.smallrye.mutiny.Uni;

/**
 * The identity provider's backchannel authentication and token endpoints, as a Quarkus REST Client: a form post with
 * the client's credentials (client_secret_basic), every answer returned as it came (its status and JSON read by
 * {@link Backchannel}).
 */
public interface CibaEndpoint {

    @POST
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    Uni<Response> post(@Url String url, @HeaderParam("Authorization") String clientCredentials, String form);
}
