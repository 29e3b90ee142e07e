package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.scheduler.IsoSeconds;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two control-plane processes on one PostgreSQL database (.ci/run provides it through HORIZON_TEST_POSTGRES_URL, _USER
 * and _PASSWORD; the test skips without it). 500 submissions go to both replicas from several threads while a watcher
 * finishes running jobs, so the leader keeps dispatching; the leader is SIGKILLed mid-burst. The follower must take over
 * within 15 s, every accepted job must be there afterwards, no job may start twice and no GPU may be held by two jobs at
 * once, and an agent must refuse a command that carries the dead leader's epoch. A node command sent to the follower is
 * passed on to the leader; right after the kill, before any replica leads again, the web view and the endpoints it reads
 * answer on the survivor with the plan history from before.
 */
class HighAvailabilityIT {
    private static final String ADMIN = "ha-admin-token";
    private static final String AGENT_NODE = "ha-agent-node";
    private static final int SUBMISSIONS = 500;
    private static final int CLIENTS = 8;
    private static final long PACE_MILLIS = 100;
    /** Job starts the watcher sees before it stops: several times the GPUs, so GPUs are handed from job to job under both leaders. */
    private static final int WATCHED_STARTS = 150;
    private static final int DECLARED_NODES = 4;
    private static final long FAILOVER_LIMIT_MILLIS = 15_000;
    private static final Pattern PLACED = Pattern.compile("([^\\[+]+)\\[(\\d+)(?:-(\\d+))?\\]");

    @TempDir
    Path dir;
    private final List<Process> processes = new ArrayList<>();
    private String url;
    private String schema;

    @AfterEach
    void stop() throws Exception {
        for (Process p : processes) p.destroyForcibly().waitFor();
        if (schema != null) {
            try (Connection c = connect(); PreparedStatement drop = c.prepareStatement("DROP SCHEMA " + schema + " CASCADE")) {
                drop.execute();
            }
        }
    }

    @Test
    void aFollowerTakesOverWithinFifteenSecondsAndNothingIsLostOrDoubleBooked() throws Exception {
        url = System.getenv("HORIZON_TEST_POSTGRES_URL");
        assumeTrue(url != null && !url.isBlank(),
                "high-availability test skipped: set HORIZON_TEST_POSTGRES_URL (and _USER, _PASSWORD) to a PostgreSQL database, as .ci/run does");
        // a schema of its own, so the store starts empty whatever other tests left in the database
        schema = "ha_it_" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> env = Map.of("HORIZON_DB_URL", url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema,
                "HORIZON_DB_USER", System.getenv().getOrDefault("HORIZON_TEST_POSTGRES_USER", "horizon"),
                "HORIZON_DB_PASSWORD", System.getenv().getOrDefault("HORIZON_TEST_POSTGRES_PASSWORD", ""));
        String nodes = String.join(",", java.util.Collections.nCopies(DECLARED_NODES, "8xH100-80GB"));
        int[] ports = {Horizon.freePort(), Horizon.freePort()};
        for (int port : ports) {
            processes.add(Horizon.controlPlane(dir, port, ADMIN, env, "-Dquarkus.flyway.pg.schemas=" + schema, "-Dhorizon.nodes=" + nodes));
        }
        Horizon.Rest[] replicas = {new Horizon.Rest(ports[0], ADMIN), new Horizon.Rest(ports[1], ADMIN)};
        for (Horizon.Rest r : replicas) await("a replica's readiness", 120, dir, r::ready, Boolean::booleanValue);
        int leaderIndex = await("one replica leading", 30, dir, () -> leaderIndex(replicas), i -> i >= 0);
        Horizon.Rest leader = replicas[leaderIndex];
        Horizon.Rest follower = replicas[1 - leaderIndex];
        Process leaderProcess = processes.get(leaderIndex);
        long oldEpoch = leader.json("GET", "/api/leader", null, 200).get("epoch").asLong();
        JsonNode seenByFollower = follower.json("GET", "/api/leader", null, 200);
        assertFalse(seenByFollower.get("self").asBoolean(), "exactly one replica leads: " + seenByFollower);
        assertEquals(oldEpoch, seenByFollower.get("epoch").asLong());

        // an agent on the follower, which survives; commands the leader queues reach it through the shared store
        String agentToken = leader.json("POST", "/api/v1/tokens", "{\"role\":\"agent\",\"label\":\"ha\"}", 201).get("token").asText();
        processes.add(Horizon.agent(dir, AGENT_NODE, Horizon.freePort(), ports[1 - leaderIndex], agentToken));
        await("the agent registering through the follower", 90, dir, () -> follower.json("GET", "/api/v1/nodes/" + AGENT_NODE, null, 200),
                n -> n.path("gpus").size() == 8);
        // a node command sent to the follower is passed on to the leader, which queues it under its epoch
        JsonNode passedOn = follower.json("POST", "/api/v1/nodes/" + AGENT_NODE + "/commands", drain("epoch " + oldEpoch), 201);
        assertEquals(oldEpoch, passedOn.path("leaderEpoch").asLong(), "the leader queued the follower's command: " + passedOn);
        awaitCommand(follower, passedOn.get("id").asText(), "SUCCEEDED");
        // a drain command drains the node for the planner too: this one only probes the command path, so the node takes work again
        assertTrue(follower.json("DELETE", "/api/v1/nodes/" + AGENT_NODE + "/drain", null, 200).path("drainReason").isNull(), "undrained");

        leader.json("POST", "/api/v1/teams", "{\"name\":\"ha\",\"share\":1.0}", 201);
        Watcher watcher = new Watcher(follower);
        Thread watching = new Thread(watcher, "ha-watcher");
        watching.start();
        Map<String, Integer> accepted = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        CountDownLatch halfway = new CountDownLatch(SUBMISSIONS / 2);
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> burst = new ArrayList<>();
        for (int t = 0; t < CLIENTS; t++) {
            burst.add(clients.submit(() -> {
                for (int i = sent.getAndIncrement(); i < SUBMISSIONS; i = sent.getAndIncrement()) {
                    if (submit(replicas, i, accepted)) halfway.countDown();
                    // paced, so the burst lasts a few seconds and goes on while no replica leads
                    Thread.sleep(PACE_MILLIS);
                }
                return null;
            }));
        }
        assertTrue(halfway.await(120, TimeUnit.SECONDS), "half the burst was not accepted within 120 s");
        List<Long> historyBeforeKill = planHistory(follower);
        assertFalse(historyBeforeKill.isEmpty(), "the leader's plans are in the history the follower reads");
        long killedAt = System.nanoTime();
        assertEquals(137, Horizon.kill9(leaderProcess), "the leader died of SIGKILL");
        int acceptedAtKill = accepted.size();
        webViewAnswersAtOnce(follower, historyBeforeKill);
        JsonNode taken = await("the follower taking over", 30, dir, () -> follower.json("GET", "/api/leader", null, 200),
                l -> l.get("self").asBoolean());
        long failoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        long newEpoch = taken.get("epoch").asLong();
        System.out.printf("HA failover: leader (epoch %d) SIGKILLed with %d of %d submissions accepted; the follower led in epoch %d after %.1f s%n",
                oldEpoch, acceptedAtKill, SUBMISSIONS, newEpoch, failoverMillis / 1000.0);
        assertTrue(failoverMillis <= FAILOVER_LIMIT_MILLIS, "failover took " + failoverMillis + " ms, more than 15 s");
        assertTrue(newEpoch > oldEpoch, "the takeover raised the epoch: " + oldEpoch + " -> " + newEpoch);

        for (Future<?> f : burst) f.get(120, TimeUnit.SECONDS);
        clients.shutdown();
        long killedAtSeconds = System.currentTimeMillis() / 1000 - TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killedAt);
        // the new leader dispatches: jobs start after the kill, placed under its epoch
        await("the new leader starting jobs", 60, dir, () -> follower.json("GET", "/api/v1/jobs?state=RUNNING&limit=10000", null, 200),
                running -> java.util.stream.StreamSupport.stream(running.spliterator(), false).anyMatch(j -> IsoSeconds.of(j, "startedAt") > killedAtSeconds
                        && j.path("leaderEpoch").asLong() == newEpoch));
        // and keeps dispatching as the watcher ends jobs
        await("jobs started through the failover", 60, dir, watcher.starts::size, n -> n >= WATCHED_STARTS);
        watcher.stop();
        watching.join();

        JsonNode all = follower.json("GET", "/api/v1/jobs?limit=10000", null, 200);
        Map<String, JsonNode> stored = new HashMap<>();
        all.forEach(j -> stored.put(j.get("id").asText(), j));
        List<String> lost = accepted.keySet().stream().filter(id -> !stored.containsKey(id)).toList();
        assertTrue(lost.isEmpty(), lost.size() + " of " + accepted.size() + " accepted submissions are gone: " + lost);
        System.out.printf("HA burst: %d of %d submissions accepted (2xx), all %d stored; %d job starts watched, %d GPU double-bookings, %d repeated starts%n",
                accepted.size(), SUBMISSIONS, accepted.size(), watcher.starts.size(), watcher.doubleBooked.size(), watcher.repeated.size());
        assertTrue(watcher.doubleBooked.isEmpty(), "GPUs held by two jobs at once: " + watcher.doubleBooked);
        assertTrue(watcher.repeated.isEmpty(), "jobs started twice: " + watcher.repeated);
        all.forEach(j -> assertEquals(0, j.get("preemptions").asInt(), "no job was taken off its GPUs: " + j));

        // fencing at the agent: a command of the new leader runs, then one the dead leader left behind is refused
        String current = follower.json("POST", "/api/v1/nodes/" + AGENT_NODE + "/commands", drain("epoch " + newEpoch), 201).get("id").asText();
        awaitCommand(follower, current, "SUCCEEDED");
        String stale = UUID.randomUUID().toString();
        try (Connection c = connect(); PreparedStatement insert = c.prepareStatement("INSERT INTO " + schema + ".node_commands"
                + " (id, node, action, state, created_at, leader_epoch) VALUES (?, ?, ?, 'QUEUED', ?, ?)")) {
            insert.setString(1, stale);
            insert.setString(2, AGENT_NODE);
            insert.setString(3, "{\"drain\":{\"reason\":\"from the deposed leader\"}}");
            insert.setLong(4, System.currentTimeMillis());
            insert.setLong(5, oldEpoch);
            insert.executeUpdate();
        }
        JsonNode refused = awaitCommand(follower, stale, "FAILED");
        assertTrue(refused.path("error").asText().contains("epoch " + oldEpoch) && refused.path("error").asText().contains("epoch " + newEpoch),
                "the agent names both epochs: " + refused);
    }

    /**
     * The minutes of the plan history that replica reads (the web view's chart), oldest first: the history keeps one point a
     * minute, the minute's last plan, so a point's minute stays while a later plan of that minute replaces it.
     */
    private static List<Long> planHistory(Horizon.Rest replica) throws Exception {
        List<Long> minutes = new ArrayList<>();
        replica.json("GET", "/api/v1/plan/history", null, 200).forEach(p -> minutes.add(IsoSeconds.of(p, "at") / 60));
        return minutes;
    }

    /**
     * Right after the leader died, before any replica leads again: the web view's page and every endpoint it reads answer
     * on the survivor from the store, with the plan history the dead leader wrote, and each team's owed-delivered.
     */
    private static void webViewAnswersAtOnce(Horizon.Rest survivor, List<Long> historyBeforeKill) throws Exception {
        assertEquals(200, survivor.call("GET", "/", null).statusCode(), "the web view's page");
        JsonNode plan = survivor.json("GET", "/api/v1/plan", null, 200);
        assertTrue(plan.path("totalGpus").asInt() > 0, "the last plan, as the dead leader stored it: " + plan);
        List<Long> history = planHistory(survivor);
        assertTrue(history.containsAll(historyBeforeKill), "the plan history from before the kill: " + historyBeforeKill + " vs " + history);
        survivor.json("GET", "/api/v1/nodes", null, 200);
        JsonNode team = survivor.json("GET", "/api/v1/teams/ha", null, 200);
        assertTrue(team.has("owedGpuHoursDelivered"), "owed-delivered on the survivor: " + team);
    }

    /** Job i goes to replica i % 2 and, if that one is down or answers 5xx, to the other; 2xx answers are recorded. */
    private static boolean submit(Horizon.Rest[] replicas, int i, Map<String, Integer> accepted) throws InterruptedException {
        String job = "{\"name\":\"ha-" + i + "\",\"team\":\"ha\",\"class\":\"BATCH_INFERENCE\",\"perReplica\":{\"gpus\":1},"
                + "\"durationEstimateSeconds\":600}";
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                HttpResponse<String> r = replicas[(i + attempt) % 2].call("POST", "/api/v1/jobs", job);
                if (r.statusCode() / 100 == 2) {
                    accepted.put(Horizon.JSON.readTree(r.body()).get("id").asText(), i);
                    return true;
                }
            } catch (IOException e) {
                // the killed replica: try the other
            }
        }
        return false;
    }

    private int leaderIndex(Horizon.Rest[] replicas) throws Exception {
        for (int i = 0; i < replicas.length; i++) {
            if (replicas[i].json("GET", "/api/leader", null, 200).get("self").asBoolean()) return i;
        }
        return -1;
    }

    private JsonNode awaitCommand(Horizon.Rest replica, String id, String state) throws Exception {
        JsonNode node = await("command " + id + " " + state, 30, dir, () -> replica.json("GET", "/api/v1/nodes/" + AGENT_NODE, null, 200),
                n -> commandState(n, id).equals(state));
        for (JsonNode c : node.get("commands")) {
            if (c.get("id").asText().equals(id)) return c;
        }
        throw new AssertionError("command " + id + " vanished");
    }

    private static String commandState(JsonNode node, String id) {
        for (JsonNode c : node.get("commands")) {
            if (c.get("id").asText().equals(id)) return c.get("state").asText();
        }
        return "absent";
    }

    private static String drain(String reason) {
        return "{\"drain\":{\"reason\":\"" + reason + "\"}}";
    }

    private Connection connect() throws Exception {
        return DriverManager.getConnection(url, System.getenv().getOrDefault("HORIZON_TEST_POSTGRES_USER", "horizon"),
                System.getenv().getOrDefault("HORIZON_TEST_POSTGRES_PASSWORD", ""));
    }

    /**
     * Reads the running jobs from the surviving replica every 200 ms: checks that no GPU is held by two of them and that
     * no job starts twice (a second start time or placement, or running again after it ended), and ends each job it
     * sees, as an adapter would, so the leader keeps placing more.
     */
    private static final class Watcher implements Runnable {
        private final Horizon.Rest replica;
        private volatile boolean running = true;
        final Map<String, String> starts = new ConcurrentHashMap<>();
        final Set<String> ended = ConcurrentHashMap.newKeySet();
        final List<String> doubleBooked = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<String> repeated = new java.util.concurrent.CopyOnWriteArrayList<>();

        Watcher(Horizon.Rest replica) {
            this.replica = replica;
        }

        void stop() {
            running = false;
        }

        @Override
        public void run() {
            while (running) {
                try {
                    JsonNode jobs = replica.json("GET", "/api/v1/jobs?state=RUNNING&limit=10000", null, 200);
                    Map<String, String> holders = new HashMap<>();
                    for (JsonNode j : jobs) {
                        String id = j.get("id").asText();
                        String start = j.get("placement").asText() + "@" + j.get("startedAt").asText();
                        String before = starts.putIfAbsent(id, start);
                        if (ended.contains(id) || before != null && !before.equals(start)) repeated.add(id + ": " + before + " then " + start);
                        Matcher m = PLACED.matcher(j.get("placement").asText());
                        while (m.find()) {
                            int from = Integer.parseInt(m.group(2));
                            int to = m.group(3) == null ? from : Integer.parseInt(m.group(3));
                            for (int g = from; g <= to; g++) {
                                String other = holders.put(m.group(1) + "/" + g, id);
                                if (other != null) doubleBooked.add(m.group(1) + " GPU " + g + ": " + other + " and " + id);
                            }
                        }
                    }
                    // every other running job ends, so GPUs free up and the leader dispatches again through the failover
                    int i = 0;
                    for (JsonNode j : jobs) {
                        if (i++ % 2 == 0 && replica.call("POST", "/api/v1/jobs/" + j.get("id").asText() + "/outcome", "{\"state\":\"SUCCEEDED\"}")
                                .statusCode() == 200) {
                            ended.add(j.get("id").asText());
                        }
                    }
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (IOException | AssertionError e) {
                    // a slow answer under load: the next round reads again
                }
            }
        }
    }
}
