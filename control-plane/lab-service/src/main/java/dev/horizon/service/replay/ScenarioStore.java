package dev.horizon.service.replay;

import dev.horizon.allocator.model.GpuNode;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.nodes.Gpu;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.plans.PlannerSettings;
import dev.horizon.service.teams.Team;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Puts a scenario's standing world into an empty store, through the stores' own write paths: its nodes (declared, as
 * {@code horizon.nodes} declares them, with the scenario's names, models and NVLink domains), its team tree (shares from
 * the budgets; without budgets every team has none, so jobs weigh their priority), its inference services with their
 * demand history, and its history of finished jobs (what the duration estimator learns from before the window).
 */
@ApplicationScoped
public class ScenarioStore {
    @Inject
    ServiceClock clock;
    @Inject
    NodeStore nodes;
    @Inject
    TeamStore teams;
    @Inject
    InferenceStore inference;
    @Inject
    JobStore jobs;
    @Inject
    PlannerSettings settings;

    /** The uuid the replay gives GPU g of a node, as an agent would report it. */
    static String gpuUuid(String node, int g) {
        return "GPU-" + node + "-" + g;
    }

    void load(Scenario s) {
        if (s.migPolicy() != null || !s.startLayouts().isEmpty()) {
            throw new IllegalArgumentException("scenario " + s.name() + " has a MIG policy or MIG layouts: MIG layouts are applied by agents, which a replay does not run;"
                    + " replay it with --engine simulator");
        }
        long aging = s.budgets() == null ? 0 : s.budgets().ageDoublingSeconds();
        if (aging != settings.ageDoublingSeconds()) {
            // the two engines decide alike only under one rule: say how to give the control plane the scenario's
            throw new IllegalArgumentException("scenario " + s.name() + " ages waiting work every " + aging / 3600 + " h (0: never) and this control plane every "
                    + settings.ageDoublingHours() + " h: run the replay with HORIZON_PLANNER_AGE_DOUBLING_HOURS=" + aging / 3600 + " in its environment");
        }
        if (!nodes.all().isEmpty() || !jobs.active().isEmpty()) throw new IllegalStateException("a replay needs an empty store; this one has nodes or jobs");
        for (GpuNode n : s.cluster().nodes()) nodes.upsert(node(n, Node.HEALTHY, null));
        loadTeams(s);
        for (ServiceDemand d : s.services()) {
            inference.insert(d.service());
            if (d.history().length > 0) inference.report(d.service().name(), Arrays.stream(d.history()).boxed().toList(), null);
        }
        List<SimJob> history = s.historyJobs();
        // before the window, oldest first, so the estimator learns them in the scenario's order
        for (int i = 0; i < history.size(); i++) {
            SimJob j = history.get(i);
            jobs.recordFinished(j.id(), j.team(), j.jobClass(), j.gpus(), j.trueDurationSeconds(), i - history.size());
        }
    }

    /** A scenario drain: the node's health turns UNHEALTHY, as its agent's health event would make it. */
    void drain(String name, long t) {
        nodes.find(name).ifPresent(n -> nodes.upsert(node(new GpuNode(n.name(), n.gpuModel(), n.gpus().size(), n.gpuMemoryMiB(), n.nvlinkDomain()),
                Node.UNHEALTHY, "drained by the scenario at " + t + " s")));
    }

    private Node node(GpuNode n, String health, String reason) {
        List<Gpu> gpus = new ArrayList<>();
        for (int g = 0; g < n.gpus(); g++) {
            gpus.add(new Gpu(g, gpuUuid(n.name(), g), n.gpuModel(), n.gpuMemoryMiB(), null, List.of(), Node.HEALTHY, null, null, List.of(), null));
        }
        // a node without an NVLink domain is stored with none named, as an agent that reports none registers
        String domain = n.nvlinkDomain() == null ? "" : n.nvlinkDomain();
        return new Node(n.name(), n.gpuModel(), n.gpuMemoryMiB(), domain, Node.FROM_CONFIG, health, reason, clock.millis(), gpus, false);
    }

    /** Parents before children, as the tree was defined; then every other team a job or service names, with no share. */
    private void loadTeams(Scenario s) {
        Set<String> added = new LinkedHashSet<>();
        BudgetTree tree = s.budgets();
        if (tree != null) addChildren(tree, BudgetTree.ROOT, null, added);
        Set<String> named = new LinkedHashSet<>();
        s.jobs().forEach(j -> named.add(j.team()));
        s.historyJobs().forEach(j -> named.add(j.team()));
        s.services().forEach(d -> named.add(d.service().team()));
        for (String team : named) {
            if (added.add(team)) teams.insert(new Team(team, null, 0));
        }
    }

    private void addChildren(BudgetTree tree, String parent, String parentName, Set<String> added) {
        for (String child : tree.childrenOf(parent)) {
            teams.insert(new Team(child, parentName, tree.shareOf(child)));
            added.add(child);
            addChildren(tree, child, child, added);
        }
    }
}
