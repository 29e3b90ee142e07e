package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.horizon.service.planning.Planner;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/** The web view at / in headless Chromium (Debian's chromium package; .ci/run installs it): screenshot and DOM. */
@QuarkusTest
class WebViewTest {
    /** Long enough for the page's API calls to come back before Chromium takes the picture. */
    private static final String VIRTUAL_TIME_MILLIS = "8000";

    @TestHTTPResource("/")
    URL base;
    @Inject
    Planner planner;

    @Test
    void thePageDrawsThePlanAndListsWhatWaits() throws Exception {
        Path chromium = chromium();
        assumeTrue(chromium != null, "web view test skipped: no chromium on PATH (apt-get install -y chromium, as .ci/run does)");
        PlannerTest.cancelEverything();
        // without budgets the 16-GPU job gets a planned start behind the others, which the chart draws
        Api.noBudgets();
        Api.team("web", 0);
        String training = Api.submit(ADMIN, Api.job("sft-8", "web", "TRAINING", 8));
        String batch = Api.submit(ADMIN, Api.job("embed-4", "web", "BATCH_INFERENCE", 4));
        String serving = Api.submit(ADMIN, Api.job("chat-serve", "web", "REALTIME_INFERENCE", 2));
        planner.planNow();
        // submitted once the others run, so it waits for their GPUs whatever order the planner would rank them in
        String waits = Api.submit(ADMIN, Api.job("pretrain-16", "web", "TRAINING", 16));
        planner.planNow();
        assertEquals("PENDING", Api.as(ADMIN).get("/api/v1/jobs/" + waits).then().extract().path("state"), "16 GPUs cannot start beside the others");

        Path dir = Files.createTempDirectory("horizon-web");
        try {
            String url = base + "#token=" + ADMIN;
            Path png = dir.resolve("plan.png");
            run(chromium, dir, "--screenshot=" + png, url);
            assertTrue(Files.size(png) > 10_000, "a drawn page is more than a blank PNG: " + Files.size(png) + " bytes");
            BufferedImage image = ImageIO.read(png.toFile());
            assertTrue(colours(image) > 20, "the screenshot has the chart's colours, not one flat colour");

            String dom = run(chromium, dir, "--dump-dom", url);
            for (String running : List.of(training, batch, serving)) {
                assertTrue(dom.contains("class=\"bar running\" data-job=\"" + running + "\""), "a Gantt bar for running job " + running);
            }
            assertTrue(dom.contains("class=\"bar planned\" data-job=\"" + waits + "\""), "a Gantt bar at the waiting job's planned start");
            assertTrue(dom.contains("<tr class=\"pending-job\" data-job=\"" + waits + "\">"), "a pending row for the waiting job");
            assertTrue(dom.contains("pretrain-16") && dom.contains("planned to start"), "the row says why it waits");
            assertTrue(dom.contains("class=\"series inferenceDemandGpus\""), "the inference demand line is drawn");
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    private static Path chromium() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser")) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) return p;
            }
        }
        return null;
    }

    /** Runs headless Chromium on the page and returns what it printed (the DOM, with --dump-dom). */
    private static String run(Path chromium, Path dir, String action, String url) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + dir.resolve("profile"), "--window-size=1280,900", "--virtual-time-budget=" + VIRTUAL_TIME_MILLIS, action, url));
        Path out = dir.resolve("chromium.out");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(dir.resolve("chromium.err").toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish in 90 s: " + command);
        }
        assertEquals(0, p.exitValue(), "chromium failed: " + Files.readString(dir.resolve("chromium.err")));
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static int colours(BufferedImage image) {
        Set<Integer> seen = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) seen.add(image.getRGB(x, y));
        }
        return seen.size();
    }
}
