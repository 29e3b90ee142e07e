package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The daily loop from the command line against the packaged control plane (one agent's 8 simulated GPUs): {@code ./horizon
 * submit} a job JSON, {@code jobs} with the waiting one's queue position and planned start, {@code why} and {@code cancel}
 * by name and by id, as a team's submitter; another team's names are not found; errors are one line and exit 2; an admin
 * makes the teams and sets a budget with {@code ./horizon team}, which a submitter may only list. Last,
 * SIGTERM stops the control plane without an error or warning in its log and with the leader lease handed over.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LauncherDailyLoopIT {
    private static final String ADMIN = "daily-loop-admin";
    /**
     * The day a time is shown with when it falls on another calendar day than now ("Fri 4 Dec 00:45"): a job planned two
     * hours out from 22:00 on starts tomorrow, and the list says so.
     */
    private static final String DAY = "([A-Z][a-z]{2} \\d{1,2} [A-Z][a-z]{2} )?";
    private static final Pattern SUBMITTED = Pattern.compile("submitted job ([0-9a-f-]{36}) \\((\\S+)\\) for team loop: (PENDING|RUNNING)");

    private Path dir;
    private Horizon.ControlPlane cp;
    private String submitter;
    private Process agent;

    private record Run(int exit, String out, String err) {
    }

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("horizon-daily-loop");
        cp = Horizon.readyControlPlane(dir, ADMIN);
        // one agent on 8 simulated H100s: its stream and the scheduled work it brings are there at shutdown too
        agent = Horizon.agent(dir, "loop-node", Horizon.freePort(), cp.port(), cp.agentToken());
        await("the agent registering its 8 GPUs", 90, dir, () -> cp.admin().json("GET", "/api/v1/nodes", null, 200), n -> n.size() == 1
                && n.get(0).path("gpus").size() == 8);
        // no budgets: jobs are planned by priority and arrival, so the second 8-GPU job has a planned start behind the first
        for (String team : List.of("loop", "other")) {
            Run created = horizon(ADMIN, "team", "create", team, "--share", "0");
            assertEquals("horizon: created team " + team + ", owed 0 of the cluster's GPU time, weighed against its siblings' shares (./horizon team list:"
                    + " OF PARENT)\n", created.out(), created.err());
        }
        submitter = cp.admin().json("POST", "/api/v1/tokens", "{\"role\":\"submitter\",\"team\":\"loop\"}", 201).get("token").asText();
    }

    @AfterAll
    void stop() throws Exception {
        agent.destroyForcibly().waitFor();
        cp.process().destroyForcibly().waitFor();
    }

    private Run horizon(String token, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Horizon.ROOT.resolve("horizon").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(Horizon.ROOT.toFile());
        pb.environment().put("TZ", "UTC");
        pb.environment().put("HORIZON_URL", "http://127.0.0.1:" + cp.port());
        pb.environment().put("HORIZON_TOKEN", token);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "./horizon " + args[0] + " did not end");
        return new Run(p.exitValue(), out, err);
    }

    private Path jobFile(String name) throws Exception {
        Path f = dir.resolve(name + ".json");
        Files.writeString(f, "{\"name\":\"" + name + "\",\"team\":\"loop\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":8},"
                + "\"durationEstimateSeconds\":7200}");
        return f;
    }

    private String submitted(Run run) {
        assertEquals(0, run.exit(), run.err());
        Matcher m = SUBMITTED.matcher(run.out());
        assertTrue(m.find(), run.out());
        return m.group(1);
    }

    @Test
    @Order(1)
    void submitListWhyAndCancelByNameAndById() throws Exception {
        String first = submitted(horizon(submitter, "submit", jobFile("loop-first").toString()));
        await("loop-first running", 30, dir, () -> cp.admin().json("GET", "/api/v1/jobs/" + first, null, 200),
                j -> "RUNNING".equals(j.path("state").asText()));
        String second = submitted(horizon(submitter, "submit", jobFile("loop-second").toString()));
        await("loop-second planned", 30, dir, () -> cp.admin().json("GET", "/api/v1/jobs/" + second, null, 200), j -> j.hasNonNull("plannedStart"));

        Run jobs = horizon(submitter, "jobs", "--team", "loop");
        assertEquals(0, jobs.exit(), jobs.err());
        List<String> lines = jobs.out().lines().toList();
        assertTrue(lines.get(0).startsWith("QUEUE  ID"), jobs.out());
        assertTrue(lines.get(1).matches("\\s+1  " + second + "  loop-second .* PENDING\\s+planned " + DAY + "\\d\\d:\\d\\d \\(in [12] h( \\d+ min)?\\).*"),
                "the waiting job first, at queue position 1, planned when the running one ends: " + jobs.out());
        assertTrue(lines.get(2).matches("\\s+-  " + first + "  loop-first .* RUNNING\\s+since " + DAY + "\\d\\d:\\d\\d \\((now|\\d+ min ago)\\).*"), jobs.out());

        Run why = horizon(submitter, "why", "loop-second");
        assertEquals(0, why.exit(), why.err());
        assertTrue(why.out().startsWith("job " + second + " (loop-second), team loop, 8 GPUs: PENDING\n"), why.out());
        assertTrue(why.out().contains("planned start: "), why.out());
        Run whyById = horizon(submitter, "why", first);
        assertTrue(whyById.out().startsWith("job " + first + " (loop-first), team loop, 8 GPUs: RUNNING\n"), whyById.out() + whyById.err());

        Run cancel = horizon(submitter, "cancel", "loop-first");
        assertEquals("cancelled job " + first + " (loop-first) of team loop\n", cancel.out(), cancel.err());
        await("loop-second starting in its place", 30, dir, () -> cp.admin().json("GET", "/api/v1/jobs/" + second, null, 200),
                j -> "RUNNING".equals(j.path("state").asText()));
        assertEquals("cancelled job " + second + " (loop-second) of team loop\n", horizon(submitter, "cancel", second).out());
        Run cancelled = horizon(submitter, "jobs", "--state", "cancelled");
        assertTrue(cancelled.out().contains(first) && cancelled.out().contains(second) && cancelled.out().contains("ended "), cancelled.out());
    }

    @Test
    @Order(2)
    void namesResolveOnlyWithinTheTokensTeamAndErrorsAreOneLine() throws Exception {
        String others = cp.admin().json("POST", "/api/v1/tokens", "{\"role\":\"submitter\",\"team\":\"other\"}", 201).get("token").asText();
        JsonNode theirs = cp.admin().json("POST", "/api/v1/jobs", "{\"name\":\"their-job\",\"team\":\"other\",\"class\":\"DEBUG\","
                + "\"perReplica\":{\"gpus\":1},\"durationEstimateSeconds\":600}", 201);
        try {
            namesAndErrors(others, theirs.get("id").asText());
        } finally {
            // the other test wants the node's 8 GPUs
            cp.admin().json("DELETE", "/api/v1/jobs/" + theirs.get("id").asText(), null, 200);
        }
    }

    private void namesAndErrors(String others, String theirs) throws Exception {
        Run notMine = horizon(submitter, "cancel", "their-job");
        assertEquals(2, notMine.exit());
        assertEquals("horizon: no job named 'their-job' in this token's team (an admin token finds any team's); ./horizon jobs lists them\n",
                notMine.err());
        Run why = horizon(others, "why", "their-job");
        assertTrue(why.out().startsWith("job " + theirs + " (their-job), team other"), why.out() + why.err());

        Run missing = horizon(submitter, "submit", dir.resolve("absent.json").toString());
        assertEquals(2, missing.exit());
        assertEquals("horizon: submit: cannot read the file '" + dir.resolve("absent.json") + "'\n", missing.err());
        Path notAManifest = dir.resolve("deployment.yaml");
        Files.writeString(notAManifest, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n");
        Run refused = horizon(submitter, "submit", notAManifest.toString());
        assertEquals(2, refused.exit());
        assertTrue(refused.err().contains("holds apps/v1, not a Kubeflow (kubeflow.org) or KubeRay (ray.io) manifest")
                && refused.err().strip().lines().count() == 1, refused.err());
        Run badState = horizon(submitter, "jobs", "--state", "sleeping");
        assertEquals("horizon: jobs: --state must be PENDING, RUNNING, SUCCEEDED, FAILED or CANCELLED, or several joined by ',' (got 'SLEEPING')\n",
                badState.err());
        Run invalid = horizon(submitter, "submit", jobFile("bad").toString(), "--team", "other");
        assertEquals(2, invalid.exit());
        assertTrue(invalid.err().contains("answered 403") && invalid.err().strip().lines().count() == 1, invalid.err());
        Run teams = horizon(submitter, "team", "list");
        assertEquals(0, teams.exit(), teams.err());
        assertTrue(teams.out().lines().anyMatch(l -> l.matches("loop\\s+-\\s+0\\s+.*")) && teams.out().endsWith("2 teams\n"), teams.out());
        Run notAdmin = horizon(submitter, "team", "budget", "loop", "--share", "1");
        assertEquals(2, notAdmin.exit());
        assertTrue(notAdmin.err().contains("answered 403") && notAdmin.err().strip().lines().count() == 1, notAdmin.err());
        Run share = horizon(ADMIN, "team", "budget", "other", "--share", "1.5");
        assertEquals("horizon: team budget: --share is a fraction from 0 to 1, such as 0.25 (got '1.5')\n", share.err());
        assertEquals("horizon: team other is owed 0 of the cluster's GPU time from the next plan on, weighed against its siblings' shares"
                + " (./horizon team list: OF PARENT)\n",
                horizon(ADMIN, "team", "budget", "other", "--share", "0").out());
        for (String command : List.of("submit", "jobs", "cancel", "why", "team")) {
            Run help = horizon(submitter, command, "--help");
            assertEquals(0, help.exit());
            assertTrue(help.out().startsWith("usage: ./horizon " + command), help.out());
        }
    }

    /** The shutdown a user saw end in a stack trace and "could not release the lease": H2 closed the store under it. */
    @Test
    @Order(3)
    void sigtermStopsTheControlPlaneWithoutAnErrorAndReleasesTheLease() throws Exception {
        Thread.sleep(1500); // the heartbeat check, command delivery and the lease renewal run at least once
        cp.process().destroy();
        assertTrue(cp.process().waitFor(20, TimeUnit.SECONDS), "stopped within 20 s of SIGTERM");
        Path log;
        try (var logs = Files.list(dir)) {
            log = logs.filter(p -> p.getFileName().toString().startsWith("control-plane-" + cp.port())).findFirst().orElseThrow();
        }
        String text = Files.readString(log);
        assertTrue(text.contains("released the leadership"), "the lease was handed over on shutdown: " + log);
        List<String> bad = text.lines().filter(l -> !Horizon.faults(l).isEmpty() || l.contains("could not release")).toList();
        assertEquals(List.of(), bad, "no error or warning from start to shutdown; see " + log);
    }
}
