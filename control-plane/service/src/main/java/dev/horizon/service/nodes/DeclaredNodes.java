package dev.horizon.service.nodes;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.plans.PlanRequests;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Nodes declared in horizon.nodes ("8xH100-80GB,4xA100-40GB": one node per entry) so a cluster can be
 * planned before its agents register. Their GPU UUIDs are derived from the node name and index, so a
 * restart declares the same GPUs.
 */
@Singleton
public class DeclaredNodes {
    private static final Pattern ENTRY = Pattern.compile("(\\d+)x([A-Za-z0-9.-]+?)(?:-(\\d+)GB)?");

    @Inject
    ServiceClock clock;
    @Inject
    NodeStore nodes;
    @Inject
    PlanRequests planner;
    @ConfigProperty(name = "horizon.nodes")
    Optional<String> declared;

    void declare(@Observes @Priority(10) StartupEvent event) {
        boolean changed = false;
        for (Node n : parse(declared.orElse(""), clock.millis())) changed |= nodes.upsert(n);
        if (changed) planner.requestPlan();
    }

    static List<Node> parse(String spec, long now) {
        List<Node> out = new ArrayList<>();
        if (spec.isBlank()) return out;
        String[] entries = spec.split(",");
        for (int i = 0; i < entries.length; i++) {
            String entry = entries[i].trim();
            Matcher m = ENTRY.matcher(entry);
            if (!m.matches()) {
                throw new IllegalArgumentException("horizon.nodes entry '" + entry + "' must look like 8xH100-80GB (GPUs x model)");
            }
            int count = Integer.parseInt(m.group(1));
            if (count < 1 || count > 64) throw new IllegalArgumentException("horizon.nodes entry '" + entry + "': 1 to 64 GPUs per node");
            String model = m.group(3) == null ? m.group(2) : m.group(2) + "-" + m.group(3) + "GB";
            long memoryMiB = m.group(3) == null ? 0 : Long.parseLong(m.group(3)) * 1024;
            String name = "node-" + i;
            List<Gpu> gpus = new ArrayList<>();
            for (int g = 0; g < count; g++) {
                String uuid = "GPU-" + UUID.nameUUIDFromBytes((name + "/" + g).getBytes(StandardCharsets.UTF_8));
                gpus.add(new Gpu(g, uuid, model, memoryMiB, null, List.of(), Node.HEALTHY, null, null, List.of(), null));
            }
            out.add(new Node(name, model, memoryMiB, "nvl-" + i, Node.FROM_CONFIG, Node.HEALTHY, null, now, gpus, false));
        }
        return out;
    }
}
