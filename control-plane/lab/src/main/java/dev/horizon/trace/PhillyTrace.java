package dev.horizon.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** Reads the Philly job log as flattened by Pollux: timestamp,duration,num_gpus,gpu_time,cluster. */
public final class PhillyTrace {
    public record Row(LocalDateTime submitted, long durationSeconds, int gpus, String virtualCluster) {
    }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private PhillyTrace() {
    }

    public static List<Row> read(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file)) {
            String header = in.readLine();
            if (header == null || !header.startsWith("timestamp,duration,num_gpus")) {
                throw new IOException(file + " is not the Philly job log: expected the header timestamp,duration,num_gpus,gpu_time,cluster");
            }
            String line;
            int lineNo = 1;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) continue;
                String[] f = line.split(",");
                if (f.length < 5) throw new IOException(file + " line " + lineNo + ": expected 5 columns, found " + f.length);
                try {
                    rows.add(new Row(LocalDateTime.parse(f[0], TIME), Math.round(Double.parseDouble(f[1])), Integer.parseInt(f[2]), f[4]));
                } catch (RuntimeException e) {
                    throw new IOException(file + " line " + lineNo + ": " + e.getMessage());
                }
            }
        }
        return rows;
    }
}
