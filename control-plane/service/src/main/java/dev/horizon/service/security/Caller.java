package dev.horizon.service.security;

import dev.horizon.service.web.ApiException;
import jakarta.enterprise.context.RequestScoped;

/** Who made this request, as the bearer token says; set by {@link BearerTokenFilter}. */
@RequestScoped
public class Caller {
    private Role role;
    private String team;

    void set(Role role, String team) {
        this.role = role;
        this.team = team;
    }

    public Role role() {
        return role;
    }

    public void requireAdmin(String action) {
        if (role != Role.ADMIN) throw forbidden(action + " needs an admin token; this token's role is " + describe());
    }

    /** Admins act for any team; a submitter only for the team its token is bound to. */
    public void requireTeam(String team, String action) {
        if (role == Role.ADMIN) return;
        if (role != Role.SUBMITTER) throw forbidden(action + " needs a submitter or admin token; this token's role is " + describe());
        if (!this.team.equals(team)) {
            throw forbidden(action + ": this token is bound to team '" + this.team + "' and cannot act for team '" + team + "'");
        }
    }

    public void requireAgentOrAdmin(String action) {
        if (role != Role.ADMIN && role != Role.AGENT) throw forbidden(action + " needs an agent or admin token; this token's role is " + describe());
    }

    private String describe() {
        return role.name().toLowerCase() + (team != null ? " (team " + team + ")" : "");
    }

    private static ApiException forbidden(String message) {
        return new ApiException(403, message);
    }
}
