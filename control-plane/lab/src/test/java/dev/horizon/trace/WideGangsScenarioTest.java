package dev.horizon.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimJob;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** wide-gangs is built as the issue describes it, and the same seed builds the same scenario. */
class WideGangsScenarioTest {
    private static Scenario build(long seed, int days) throws Exception {
        return Scenarios.build("wide-gangs", new ScenarioOptions(seed, null, days, 1.5, WideGangsScenario.DEFAULT_RT_PEAK_SHARE, 0, null));
    }

    @Test
    void clusterOfTwoModelsInNvlinkDomainsOfFourNodes() throws Exception {
        Scenario s = build(1, 1);
        assertEquals(128, s.cluster().totalGpus());
        assertEquals(16, s.cluster().nodes().size());
        Map<String, Long> models = s.cluster().nodes().stream().collect(Collectors.groupingBy(GpuNode::gpuModel, Collectors.counting()));
        assertEquals(Map.of("H100-80GB", 8L, "A100-80GB", 8L), models);
        Map<String, java.util.Set<String>> domains = new TreeMap<>();
        s.cluster().nodes().forEach(n -> domains.computeIfAbsent(n.nvlinkDomain(), k -> new java.util.TreeSet<>()).add(n.gpuModel()));
        assertEquals(4, domains.size());
        domains.values().forEach(m -> assertEquals(1, m.size(), "a domain holds one model"));
        double peak = 0;
        for (double d : s.services().get(0).windowMinutes()) peak = Math.max(peak, d);
        for (double d : s.services().get(0).historyMinutes()) peak = Math.max(peak, d);
        assertEquals(0.3 * 128, peak, 1e-6, "the inference curve peaks at 30% of the GPUs");
    }

    @Test
    void jobsAreWideGangsWithContractsAndModelsAsAsked() throws Exception {
        Scenario s = build(2, 2);
        int n = s.jobs().size();
        Map<Integer, Long> widths = s.jobs().stream().collect(Collectors.groupingBy(SimJob::gpus, TreeMap::new, Collectors.counting()));
        assertEquals(java.util.Set.of(1, 2, 4, 8, 16, 32, 64), widths.keySet());
        assertTrue(widths.get(1) > widths.get(64) * 3, widths.toString());
        long restricted = s.jobs().stream().filter(j -> !j.rules().gpuTypes().isEmpty()).count();
        assertTrue(restricted > n / 5 && restricted < n / 2, restricted + " of " + n + " restricted to one model");
        for (SimJob j : s.jobs()) {
            assertEquals(j.gpus() >= 2, j.rules().gang(), j.id());
            assertTrue(j.contract().minRuntimeSeconds() >= 1800 && j.contract().minRuntimeSeconds() <= 7200, j.id());
            assertTrue(!j.contract().resumable() || (j.contract().checkpointCostSeconds() >= 120 && j.contract().checkpointCostSeconds() <= 600), j.id());
            if (j.gpus() > 8) assertEquals(8, j.rules().gpusPerReplica(), "pods of 8 GPUs");
            if (j.gpus() == 16 || j.gpus() == 32) assertEquals(PlacementRules.Topology.SAME_NVLINK_DOMAIN, j.rules().topology());
        }
        assertEquals(s.jobs(), build(2, 2).jobs(), "seeded");
    }

    @Test
    void theDayBeforeIsDrawnAtTheWindowsRateApartFromIt() throws Exception {
        Scenario s = build(3, 2);
        // by load, not count: one 64-GPU job of a day is a third of a day's work
        double perDay = s.jobs().stream().mapToDouble(j -> Scenarios.loadOf(j, s.windowSeconds())).sum() / 2;
        double dayBefore = s.priorArrivals().stream().mapToDouble(j -> Scenarios.loadOf(j.arrivingAt(j.arrivalSeconds() + 86_400), 86_400)).sum();
        assertEquals(perDay, dayBefore, 0.35 * perDay, "the day before carries the window's load per day");
        for (SimJob j : s.priorArrivals()) assertTrue(j.arrivalSeconds() >= -86_400 && j.arrivalSeconds() < 0, j.id() + " at " + j.arrivalSeconds());
        assertEquals(s.priorArrivals().size(), s.description().get("priorArrivals"));
        java.util.Set<String> ids = s.jobs().stream().map(SimJob::id).collect(Collectors.toSet());
        assertTrue(s.priorArrivals().stream().noneMatch(j -> ids.contains(j.id())), "the day before's jobs are not the window's");
    }
}
