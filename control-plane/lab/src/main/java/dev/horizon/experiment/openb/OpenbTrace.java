package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the openb CSVs of the Alibaba GPU trace (cluster-trace-gpu-v2023). Columns are found by header name, so the
 * reduced multigpu lists (no gpu_spec) read too; every error names the file and line.
 */
public final class OpenbTrace {
    private OpenbTrace() {
    }

    public static List<OpenbNode> readNodes(Path file) throws IOException {
        List<OpenbNode> nodes = new ArrayList<>();
        try (Rows rows = new Rows(file, "sn", "cpu_milli", "memory_mib", "gpu", "model")) {
            while (rows.next()) {
                nodes.add(new OpenbNode(rows.text("sn"), rows.integer("cpu_milli"), rows.integer("memory_mib"), rows.integer("gpu"),
                        rows.text("model")));
            }
        }
        if (nodes.stream().noneMatch(n -> n.gpus() > 0)) throw new IllegalArgumentException(file + ": no node has a GPU");
        return nodes;
    }

    public static List<WorkloadTask> readPods(Path file) throws IOException {
        List<WorkloadTask> pods = new ArrayList<>();
        try (Rows rows = new Rows(file, "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")) {
            while (rows.next()) {
                int numGpu = rows.integer("num_gpu");
                int gpuMilli = rows.integer("gpu_milli");
                if (numGpu > 1 && gpuMilli != WorkloadTask.MILLI) rows.fail("a task with " + numGpu + " GPUs must ask for 1000 milli each (got " + gpuMilli + ")");
                if (gpuMilli < 0 || gpuMilli > WorkloadTask.MILLI) rows.fail("gpu_milli must be between 0 and 1000 (got " + gpuMilli + ")");
                String spec = rows.optional("gpu_spec");
                Set<String> types = spec.isBlank() ? Set.of() : new LinkedHashSet<>(Arrays.asList(spec.split("\\|")));
                pods.add(new WorkloadTask(rows.text("name"), rows.integer("cpu_milli"), rows.integer("memory_mib"), numGpu,
                        numGpu == 0 ? 0 : gpuMilli, Set.copyOf(types)));
            }
        }
        return pods;
    }

    /** A header-addressed CSV cursor whose errors say "file:line: what is wrong". */
    private static final class Rows implements AutoCloseable {
        private final Path file;
        private final BufferedReader in;
        private final List<String> header;
        private String[] cells;
        private int line = 1;

        Rows(Path file, String... required) throws IOException {
            this.file = file;
            if (!Files.isRegularFile(file)) throw new IllegalArgumentException(file + ": no such file");
            this.in = Files.newBufferedReader(file);
            String first = in.readLine();
            if (first == null) throw new IllegalArgumentException(file + ": empty file");
            this.header = Arrays.asList(first.trim().split(",", -1));
            for (String r : required) {
                if (!header.contains(r)) throw new IllegalArgumentException(file + ":1: header lacks column '" + r + "' (got " + first.trim() + ")");
            }
        }

        boolean next() throws IOException {
            String s;
            do {
                s = in.readLine();
                line++;
                if (s == null) return false;
            } while (s.isBlank());
            cells = s.trim().split(",", -1);
            if (cells.length != header.size()) fail("expected " + header.size() + " columns, got " + cells.length);
            return true;
        }

        String text(String column) {
            return cells[header.indexOf(column)];
        }

        String optional(String column) {
            int i = header.indexOf(column);
            return i < 0 ? "" : cells[i];
        }

        int integer(String column) {
            String v = text(column);
            try {
                return Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw fail(column + " must be a whole number (got '" + v + "')");
            }
        }

        IllegalArgumentException fail(String why) {
            throw new IllegalArgumentException(file + ":" + line + ": " + why);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
