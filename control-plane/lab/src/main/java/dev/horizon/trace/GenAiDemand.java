package dev.horizon.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Turns the Alibaba GenAI (Stable Diffusion / LoRA) request trace into a demand curve: each request
 * holds one GPU for its execution time, so a step's demand is the GPU-seconds of requests running in
 * it divided by the step's length. Steps start at midnight of the trace's first day.
 */
public final class GenAiDemand {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private GenAiDemand() {
    }

    public static double[] perStep(Path file, long stepSeconds) throws IOException {
        LocalDateTime origin = null;
        double[] busy = new double[4096];
        int steps = 0;
        try (BufferedReader in = Files.newBufferedReader(file)) {
            String header = in.readLine();
            if (header == null || !header.startsWith("gmt_create,")) {
                throw new IOException(file + " is not the GenAI request trace: expected a header starting gmt_create,");
            }
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split(",", -1);
                if (f.length < 4 || f[3].isEmpty()) continue; // requests without an execution time used no GPU
                LocalDateTime t = LocalDateTime.parse(f[0], TIME);
                if (origin == null) origin = t.toLocalDate().atStartOfDay();
                double start = Duration.between(origin, t).getSeconds();
                double end = start + Double.parseDouble(f[3]);
                for (double a = start; a < end; ) {
                    int k = (int) (a / stepSeconds);
                    double b = Math.min(end, (k + 1) * (double) stepSeconds);
                    if (k >= busy.length) busy = java.util.Arrays.copyOf(busy, Math.max(busy.length * 2, k + 1));
                    busy[k] += (b - a) / stepSeconds;
                    steps = Math.max(steps, k + 1);
                    a = b;
                }
            }
        }
        return java.util.Arrays.copyOf(busy, steps);
    }
}
