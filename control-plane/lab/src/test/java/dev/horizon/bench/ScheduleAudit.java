package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a bench's output as an outsider would and checks it: results.json's utilization and output
 * recomputed from schedule.csv and rt.csv within 1% (output less what preemptions lost), no GPU
 * given twice at any instant, no node over its GPUs, batch plus inference never above the cluster, no start before
 * arrival, no inference minute serving more than it held or than came, and every policy's own audit clean.
 */
final class ScheduleAudit {
    private ScheduleAudit() {
    }

    static JsonNode check(Path dir, int gpusPerNode, double inferenceWeight) throws IOException {
        JsonNode results = JobJson.mapper().readTree(dir.resolve("results.json").toFile());
        int totalGpus = results.path("scenario").path("gpus").asInt();
        long window = results.path("scenario").path("days").asLong() * 86_400;
        Map<String, double[]> busy = new HashMap<>(), output = new HashMap<>();
        Map<String, List<long[]>> intervalsPerGpu = new HashMap<>();
        Map<String, TreeMap<Long, Integer>> clusterDelta = new HashMap<>();
        double[] maxWeight = {0};
        List<String> lines = Files.readAllLines(dir.resolve("schedule.csv"));
        assertEquals("policy,job,class,team,weight,arrival_s,start_s,end_s,gpus,node", lines.get(0));
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            if (f[6].isEmpty()) continue;
            String policy = f[0];
            long arrival = Long.parseLong(f[5]), start = Long.parseLong(f[6]), end = Long.parseLong(f[7]);
            int gpus = Integer.parseInt(f[8]);
            assertTrue(start >= arrival, policy + " started " + f[1] + " before it arrived");
            assertTrue(end >= start && end <= window, policy + " segment of " + f[1] + " outside the window");
            busy.computeIfAbsent(policy, k -> new double[1])[0] += (double) gpus * (end - start);
            output.computeIfAbsent(policy, k -> new double[1])[0] += Double.parseDouble(f[4]) * gpus * (end - start) / 3600.0;
            maxWeight[0] = Math.max(maxWeight[0], Double.parseDouble(f[4]));
            int counted = 0;
            for (String slice : f[9].split("\\+")) {
                String node = slice.substring(0, slice.indexOf('['));
                String[] range = slice.substring(slice.indexOf('[') + 1, slice.length() - 1).split("-");
                for (int g = Integer.parseInt(range[0]); g <= Integer.parseInt(range[1]); g++) {
                    assertTrue(g < gpusPerNode, policy + ": " + node + " has no GPU " + g);
                    intervalsPerGpu.computeIfAbsent(policy + "/" + node + "/" + g, k -> new ArrayList<>()).add(new long[] {start, end});
                    counted++;
                }
            }
            assertEquals(gpus, counted, "node column of " + f[1] + " names " + counted + " GPUs, not " + gpus);
            if (end > start) {
                clusterDelta.computeIfAbsent(policy, k -> new TreeMap<>()).merge(start, gpus, Integer::sum);
                clusterDelta.get(policy).merge(end, -gpus, Integer::sum);
            }
        }
        intervalsPerGpu.forEach((gpu, intervals) -> {
            intervals.sort((a, b) -> Long.compare(a[0], b[0]));
            for (int i = 1; i < intervals.size(); i++) {
                assertTrue(intervals.get(i)[0] >= intervals.get(i - 1)[1], "GPU " + gpu + " given twice at t=" + intervals.get(i)[0]);
            }
        });
        Map<String, TreeMap<Long, Integer>> inferenceAt = new HashMap<>();
        List<String> rt = Files.readAllLines(dir.resolve("rt.csv"));
        assertEquals("policy,service,minute_start_s,demand_gpus,held_gpus,serving_gpus,served_gpu_s", rt.get(0));
        for (String line : rt.subList(1, rt.size())) {
            String[] f = line.split(",");
            double demand = Double.parseDouble(f[3]);
            int held = Integer.parseInt(f[4]), serving = Integer.parseInt(f[5]);
            double served = Double.parseDouble(f[6]);
            assertTrue(serving <= held && served <= Math.min(demand, held) * 60 + 0.01, f[0] + " serves more than it holds or than came: " + line);
            busy.computeIfAbsent(f[0], k -> new double[1])[0] += served;
            output.computeIfAbsent(f[0], k -> new double[1])[0] += inferenceWeight * served / 3600;
            inferenceAt.computeIfAbsent(f[0], k -> new TreeMap<>()).merge(Long.parseLong(f[2]), held, Integer::sum);
        }
        clusterDelta.forEach((policy, deltas) -> {
            int batch = 0;
            for (Map.Entry<Long, Integer> e : deltas.entrySet()) {
                batch += e.getValue();
                Map.Entry<Long, Integer> step = inferenceAt.getOrDefault(policy, new TreeMap<>()).floorEntry(e.getKey());
                int inference = step == null ? 0 : step.getValue();
                assertTrue(batch + inference <= totalGpus, policy + " uses " + (batch + inference) + " GPUs at t=" + e.getKey());
            }
        });
        results.path("policies").fields().forEachRemaining(e -> {
            assertEquals(0, e.getValue().path("audit").path("violations").asInt(-1), e.getKey() + " audit: " + e.getValue().path("audit"));
            double u = busy.getOrDefault(e.getKey(), new double[1])[0] / (totalGpus * (double) window);
            double o = output.getOrDefault(e.getKey(), new double[1])[0];
            // the CSVs cannot tell work lost to a preemption from work kept: their utilization and
            // output may exceed results.json's by at most the lost GPU-hours (at the heaviest weight)
            double lost = e.getValue().path("lostGpuHours").asDouble();
            double reportedU = e.getValue().path("utilization").asDouble();
            double lostShare = lost * 3600 / (totalGpus * (double) window);
            assertTrue(u >= reportedU * 0.99 - 1e-9 && u <= reportedU * 1.01 + lostShare + 1e-9,
                    e.getKey() + " utilization from the CSVs " + u + " vs " + reportedU + " (lost " + lostShare + ")");
            double reported = e.getValue().path("priorityWeightedOutput").asDouble();
            double lostAllowance = maxWeight[0] * lost;
            assertTrue(o >= reported * 0.99 - 1e-9 && o <= reported * 1.01 + lostAllowance + 1e-9,
                    e.getKey() + " output from the CSVs " + o + " vs " + reported + " (lost allowance " + lostAllowance + ")");
        });
        return results;
    }
}
