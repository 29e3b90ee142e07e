package dev.horizon.service.security;

import dev.horizon.service.web.ApiException;
import jakarta.enterprise.context.RequestScoped;
import java.util.function.UnaryOperator;

/**
 * Who made this request, as the bearer token says; set by {@link BearerTokenFilter}. It holds the one rule of who sees
 * what ({@link #seesTeam}) and who may do what, so every resource asks it rather than comparing roles itself.
 */
@RequestScoped
public class Caller {
    private Tokens.Grant grant;
    /** What this request changed, in words, for the audit log; null when the request path says enough. */
    private String auditDetail;

    void set(Tokens.Grant grant) {
        this.grant = grant;
    }

    public Role role() {
        return grant.role();
    }

    /** The token's id, as GET /api/v1/tokens and the audit log name it. */
    public String tokenId() {
        return grant.id();
    }

    /**
     * Who this is, in words a job's explanation can give: the token's label (else its id) and role, "ops-alice (admin)",
     * "token 0bba... (submitter of team ml)".
     */
    public String who() {
        String role = grant.role().name().toLowerCase(java.util.Locale.ROOT) + (team() == null ? "" : " of team " + team());
        return (grant.label() != null ? grant.label() : "token " + grant.id()) + " (" + role + ")";
    }

    public Tokens.Grant grant() {
        return grant;
    }

    /** The team a submitter token is bound to; null for every other token. */
    public String team() {
        return grant.role() == Role.SUBMITTER ? grant.team() : null;
    }

    /** The node a node credential is bound to; null for every other token. */
    public String node() {
        return grant.node();
    }

    /** Admins see every team's jobs in full; a submitter only its own team's; agents none (the plan's view only). */
    public boolean seesTeam(String team) {
        return grant.role() == Role.ADMIN || (grant.role() == Role.SUBMITTER && grant.team().equals(team));
    }

    /** Whether this caller sees every team's work (admins): what runs where, processes included. */
    public boolean seesAllTeams() {
        return grant.role() == Role.ADMIN;
    }

    /** A 403 unless {@link #seesTeam}: other teams' jobs are visible only as the plan shows them. */
    public void requireSeesTeam(String team, String what) {
        if (!seesTeam(team)) {
            throw forbidden(what + " belongs to team '" + team + "'; this token (" + describe() + ") sees other teams' jobs only as the plan"
                    + " shows them (GET /api/v1/plan, GET /api/v1/jobs)");
        }
    }

    public void requireAdmin(String action) {
        if (grant.role() != Role.ADMIN) throw forbidden(action + " needs an admin token; this token's role is " + describe());
    }

    /** Admins act for any team; a submitter only for the team its token is bound to. */
    public void requireTeam(String team, String action) {
        requireTeam(team, action, null);
    }

    /**
     * {@link #requireTeam(String, String)}, where the refusal says where the team came from and what to change:
     * teamOrigin, given the token's team, answers that in words (" (taken from ...): pass ..."), or null to say nothing more.
     */
    public void requireTeam(String team, String action, UnaryOperator<String> teamOrigin) {
        if (grant.role() == Role.ADMIN) return;
        if (grant.role() != Role.SUBMITTER) throw forbidden(action + " needs a submitter or admin token; this token's role is " + describe());
        if (!grant.team().equals(team)) {
            String origin = teamOrigin == null ? null : teamOrigin.apply(grant.team());
            throw forbidden(action + ": this token is bound to team '" + grant.team() + "' and cannot act for team '" + team + "'"
                    + (origin == null ? "" : origin));
        }
    }

    public void requireAgentOrAdmin(String action) {
        if (grant.role() != Role.ADMIN && grant.role() != Role.AGENT) {
            throw forbidden(action + " needs an agent or admin token; this token's role is " + describe());
        }
    }

    /**
     * After {@link #requireAgentOrAdmin}: admins act on any node, a node credential only on its own. onNode: whether what
     * is acted on (where, in words) is on the credential's node.
     */
    public void requireOwnNode(String action, java.util.function.Predicate<String> onNode, String where) {
        if (grant.role() == Role.ADMIN || onNode.test(grant.node())) return;
        throw forbidden(action + ": this credential is node " + grant.node() + "'s, and " + where + " is not on that node");
    }

    public void noteForAudit(String detail) {
        this.auditDetail = detail;
    }

    public String auditDetail() {
        return auditDetail;
    }

    private String describe() {
        String role = grant.role().name().toLowerCase();
        if (grant.team() != null) return role + " (team " + grant.team() + ")";
        return grant.node() != null ? role + " (node " + grant.node() + ")" : role;
    }

    private static ApiException forbidden(String message) {
        return new ApiException(403, message);
    }
}
