package dev.horizon.service.security;

import dev.horizon.service.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;

/**
 * Agent identity as kubelets bootstrap theirs: an enrollment token (an agent token bound to no node) registers a node
 * once, and that registration issues the node's own credential, bound to its name and stored hashed like every token.
 * From then on the node's agent uses the credential, and every call it makes is checked against that node. A node
 * that holds or held a credential is re-enrolled only by an admin: POST /api/v1/tokens {"role":"agent","node":NAME}
 * makes it a new credential (replacing the live one) for its agent's --token.
 */
@ApplicationScoped
public class NodeCredentials {
    /** Why an enrollment was refused, and what an admin does about it. */
    public static class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    @Inject
    Tokens tokens;
    @Inject
    AuditLog audit;

    /**
     * Enrolls node for an agent holding an enrollment token: refused when the node was enrolled before; otherwise register
     * (the inventory's write) runs, then the node's credential is issued. A credential issued for a node whose inventory
     * was not written could not be fetched again, so the write goes first; a refused one writes nothing.
     */
    public Tokens.Created enroll(String node, Tokens.Grant enrollment, Runnable register) {
        List<Tokens.TokenInfo> before = tokens.ofNode(node);
        if (!before.isEmpty()) throw new Refused(enrolledAlready(node, before.get(0)));
        register.run();
        Tokens.Created created;
        try {
            created = tokens.create(new Tokens.Request(Role.AGENT, null, node, "node " + node, null, enrollment.id()));
        } catch (StoreException e) {
            if (!e.duplicateKey()) throw e;
            throw new Refused("node " + node + " was enrolled by another agent at this moment; two hosts must not share a node name"
                    + " (set horizon.agent.node-name)");
        }
        audit.record(enrollment, "ENROLL", "/api/v1/nodes/" + node, 200, "issued node credential " + created.info().id() + " for node " + node);
        return created;
    }

    private static String enrolledAlready(String node, Tokens.TokenInfo last) {
        String state = last.revokedAt() == null ? "has a live credential (" + last.id() + ", since " + Instant.ofEpochMilli(last.createdAt()) + ")"
                : "had its credential " + last.id() + " revoked at " + Instant.ofEpochMilli(last.revokedAt());
        return "node " + node + " " + state + "; re-enrolling it needs an admin: ./horizon token create --role agent --node " + node
                + " (POST /api/v1/tokens {\"role\":\"agent\",\"node\":\"" + node + "\"}) makes a new credential to give its agent (--token)."
                + " A second host under the same name needs a name of its own (horizon.agent.node-name)";
    }
}
