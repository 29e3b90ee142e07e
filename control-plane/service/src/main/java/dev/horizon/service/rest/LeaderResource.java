package dev.horizon.service.rest;

import dev.horizon.service.leadership.Leadership;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Which replica leads: holder, epoch, where it answers (url), and whether it is the one answering (self). */
@Path("/api/leader")
@Produces(MediaType.APPLICATION_JSON)
public class LeaderResource {
    /** The lease as the store holds it; holder is null before any replica led. */
    public record LeaderView(String holder, long epoch, boolean self, boolean expired, String url, String replica) {
    }

    @Inject
    Leadership leadership;

    @GET
    public LeaderView leader() {
        Leadership.Lease l = leadership.lease();
        return new LeaderView(l.holder(), l.epoch(), l.self() && leadership.leading(), l.expired(), l.holderUrl(), leadership.id());
    }
}
