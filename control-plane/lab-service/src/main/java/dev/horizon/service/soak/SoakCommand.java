package dev.horizon.service.soak;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.bench.Progress;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.service.ServiceCommand;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.retention.Retention;
import dev.horizon.service.store.Db;
import dev.horizon.service.teams.Team;
import dev.horizon.service.teams.TeamStore;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code ./horizon soak}: does the control plane stay as fast after months as on its first day? In a fresh store (H2 in
 * a temp dir, or a fresh schema of the PostgreSQL at --db-url), on the declared nodes and a virtual clock, it measures the
 * plan loop under steady arrivals on the empty store, then writes --days of finished history at --jobs-per-day through
 * the stores' write paths with retention running daily (a progress bar on stderr), then measures the same arrivals
 * again on the full store, and prints one JSON object: both stores' plan-loop p50/p99, and how big the store is.
 */
@ApplicationScoped
@Unremovable
public class SoakCommand implements ServiceCommand {
    static final String USAGE = "usage: ./horizon soak [--days D] [--nodes N] [--jobs-per-day J] [--db-url URL] [--teams T] [--plans P] [--warmup W]"
            + " [--seed S] [--keep-store]\n       (defaults 90 days, 200 nodes of 8 H100, 5000 jobs a day, 8 teams, 300 timed plans after 200 warm-up plans"
            + " per store, seed 1; the store is H2 in a temp dir unless --db-url points at PostgreSQL; prints JSON on stdout)";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SERVICE = "soak-chat";

    @Inject
    NodeStore nodes;
    @Inject
    TeamStore teams;
    @Inject
    JobStore jobs;
    @Inject
    InferenceStore inference;
    @Inject
    SteadyArrivals arrivals;
    @Inject
    HistoryFill history;
    @Inject
    ServiceClock clock;
    @Inject
    Leadership leadership;
    @Inject
    Db db;
    @ConfigProperty(name = "horizon.data-dir")
    String dataDir;
    @ConfigProperty(name = "horizon.retention.days")
    int retentionDays;

    /** The options, each checked. */
    record Options(int days, int nodes, int jobsPerDay, int teams, int plans, int warmup, long seed, boolean keepStore) {
    }

    @Override
    public String name() {
        return "soak";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = options(args);
        } catch (IllegalArgumentException e) {
            err.println("horizon soak: " + e.getMessage());
            return 2;
        }
        if (o == null) {
            out.println(USAGE);
            return 0;
        }
        boolean fresh = teams.all().isEmpty() && jobs.list(new JobStore.Filter(null, null, null, null, 1, null)).isEmpty();
        if (!clock.virtual() || leadership.epoch() == 0 || !fresh || nodes.planned().size() != o.nodes()) {
            err.println("horizon soak: it needs a fresh store on a virtual clock that this process leads, with --nodes declared nodes"
                    + " (horizon.nodes); run it through ./horizon soak");
            return 2;
        }
        ObjectNode result = soak(o, err);
        if (!o.keepStore()) dropSoakSchema();
        out.println(result.toPrettyString());
        return 0;
    }

    /** On PostgreSQL the launcher made a schema of its own for the soak (horizon_soak_*): it goes once the figures are read. */
    private void dropSoakSchema() {
        if (!"postgresql".equals(db.kind())) return;
        String schema = db.query("SELECT current_schema()", ps -> { }, rs -> rs.getString(1)).get(0);
        if (schema != null && schema.startsWith("horizon_soak_")) db.update("DROP SCHEMA " + schema + " CASCADE", ps -> { });
    }

    private ObjectNode soak(Options o, PrintStream err) {
        List<String> nodeNames = nodes.planned().stream().map(Node::name).toList();
        int gpus = nodes.planned().stream().mapToInt(n -> n.gpus().size()).sum();
        List<String> teamNames = new ArrayList<>();
        List<BudgetTree.Budget> budgets = new ArrayList<>();
        for (int t = 0; t < o.teams(); t++) {
            teamNames.add("team-" + t);
            teams.insert(new Team("team-" + t, null, 1.0 / o.teams()));
            budgets.add(new BudgetTree.Budget("team-" + t, null, 1.0 / o.teams()));
        }
        inference.insert(new InferenceService(SERVICE, teamNames.get(0), 20, 2));
        Progress progress = new Progress(err);
        // the history ends at the coming hour of today's wall clock (the virtual clock starts at 0); the empty store is measured a
        // day before the history starts, at the same hour of day
        long end = (System.currentTimeMillis() / 1000 / 3600 + 1) * 3600;
        long historyFrom = end - o.days() * Retention.DAY;
        long emptyAt = historyFrom - Retention.DAY;
        clock.advanceTo(emptyAt * 1000);
        SteadyArrivals.Measured empty = arrivals.run("empty", emptyAt, o.jobsPerDay(), o.warmup(), o.plans(), SERVICE, new Workload(o.seed(), teamNames), progress);
        long fillFrom = Math.max(historyFrom, (empty.endedAt() / 3600 + 1) * 3600);
        long fillStarted = System.nanoTime();
        HistoryFill.Filled filled = history.fill(fillFrom, end, o.jobsPerDay(), nodeNames, gpus, new BudgetTree(budgets), SERVICE,
                new Workload(o.seed() + 1, teamNames), progress);
        double fillSeconds = (System.nanoTime() - fillStarted) / 1e9;
        SteadyArrivals.Measured full = arrivals.run("full", end, o.jobsPerDay(), o.warmup(), o.plans(), SERVICE, new Workload(o.seed(), teamNames), progress);

        ObjectNode r = JSON.createObjectNode();
        r.put("days", o.days()).put("finishedJobs", filled.finishedJobs());
        ObjectNode loop = r.putObject("planLoopMs");
        loop.set("empty", percentiles(empty.loopMillis()));
        loop.set("full", percentiles(full.loopMillis()));
        ObjectNode phases = r.putObject("phaseMeanMs");
        phases.set("empty", JSON.valueToTree(empty.phaseMeanMillis()));
        phases.set("full", JSON.valueToTree(full.phaseMeanMillis()));
        r.put("storeBytes", storeBytes());
        r.put("store", db.kind()).put("nodes", nodeNames.size()).put("gpus", gpus).put("jobsPerDay", o.jobsPerDay()).put("teams", o.teams());
        r.put("plansTimedPerStore", o.plans()).put("retentionDays", retentionDays).put("jobsDeletedByRetention", filled.deletedJobs());
        r.put("fillSeconds", Math.round(fillSeconds));
        ObjectNode rows = r.putObject("rows");
        rowCounts().forEach(rows::put);
        return r;
    }

    private static ObjectNode percentiles(List<Double> millis) {
        double[] v = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        ObjectNode p = JSON.createObjectNode();
        p.put("p50", round(v[Math.min(v.length - 1, (int) (0.5 * v.length))]));
        p.put("p99", round(v[Math.min(v.length - 1, (int) (0.99 * v.length))]));
        p.put("max", round(v[v.length - 1]));
        return p;
    }

    private static double round(double ms) {
        return Math.round(ms * 10) / 10.0;
    }

    /** The store's size on disk: the H2 file, or every relation of the soak's PostgreSQL schema with its indexes and TOAST. */
    private long storeBytes() {
        if ("postgresql".equals(db.kind())) {
            return db.query("SELECT COALESCE(SUM(pg_total_relation_size(quote_ident(schemaname) || '.' || quote_ident(tablename))), 0) FROM pg_tables"
                    + " WHERE schemaname = current_schema()", ps -> { }, rs -> rs.getLong(1)).get(0);
        }
        Path file = Path.of(dataDir, "horizon.mv.db");
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the size of the H2 file " + file + ": " + e.getMessage(), e);
        }
    }

    private Map<String, Long> rowCounts() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String table : List.of("jobs", "run_segments", "duration_stats", "team_usage_hourly", "job_history_hourly", "inference_demand",
                "inference_demand_hourly", "node_commands", "memory_violations", "node_events_hourly", "plan_history")) {
            out.put(table, db.query("SELECT COUNT(*) FROM " + table, ps -> { }, rs -> rs.getLong(1)).get(0));
        }
        return out;
    }

    /** The options, or null for --help; anything else is an error naming the option and what it must be. */
    static Options options(List<String> args) {
        Map<String, Long> v = new LinkedHashMap<>(Map.of("--days", 90L, "--nodes", 200L, "--jobs-per-day", 5000L, "--teams", 8L, "--plans", 300L,
                "--warmup", 200L, "--seed", 1L));
        boolean keep = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--help") || a.equals("-h")) return null;
            if (a.equals("--keep-store")) {
                keep = true;
                continue;
            }
            if (!v.containsKey(a)) throw new IllegalArgumentException("unknown option '" + a + "'; " + USAGE);
            if (i + 1 >= args.size()) throw new IllegalArgumentException(a + " needs a value");
            try {
                v.put(a, Long.parseLong(args.get(++i)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(a + " must be a whole number (got '" + args.get(i) + "')");
            }
        }
        for (String positive : Arrays.asList("--days", "--nodes", "--jobs-per-day", "--teams", "--plans")) {
            if (v.get(positive) < 1) throw new IllegalArgumentException(positive + " must be at least 1 (got " + v.get(positive) + ")");
        }
        if (v.get("--warmup") < 0) throw new IllegalArgumentException("--warmup must be 0 or more (got " + v.get("--warmup") + ")");
        if (v.get("--jobs-per-day") > 1_000_000) throw new IllegalArgumentException("--jobs-per-day must be at most 1000000 (got " + v.get("--jobs-per-day") + ")");
        return new Options(Math.toIntExact(v.get("--days")), Math.toIntExact(v.get("--nodes")), Math.toIntExact(v.get("--jobs-per-day")),
                Math.toIntExact(v.get("--teams")),
                Math.toIntExact(v.get("--plans")), Math.toIntExact(v.get("--warmup")), v.get("--seed"), keep);
    }
}
