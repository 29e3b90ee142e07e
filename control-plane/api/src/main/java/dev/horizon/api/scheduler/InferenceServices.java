package dev.horizon.api.scheduler;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;

/**
 * What an adapter that scales model-serving workloads needs from the control plane's inference services
 * ({@code /api/v1/inference-services}): declare one, read its forecast and the GPUs it holds, say which GPUs its
 * replicas serve on, and see the cluster's GPUs and the work on them to choose those. {@link RestSchedulerClient}
 * speaks it over REST.
 */
public interface InferenceServices {
    /** The service as the control plane keeps it; empty when none has that name. */
    Optional<Service> service(String name);

    /** Every declared service, so GPUs another service holds are never chosen twice. */
    List<Service> services();

    /** Declares a service; weightPerGpuHour: one served GPU-hour's value; swapCapGpus: the GPUs it may gain or lose in a step. */
    void declare(String name, String team, double weightPerGpuHour, int swapCapGpus);

    /** Removes a service (its workload was deleted); one already gone is what was wanted. */
    void remove(String name);

    /** The GPUs the service's replicas serve on from now: the plan keeps batch work off them and moves work found on them. */
    void hold(String name, List<String> gpuUuids);

    /** Every registered node's GPUs and the work the plan runs on them. */
    ClusterGpus gpus();

    /** forecastGpus: the GPUs its forecast says it needs in the step after its last observed one (0 before any demand). */
    record Service(String name, double forecastGpus, List<String> heldOn) {
        public Service {
            heldOn = List.copyOf(heldOn);
        }
    }

    /** One GPU of a node, by its index on the node and its uuid. */
    record Gpu(String node, int index, String uuid) {
    }

    /** A running job's GPUs (node and index); fill: it runs on GPUs lent to it, the first work a service takes back. */
    record Running(String jobId, List<Gpu> gpus, boolean fill, long startedAt) {
        public Running {
            gpus = List.copyOf(gpus);
        }
    }

    /**
     * nvlinkDomains: each node's NVLink domain, where it reports or declares one; heldForWideJob: the nodes the last plan
     * holds for a waiting wide job, which new replicas keep off while other nodes have room.
     */
    record ClusterGpus(List<Gpu> gpus, List<Running> running, Map<String, String> nvlinkDomains, Set<String> heldForWideJob) {
        public ClusterGpus {
            gpus = List.copyOf(gpus);
            running = List.copyOf(running);
            nvlinkDomains = Map.copyOf(nvlinkDomains);
            heldForWideJob = Set.copyOf(heldForWideJob);
        }

        public ClusterGpus(List<Gpu> gpus, List<Running> running, Map<String, String> nvlinkDomains) {
            this(gpus, running, nvlinkDomains, Set.of());
        }

        /** A cluster whose nodes name no NVLink domain. */
        public ClusterGpus(List<Gpu> gpus, List<Running> running) {
            this(gpus, running, Map.of());
        }
    }
}
