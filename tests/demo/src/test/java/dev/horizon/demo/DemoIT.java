package dev.horizon.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs ./horizon demo for a whole simulated day as fast as the machine allows, takes the web view's screenshots in
 * headless Chromium at three moments (skipped, saying so, where Chromium is absent), checks what the issue asks for
 * through the REST API of the finished day, then stops the demo with SIGTERM: every process it started is gone within
 * 15 s and its temp folder with them.
 */
class DemoIT {
    private static final Path ROOT = Path.of(System.getProperty("horizon.root", "../..")).toAbsolutePath().normalize();
    private static final Path OUT = ROOT.resolve("tests/demo/target/demo-it");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final long DAY = 86_400;
    /** Drawn elements the screenshots must show, by the class the web view gives them. */
    private static final Map<String, Pattern> DRAWN = Map.of(
            "MIG work", Pattern.compile("<g class=\"bar (running|past)[^\"]*\\bmig\\b"),
            "fractional (time-sliced) work", Pattern.compile("<g class=\"bar (running|past)[^\"]*\\bshare\\b"),
            "work on a lent GPU", Pattern.compile("<g class=\"bar (running|past)[^\"]*\\bfill\\b"),
            "a waiting job at its planned start", Pattern.compile("<g class=\"bar planned"));

    @Test
    void aContendedDayThroughTheRestApi() throws Exception {
        Files.createDirectories(OUT);
        Path summary = OUT.resolve("summary.json");
        for (String s : List.of("", ".env", ".running")) Files.deleteIfExists(Path.of(summary + s));
        Process demo = new ProcessBuilder(ROOT.resolve("horizon").toString(), "demo", "--speed", "1000000", "--duration", String.valueOf(DAY),
                "--summary", summary.toString()).directory(ROOT.toFile()).redirectErrorStream(true).redirectOutput(OUT.resolve("demo.log").toFile()).start();
        try {
            Properties running = waitFor(Path.of(summary + ".running"), demo, Duration.ofMinutes(10));
            ControlPlane cp = new ControlPlane(running.getProperty("url"));
            String admin = running.getProperty("token");
            long dayStart = Math.floorDiv(cp.now(admin) + 1, 900) * 900;
            Set<String> drawn = new HashSet<>();
            int shot = 0;
            for (double moment : new double[] {0.35, 0.7}) {
                while (cp.now(admin) < dayStart + moment * DAY && !Files.exists(Path.of(summary + ".env"))) {
                    assertTrue(demo.isAlive(), () -> "the demo stopped during the day; see " + OUT.resolve("demo.log"));
                    Thread.sleep(500);
                }
                drawn.addAll(screenshot(running.getProperty("url"), admin, ++shot));
            }
            Properties over = waitFor(Path.of(summary + ".env"), demo, Duration.ofMinutes(10));
            drawn.addAll(screenshot(running.getProperty("url"), admin, ++shot));
            checkTheDay(cp, admin, ControlPlane.JSON.readTree(summary.toFile()));
            if (Files.isExecutable(CHROMIUM)) {
                for (String what : DRAWN.keySet()) assertTrue(drawn.contains(what), "no screenshot drew " + what + "; see " + OUT);
            } else {
                System.out.println("DemoIT: " + CHROMIUM + " is absent: the web view's screenshots were not taken or checked");
            }
            stopsWithinFifteenSeconds(demo, Path.of(over.getProperty("tmp")));
        } finally {
            demo.descendants().forEach(ProcessHandle::destroyForcibly);
            demo.destroyForcibly();
        }
    }

    private static void checkTheDay(ControlPlane cp, String admin, JsonNode summary) {
        assertTrue(summary.get("waitedThenStartedAsPlanned").asLong() > 0, "no job waited and then started at the start the plan gave it: " + summary);
        List<JsonNode> runs = new ArrayList<>();
        long end = summary.get("dayStartSeconds").asLong() + DAY;
        // the runs endpoint reaches back 7 days from now; the day is the last one
        cp.get("/api/v1/runs?since=" + ControlPlane.iso(end - DAY), admin).forEach(runs::add);
        assertTrue(runs.stream().anyMatch(r -> r.get("fill").asBoolean() && r.has("endReason")
                        && List.of("PREEMPTED", "EVICTED").contains(r.get("endReason").asText())),
                "no run on lent GPUs was taken back (preempted or evicted) during the day");
        List<JsonNode> preempted = runs.stream().filter(r -> "PREEMPTED".equals(r.path("endReason").asText())).toList();
        assertFalse(preempted.isEmpty(), "nothing was preempted during the day");
        Map<String, Contract> contracts = new HashMap<>();
        // work on lent GPUs (fill) yields at any time; a contract's minimum runtime protects the rest
        for (JsonNode r : preempted.stream().filter(r -> !r.get("fill").asBoolean()).toList()) {
            String id = r.get("jobId").asText();
            Contract c = contracts.computeIfAbsent(id, k -> contract(cp.get("/api/v1/jobs/" + k, admin)));
            long ran = ControlPlane.seconds(r, "endedAt") - ControlPlane.seconds(r, "startedAt");
            assertTrue(ran >= c.minRuntimeSeconds(), id + " was preempted after " + ran + " s, inside its contract's minimum runtime " + c.minRuntimeSeconds() + " s");
        }
        for (JsonNode team : cp.get("/api/v1/teams", admin)) {
            assertTrue(team.has("owedGpuHours") && team.has("deliveredGpuHours"), "team " + team + " reports no owed/delivered GPU-hours");
            if (team.path("parent").isTextual()) assertTrue(team.get("owedGpuHours").asDouble() > 0, "team " + team.get("name") + " was owed nothing all day");
        }
        assertTrue(summary.get("evictions").asInt() > 0 || runs.stream().anyMatch(r -> "EVICTED".equals(r.path("endReason").asText()))
                || summary.get("preemptionsSeen").asInt() > 0, "the inference service never took GPUs back");
    }

    private static Contract contract(JsonNode job) {
        JsonNode c = job.path("spec").path("contract");
        if (c.isMissingNode() || c.isNull()) return Contract.defaultFor(JobClass.valueOf(job.get("class").asText()));
        return new Contract(c.path("minRuntimeSeconds").asLong(), c.path("resumable").asBoolean(), c.path("checkpointCostSeconds").asLong());
    }

    /** SIGTERM to the launcher: it and every process it started are gone within 15 s, and so is its temp folder. */
    private static void stopsWithinFifteenSeconds(Process demo, Path tmp) throws InterruptedException {
        List<ProcessHandle> children = demo.descendants().toList();
        assertFalse(children.isEmpty(), "the demo runs no processes to stop");
        assertTrue(Files.isDirectory(tmp), "the demo's temp folder " + tmp + " is not there while it runs");
        Instant asked = Instant.now();
        demo.destroy();
        assertTrue(demo.waitFor(20, TimeUnit.SECONDS), "the launcher still runs 20 s after SIGTERM");
        for (ProcessHandle h : children) {
            long left = Math.max(0, 15_000 - Duration.between(asked, Instant.now()).toMillis());
            try {
                h.onExit().get(left, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new AssertionError("process " + h.pid() + " (" + h.info().command().orElse("?") + ") still runs 15 s after SIGTERM");
            }
        }
        assertFalse(Files.exists(tmp), "the demo's temp folder " + tmp + " is still there after it stopped");
    }

    /** One screenshot of the web view (kept under target/demo-it) and the elements its page drew. */
    private static Set<String> screenshot(String url, String token, int n) throws IOException, InterruptedException {
        if (!Files.isExecutable(CHROMIUM)) return Set.of();
        String page = url + "/#token=" + token;
        Path profile = Files.createTempDirectory("demo-it-chromium");
        String dom = chromium(profile, "--dump-dom", page);
        Files.writeString(OUT.resolve("view-" + n + ".html"), dom);
        chromium(Files.createTempDirectory("demo-it-chromium"), "--screenshot=" + OUT.resolve("view-" + n + ".png"), page);
        Set<String> found = new HashSet<>();
        DRAWN.forEach((what, p) -> {
            if (p.matcher(dom).find()) found.add(what);
        });
        System.out.println("DemoIT: screenshot " + n + " draws " + found);
        return found;
    }

    private static String chromium(Path profile, String what, String page) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
                "--window-size=1500,2400", "--virtual-time-budget=15000", what, page).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "chromium did not finish in 120 s");
        assertEquals(0, p.exitValue(), "chromium failed on " + page);
        return out;
    }

    private static Properties waitFor(Path file, Process demo, Duration limit) throws IOException, InterruptedException {
        Instant until = Instant.now().plus(limit);
        while (!Files.exists(file)) {
            if (!demo.isAlive()) throw new AssertionError("the demo exited (" + demo.exitValue() + "); see " + OUT.resolve("demo.log"));
            assertTrue(Instant.now().isBefore(until), () -> file + " did not appear within " + limit + "; see " + OUT.resolve("demo.log"));
            Thread.sleep(500);
        }
        Thread.sleep(200);
        Properties p = new Properties();
        try (var in = Files.newInputStream(file)) {
            p.load(in);
        }
        return p;
    }
}
