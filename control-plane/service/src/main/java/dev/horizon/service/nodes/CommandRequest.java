package dev.horizon.service.nodes;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.horizon.api.Limits;
import dev.horizon.api.mig.MigGeometry;
import dev.horizon.api.mig.MigLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What an admin asks a node's agent to do: exactly one of a MIG layout for one GPU, a sharing mode for one GPU, or a
 * drain. It is stored as given once {@link #problems(Node)} finds nothing wrong, and streamed to the agent as is.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CommandRequest(ApplyMigLayout applyMigLayout, SetSharing setSharing, Drain drain) {
    public static final String EXAMPLE = "{\"applyMigLayout\":{\"gpuUuid\":\"GPU-...\",\"slots\":[{\"profile\":\"3g.40gb\",\"start\":0},"
            + "{\"profile\":\"3g.40gb\",\"start\":4}]}}";
    public static final Set<String> SHARING_MODES = Set.of("EXCLUSIVE", "TIME_SLICING", "MPS");
    private static final int MAX_SHARING_REPLICAS = 64;
    /** A GPU has at most 7 MIG instances; more slots than this cannot be a layout. */
    private static final int MAX_SLOTS = 8;

    /** slots: the GPU's MIG instances after the change; an empty list turns MIG off. */
    public record ApplyMigLayout(String gpuUuid, List<Slot> slots) {
    }

    public record Slot(String profile, Integer start) {
    }

    /** replicas: processes sharing the GPU; activeThreadPercentage and memoryLimitMiB are MPS limits per process. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SetSharing(String gpuUuid, String mode, Integer replicas, Integer activeThreadPercentage, Long memoryLimitMiB) {
    }

    public record Drain(String reason) {
    }

    /** Why this command cannot run on that node, one problem per line naming the field; empty when it can. */
    public List<String> problems(Node node) {
        List<String> problems = new ArrayList<>();
        int given = (applyMigLayout != null ? 1 : 0) + (setSharing != null ? 1 : 0) + (drain != null ? 1 : 0);
        if (given != 1) {
            problems.add("body: give exactly one of applyMigLayout, setSharing or drain (got " + given + "); for example " + EXAMPLE);
            return problems;
        }
        if (applyMigLayout != null) migProblems(node, problems);
        if (setSharing != null) sharingProblems(node, problems);
        if (drain != null) Limits.text("drain.reason", drain.reason(), DrainRequest.MAX_REASON, problems);
        return problems;
    }

    private void migProblems(Node node, List<String> problems) {
        Optional<Gpu> gpu = gpu(node, "applyMigLayout.gpuUuid", applyMigLayout.gpuUuid(), problems);
        if (gpu.isEmpty()) return;
        String model = gpu.get().model();
        if (!MigGeometry.supportsMig(model)) {
            problems.add("applyMigLayout.gpuUuid: " + model + " has no MIG; pick a GPU of a MIG model");
            return;
        }
        if (applyMigLayout.slots() == null) {
            problems.add("applyMigLayout.slots: required; give the instances as [{\"profile\":\"1g.10gb\",\"start\":0}], or [] to turn MIG off");
            return;
        }
        if (applyMigLayout.slots().size() > MAX_SLOTS) {
            problems.add("applyMigLayout.slots: " + applyMigLayout.slots().size() + " slots; a GPU holds at most 7 MIG instances");
            return;
        }
        MigGeometry geometry = MigGeometry.of(model);
        List<MigLayout.Slot> slots = new ArrayList<>();
        for (int i = 0; i < applyMigLayout.slots().size(); i++) {
            Slot s = applyMigLayout.slots().get(i);
            String field = "applyMigLayout.slots[" + i + "]";
            if (s == null || s.profile() == null || geometry.profiles().stream().noneMatch(p -> p.name().equals(s.profile()))) {
                problems.add(field + ".profile: unknown MIG profile " + Limits.quote(s == null ? null : s.profile()) + " for " + model + "; use one of "
                        + geometry.profiles().stream().map(p -> p.name()).toList());
            } else if (s.start() == null) {
                problems.add(field + ".start: required; " + s.profile() + " may start at memory slices " + geometry.profile(s.profile()).starts());
            } else {
                slots.add(new MigLayout.Slot(s.profile(), s.start()));
            }
        }
        if (!problems.isEmpty()) return;
        geometry.problems(slots).forEach(p -> problems.add("applyMigLayout.slots: " + p));
    }

    private void sharingProblems(Node node, List<String> problems) {
        Optional<Gpu> gpu = gpu(node, "setSharing.gpuUuid", setSharing.gpuUuid(), problems);
        if (setSharing.mode() == null || !SHARING_MODES.contains(setSharing.mode())) {
            problems.add("setSharing.mode: one of " + SHARING_MODES + " (got " + Limits.quote(setSharing.mode()) + ")");
            return;
        }
        boolean shared = !"EXCLUSIVE".equals(setSharing.mode());
        Integer replicas = setSharing.replicas();
        if (shared && (replicas == null || replicas < 2 || replicas > MAX_SHARING_REPLICAS)) {
            problems.add("setSharing.replicas: " + setSharing.mode() + " shares the GPU between 2 and " + MAX_SHARING_REPLICAS
                    + " processes (got " + replicas + ")");
        }
        if (!shared && replicas != null) problems.add("setSharing.replicas: EXCLUSIVE gives the GPU to one process; leave replicas out");
        boolean mps = "MPS".equals(setSharing.mode());
        Integer threads = setSharing.activeThreadPercentage();
        if (threads != null && (!mps || threads < 1 || threads > 100)) {
            problems.add("setSharing.activeThreadPercentage: an MPS limit from 1 to 100 (got " + threads + " for " + setSharing.mode() + ")");
        }
        Long memory = setSharing.memoryLimitMiB();
        if (memory != null && (!mps || memory < 0 || gpu.isPresent() && memory > gpu.get().memoryMiB())) {
            problems.add("setSharing.memoryLimitMiB: an MPS limit from 0 to the GPU's " + gpu.map(Gpu::memoryMiB).orElse(0L) + " MiB (got "
                    + memory + " for " + setSharing.mode() + ")");
        }
    }

    private static Optional<Gpu> gpu(Node node, String field, String uuid, List<String> problems) {
        Optional<Gpu> gpu = node.gpus().stream().filter(g -> g.uuid().equals(uuid)).findFirst();
        if (gpu.isEmpty()) {
            problems.add(field + ": node " + node.name() + " has no GPU " + Limits.quote(uuid) + "; its GPUs are " + node.gpus().stream().map(Gpu::uuid).toList());
        }
        return gpu;
    }
}
