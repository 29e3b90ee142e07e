package dev.horizon.api.scheduler;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The control plane's inference services as a test sets them: two nodes of eight GPUs (a0..a7 on node-a, b0..b7 on
 * node-b), no work on them; forecasts, NVLink domains and the nodes held for a wide job as the test puts them. Adapters'
 * tests use it from the test-jar.
 */
public final class FakeInferenceServices implements InferenceServices {
    public final Map<String, String> teams = new LinkedHashMap<>();
    public final Map<String, Double> forecast = new LinkedHashMap<>();
    public final Map<String, List<String>> held = new LinkedHashMap<>();
    /** Each node's NVLink domain. */
    public Map<String, String> domains = Map.of();
    /** The nodes the plan holds for a waiting wide job ({@code /api/v1/plan}'s {@code nodesHeldForWideJob}). */
    public Set<String> heldForWideJob = Set.of();
    /** Answers a declaration as a control plane without the team does. */
    public boolean refuse;

    @Override
    public Optional<Service> service(String name) {
        return teams.containsKey(name) ? Optional.of(new Service(name, forecast.getOrDefault(name, 0.0), held.getOrDefault(name, List.of())))
                : Optional.empty();
    }

    @Override
    public List<Service> services() {
        return teams.keySet().stream().map(n -> service(n).orElseThrow()).toList();
    }

    @Override
    public void declare(String name, String team, double weightPerGpuHour, int swapCapGpus) {
        if (refuse) throw new SchedulerException("POST /api/v1/inference-services answered 422: team: no team '" + team + "'", null);
        teams.put(name, team);
    }

    @Override
    public void remove(String name) {
        teams.remove(name);
        held.remove(name);
    }

    @Override
    public void hold(String name, List<String> gpuUuids) {
        held.put(name, List.copyOf(gpuUuids));
    }

    @Override
    public ClusterGpus gpus() {
        List<Gpu> gpus = new ArrayList<>();
        for (String node : List.of("a", "b")) for (int i = 0; i < 8; i++) gpus.add(new Gpu("node-" + node, i, node + i));
        return new ClusterGpus(gpus, List.of(), domains, heldForWideJob);
    }
}
