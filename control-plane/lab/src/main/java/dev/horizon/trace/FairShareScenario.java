package dev.horizon.trace;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The `fairshare` bench scenario, after Ai2's cluster: teams with budgets in a three-level tree (org
 * -> program -> team), demand 2-3x capacity arriving in seasons (a team is busy some half-days and
 * quiet others), large distributed training, debug, interactive and fill work, and users who set
 * priorities as they like.
 */
public final class FairShareScenario {
    private static final String[] PROGRAMS = {"language", "vision", "science", "platform"};
    private static final double[] PROGRAM_SHARES = {0.35, 0.30, 0.20, 0.15};
    private static final long SEASON_SECONDS = 12 * 3600;

    private FairShareScenario() {
    }

    public static Scenario build(ScenarioOptions o) throws IOException {
        // Ai2's teams own tens to hundreds of GPUs each; 256 keeps a team's share wider than most jobs
        int gpus = o.gpus() != null ? o.gpus() : 256;
        int days = o.days() != null ? o.days() : 3;
        long step = ScenarioOptions.STEP_SECONDS;
        int windowSteps = (int) (days * 86_400 / step);
        long window = windowSteps * step;
        Random rng = new Random(o.seed());
        BudgetTree tree = o.budgets() != null ? readBudgets(o.budgets()) : tree(o.teams() != null ? o.teams() : 16, rng);
        List<String> teams = tree.teams();
        // each team is busy in some half-day seasons and quiet in the others
        int seasons = (int) ((window + SEASON_SECONDS - 1) / SEASON_SECONDS);
        Map<String, boolean[]> busy = new LinkedHashMap<>();
        for (String t : teams) {
            boolean[] b = new boolean[seasons];
            for (int s = 0; s < seasons; s++) b[s] = rng.nextDouble() < 0.6;
            busy.put(t, b);
        }
        double target = o.load() * gpus * (double) window;
        List<SimJob> jobs = new ArrayList<>();
        double drawn = 0;
        for (int i = 0; drawn < target && i < 100_000; i++) {
            String team = teams.get(rng.nextInt(teams.size()));
            long arrival = (long) (rng.nextDouble() * window);
            boolean inSeason = busy.get(team)[(int) (arrival / SEASON_SECONDS)];
            if (!inSeason && rng.nextDouble() < 0.8) continue; // quiet seasons bring a fifth of the work
            SimJob j = job("fs-" + i, team, arrival, gpus, rng);
            jobs.add(j);
            drawn += (double) j.gpus() * Math.min(j.trueDurationSeconds(), window - arrival);
        }
        jobs.sort(Comparator.comparingLong(SimJob::arrivalSeconds).thenComparing(SimJob::id));
        List<SimJob> history = new ArrayList<>();
        for (int i = 0; i < 600; i++) history.add(job("hist-" + i, teams.get(rng.nextInt(teams.size())), 0, gpus, rng));
        Map<String, Object> info = o.describe("fairshare", "generated (seeded): budget tree org -> program -> team, seasonal demand", gpus, days);
        info.put("teams", teams.size());
        info.put("jobs", jobs.size());
        return new Scenario("fairshare", Cluster.homogeneous(gpus, 8, "H100-80GB", 81_559), step, windowSteps,
                ScenarioOptions.HORIZON_STEPS, jobs, List.of(), history, info, tree);
    }

    private static BudgetTree readBudgets(Path file) throws IOException {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("--budgets: no such file " + file);
        try (var reader = Files.newBufferedReader(file)) {
            return BudgetTree.read(reader, file.toString());
        }
    }

    /** org -> four programs -> n teams shared out round-robin, with uneven team shares inside each program. */
    static BudgetTree tree(int n, Random rng) {
        List<BudgetTree.Budget> budgets = new ArrayList<>();
        budgets.add(new BudgetTree.Budget("ai", null, 1.0));
        for (int p = 0; p < PROGRAMS.length; p++) budgets.add(new BudgetTree.Budget(PROGRAMS[p], "ai", PROGRAM_SHARES[p]));
        Map<String, List<String>> members = new LinkedHashMap<>();
        for (int t = 0; t < n; t++) members.computeIfAbsent(PROGRAMS[t % PROGRAMS.length], k -> new ArrayList<>()).add("team-" + (t + 1));
        members.forEach((program, names) -> {
            double[] raw = new double[names.size()];
            double sum = 0;
            for (int i = 0; i < raw.length; i++) sum += raw[i] = 0.5 + rng.nextDouble();
            for (int i = 0; i < raw.length; i++) budgets.add(new BudgetTree.Budget(names.get(i), program, raw[i] / sum * 0.999));
        });
        return new BudgetTree(budgets);
    }

    private static SimJob job(String id, String team, long arrival, int clusterGpus, Random rng) {
        double u = rng.nextDouble();
        JobClass cls;
        int gpus;
        double median;
        if (u < 0.08) {
            cls = JobClass.TRAINING;
            gpus = Math.min(clusterGpus / 2, rng.nextBoolean() ? 16 : 32);
            median = 4 * 3600;
        } else if (u < 0.45) {
            cls = JobClass.TRAINING;
            gpus = new int[] {1, 2, 4, 8}[rng.nextInt(4)];
            median = 2 * 3600;
        } else if (u < 0.70) {
            cls = JobClass.DEBUG;
            gpus = 1 + rng.nextInt(2);
            median = 480;
        } else if (u < 0.80) {
            cls = JobClass.INTERACTIVE;
            gpus = 1;
            median = 3600;
        } else {
            cls = JobClass.BATCH_INFERENCE;
            gpus = 1 + rng.nextInt(4);
            median = 2 * 3600;
        }
        gpus = Math.max(1, Math.min(gpus, clusterGpus));
        long max = cls == JobClass.DEBUG ? 900 : 12 * 3600;
        long duration = Math.max(120, Math.min(max, Math.round(median * Math.exp(0.6 * rng.nextGaussian()))));
        double priority = 1 + rng.nextInt(3);
        return new SimJob(id, team, cls, priority, gpus, gpus, arrival, duration, null, Contract.defaultFor(cls));
    }
}
