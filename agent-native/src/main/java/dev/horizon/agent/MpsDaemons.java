package dev.horizon.agent;

import dev.horizon.agent.v1.SetSharing;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Sharing on bare metal, where no device plugin hands out replicas: one CUDA MPS control daemon per shared GPU
 * ({@code nvidia-cuda-mps-control -d} with CUDA_VISIBLE_DEVICES set to that GPU and a pipe directory of its own), told
 * the per-client limits through its stdin. MPS is used for time-slicing requests too, because it is the only bare-metal
 * mechanism that caps a client's memory: a time-sliced GPU's clients each get 100/replicas % of the SMs and
 * 1/replicas of the memory, which is the share the memory guard checks. The limits are defaults, so they bind the
 * clients that connect after they are set; clients already running keep what they started with.
 * <p>
 * Clients of a GPU must use its pipe directory: CUDA_MPS_PIPE_DIRECTORY={@link #pipeDirectory(String)}.
 */
final class MpsDaemons {
    private static final long WAIT_SECONDS = 10;

    private final String command;
    private final Path directory;

    /** command: nvidia-cuda-mps-control, a name on PATH or a path; directory: where each GPU's pipe and log directories go. */
    MpsDaemons(String command, Path directory) {
        this.command = command;
        this.directory = directory.toAbsolutePath();
    }

    /** Starts the GPU's daemon unless it answers already, then sets the share's per-client limits. */
    void apply(String gpuUuid, Sharing.Share share) {
        if (!running(gpuUuid)) {
            try {
                Files.createDirectories(pipeDirectory(gpuUuid));
                Files.createDirectories(logDirectory(gpuUuid));
            } catch (IOException e) {
                throw new CommandFailure("cannot create the MPS directories under " + directory + ": " + e
                        + "; set horizon.agent.state-dir to a writable directory");
            }
            run(gpuUuid, List.of("-d"), "");
        }
        int threads = share.mode() == SetSharing.Mode.MPS ? share.activeThreadPercentage() : Math.max(1, 100 / share.replicas());
        // device 0: the daemon sees only this GPU (CUDA_VISIBLE_DEVICES)
        run(gpuUuid, List.of(), "set_default_active_thread_percentage " + threads + "\nset_default_device_pinned_mem_limit 0 " + share.allowedMiB()
                + "M\n");
    }

    /** Stops the GPU's daemon, if one runs: the GPU is no longer shared. */
    void stop(String gpuUuid) {
        if (running(gpuUuid)) run(gpuUuid, List.of(), "quit\n");
    }

    Path pipeDirectory(String gpuUuid) {
        return directory.resolve(gpuUuid).resolve("pipe");
    }

    private Path logDirectory(String gpuUuid) {
        return directory.resolve(gpuUuid).resolve("log");
    }

    /** Whether the GPU's daemon answers: in client mode the command fails when no daemon serves its pipe directory. */
    private boolean running(String gpuUuid) {
        return Files.isDirectory(pipeDirectory(gpuUuid)) && exec(gpuUuid, List.of(), "get_default_active_thread_percentage\n").exit() == 0;
    }

    private void run(String gpuUuid, List<String> args, String stdin) {
        Result r = exec(gpuUuid, args, stdin);
        if (r.exit() != 0) {
            throw new CommandFailure(command + " " + String.join(" ", args) + " for GPU " + gpuUuid + " exited " + r.exit() + ": " + r.output().strip()
                    + "; MPS needs the NVIDIA driver's nvidia-cuda-mps-control (set horizon.agent.mps-control) and root");
        }
    }

    private record Result(int exit, String output) {
    }

    private Result exec(String gpuUuid, List<String> args, String stdin) {
        List<String> line = new ArrayList<>(List.of(command));
        line.addAll(args);
        Path output = null;
        try {
            // a file, not a pipe: the daemon -d leaves behind may hold its inherited stdout open for as long as it runs
            output = Files.createTempFile("horizon-mps", ".out");
            ProcessBuilder pb = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(output.toFile());
            pb.environment().putAll(Map.of("CUDA_VISIBLE_DEVICES", gpuUuid, "CUDA_MPS_PIPE_DIRECTORY", pipeDirectory(gpuUuid).toString(),
                    "CUDA_MPS_LOG_DIRECTORY", logDirectory(gpuUuid).toString()));
            Process p = pb.start();
            try (OutputStream in = p.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            if (!p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new CommandFailure(command + " for GPU " + gpuUuid + " did not answer within " + WAIT_SECONDS + " s");
            }
            return new Result(p.exitValue(), Files.readString(output));
        } catch (IOException e) {
            throw new CommandFailure("cannot run " + command + ": " + e.getMessage()
                    + "; install the NVIDIA driver's MPS tools or point horizon.agent.mps-control at nvidia-cuda-mps-control");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailure("interrupted while running " + command);
        } finally {
            if (output != null) output.toFile().delete();
        }
    }
}
