package dev.countersign.agent.brief;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.web.CurrentUser;
import io.quarkus.security.Authenticated;

/**
 * The caller's brief on request. It is a read: nothing is recorded, so it does not move the window of the next brief
 * (only the scheduled brief does).
 */
@Path("/api/brief")
@Authenticated
public class BriefResource {

    private final DailyBriefService briefs;
    private final CurrentUser user;

    public BriefResource(DailyBriefService briefs, CurrentUser user) {
        this.briefs = briefs;
        this.user = user;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public DailyBrief brief() {
        return briefs.build(user.tenantId(), user.userId());
    }
}
