package dev.horizon.demo;

import dev.horizon.api.JobClass;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's jobs as processes on the simulated driver, so the agents' telemetry (GET /api/v1/nodes, the DCGM metrics)
 * shows busy GPUs as busy: each GPU a run holds gets a process whose SM load and memory follow the job's class, with
 * noise; a run that ends takes its processes with it. Commands go into each node's simulated-driver state file under
 * the driver's own lock (nvml-bindings/README.md), as a person or a test appends them. A line the driver refuses
 * would stop every NVML call of that node, so only what surely fits is written: memory within the GPU or share the
 * plan gave, exits only of processes written here. MIG instances are left idle (a process there needs the instance's
 * ids, which only the agent knows).
 */
final class SimulatedWork {
    private static final Pattern PART = Pattern.compile("(.+)\\[(\\d+)-(\\d+)(?::([^\\]]+))?\\]");
    private static final Pattern SHARE = Pattern.compile("(\\d+)m/(\\d+)MiB");
    /** The most of a GPU's (or share's) memory a process takes: the driver keeps some for itself. */
    private static final double MOST_MEMORY = 0.85;

    /** A class's typical SM load (percent) and share of its GPU's memory. */
    record Load(int sm, double memory) {
    }

    private static final Map<JobClass, Load> LOADS = Map.of(JobClass.TRAINING, new Load(90, 0.80), JobClass.BATCH_INFERENCE, new Load(70, 0.60),
            JobClass.QUANTIZATION, new Load(60, 0.50), JobClass.REALTIME_INFERENCE, new Load(55, 0.65), JobClass.DEBUG, new Load(20, 0.25),
            JobClass.INTERACTIVE, new Load(15, 0.20));

    /** One simulated process: where it runs and its pid. */
    private record Process(String node, int pid) {
    }

    private final Map<String, Path> stateByNode;
    private final Map<String, Long> memoryByNode;
    private final Random rng;
    private final Map<String, List<Process>> byJob = new HashMap<>();
    private final Map<String, List<String>> pending = new LinkedHashMap<>();
    private int nextPid = 40_000;

    /** stateByNode: each node's simulated-driver state file; memoryByNode: its GPUs' memory (MiB). */
    SimulatedWork(Map<String, Path> stateByNode, Map<String, Long> memoryByNode, long seed) {
        this.stateByNode = stateByNode;
        this.memoryByNode = memoryByNode;
        this.rng = new Random(seed);
    }

    /** The processes of a run that began on placement ("node-1[0-3]", "node-1[2-2:500m/20000MiB]", parts joined by '+'). */
    void started(String jobId, String name, JobClass jobClass, String placement) {
        if (placement == null || byJob.containsKey(jobId)) return;
        Load load = LOADS.getOrDefault(jobClass, new Load(50, 0.5));
        List<Process> mine = new ArrayList<>();
        for (String part : placement.split("\\+")) {
            Matcher m = PART.matcher(part);
            if (!m.matches() || !stateByNode.containsKey(m.group(1))) continue;
            String node = m.group(1);
            for (int g = Integer.parseInt(m.group(2)); g <= Integer.parseInt(m.group(3)); g++) {
                String line = processLine(node, g, m.group(4), load, name);
                if (line == null) continue;
                mine.add(new Process(node, nextPid));
                pending.computeIfAbsent(node, k -> new ArrayList<>()).add(line);
                nextPid++;
            }
        }
        byJob.put(jobId, mine);
    }

    /** A process line for GPU g of node, whole or a time-slicing share; null for a MIG instance. */
    private String processLine(String node, int g, String slice, Load load, String name) {
        double sm = load.sm() + rng.nextGaussian() * 6;
        double memoryMiB = memoryByNode.get(node) * Math.min(MOST_MEMORY, load.memory() + rng.nextGaussian() * 0.05);
        if (slice != null) {
            Matcher share = SHARE.matcher(slice);
            if (!share.matches()) return null;
            sm *= Integer.parseInt(share.group(1)) / 1000.0;
            memoryMiB = Long.parseLong(share.group(2)) * Math.min(MOST_MEMORY, 0.5 + load.memory() / 2);
        }
        long mem = Math.max(64, Math.round(memoryMiB));
        int smPercent = (int) Math.max(1, Math.min(100, Math.round(sm)));
        return "process gpu=" + g + " pid=" + nextPid + " mem=" + mem + " sm=" + smPercent + " name=" + name.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /** A run that ended (finished, preempted, evicted): its processes exit, or are never written if they were not yet. */
    void stopped(String jobId) {
        List<Process> mine = byJob.remove(jobId);
        if (mine == null) return;
        for (Process p : mine) {
            List<String> lines = pending.computeIfAbsent(p.node(), k -> new ArrayList<>());
            // an exit of a pid the driver never saw would stop every NVML call of the node
            if (!lines.removeIf(l -> l.contains(" pid=" + p.pid() + " "))) lines.add(0, "process-exit pid=" + p.pid());
        }
    }

    /** Writes what changed since the last flush, exits before starts, one locked append per node. */
    void flush() throws IOException, InterruptedException {
        for (Map.Entry<String, List<String>> e : pending.entrySet()) {
            if (e.getValue().isEmpty()) continue;
            Path state = stateByNode.get(e.getKey());
            java.lang.Process p = new ProcessBuilder("flock", state + ".lock", "sh", "-c", "cat >> \"$0\"", state.toString())
                    .redirectErrorStream(true).start();
            try (OutputStream in = p.getOutputStream()) {
                in.write((String.join("\n", e.getValue()) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) throw new IOException("appending to " + state + " failed: " + out);
            e.getValue().clear();
        }
    }
}
