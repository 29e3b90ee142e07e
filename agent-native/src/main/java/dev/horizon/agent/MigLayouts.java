package dev.horizon.agent;

import dev.horizon.agent.v1.ApplyMigLayout;
import dev.horizon.agent.v1.MigSlot;
import dev.horizon.nvml.GpuInstance;
import dev.horizon.nvml.GpuProcess;
import dev.horizon.nvml.MigDevice;
import dev.horizon.nvml.MigMode;
import dev.horizon.nvml.MigPlacement;
import dev.horizon.nvml.GpuInstanceProfile;
import dev.horizon.nvml.NvmlSession;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * Makes a GPU's MIG instances exactly the layout asked for. It compares what is there with what is wanted and
 * touches only the difference, so applying the same layout twice changes nothing, and a layout half-applied
 * before a crash is finished by applying it again (a GPU instance left without its compute instance gets
 * one). Everything is checked before anything changes (MIG switched on, an instance destroyed), and an instance
 * with processes is never destroyed.
 */
@ApplicationScoped
public class MigLayouts {
    private static final Logger LOG = Logger.getLogger(MigLayouts.class);

    @Inject
    Nvml nvml;

    /** Applies the layout; answers the GPU's MIG devices afterwards. */
    public List<MigDevice> apply(ApplyMigLayout layout) {
        NvmlSession session = nvml.session();
        int index = session.gpuByUuid(layout.getGpuUuid()).index();
        MigMode mode = session.migMode(index);
        if (layout.getSlotsCount() == 0) {
            destroy(session, index, session.gpuInstances(index));
            if (mode.current()) session.setMigMode(index, false);
            return List.of();
        }
        // The driver lists profiles and placements with MIG off too: a bad layout is refused before MIG is switched on.
        Map<String, GpuInstanceProfile> profiles = session.migProfiles(index).stream()
                .collect(Collectors.toMap(GpuInstanceProfile::name, Function.identity()));
        List<Wanted> wanted = check(layout, profiles);
        if (!mode.current()) {
            LOG.infof("enabling MIG on GPU %d (%s)", index, layout.getGpuUuid());
            session.setMigMode(index, true);
        }

        List<GpuInstance> unmatched = new ArrayList<>(session.gpuInstances(index));
        List<Wanted> missing = new ArrayList<>();
        List<GpuInstance> kept = new ArrayList<>();
        for (Wanted w : wanted) {
            Optional<GpuInstance> same = unmatched.stream()
                    .filter(gi -> gi.profile().equals(w.profile().name()) && gi.placement().start() == w.start()).findFirst();
            same.ifPresentOrElse(gi -> {
                unmatched.remove(gi);
                kept.add(gi);
            }, () -> missing.add(w));
        }
        destroy(session, index, unmatched);
        List<MigDevice> devices = session.migDevices(index);
        for (GpuInstance gi : kept) {
            if (devices.stream().noneMatch(d -> d.gpuInstanceId() == gi.id())) {
                LOG.infof("GPU %d: GPU instance %d (%s) has no compute instance; creating it", index, gi.id(), gi.profile());
                session.createComputeInstance(index, gi.id(), null);
            }
        }
        // The largest first: small instances placed first could split the memory slices a large one needs.
        missing.sort(Comparator.comparingInt((Wanted w) -> w.profile().placementSize()).reversed());
        for (Wanted w : missing) {
            MigDevice created = session.createMigDevice(index, w.profile().name(), w.start());
            LOG.infof("GPU %d: created %s at memory slice %d: %s", index, w.profile().name(), w.start(), created.uuid());
        }
        return session.migDevices(index);
    }

    private record Wanted(GpuInstanceProfile profile, int start) {
        MigPlacement placement() {
            return new MigPlacement(start, profile.placementSize());
        }
    }

    /** Every slot names a profile of this GPU at a placement it can take, and no two slots overlap. */
    private static List<Wanted> check(ApplyMigLayout layout, Map<String, GpuInstanceProfile> profiles) {
        List<Wanted> wanted = new ArrayList<>();
        for (MigSlot slot : layout.getSlotsList()) {
            GpuInstanceProfile profile = profiles.get(slot.getProfile());
            if (profile == null) {
                throw new CommandFailure("unknown MIG profile '" + slot.getProfile() + "' for GPU " + layout.getGpuUuid()
                        + "; it has " + profiles.keySet().stream().sorted().collect(Collectors.joining(", ")));
            }
            if (profile.placements().stream().noneMatch(p -> p.start() == slot.getStart())) {
                throw new CommandFailure("MIG profile " + profile.name() + " cannot start at memory slice " + slot.getStart()
                        + "; it can start at " + profile.placements().stream().map(p -> String.valueOf(p.start()))
                        .collect(Collectors.joining(", ")));
            }
            Wanted w = new Wanted(profile, slot.getStart());
            for (Wanted other : wanted) {
                if (overlap(w.placement(), other.placement())) {
                    throw new CommandFailure("MIG slots " + other.profile().name() + " at " + other.placement() + " and "
                            + profile.name() + " at " + w.placement() + " overlap (memory slices start:size)");
                }
            }
            wanted.add(w);
        }
        return wanted;
    }

    private static boolean overlap(MigPlacement a, MigPlacement b) {
        return a.start() < b.start() + b.size() && b.start() < a.start() + a.size();
    }

    /** Destroys these GPU instances, refusing before touching any of them if one runs processes. */
    private static void destroy(NvmlSession session, int index, List<GpuInstance> instances) {
        if (instances.isEmpty()) return;
        List<GpuProcess> processes = session.processes(index);
        for (GpuInstance gi : instances) {
            List<String> busy = processes.stream().filter(p -> p.gpuInstanceId() != null && p.gpuInstanceId() == gi.id())
                    .map(p -> p.pid() + (p.name() == null ? "" : " (" + p.name() + ")")).toList();
            if (!busy.isEmpty()) {
                throw new CommandFailure("GPU instance " + gi.id() + " (" + gi.profile() + " at " + gi.placement()
                        + ") runs processes " + String.join(", ", busy) + "; drain them before changing the layout");
            }
        }
        for (GpuInstance gi : instances) {
            session.destroyMigDevice(index, gi.id());
            LOG.infof("GPU %d: destroyed GPU instance %d (%s at %s)", index, gi.id(), gi.profile(), gi.placement());
        }
    }
}
