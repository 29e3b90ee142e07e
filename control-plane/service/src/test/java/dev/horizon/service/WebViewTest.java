package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.horizon.service.planning.Planner;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
        String waits = Api.submit(ADMIN, "{\"name\":\"pretrain-16\",\"team\":\"web\",\"class\":\"TRAINING\",\"replicas\":2,"
                + "\"perReplica\":{\"gpus\":8},\"durationEstimateSeconds\":3600}");
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
            // set through the CSSOM, which the page's Content-Security-Policy allows (a style attribute it drops is serialised as written)
            assertTrue(dom.contains("<span class=\"team\"><i style=\"background: rgb("), "the legend's team swatches have their colour");
            assertTrue(dom.contains("<span class=\"series busyGpus\"><i style=\"background: rgb("), "the history's legend is in the page with its colours");
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    /** 2026-11-30 12:00 UTC: when the canned plan was made. */
    private static final long NOON = 1_796_040_000L;
    /** w6's P50 start: Sunday 6 December 13:00 UTC, six days after the plan's Monday; a weekday alone would not say which Sunday. */
    private static final long SIX_DAYS_ONE_HOUR = 6 * 86_400 + 3600;
    /**
     * A plan with one running job and seven waiting ones: w1 with a start band (P50 160 min, P90 200 min away), w2 with none
     * yet, and five over their team's share, unplanned: w3 with a P50 only, w4 with none that can be given, w5 with when the
     * queue alone would start it, w6 (a 3g.40gb MIG instance) with a P50 and a queue-alone start days ahead, w7 (two shares
     * of half a GPU) with nothing.
     */
    private static final Map<String, String> CANNED = Map.of(
            "/api/v1/plan", ("{'plannedAt':'%s','stepSeconds':900,'horizonSteps':96,'nodes':['node-1'],'totalGpus':8,'busyGpus':8,'utilization':1.0,"
                    + "'decisionMillis':3.0,'mode':'heuristic','groups':[],'cpSatGain':null,'fullMode':null,'running':[{'jobId':'r1','name':'sft-8',"
                    + "'team':'web','class':'TRAINING','placement':'node-1[0-7]','fill':false,'start':'%s','estimatedEnd':'%s'}],'pending':["
                    + "{'jobId':'w1','name':'pretrain-16','team':'web','class':'TRAINING','gpus':8,'rule':'planned-start','reason':'planned to start"
                    + " in about 2.5 h when 8 GPUs free up','queuePosition':1,'plannedStart':'%s','estimatedSeconds':3600,'startP50At':'%s','startP90At':'%s'},"
                    + "{'jobId':'w2','name':'eval-8','team':'web','class':'TRAINING','gpus':8,'rule':'planned-start','reason':'planned to start"
                    + " in about 3.5 h when 8 GPUs free up','queuePosition':2,'plannedStart':'%s','estimatedSeconds':1800,'startP50At':null,'startP90At':null},"
                    + "{'jobId':'w3','name':'sweep-1','team':'web','class':'TRAINING','gpus':1,'rule':'over-share','reason':'its team already runs all"
                    + " it is owed now','queuePosition':3,'plannedStart':null,'estimatedSeconds':600,'startP50At':'%s','startP90At':null,"
                    + "'startBandNote':'with odds 9 in 10 it starts later than where the futures end'},"
                    + "{'jobId':'w4','name':'sweep-2','team':'web','class':'TRAINING','gpus':1,'rule':'over-share','reason':'its team already runs all"
                    + " it is owed now','queuePosition':4,'plannedStart':null,'estimatedSeconds':600,'startP50At':null,'startP90At':null,"
                    + "'startBandNote':'in 12 of 12 sampled futures it had not started by then'},"
                    + "{'jobId':'w5','name':'sweep-3','team':'web','class':'TRAINING','gpus':1,'rule':'over-share','reason':'its team already runs all"
                    + " it is owed now','queuePosition':5,'plannedStart':null,'estimatedSeconds':600,'startP50At':null,'startP90At':null,"
                    + "'startBandNote':'in 12 of 12 sampled futures it had not started by then; were no more work to arrive ahead of it, it would start by " + Api.iso(NOON + 7200) + " with odds 1 in 2',"
                    + "'queueAloneP50At':'%s','queueAloneP90At':'%s'},"
                    + "{'jobId':'w6','name':'sweep-4','team':'web','class':'TRAINING','gpus':1,'replicas':1,'migProfile':'3g.40gb','rule':'over-share',"
                    + "'reason':'its team already runs all it is owed now','queuePosition':6,'plannedStart':null,'estimatedSeconds':600,'startP50At':'%s',"
                    + "'startP90At':null,'startBandNote':'with odds 9 in 10 it starts later than where the futures end','queueAloneP50At':'%s','queueAloneP90At':null},"
                    + "{'jobId':'w7','name':'sweep-5','team':'web','class':'TRAINING','gpus':2,'replicas':2,'gpuMilli':500,'rule':'over-share',"
                    + "'reason':'its team already runs all it is owed now','queuePosition':7,'plannedStart':null,'estimatedSeconds':600,'startP50At':null,"
                    + "'startP90At':null},"
                    + "{'jobId':'w8','name':'held-1','team':'web','class':'TRAINING','gpus':1,'rule':'held','reason':'held by ops (admin) since "
                    + Api.iso(NOON - 600) + "; ./horizon release held-1 lets it start','queuePosition':null,'plannedStart':null,'estimatedSeconds':null,"
                    + "'startP50At':null,'startP90At':null,'startBandNote':'held since " + Api.iso(NOON - 600) + ": no plan places it, so it has no start band"
                    + " until it is released','heldAt':'" + Api.iso(NOON - 600) + "'}],'inferenceReservedGpus':{}}")
                    .formatted(Api.iso(NOON), Api.iso(NOON - 1800), Api.iso(NOON + 9000), Api.iso(NOON + 9000), Api.iso(NOON + 9600), Api.iso(NOON + 12000),
                            Api.iso(NOON + 12600), Api.iso(NOON + 5 * 3600), Api.iso(NOON + 6 * 3600), Api.iso(NOON + 8 * 3600),
                            Api.iso(NOON + SIX_DAYS_ONE_HOUR), Api.iso(NOON + SIX_DAYS_ONE_HOUR + 86_400)),
            "/api/v1/plan/history", "[{'at':'%s','totalGpus':8,'busyGpus':8,'inferenceDemandGpus':0,'inferenceServedGpus':0,'inferenceHeldGpus':0,"
                    .formatted(Api.iso(NOON)) + "'inferenceReservedGpus':0}]",
            "/api/v1/nodes", "[{'name':'node-1','gpus':[" + String.join(",", java.util.Collections.nCopies(8, "{'model':'H100-80GB','migDevices':[]}")) + "]},"
                    + "{'name':'mallory','pendingApproval':true,'gpus':[{'model':'H100-80GB','migDevices':[]}]},"
                    + "{'name':'node-2','drainReason':'new PSU','gpus':[{'model':'H100-80GB','migDevices':[]}]}]",
            "/api/v1/clock", "{'now':'%s','virtual':true}".formatted(Api.iso(NOON)),
            "/api/v1/runs", "[]", "/api/v1/teams", "[]", "/api/v1/comparisons", "[]", "/api/v1/inference-services", "[]");

    /** The canned plan on 10 GPUs: its job's 8 busy, and 2 more an inference service holds. */
    private static final String PLAN_ON_10_GPUS = CANNED.get("/api/v1/plan").replace("'totalGpus':8,'busyGpus':8,'utilization':1.0",
            "'totalGpus':10,'busyGpus':8,'utilization':0.8");

    /**
     * The start band as the page draws it from the fields the REST contract gives the plan's waiting jobs (startP50At,
     * startP90At on GET /api/v1/plan): the page itself, unchanged, against a stand-in API serving canned answers in the contract's shape.
     */
    @Test
    void aWaitingJobsStartBandIsDrawnOnTheGanttAndListed() throws Exception {
        Path chromium = chromium();
        assumeTrue(chromium != null, "web view test skipped: no chromium on PATH (apt-get install -y chromium, as .ci/run does)");
        HttpServer api = serve(CANNED);
        Path dir = Files.createTempDirectory("horizon-web-band");
        try {
            String dom = run(chromium, dir, "--dump-dom", "http://127.0.0.1:" + api.getAddress().getPort() + "/#token=any");
            Matcher band = Pattern.compile("<g class=\"band\" data-job=\"w1\"><title>([^<]*)</title><rect x=\"([\\d.]+)\" y=\"[\\d.]+\" width=\"([\\d.]+)\"")
                    .matcher(dom);
            assertTrue(band.find(), "a start band over waiting job w1's planned bar: " + dom);
            assertTrue(band.group(1).contains("starts by") && band.group(1).contains("(in 2 h 40 min) with odds 1 in 2 (P50)")
                    && band.group(1).contains("(in 3 h 20 min) with odds 9 in 10 (P90)"), "its tooltip says the band in words: " + band.group(1));
            double now = number(dom, "<line x1=\"([\\d.]+)\"[^>]*class=\"now\"");
            double p50 = Double.parseDouble(band.group(2));
            double p90 = p50 + Double.parseDouble(band.group(3));
            assertEquals(160.0 / 200.0, (p50 - now) / (p90 - now), 0.01, "the band runs from the P50 start to the P90 start");
            double tick = number(dom, "<g class=\"band\" data-job=\"w1\">.*?<line x1=\"([\\d.]+)\"[^>]*class=\"planned-start\"");
            assertEquals(150.0 / 160.0, (tick - now) / (p50 - now), 0.01, "the tick sits at the planned start");
            assertTrue(!dom.contains("<g class=\"band\" data-job=\"w2\""), "a job with no band yet is drawn without one");
            assertTrue(dom.contains("(in 2 h 40 min to 3 h 20 min)</td>"), "the pending list gives the band, relative to the plan");
            assertTrue(dom.contains(">no band yet</td>"), "and says when a job has none yet");
            assertTrue(dom.contains(">none: over its team's share, runs as fill</td>"), "work over its team's share is said to be unplanned, not out of the horizon");
            assertTrue(Pattern.compile("title=\"with odds 9 in 10 it starts later than where the futures end\">[^<]+ – later \\(in 5 h to past the futures\\)</td>")
                    .matcher(dom).find(), "a P50 whose P90 lies past the futures is shown, its note on hover: " + dom);
            assertTrue(dom.contains("title=\"in 12 of 12 sampled futures it had not started by then\">none can be given</td>"),
                    "a job no band can be given says so, the note on hover");
            assertTrue(Pattern.compile("title=\"in 12 of 12 sampled futures it had not started by then; were no more work to arrive ahead of it, it would start by"
                    + " [^\"<]*\\d\\d:\\d\\d[^\"<]* with odds 1 in 2\">none can be given; if no more work arrives: [^<]+ – [^<]+</td>").matcher(dom).find(),
                    "and, where the queue alone would start it, when, as a condition beside the band: " + dom);
            assertTrue(!dom.contains(Api.iso(NOON + 7200)), "the note's times are the page's clock words, not ISO-8601 UTC: " + dom);
            // a start days ahead gives its day of the month, in the band and in the queue-alone condition beside it (the
            // browser's locale orders the parts: only the day's number is looked for, 6 and 7 December for the plan's 30 November)
            Matcher days = Pattern.compile("data-job=\"w6\">.*?title=\"with odds 9 in 10 it starts later than where the futures end\">([^<]+) – later"
                    + " \\(in 6 d 1 h to past the futures\\); if no more work arrives: ([^<]+) – later</td>").matcher(dom);
            assertTrue(days.find(), "w6's band, 6 days ahead, and its queue-alone start: " + dom);
            assertTrue(Pattern.compile("(?<!\\d)6(?!\\d)").matcher(days.group(1)).find(), "a P50 6 days ahead says the 6th, not a weekday alone: " + days.group(1));
            assertTrue(Pattern.compile("(?<!\\d)7(?!\\d)").matcher(days.group(2)).find(), "the queue-alone start says the 7th: " + days.group(2));
            assertTrue(dom.contains("data-job=\"w6\"><td>6</td><td>sweep-4</td><td>web</td><td>TRAINING</td><td>1x3g.40gb</td>"),
                    "a MIG job's GPUs are its replicas and profile, as ./horizon jobs gives them, not the 1 GPU it counts as: " + dom);
            assertTrue(dom.contains("data-job=\"w7\"><td>7</td><td>sweep-5</td><td>web</td><td>TRAINING</td><td>2x500m</td>"),
                    "shares of a GPU are their replicas and thousandths of a GPU: " + dom);
            assertTrue(Pattern.compile("data-job=\"w8\"><td></td><td>held-1</td>.*?<td>none: held</td><td class=\"band\" title=\"held since [^\"]+\">held</td>")
                    .matcher(dom).find(), "a held job has neither planned start nor band: it reads held, since when on hover: " + dom);
            assertTrue(dom.contains("with odds 1 in 2 (P50)") && dom.contains("class=\"mark band\""), "the legend says what the band is");
            String marked = "1 node waits for approval, no work placed: mallory (./horizon node approve NAME); drained, no new work: node-2 (new PSU)"
                    + " (./horizon node undrain NAME)";
            assertTrue(dom.contains("<span id=\"waiting-nodes\" class=\"waiting-nodes\" title=\"" + marked + "\">" + marked + "</span>"),
                    "a node waiting for approval and a drained one are marked, with how to give them work (the whole on hover, where the header"
                    + " cuts it short): " + dom);
        } finally {
            api.stop(0);
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    /**
     * The day a comparison covers, as ./horizon demo stores it: mid-day, the header shows how much of it was replayed and
     * a notice that the comparison is being computed; at its end, that the day is over, with the figures. The GPUs an
     * inference service holds are drawn in their rows for as long as its forecast needs them, and the header counts them
     * busy: it said 8 of 10 GPUs busy while all 10 were.
     */
    @Test
    void theDaysProgressItsEndAndInferencesHeldGpusAreShown() throws Exception {
        Path chromium = chromium();
        assumeTrue(chromium != null, "web view test skipped: no chromium on PATH (apt-get install -y chromium, as .ci/run does)");
        String window = "'window':{'from':'%s','to':'%s'}".formatted(Api.iso(NOON - 43_200), Api.iso(NOON + 43_200));
        Map<String, String> midDay = new java.util.HashMap<>(CANNED);
        midDay.put("/api/v1/comparisons", "[{'name':'demo-day','scenario':'the demo day','command':'./horizon demo'," + window + ",'computing':true,'policies':[]}]");
        midDay.put("/api/v1/nodes", "[{'name':'node-1','gpus':[" + String.join(",", java.util.stream.IntStream.range(0, 10)
                .mapToObj(i -> "{'index':" + i + ",'uuid':'GPU-" + i + "','model':'H100-80GB','migDevices':[]}").toList()) + "]}]");
        midDay.put("/api/v1/inference-services", "[{'name':'chat','team':'serve','heldGpus':2,'heldOn':['GPU-9','GPU-8'],'forecast':[2,2,1,0.5,0]}]");
        midDay.put("/api/v1/plan", PLAN_ON_10_GPUS);
        Map<String, String> over = new java.util.HashMap<>(midDay);
        over.put("/api/v1/clock", "{'now':'%s','virtual':true}".formatted(Api.iso(NOON + 43_200)));
        over.put("/api/v1/comparisons", "[{'name':'demo-day','scenario':'the demo day','command':'./horizon demo'," + window
                + ",'bestBaseline':'kai','policies':[{'policy':'kai','utilization':0.5,'waitP95Seconds':33541},{'policy':'horizon','utilization':0.6}]}]");
        Path dir = Files.createTempDirectory("horizon-web-day");
        try {
            String dom = page(chromium, dir, midDay);
            assertTrue(dom.contains("<span id=\"day-words\">50% of the day replayed</span>"), "the day's progress: " + dom);
            assertTrue(dom.contains("<span id=\"summary\" title=\"2 of the busy GPUs serve inference\">10 of 10 GPUs busy (100%), 1 running, 8 waiting;"),
                    "the GPUs inference holds are busy beside the job's 8, and said apart on hover: " + dom);
            assertTrue(dom.contains("being computed in the simulator while the day runs.</p>"), "the notice that the comparison is being computed");
            Matcher serving = Pattern.compile("<g class=\"bar serving\" data-service=\"chat\"><title>node-1\\[(\\d)][^<]*</title><rect x=\"[\\d.]+\" y=\"[\\d.]+\" width=\"([\\d.]+)\"")
                    .matcher(dom);
            Map<String, Double> widths = new java.util.HashMap<>();
            while (serving.find()) widths.put(serving.group(1), Double.parseDouble(serving.group(2)));
            assertEquals(Set.of("8", "9"), widths.keySet(), "both GPUs the service holds are drawn in their rows");
            assertEquals(4.0 / 2.0, widths.get("8") / widths.get("9"), 0.01, "the first held GPU for 4 steps (until the forecast needs none), the second for 2");
            dom = page(chromium, dir, over);
            assertTrue(dom.contains("<span id=\"day-words\">the day is over</span>") && dom.contains(">The day is over: Mon, Nov 30, 2026 has been replayed."), "the end of the day: " + dom);
            assertTrue(dom.contains("kai (best baseline)"), "and the comparison's figures");
            assertTrue(dom.contains("<td>9 h 19 min</td>"), "a wait in hours and minutes, as ./horizon why says one, not 33541 s: " + dom);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    /**
     * Lays the page out in frames 1,400 and 700 px wide and says on how many lines each header's parts lie: parts on one
     * line overlap vertically, a part that begins below where the line's parts end starts another.
     */
    private static final String HEADER_LINES = """
            <!doctype html><html><body>
            <iframe id="wide" src="/#token=any" width="1400" height="900"></iframe><iframe id="narrow" src="/#token=any" width="700" height="900"></iframe>
            <pre id="lines"></pre>
            <script>
            function lines(id) {
              const d = document.getElementById(id).contentDocument;
              const header = d.querySelector('header');
              const parts = [...header.children].filter(e => !e.hidden).map(e => e.getBoundingClientRect()).sort((a, b) => a.top - b.top);
              let count = 0, bottom = -Infinity;
              for (const r of parts) {
                if (r.top >= bottom) { count++; bottom = r.bottom; } else bottom = Math.max(bottom, r.bottom);
              }
              return id + ': ' + count + ' lines, ' + parts.length + ' parts, ' + (header.scrollWidth > header.clientWidth ? 'overflows' : 'fits');
            }
            const ready = id => (document.getElementById(id).contentDocument.getElementById('day-words') || {}).textContent;
            const wait = setInterval(() => {
              if (!ready('wide') || !ready('narrow')) return;
              clearInterval(wait);
              document.getElementById('lines').textContent = lines('wide') + '; ' + lines('narrow');
            }, 100);
            </script></body></html>""";

    /**
     * The header in one line at 1,400 px, with everything it can show (the day's progress, GPUs serving inference, a node
     * waiting for approval and a drained one): the list of nodes is cut short at the line's end. On a narrow screen its
     * parts wrap, inside its width.
     */
    @Test
    void theHeaderFitsOneLineAt1400PxAndWrapsOnANarrowScreen() throws Exception {
        Path chromium = chromium();
        assumeTrue(chromium != null, "web view test skipped: no chromium on PATH (apt-get install -y chromium, as .ci/run does)");
        Map<String, String> full = new java.util.HashMap<>(CANNED);
        full.put("/api/v1/comparisons", "[{'name':'demo-day','scenario':'the demo day','command':'./horizon demo','window':{'from':'%s','to':'%s'},"
                .formatted(Api.iso(NOON - 43_200), Api.iso(NOON + 43_200)) + "'computing':true,'policies':[]}]");
        full.put("/api/v1/plan", PLAN_ON_10_GPUS);
        full.put("/api/v1/inference-services", "[{'name':'chat','team':'serve','heldGpus':2,'heldOn':[],'forecast':[]}]");
        String dom = testPage(chromium, full, "/header-lines.html", HEADER_LINES);
        Matcher lines = Pattern.compile("<pre id=\"lines\">wide: (\\d+) lines, (\\d+) parts, (\\w+); narrow: (\\d+) lines, \\d+ parts, (\\w+)</pre>").matcher(dom);
        assertTrue(lines.find(), "both frames laid out: " + dom);
        assertEquals("6", lines.group(2), "all six parts shown: the name, the clock, the day, the summary, the nodes and the button");
        assertEquals("1", lines.group(1), "at 1,400 px the header is one line: " + lines.group());
        assertEquals("fits", lines.group(3), "and nothing runs past its edge");
        assertTrue(Integer.parseInt(lines.group(4)) > 1, "at 700 px its parts wrap: " + lines.group());
        assertEquals("fits", lines.group(5), "inside the screen's width");
    }

    /**
     * Lays the page out 1,400 px wide and says how the Gantt's hour labels lie: how many, past the chart's edge, overlapping.
     * The labels are found as a reader finds them, the chart's texts that say a time of day (the rows' labels name GPUs,
     * and the plan has no jobs to label), not by a class the page carried for this test alone, without which the test
     * failed only by finding none.
     */
    private static final String HOUR_LABELS = """
            <!doctype html><html><body>
            <iframe id="view" src="/#token=any" width="1400" height="900"></iframe><pre id="labels"></pre>
            <script>
            const wait = setInterval(() => {
              const gantt = document.getElementById('view').contentDocument.getElementById('gantt');
              const labels = gantt ? [...gantt.querySelectorAll('text')].filter(t => /\\d:\\d\\d/.test(t.textContent)) : [];
              if (labels.length === 0) return;
              clearInterval(wait);
              const boxes = labels.map(l => l.getBBox()).sort((a, b) => a.x - b.x);
              const past = boxes.filter(b => b.x + b.width > +gantt.getAttribute('width')).length;
              const overlapping = boxes.filter((b, i) => i > 0 && b.x < boxes[i - 1].x + boxes[i - 1].width).length;
              document.getElementById('labels').textContent = labels.length + ' labels, ' + past + ' past the edge, ' + overlapping
                + ' overlapping: ' + labels.map(l => l.textContent).join(' | ');
            }, 100);
            </script></body></html>""";

    /**
     * A plan made at 02:30: the horizon ends an hour and a half past the next midnight, where the hour label with its date
     * ran past the chart's right edge, and its first two labels both carry a date. Every label is whole inside the chart
     * and none runs into another.
     */
    @Test
    void theGanttsHourLabelsStayInsideTheChartAndApart() throws Exception {
        Path chromium = chromium();
        assumeTrue(chromium != null, "web view test skipped: no chromium on PATH (apt-get install -y chromium, as .ci/run does)");
        long early = NOON - 9 * 3600 - 1800;
        Map<String, String> canned = new java.util.HashMap<>(CANNED);
        canned.put("/api/v1/plan", ("{'plannedAt':'%s','stepSeconds':900,'horizonSteps':96,'nodes':['node-1'],'totalGpus':8,'busyGpus':0,"
                + "'utilization':0.0,'running':[],'pending':[],'inferenceReservedGpus':{}}").formatted(Api.iso(early)));
        canned.put("/api/v1/clock", "{'now':'%s','virtual':true}".formatted(Api.iso(early)));
        String dom = testPage(chromium, canned, "/hour-labels.html", HOUR_LABELS);
        Matcher labels = Pattern.compile("<pre id=\"labels\">(\\d+) labels, (\\d+) past the edge, (\\d+) overlapping: ([^<]*)</pre>").matcher(dom);
        assertTrue(labels.find(), "the page laid out: " + dom);
        assertEquals("0", labels.group(2), "no hour label runs past the chart's edge: " + labels.group(4));
        assertEquals("0", labels.group(3), "no hour label runs into another: " + labels.group(4));
        assertTrue(labels.group(4).contains("Dec 1"), "the next day's first label still says its date: " + labels.group(4));
    }

    /** The DOM Chromium leaves of a test page (path, as written) that lays out the view beside the canned answers. */
    private static String testPage(Path chromium, Map<String, String> canned, String path, String html) throws IOException, InterruptedException {
        Map<String, String> answers = new java.util.HashMap<>(canned);
        answers.put(path, html);
        HttpServer api = serve(answers);
        Path dir = Files.createTempDirectory("horizon-web-page");
        try {
            return run(chromium, dir, "--dump-dom", "http://127.0.0.1:" + api.getAddress().getPort() + path);
        } finally {
            api.stop(0);
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    /** The page as Chromium leaves it against a stand-in API serving these canned answers. */
    private static String page(Path chromium, Path dir, Map<String, String> canned) throws IOException, InterruptedException {
        HttpServer api = serve(canned);
        try {
            return run(chromium, dir, "--dump-dom", "http://127.0.0.1:" + api.getAddress().getPort() + "/#token=any");
        } finally {
            api.stop(0);
        }
    }

    /** The page's own files, canned API answers in the REST contract's shape (single quotes for double) and test pages (.html, as written). */
    private static HttpServer serve(Map<String, String> answers) throws IOException {
        HttpServer api = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        Path page = Path.of("src/main/resources/META-INF/resources");
        api.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            String canned = answers.get(path);
            Path file = page.resolve(path.equals("/") ? "index.html" : path.substring(1));
            boolean found = canned != null || Files.isRegularFile(file);
            boolean html = path.endsWith(".html");
            byte[] body = canned != null ? (html ? canned : canned.replace('\'', '"')).getBytes(StandardCharsets.UTF_8) : found ? Files.readAllBytes(file) : new byte[0];
            exchange.getResponseHeaders().set("Content-Type", canned != null && !html ? "application/json" : path.endsWith(".js") ? "text/javascript"
                    : path.endsWith(".css") ? "text/css" : "text/html");
            exchange.sendResponseHeaders(found ? 200 : 404, found ? body.length : -1);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        api.start();
        return api;
    }

    private static double number(String dom, String regex) {
        Matcher m = Pattern.compile(regex, Pattern.DOTALL).matcher(dom);
        assertTrue(m.find(), regex + " in " + dom);
        return Double.parseDouble(m.group(1));
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
        ProcessBuilder b = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(dir.resolve("chromium.err").toFile());
        // the page shows times in the browser's zone; UTC, as the canned answers' times are read
        b.environment().put("TZ", "UTC");
        Process p = b.start();
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
