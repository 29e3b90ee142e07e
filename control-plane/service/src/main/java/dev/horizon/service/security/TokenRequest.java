package dev.horizon.service.security;

import dev.horizon.api.Limits;
import dev.horizon.api.NodeNames;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A token an admin asks for, through POST /api/v1/tokens or the offline {@link TokenCommand}; both check it here.
 * maxUses and requireApproval bound an enrollment token (an agent token without a node).
 */
public record TokenRequest(String role, String team, String node, String label, Long expiresInSeconds, Integer maxUses, Boolean requireApproval) {
    /** Ten years: a longer expiry is a unit mistake; leave it out for a token that never expires. */
    static final long MAX_EXPIRES_IN_SECONDS = 10L * 365 * 86_400;
    /** Nodes one enrollment token may enroll: more than any cluster Horizon plans. */
    static final int MAX_USES = 100_000;

    /** Checks the fields and the team; the role asked for. */
    public Role checked(TeamStore teams) {
        Role role = askedRole();
        if (role == Role.SUBMITTER && team == null) {
            throw new ApiException(400, "invalid token request", List.of("team is required: a submitter token is bound to the team whose jobs it"
                    + " submits and cancels (./horizon token create --role submitter --team T)"));
        }
        if (role == Role.SUBMITTER && teams.find(team).isEmpty()) {
            throw new ApiException(422, "invalid token request", List.of("team: a submitter token needs an existing team (got "
                    + Limits.quote(team) + "); ./horizon team list lists them, ./horizon team create (POST /api/v1/teams) makes one"));
        }
        return role;
    }

    private Role askedRole() {
        List<String> problems = new ArrayList<>();
        Role role = null;
        try {
            role = Role.valueOf(String.valueOf(this.role).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            problems.add("role must be one of admin, submitter, agent (got " + Limits.quote(this.role) + ")");
        }
        // an unknown role is problem enough: whether it takes a team is not known
        if (role != null && role != Role.SUBMITTER && team != null) problems.add("team: only submitter tokens are bound to a team; leave it out");
        if (role != Role.AGENT && node != null) problems.add("node: only agent tokens are bound to a node; leave it out");
        Limits.text("team", team, Limits.SHORT_NAME, problems);
        if (node != null && node.isBlank()) problems.add("node must not be empty: the node name its agent registers");
        else NodeNames.check("node", node, problems);
        enrollmentBounds(role, problems);
        Limits.text("label", label, Limits.LABEL, problems);
        if (expiresInSeconds != null && (expiresInSeconds < 1 || expiresInSeconds > MAX_EXPIRES_IN_SECONDS)) {
            problems.add("expiresInSeconds must be between 1 and " + MAX_EXPIRES_IN_SECONDS + " (ten years); leave it out for a token that never"
                    + " expires (got " + expiresInSeconds + ")");
        }
        if (!problems.isEmpty()) throw new ApiException(400, "invalid token request", problems);
        return role;
    }

    /** maxUses and requireApproval: only on an enrollment token (an agent token bound to no node), maxUses within its limit. */
    private void enrollmentBounds(Role role, List<String> problems) {
        boolean enrollment = role == Role.AGENT && node == null;
        if (!enrollment && maxUses != null) problems.add("maxUses: only enrollment tokens (role agent, no node) count the nodes they enroll; leave it out");
        if (!enrollment && requireApproval != null) {
            problems.add("requireApproval: only enrollment tokens (role agent, no node) enroll nodes that wait for approval; leave it out");
        }
        if (maxUses != null && (maxUses < 1 || maxUses > MAX_USES)) {
            problems.add("maxUses must be 1 to " + MAX_USES + ", the nodes the token may enroll; leave it out for no count (got " + maxUses + ")");
        }
    }
}
