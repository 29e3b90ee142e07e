package dev.horizon.experiment.openb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The openb command on a small synthetic cluster: the results.json contract, and errors that name file and line. */
class OpenbBenchCommandTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void writesTheContractForEveryPolicy() throws Exception {
        Path nodes = write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,T4\nn1,96000,393216,8,G2\n");
        Path pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np0,4000,8192,1,500,\np1,8000,16384,1,1000,T4\n"
                + "p2,8000,16384,2,1000,\np3,2000,4096,0,0,\np4,4000,8192,1,250,G2|T4\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = OpenbBenchCommand.run(List.of("--scenario", "openb", "--pods", pods.toString(), "--nodes", nodes.toString(), "--out",
                dir.resolve("out").toString(), "--seed", "3"), new PrintStream(out), new PrintStream(new ByteArrayOutputStream()));
        assertEquals(0, code);
        JsonNode policies = JobJson.mapper().readTree(dir.resolve("out/results.json").toFile()).path("policies");
        for (String name : List.of("horizon", "fgd", "bestfit", "gpupacking", "random")) {
            JsonNode p = policies.path(name);
            for (int pct = 10; pct <= 130; pct += 10) assertTrue(p.path("allocationRatioByArrival").has("" + pct), name + " lacks " + pct);
            double at130 = p.path("unallocatedGpuSharePct").path("130").asDouble(-1);
            assertEquals(100 - p.path("allocationRatioByArrival").path("130").asDouble(), at130, 0.011, name);
            assertTrue(at130 >= 0 && at130 <= 100, name + ": " + at130);
        }
        assertTrue(out.toString().contains("fgd"), out.toString());
    }

    @Test
    void aBadRowNamesFileAndLine() throws Exception {
        Path pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,4000,8192,1,500\np1,lots,8192,1,500\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OpenbTrace.readPods(pods));
        assertTrue(e.getMessage().contains("pods.csv:3: cpu_milli must be a whole number (got 'lots')"), e.getMessage());
        Path nodes = write("nodes.csv", "sn,cpu_milli,gpu,model\nn0,64000,2,T4\n");
        e = assertThrows(IllegalArgumentException.class, () -> OpenbTrace.readNodes(nodes));
        assertTrue(e.getMessage().contains("nodes.csv:1: header lacks column 'memory_mib'"), e.getMessage());
    }

    @Test
    void anUnknownOptionOrPolicyIsAUsageError() {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OpenbBenchCommand.run(List.of("--scenario", "openb", "--podz", "x"), quiet, quiet));
        assertTrue(e.getMessage().contains("unknown option '--podz'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> OpenbBenchCommand.run(List.of("--pods", "a", "--nodes", "b", "--out", "c",
                "--policies", "fgd,tetris"), quiet, quiet));
        assertTrue(e.getMessage().contains("unknown policy 'tetris'"), e.getMessage());
    }
}
