package dev.horizon.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobClass;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's runs as processes in the simulated driver's state: load by class, memory within the GPU or share, exits. */
class SimulatedWorkTest {
    private static final Pattern PROCESS = Pattern.compile("process gpu=(\\d+) pid=(\\d+) mem=(\\d+) sm=(\\d+) name=(\\S+)");

    @Test
    void eachGpuOfARunGetsAProcessByItsClassAndTheRunsEndTakesThemAway(@TempDir Path dir) throws Exception {
        Path h100 = dir.resolve("node-h100.gpus.state");
        Path a100 = dir.resolve("node-a100.gpus.state");
        Files.writeString(h100, "gpus 8xH100-80GB\n");
        Files.writeString(a100, "gpus 8xA100-80GB\n");
        SimulatedWork work = new SimulatedWork(Map.of("node-h100", h100, "node-a100", a100), Map.of("node-h100", 81_559L, "node-a100", 81_920L), 7);
        work.started("t", "train 1", JobClass.TRAINING, "node-h100[0-1]+node-a100[0-0]");
        work.started("d", "debug-3", JobClass.DEBUG, "node-a100[2-2:250m/10000MiB]");
        work.started("m", "quant", JobClass.QUANTIZATION, "node-a100[6-6:3g.40gb@0]");
        work.flush();
        List<Matcher> onH100 = processes(h100);
        assertEquals(2, onH100.size(), "one process per GPU the run holds: " + Files.readString(h100));
        for (Matcher m : onH100) {
            assertTrue(Integer.parseInt(m.group(4)) >= 60, "training keeps its GPU busy: " + m.group());
            assertTrue(Long.parseLong(m.group(3)) > 40_000 && Long.parseLong(m.group(3)) <= 81_559 * 0.85, "most of its memory: " + m.group());
            assertEquals("train_1", m.group(5));
        }
        List<Matcher> onA100 = processes(a100);
        assertEquals(2, onA100.size(), "the whole GPU and the share; the MIG instance stays idle: " + Files.readString(a100));
        Matcher share = onA100.get(1);
        assertEquals("2", share.group(1));
        assertTrue(Integer.parseInt(share.group(4)) <= 15 && Long.parseLong(share.group(3)) <= 8_500, "a quarter GPU's load within its share's memory: " + share.group());

        work.stopped("t");
        work.stopped("never-started");
        work.flush();
        String text = Files.readString(h100);
        assertTrue(text.contains("process-exit pid=" + onH100.get(0).group(2)) && text.contains("process-exit pid=" + onH100.get(1).group(2)), text);
        assertTrue(Files.readString(a100).contains("process-exit pid=" + onA100.get(0).group(2)));
        assertTrue(!Files.readString(a100).contains("process-exit pid=" + share.group(2)), "the share's run goes on");
    }

    @Test
    void aRunThatEndsBeforeItsProcessesWereWrittenLeavesNothing(@TempDir Path dir) throws Exception {
        Path h100 = dir.resolve("node-h100.gpus.state");
        Files.writeString(h100, "gpus 8xH100-80GB\n");
        SimulatedWork work = new SimulatedWork(Map.of("node-h100", h100), Map.of("node-h100", 81_559L), 7);
        work.started("short", "short", JobClass.DEBUG, "node-h100[3-3]");
        work.stopped("short");
        work.flush();
        assertEquals("gpus 8xH100-80GB\n", Files.readString(h100), "no exit of a pid the driver never saw");
    }

    private static List<Matcher> processes(Path state) throws Exception {
        return Files.readAllLines(state).stream().map(PROCESS::matcher).filter(Matcher::matches).toList();
    }
}
