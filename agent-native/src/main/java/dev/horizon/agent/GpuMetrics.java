package dev.horizon.agent;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Per-GPU gauges under the DCGM exporter's names and labels (gpu, UUID, modelName, Hostname), so dashboards built for
 * dcgm-exporter work unchanged. A value the GPU does not report (utilization under MIG, a lost GPU) is NaN.
 */
@ApplicationScoped
public class GpuMetrics {
    private static final double MILLIWATTS_PER_WATT = 1000.0;

    @Inject
    MeterRegistry registry;
    @Inject
    CommandHandler commands;

    private final Map<Integer, GpuSnapshot> latest = new ConcurrentHashMap<>();

    /** @param hostname the node's name, dcgm-exporter's Hostname label */
    void update(String hostname, List<GpuSnapshot> gpus) {
        if (latest.isEmpty() && !gpus.isEmpty()) {
            Gauge.builder("horizon_agent_draining", commands, c -> c.draining() ? 1 : 0).description("1 once the node was asked to drain")
                    .register(registry);
        }
        for (GpuSnapshot s : gpus) {
            if (latest.put(s.index(), s) == null) register(hostname, s);
        }
    }

    private void register(String hostname, GpuSnapshot first) {
        Tags tags = Tags.of("gpu", String.valueOf(first.index()), "UUID", first.uuid(),
                "modelName", first.readable() ? first.gpu().name() : "unknown", "Hostname", hostname);
        gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (%)", first.index(), tags,
                s -> s.gpu().utilization() == null ? Double.NaN : s.gpu().utilization().gpuPercent());
        gauge("DCGM_FI_DEV_MEM_COPY_UTIL", "memory utilization (%)", first.index(), tags,
                s -> s.gpu().utilization() == null ? Double.NaN : s.gpu().utilization().memoryPercent());
        gauge("DCGM_FI_DEV_FB_USED", "framebuffer memory used (MiB)", first.index(), tags,
                s -> s.memory() == null ? Double.NaN : s.memory().usedMiB());
        gauge("DCGM_FI_DEV_FB_FREE", "framebuffer memory free (MiB)", first.index(), tags,
                s -> s.memory() == null ? Double.NaN : s.memory().freeMiB());
        gauge("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (C)", first.index(), tags,
                s -> s.gpu().temperatureC() == null ? Double.NaN : s.gpu().temperatureC());
        gauge("DCGM_FI_DEV_POWER_USAGE", "power draw (W)", first.index(), tags,
                s -> s.gpu().powerDrawMilliwatts() == null ? Double.NaN : s.gpu().powerDrawMilliwatts() / MILLIWATTS_PER_WATT);
        Gauge.builder("horizon_agent_gpu_healthy", latest, m -> m.get(first.index()).health() == dev.horizon.agent.v1.Health.HEALTHY ? 1 : 0)
                .description("1 while the GPU reads healthy").tags(tags).register(registry);
    }

    private void gauge(String name, String description, int index, Tags tags, ToDoubleFunction<GpuSnapshot> value) {
        Gauge.builder(name, latest, m -> {
            GpuSnapshot s = m.get(index);
            return s == null || !s.readable() ? Double.NaN : value.applyAsDouble(s);
        }).description(description).tags(tags).register(registry);
    }
}
