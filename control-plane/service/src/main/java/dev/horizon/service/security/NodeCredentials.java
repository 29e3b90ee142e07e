package dev.horizon.service.security;

import dev.horizon.service.store.StoreException;
import dev.horizon.service.web.ApiTime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Agent identity as kubelets bootstrap theirs: an enrollment token (an agent token bound to no node) registers a node
 * once, and that registration issues the node's own credential, bound to its name and stored hashed like every token.
 * From then on the node's agent uses the credential, and every call it makes is checked against that node. A node
 * that holds or held a credential is re-enrolled only by an admin: POST /api/v1/tokens {"role":"agent","node":NAME}
 * makes it a new credential (replacing the live one) for its agent's --token.
 *
 * <p>Enrollment is retry-safe: an agent that sends a nonce with its enrollment gets a credential derived from the
 * enrollment token, the node name and the nonce (an HMAC keyed by the enrollment token's secret, which the store never
 * holds), so a retry of the same enrollment, whose first reply was lost after the store committed it, is answered the
 * same credential rather than refused; only whoever holds both the enrollment token and the nonce can have it.
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

    /** One enrollment attempt: the enrollment token's grant and secret, and the agent's nonce ("" when it sent none). */
    public record Attempt(Tokens.Grant enrollment, String enrollmentSecret, String nonce) {
    }

    /**
     * Enrolls node for an agent holding an enrollment token: refused when the node was enrolled before (unless this is a
     * retry of that same enrollment) or the token has enrolled its maxUses nodes; otherwise register (the inventory's
     * write, told whether the node waits for an admin's approval) runs, then the node's credential is issued. A
     * credential issued for a node whose inventory was not written could not be fetched again, so the write goes first;
     * a refused one writes nothing. A retry writes nothing: the attempt it repeats wrote the inventory (and marked the node
     * pending) already.
     */
    public Tokens.Created enroll(String node, Attempt attempt, Consumer<Boolean> register) {
        Optional<String> derived = attempt.nonce().isEmpty() ? Optional.empty() : Optional.of(derive(attempt, node));
        Optional<Tokens.TokenInfo> retried = derived.flatMap(tokens::bySecret).filter(t -> node.equals(t.node()) && t.revokedAt() == null);
        // the first attempt's inventory is written already: the retry only gets its credential back
        if (retried.isPresent()) return new Tokens.Created(derived.get(), retried.get());
        List<Tokens.TokenInfo> before = tokens.ofNode(node);
        if (!before.isEmpty()) throw new Refused(enrolledAlready(node, before.get(0)));
        Tokens.TokenInfo enrollment = tokens.find(attempt.enrollment().id()).orElseThrow();
        if (!tokens.useForEnrollment(enrollment.id())) {
            throw new Refused("enrollment token " + enrollment.id() + " has enrolled the " + enrollment.maxUses()
                    + (enrollment.maxUses() == 1 ? " node" : " nodes") + " it may (maxUses); ask an admin"
                    + " for another: ./horizon token create --role agent --max-uses N");
        }
        register.accept(enrollment.requiresApproval());
        Tokens.Created created;
        try {
            Tokens.Request request = new Tokens.Request(Role.AGENT, null, node, "node " + node, null, enrollment.id());
            created = derived.isPresent() ? tokens.create(derived.get(), request) : tokens.create(request);
        } catch (StoreException e) {
            if (!e.duplicateKey()) throw e;
            throw new Refused("node " + node + " was enrolled by another agent at this moment; two hosts must not share a node name"
                    + " (set horizon.agent.node-name)");
        }
        audit.record(attempt.enrollment(), "ENROLL", "/api/v1/nodes/" + node, 200, "issued node credential " + created.info().id() + " for node " + node
                + (enrollment.requiresApproval() ? "; the node waits for an admin's approval (./horizon node approve " + node + ")" : ""));
        return created;
    }

    /** The credential one enrollment attempt yields: the same for the same enrollment token, node and nonce. */
    private static String derive(Attempt attempt, String node) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(attempt.enrollmentSecret().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] sum = mac.doFinal(("horizon node credential\n" + node + "\n" + attempt.nonce()).getBytes(StandardCharsets.UTF_8));
            return "hz_" + Base64.getUrlEncoder().withoutPadding().encodeToString(sum);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256", e);
        }
    }

    private static String enrolledAlready(String node, Tokens.TokenInfo last) {
        String state = last.revokedAt() == null ? "has a live credential (" + last.id() + ", since " + ApiTime.ofMillis(last.createdAt()) + ")"
                : "had its credential " + last.id() + " revoked at " + ApiTime.ofMillis(last.revokedAt());
        return "node " + node + " " + state + "; re-enrolling it needs an admin: ./horizon token create --role agent --node " + node
                + " (POST /api/v1/tokens {\"role\":\"agent\",\"node\":\"" + node + "\"}) makes a new credential to give its agent (--token)."
                + " A second host under the same name needs a name of its own (horizon.agent.node-name); an agent retrying its own"
                + " enrollment sends the same enrollment_nonce";
    }
}
