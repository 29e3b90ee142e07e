package dev.horizon.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.actions.Ranking;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fractional.mig.MigPolicy;
import dev.horizon.trace.DemoDayScenario;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * ./horizon demo's world: it replays the demo's day against a control plane on its virtual clock, through the REST API
 * only. Each simulated minute it moves the clock, submits the jobs that arrived (as their teams' submitters), reports
 * the jobs whose work is done (as their agents would), sizes the inference service and says which GPUs serve (taking
 * GPUs back from batch work when free ones run out: EVICTED), asks for a plan when something changed, and reads what
 * runs. It paces itself to --speed simulated seconds per wall second and prints one status line.
 */
public final class DemoMain {
    private final ControlPlane cp;
    private final String admin;
    private final DemoDayScenario.Day day;
    private final Runs runs;
    private final Serving serving;
    private final long dayStart;
    private final Map<String, String> submitterOf = new HashMap<>();
    private final PrintStream out;
    private final Progress progress;
    private final SimulatedWork work;
    private int submitted;
    private int evictions;
    private int plans;
    /** Where the demo last moved the control plane's clock, in seconds into the day. */
    private long clockAt = -1;

    private DemoMain(ControlPlane cp, String admin, DemoDayScenario.Day day, long dayStart, PrintStream out, boolean tty, SimulatedWork work) {
        this.work = work;
        this.cp = cp;
        this.admin = admin;
        this.day = day;
        this.dayStart = dayStart;
        this.runs = new Runs(dayStart);
        this.serving = new Serving(day.service());
        this.out = out;
        this.progress = new Progress(out, tty);
    }

    /**
     * The options, each with its default; a wrong one is one line naming it. tty (--progress tty): the launcher's output
     * is a terminal, so the status line is rewritten in place (--progress lines, the default: a line each simulated hour).
     */
    record Options(String url, String token, long seed, double speed, long durationSeconds, Path traces, Path summary, Map<String, Path> simStates,
                   boolean tty) {
        static Options parse(String[] args) {
            return parse(args, true);
        }

        /** connect: the control plane's --url and --token are required (not to only say when the day starts). */
        static Options parse(String[] args, boolean connect) {
            Map<String, String> o = new HashMap<>(Map.of("--seed", "1", "--speed", "288", "--duration", "86400", "--traces", "../shared/traces", "--progress", "lines"));
            for (int i = 0; i < args.length; i += 2) {
                if (!List.of("--url", "--token", "--seed", "--speed", "--duration", "--traces", "--summary", "--sim-state", "--progress").contains(args[i]) || i + 1 >= args.length) {
                    throw new IllegalArgumentException("unknown option or missing value: " + args[i]
                            + "; use --url U --token ADMIN [--seed N] [--speed X] [--duration S] [--traces DIR] [--summary FILE] [--sim-state NODE=FILE,...] [--progress tty|lines]");
                }
                o.put(args[i], args[i + 1]);
            }
            if (connect && (!o.containsKey("--url") || !o.containsKey("--token"))) throw new IllegalArgumentException("--url and --token (an admin token) are required");
            double speed = number(o, "--speed");
            long duration = (long) number(o, "--duration");
            if (speed <= 0) throw new IllegalArgumentException("--speed must be above 0 (simulated seconds per wall second; 288 = a day in 5 minutes)");
            if (duration < 60 || duration > 86_400) throw new IllegalArgumentException("--duration must be 60 to 86400 simulated seconds (got " + duration + ")");
            if (!List.of("tty", "lines").contains(o.get("--progress"))) throw new IllegalArgumentException("--progress must be tty or lines (got '" + o.get("--progress") + "')");
            return new Options(o.get("--url"), o.get("--token"), (long) number(o, "--seed"), speed, duration, Path.of(o.get("--traces")),
                    o.containsKey("--summary") ? Path.of(o.get("--summary")) : null, simStates(o.getOrDefault("--sim-state", "")),
                    "tty".equals(o.get("--progress")));
        }

        /** NODE=FILE,...: each node's simulated-driver state file, where the jobs' processes are written. */
        private static Map<String, Path> simStates(String value) {
            Map<String, Path> out = new HashMap<>();
            for (String pair : value.split(",")) {
                if (pair.isBlank()) continue;
                int eq = pair.indexOf('=');
                if (eq <= 0) throw new IllegalArgumentException("--sim-state takes NODE=FILE pairs joined by commas (got '" + pair + "')");
                out.put(pair.substring(0, eq), Path.of(pair.substring(eq + 1)));
            }
            return out;
        }

        private static double number(Map<String, String> o, String name) {
            try {
                return Double.parseDouble(o.get(name));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be a number (got '" + o.get(name) + "')");
            }
        }
    }

    /**
     * {@code DemoMain control-plane-settings [--seed N] [--traces DIR]} prints, one {@code key=value} a line, what the
     * control plane needs set for that day (the launcher passes each as a system property): where its virtual clock starts,
     * and how its budgets age waiting work, as the day's scenario has them; otherwise it replays the day.
     */
    public static void main(String[] args) throws Exception {
        boolean settings = args.length > 0 && "control-plane-settings".equals(args[0]);
        Options o;
        try {
            o = Options.parse(settings ? java.util.Arrays.copyOfRange(args, 1, args.length) : args, !settings);
        } catch (IllegalArgumentException e) {
            System.err.println("horizon demo: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (settings) {
            controlPlaneSettings(DemoDayScenario.build(o.seed(), o.traces(), new Workloads()), LocalDate.now(ZoneOffset.UTC)).forEach(System.out::println);
            return;
        }
        try {
            run(o, System.out);
        } catch (ControlPlane.Refused e) {
            System.err.println("\nhorizon demo: " + e.getMessage());
            System.exit(1);
        }
    }

    /** The control plane's settings the day needs, as key=value: its clock's start, and its budgets' age doubling. */
    static List<String> controlPlaneSettings(DemoDayScenario.Day day, LocalDate today) {
        long ageing = day.scenario().budgets().ageDoublingSeconds();
        return List.of("horizon.clock.start=" + day.clockStart(today), "horizon.planner.age-doubling-hours=" + ageing / 3600);
    }

    static void run(Options o, PrintStream out) throws IOException, InterruptedException {
        DemoDayScenario.Day day = DemoDayScenario.build(o.seed(), o.traces(), new Workloads());
        out.println("horizon demo: the day: " + day.submissions().size() + " jobs from " + day.source() + "; " + day.dateWords(LocalDate.now(ZoneOffset.UTC)));
        ControlPlane cp = new ControlPlane(o.url());
        long now = cp.now(o.token());
        // the day begins on a step boundary (the clock's start, midnight, when the launcher set it), so the plan's
        // 15-minute grid and the day's steps line up
        long dayStart = Math.floorDiv(now + DemoDayScenario.STEP_SECONDS - 1, DemoDayScenario.STEP_SECONDS) * DemoDayScenario.STEP_SECONDS;
        Map<String, Long> memory = new HashMap<>();
        DemoDayScenario.NODES.forEach(n -> memory.put(n.name(), n.gpuMemoryMiB()));
        DemoMain demo = new DemoMain(cp, o.token(), day, dayStart, out, o.tty(), o.simStates().isEmpty() ? null : new SimulatedWork(o.simStates(), memory, o.seed()));
        demo.setUp();
        FutureTask<List<String>> figures = demo.compareInTheBackground(new Comparison(day, dayStart, dayStart + o.durationSeconds()));
        demo.replay(o.durationSeconds(), o.speed());
        if (!figures.isDone()) out.println("horizon demo: the day is over; the simulator is still computing the comparison ...");
        try {
            figures.get().forEach(out::println);
        } catch (ExecutionException e) {
            // a refused call is said in one line, as the replay's are
            if (e.getCause() instanceof ControlPlane.Refused refused) throw refused;
            throw new IllegalStateException("the comparison in the simulator failed", e.getCause());
        }
        if (o.summary() != null) Files.writeString(o.summary(), ControlPlane.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(demo.summary(o.durationSeconds())));
    }

    /**
     * The same day under the other policies in the simulator, computed on a thread of its own while the day is replayed,
     * so the figures are in the web view when the day ends; until then the view says they are being computed.
     */
    private FutureTask<List<String>> compareInTheBackground(Comparison comparison) {
        comparison.announce(cp, admin);
        out.println("horizon demo: the same day in the simulator under " + Comparison.policies() + " is computed while the day runs");
        FutureTask<List<String>> task = new FutureTask<>(() -> comparison.store(cp, admin));
        Thread t = new Thread(task, "comparison");
        t.setDaemon(true);
        t.start();
        return task;
    }

    /**
     * Teams (parents first) with their budgets, a submitter token per team that takes jobs, node-a100's MIG policy, the inference service
     * and its demand history.
     */
    private void setUp() {
        BudgetTree tree = day.scenario().budgets();
        for (var b : DemoDayScenario.BUDGETS) {
            ObjectNode t = ControlPlane.object().put("name", b.name()).put("share", tree.shareOf(b.name()));
            if (b.parent() != null) t.put("parent", b.parent());
            cp.post("/api/v1/teams", t, admin, 201);
        }
        // only the teams at the tree's leaves take jobs (a parent is owed GPU time through its sub-teams alone)
        for (String team : tree.teams()) {
            ObjectNode token = ControlPlane.object().put("role", "submitter").put("team", team).put("label", "demo: " + team);
            submitterOf.put(team, cp.post("/api/v1/tokens", token, admin, 201).get("token").asText());
        }
        putMigPolicy();
        var s = day.service().service();
        cp.post("/api/v1/inference-services", ControlPlane.object().put("name", s.name()).put("team", s.team()).put("weightPerGpuHour", s.weightPerGpuHour())
                .put("swapCapGpus", s.swapCapGpus()), submitterOf.get(s.team()), 201);
        ObjectNode history = ControlPlane.object().put("heldGpus", 0);
        var steps = history.putArray("gpus");
        for (double d : day.service().history()) steps.add(d);
        cp.post("/api/v1/inference-services/" + s.name() + "/demand", history, admin, 200);
        moveClock(0);
        out.println("horizon demo: teams " + String.join(", ", submitterOf.keySet()) + " and the inference service " + s.name()
                + " (" + day.service().history().length + " steps of demand history) are set up");
    }

    /**
     * The day's MIG policy, the one the bench's demo-day plans under: the plan may re-partition an idle A100 for MIG work
     * no instance of the launcher's layouts can take, as it does in the simulator.
     */
    private void putMigPolicy() {
        MigPolicy mig = DemoDayScenario.MIG;
        ObjectNode policy = ControlPlane.object().put("layout", mig.layout().name()).put("drainTimeSeconds", mig.drainTime().toSeconds())
                .put("maxConcurrentReconfigurations", mig.maxConcurrentReconfigurations());
        var models = policy.putArray("partitionableModels");
        mig.partitionableModels().stream().sorted().forEach(models::add);
        var profiles = policy.putArray("allowedProfiles");
        mig.allowedProfiles().stream().sorted().forEach(profiles::add);
        cp.put("/api/v1/mig-policies/" + mig.nodePool(), policy, admin, 201);
    }

    /**
     * The demo starts where it matters: the quiet hours until an hour before the day's first contention pass as fast as
     * the control plane answers.
     */
    private long quietUntil(long duration) {
        long until = Math.max(0, day.firstContentionSeconds() - 3600) / DemoDayScenario.STEP_SECONDS * DemoDayScenario.STEP_SECONDS;
        return Math.min(until, duration);
    }

    private void replay(long duration, double speed) throws IOException, InterruptedException {
        long quiet = quietUntil(duration);
        if (quiet > 0) {
            out.println("horizon demo: the quiet hours until " + ControlPlane.iso(dayStart + quiet).substring(11, 16) + " pass as fast as the"
                    + " control plane answers; from an hour before the day's first contention on, it runs at " + speed + "x");
        }
        long wallStart = System.nanoTime();
        List<Serving.Gpu> gpus = Serving.gpus(cp.get("/api/v1/nodes", admin));
        int next = 0;
        List<DemoDayScenario.Submission> subs = day.submissions();
        for (long t = 0; t <= duration; t += 60) {
            List<Runs.Job> done = runs.doneBy(t);
            boolean arrivals = next < subs.size() && subs.get(next).job().arrivalSeconds() <= t;
            // a quiet minute in which no job ends or arrives and no step begins asks nothing of the control plane (the
            // running jobs change only through a plan or an outcome), unless the service's GPUs change (serve moves the clock)
            if (t > quiet || !done.isEmpty() || arrivals || t % DemoDayScenario.STEP_SECONDS == 0) moveClock(t);
            boolean changed = false;
            for (Runs.Job j : done) {
                cp.post("/api/v1/jobs/" + j.id + "/outcome", ControlPlane.object().put("state", "SUCCEEDED"), admin, 200);
                if (work != null) work.stopped(j.id);
                runs.finished(j, t);
                changed = true;
            }
            for (; next < subs.size() && subs.get(next).job().arrivalSeconds() <= t; next++) {
                DemoDayScenario.Submission s = subs.get(next);
                String id = cp.post("/api/v1/jobs", s.spec(), submitterOf.get(s.job().team()), 201).get("id").asText();
                runs.submitted(s.job(), id);
                submitted++;
                changed = true;
            }
            changed |= serve(t, gpus);
            if (changed || t % DemoDayScenario.STEP_SECONDS == 0) {
                cp.post("/api/v1/plan", null, admin, 200);
                plans++;
            }
            if (t % DemoDayScenario.STEP_SECONDS == 0) runs.planned(cp.jobs("PENDING", admin));
            if (clockAt == t) {
                Runs.Changes seen = runs.observe(cp.jobs("RUNNING", admin), t);
                if (work != null) processes(seen, t);
            }
            status(t, t + 60 > duration);
            if (t <= quiet) wallStart = System.nanoTime() - (long) (t / speed * 1e9);
            else pace(wallStart, t, speed);
        }
        progress.end();
    }

    /**
     * The runs that ended and began since the last look, as processes on the simulated GPUs (exits first), written
     * every five simulated minutes: a day at full speed would otherwise spend half a minute locking the state files.
     */
    private void processes(Runs.Changes seen, long t) throws IOException, InterruptedException {
        for (Runs.Job j : seen.stopped()) work.stopped(j.id);
        for (Runs.Job j : seen.started()) work.started(j.id, j.truth.id(), j.truth.jobClass(), j.run.placement());
        if (t % 300 == 0) work.flush();
    }

    /** The service's minute: the step's demand reported at a step boundary, GPUs taken back from batch work, which GPUs serve. */
    private boolean serve(long t, List<Serving.Gpu> gpus) {
        int m = (int) (t / 60);
        String name = day.service().service().name();
        if (t > 0 && t % DemoDayScenario.STEP_SECONDS == 0) {
            moveClock(t);
            // without heldGpus: a count alone tells the control plane that which GPUs serve is no longer known, so the
            // plan (and the web view) would lose the GPUs the last PUT .../held named until the next change
            ObjectNode step = ControlPlane.object();
            step.putArray("gpus").add(serving.stepDemand((int) (t / DemoDayScenario.STEP_SECONDS) - 1));
            cp.post("/api/v1/inference-services/" + name + "/demand", step, admin, 200);
        }
        if (m >= day.service().windowMinutes().length) return false;
        Serving.Resize r = serving.minute(m, t, gpus, runs.running());
        if (r.changed() || !r.victims().isEmpty()) moveClock(t);
        for (Runs.Job v : r.victims()) {
            cp.post("/api/v1/jobs/" + v.id + "/outcome", ControlPlane.object().put("state", "EVICTED"), admin, 200);
            evictions++;
        }
        if (!r.changed()) return !r.victims().isEmpty();
        ObjectNode held = ControlPlane.object();
        var uuids = held.putArray("gpuUuids");
        serving.held().forEach(uuids::add);
        cp.put("/api/v1/inference-services/" + name + "/held", held, admin);
        return true;
    }

    /** Moves the control plane's clock to t seconds into the day, once per t. */
    private void moveClock(long t) {
        if (clockAt == t) return;
        clockAt = t;
        cp.post("/api/v1/clock", ControlPlane.object().put("to", ControlPlane.iso(dayStart + t)), admin, 200);
    }

    private void status(long t, boolean last) {
        progress.show(t, last, String.format("horizon demo: simulated %s | submitted %d, running %d, waiting %d, done %d | preemptions %d, evictions %d"
                        + " | inference holds %s | plans %d", ControlPlane.iso(dayStart + t).substring(0, 16).replace('T', ' '), submitted, runs.running().size(), runs.waiting(),
                runs.completed(), runs.preemptions(), evictions, Ranking.gpus(serving.held().size()), plans));
    }

    private static void pace(long wallStart, long t, double speed) throws InterruptedException {
        long dueNanos = wallStart + (long) (t / speed * 1e9);
        long wait = dueNanos - System.nanoTime();
        if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }

    /** What the world saw, for the demo's test and the user: the figures the control plane's own API does not give. */
    Map<String, Object> summary(long duration) {
        Map<String, Object> s = new java.util.LinkedHashMap<>();
        s.put("dayStartSeconds", dayStart);
        s.put("simulatedSeconds", duration);
        s.put("quietUntilSeconds", quietUntil(duration));
        s.put("submitted", submitted);
        s.put("completed", runs.completed());
        s.put("preemptionsSeen", runs.preemptions());
        s.put("startedAtPlannedStart", runs.startedAsPlanned());
        s.put("waitedThenStartedAsPlanned", runs.waitedThenStartedAsPlanned());
        s.put("evictions", evictions);
        s.put("plans", plans);
        s.put("rtSloAttainment", serving.sloAttainment());
        s.put("keptBatchGpuHours", runs.keptGpuSeconds(duration) / 3600);
        return s;
    }
}
