package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.agent.v1.AgentHello;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.CommandResult;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * Security and tenancy over the packaged processes: agents enroll with one enrollment token and each acts only for
 * its own node; a revoked credential or token is refused on its next call, open streams included; a team sees another
 * team's work only as the plan shows it; the management endpoints are not on the API port.
 */
class SecurityOverProcessesIT extends OverProcesses {
    private static final String ADMIN = "security-it-admin";

    @Test
    void anAgentActsOnlyForItsOwnNodeAndIsCutOffOnceItsCredentialIsRevoked() throws Exception {
        Horizon.ControlPlane cp = controlPlane(ADMIN);
        Horizon.Rest admin = cp.admin();
        admin.json("POST", "/api/v1/teams", "{\"name\":\"alpha\",\"share\":1.0}", 201);
        startAgent(cp, "node-a", cp.agentToken());
        startAgent(cp, "node-b", cp.agentToken());
        for (String n : new String[] {"node-a", "node-b"}) {
            await(n + " enrolling with 8 GPUs", 90, dir, () -> admin.json("GET", "/api/v1/nodes/" + n, null, 200), j -> j.path("gpus").size() == 8);
        }
        String a = Horizon.nodeCredential(dir, "node-a");
        java.util.Map<String, String> jobs = wholeNodeJobs(admin);
        String onA = jobs.get("node-a");
        String onB = jobs.get("node-b");

        String id;
        try (AgentWire wire = AgentWire.plaintext(cp.port())) {
            // node A's credential cannot register as node B (nor shrink it), nor report for a job or command on node B
            Status.Code asB = AgentWire.code(() -> wire.as(a).register(AgentWire.host("node-b", 1)));
            assertEquals(Status.Code.PERMISSION_DENIED, asB, "node-a's credential registering node-b");
            assertEquals(8, admin.json("GET", "/api/v1/nodes/node-b", null, 200).path("gpus").size(), "node-b keeps its 8 GPUs");
            Horizon.Rest asA = new Horizon.Rest(cp.port(), a);
            JsonNode refused = asA.json("POST", "/api/v1/jobs/" + onB + "/outcome", "{\"state\":\"FAILED\"}", 403);
            assertTrue(refused.path("error").asText().contains("node node-a's"), refused.toString());
            assertEquals("RUNNING", admin.json("GET", "/api/v1/jobs/" + onB, null, 200).path("state").asText(), "node-b's job still runs");
            assertEquals(Status.Code.PERMISSION_DENIED, AgentWire.code(() -> wire.as(a).reportResult(CommandResult.newBuilder().setNodeId("node-b")
                    .setCommandId("any").setSuccess(true).build())));
            // the enrollment token cannot re-enroll a node that has a live credential
            StatusRuntimeException reenroll = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
                    () -> wire.as(cp.agentToken()).register(AgentWire.host("node-a", 1)));
            assertTrue(reenroll.getStatus().getDescription().contains("re-enrolling it needs an admin"), reenroll.getStatus().toString());
            // its own node's job it may finish
            assertEquals("SUCCEEDED", asA.json("POST", "/api/v1/jobs/" + onA + "/outcome", "{\"state\":\"SUCCEEDED\"}", 200).path("state").asText());

            // a stream opened with node A's credential, then the credential revoked: the stream ends and every call is refused
            CompletableFuture<Status> stream = new CompletableFuture<>();
            wire.async(a).commands(AgentHello.newBuilder().setNodeId("node-a").build(), AgentWire.<Command>ending(stream));
            id = StreamSupport.stream(admin.json("GET", "/api/v1/tokens", null, 200).spliterator(), false)
                    .filter(t -> "node-a".equals(t.path("node").asText()) && !t.has("revokedAt")).findFirst().orElseThrow().path("id").asText();
            admin.json("DELETE", "/api/v1/tokens/" + id, null, 200);
            assertEquals(Status.Code.UNAUTHENTICATED, stream.get(10, TimeUnit.SECONDS).getCode(), "the open command stream is cut");
            assertEquals(Status.Code.UNAUTHENTICATED, AgentWire.code(() -> wire.as(a).register(AgentWire.host("node-a", 8))));
            assertTrue(asA.call("GET", "/api/v1/nodes", null).statusCode() == 401, "REST refuses it too");
        }
        // node-a's own agent, cut off too, falls back to the enrollment token, which may not re-enroll a node an admin cut off
        await("node-a's agent refused", 30, dir, () -> agentReadiness("node-a"), r -> r.contains("needs an admin"));

        // an admin re-enrolls node-a with a credential made for it; its agent, restarted with it, registers again
        String fresh = admin.json("POST", "/api/v1/tokens", "{\"role\":\"agent\",\"node\":\"node-a\"}", 201).path("token").asText();
        restartAgent(cp, "node-a", fresh);
        await("node-a registered with its new credential", 90, dir, () -> agentReadiness("node-a"), r -> r.contains("\"UP\""));
        JsonNode audit = admin.json("GET", "/api/v1/audit", null, 200);
        assertTrue(audit.toString().contains("revoked agent token " + id + " for node node-a"), "the revocation is in the audit log: " + audit);
        assertTrue(audit.toString().contains("ENROLL"), "so are the enrollments: " + audit);
    }

    @Test
    void revokedTokensAreRefusedTeamsSeeOnlyThePlanOfOthersAndManagementIsOffTheApiPort() throws Exception {
        Horizon.ControlPlane cp = controlPlane(ADMIN, "-Dhorizon.nodes=8xH100-80GB");
        Horizon.Rest admin = cp.admin();
        admin.json("POST", "/api/v1/teams", "{\"name\":\"team-a\",\"share\":0.5}", 201);
        admin.json("POST", "/api/v1/teams", "{\"name\":\"team-b\",\"share\":0.5}", 201);
        Horizon.Rest teamA = submitter(admin, "team-a");
        JsonNode token = admin.json("POST", "/api/v1/tokens", "{\"role\":\"submitter\",\"team\":\"team-b\",\"expiresInSeconds\":3600}", 201);
        Horizon.Rest teamB = new Horizon.Rest(cp.port(), token.path("token").asText());

        // team A's job runs; team B cannot read its spec, but the plan shows its GPUs busy
        String job = teamA.json("POST", "/api/v1/jobs", "{\"name\":\"secret-sauce\",\"team\":\"team-a\",\"class\":\"TRAINING\",\"perReplica\":"
                + "{\"gpus\":4},\"source\":{\"kind\":\"PyTorchJob\",\"namespace\":\"a\",\"name\":\"secret-sauce\"}}", 201).path("id").asText();
        await("team A's job running", 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + job, null, 200), j -> "RUNNING".equals(j.path("state").asText()));
        assertEquals(403, teamB.call("GET", "/api/v1/jobs/" + job, null).statusCode(), "the spec of another team's job");
        assertEquals(403, teamB.call("GET", "/api/v1/jobs/" + job + "/explanation", null).statusCode());
        String list = teamB.call("GET", "/api/v1/jobs", null).body();
        assertTrue(list.contains(job) && !list.contains("secret-sauce"), "listed without name or source: " + list);
        JsonNode plan = await("a plan with the job", 30, dir, () -> teamB.json("GET", "/api/v1/plan", null, 200), p -> p.path("busyGpus").asInt() == 4);
        assertFalse(plan.toString().contains("secret-sauce"), "the plan names nothing of another team's: " + plan);
        assertEquals("team-a", plan.path("running").path(0).path("team").asText());
        assertEquals("secret-sauce", teamA.json("GET", "/api/v1/jobs/" + job, null, 200).path("name").asText(), "its own team reads it in full");

        // listed for admins without the secret; revoked: refused on the next request
        JsonNode listed = admin.json("GET", "/api/v1/tokens/" + token.path("id").asText(), null, 200);
        assertTrue(listed.has("expiresAt") && !listed.has("token"), "listing shows expiry, never the secret: " + listed);
        teamB.json("GET", "/api/v1/jobs", null, 200);
        admin.json("DELETE", "/api/v1/tokens/" + token.path("id").asText(), null, 200);
        HttpResponse<String> revoked = teamB.call("GET", "/api/v1/jobs", null);
        assertEquals(401, revoked.statusCode(), revoked.body());
        assertTrue(revoked.body().contains("was revoked at"), revoked.body());

        // /q/* answers on the management port only
        for (String path : new String[] {"/q/metrics", "/q/health/ready", "/q/openapi"}) {
            assertEquals(404, admin.call("GET", path, null).statusCode(), path + " on the API port");
        }
        assertTrue(admin.metrics().contains("horizon_utilization"), "metrics on the management port");
    }

    private Horizon.Rest submitter(Horizon.Rest admin, String team) throws Exception {
        return new Horizon.Rest(admin.port(), admin.json("POST", "/api/v1/tokens", "{\"role\":\"submitter\",\"team\":\"" + team + "\"}", 201)
                .path("token").asText());
    }

    /** Two 8-GPU jobs, one on each node once both run: node name to job id. */
    private java.util.Map<String, String> wholeNodeJobs(Horizon.Rest admin) throws Exception {
        java.util.Map<String, String> byNode = new java.util.HashMap<>();
        for (int i = 0; i < 2; i++) {
            String id = admin.json("POST", "/api/v1/jobs", "{\"name\":\"whole-" + i + "\",\"team\":\"alpha\",\"class\":\"TRAINING\","
                    + "\"perReplica\":{\"gpus\":8}}", 201).path("id").asText();
            JsonNode job = await("job " + id + " running", 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + id, null, 200),
                    j -> "RUNNING".equals(j.path("state").asText()));
            String placement = job.path("placement").asText();
            byNode.put(placement.substring(0, placement.indexOf('[')), id);
        }
        return byNode;
    }

    private final java.util.Map<String, Integer> agentPorts = new java.util.HashMap<>();
    private final java.util.Map<String, Process> agents = new java.util.HashMap<>();

    private void startAgent(Horizon.ControlPlane cp, String node, String token) throws Exception {
        if (!agentPorts.containsKey(node)) agentPorts.put(node, Horizon.freePort());
        Process p = Horizon.agent(dir, node, agentPorts.get(node), cp.port(), token);
        processes.add(p);
        agents.put(node, p);
    }

    /** Stops node's agent and starts it again, on the same ports and state directory, with token. */
    private void restartAgent(Horizon.ControlPlane cp, String node, String token) throws Exception {
        agents.get(node).destroy();
        agents.get(node).waitFor(30, TimeUnit.SECONDS);
        startAgent(cp, node, token);
    }

    /** What the agent's readiness check answers (its body says why it is not ready). */
    private String agentReadiness(String node) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agentPorts.get(node)
                + "/q/health/ready")).build(), HttpResponse.BodyHandlers.ofString());
        return r.body();
    }
}
