package dev.horizon.nvml;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.error.NvmlException;
import dev.horizon.nvml.error.NvmlNotFoundException;
import dev.horizon.nvml.error.NvmlNotSupportedException;
import dev.horizon.nvml.error.NvmlPermissionException;
import dev.horizon.nvml.jna.NvmlLibrary;
import dev.horizon.nvml.jna.NvmlNative;
import dev.horizon.nvml.jna.NvmlStructs;
import dev.horizon.nvml.jna.NvmlStructs.ComputeInstanceInfo;
import dev.horizon.nvml.jna.NvmlStructs.ComputeInstanceProfileInfoV2;
import dev.horizon.nvml.jna.NvmlStructs.DeviceAttributes;
import dev.horizon.nvml.jna.NvmlStructs.EventData;
import dev.horizon.nvml.jna.NvmlStructs.GpuInstanceInfo;
import dev.horizon.nvml.jna.NvmlStructs.GpuInstancePlacement;
import dev.horizon.nvml.jna.NvmlStructs.GpuInstanceProfileInfoV2;
import dev.horizon.nvml.jna.NvmlStructs.MemoryV1;
import dev.horizon.nvml.jna.NvmlStructs.MemoryV2;
import dev.horizon.nvml.jna.NvmlStructs.PciInfo;
import dev.horizon.nvml.jna.NvmlStructs.ProcessInfo;
import dev.horizon.nvml.jna.NvmlStructs.Temperature;
import dev.horizon.nvml.sim.SimulatedDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * An NVML session: {@code nvmlInit} when opened, {@code nvmlShutdown} when closed. Use it with
 * try-with-resources. Every method reads the driver afresh and answers immutable records; every
 * NVML error becomes a typed {@link NvmlException} with the error's name and a hint.
 *
 * <p>Thread-safe: any number of threads may read at once; MIG changes made through one session
 * are serialized (NVML itself is thread-safe), and close() waits for calls in flight. The same
 * code runs against the real driver and against Horizon's simulated one.
 */
public final class NvmlSession implements AutoCloseable {
    private static final int PROCESS_QUERY_ATTEMPTS = 5;
    private static final int MAX_COMPUTE_INSTANCES = 8;
    /** NVML_COMPUTE_INSTANCE_PROFILE_* for a compute instance of 1, 2, 3, 4, 7, 8 and 6 slices. */
    private static final Map<Integer, Integer> CI_PROFILE_BY_SLICES = Map.of(1, 0, 2, 1, 3, 2, 4, 3, 7, 4, 8, 5, 6, 6);

    private final NvmlLibrary lib;
    private final String libraryFile;
    private final boolean simulated;
    private final NvmlCallObserver observer;
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final ReentrantLock migChanges = new ReentrantLock();
    private volatile boolean closed;
    private volatile boolean memoryV2Missing;
    private volatile boolean temperatureVMissing;

    /** A session over {@code lib}, already initialized; {@link #open()} is the way in, tests may hand in their own library. */
    NvmlSession(NvmlLibrary lib, String libraryFile, boolean simulated, NvmlCallObserver observer) {
        this.lib = lib;
        this.libraryFile = libraryFile;
        this.simulated = simulated;
        this.observer = observer;
    }

    /**
     * Loads libnvidia-ml (see {@link NvmlNative}) and initializes NVML.
     *
     * @throws dev.horizon.nvml.error.NvmlLibraryNotFoundException when there is no driver library
     * @throws NvmlException when nvmlInit fails (driver not loaded, simulated GPUs misconfigured, ...)
     */
    public static NvmlSession open() {
        return open(NvmlCallObserver.NONE);
    }

    /** As {@link #open()}, telling {@code observer} about every NVML call the session makes (nvmlInit_v2 included). */
    public static NvmlSession open(NvmlCallObserver observer) {
        NvmlNative nvml = NvmlNative.load();
        NvmlSession session = new NvmlSession(nvml.api(), nvml.file(), nvml.simulated(), observer);
        int rc = session.invoke("nvmlInit_v2", () -> session.lib.nvmlInit_v2());
        if (rc != NvmlError.SUCCESS.code()) {
            Optional<SimulatedDriver> sim = SimulatedDriver.find();
            if (sim.isPresent()) {
                throw NvmlException.of(rc, "nvmlInit_v2 (simulated driver)", sim.get().lastError(),
                        "fix HORIZON_SIM_GPUS / HORIZON_SIM_STATE / HORIZON_SIM_FAULTS (see nvml-bindings/README.md)");
            }
            throw session.error("nvmlInit_v2", rc);
        }
        return session;
    }

    /** Shuts NVML down for this session; later calls fail with NVML_ERROR_UNINITIALIZED. Idempotent. */
    @Override
    public void close() {
        Lock lock = lifecycle.writeLock();
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            call("nvmlShutdown", lib::nvmlShutdown);
        } finally {
            lock.unlock();
        }
    }

    // ---- system ----

    public DriverInfo driver() {
        return guarded(() -> {
            String driverVersion = string("nvmlSystemGetDriverVersion", NvmlLibrary.DRIVER_VERSION_BUFFER_SIZE,
                    lib::nvmlSystemGetDriverVersion);
            String nvmlVersion = string("nvmlSystemGetNVMLVersion", NvmlLibrary.DRIVER_VERSION_BUFFER_SIZE,
                    lib::nvmlSystemGetNVMLVersion);
            Integer cuda = optional(() -> readInt("nvmlSystemGetCudaDriverVersion_v2", lib::nvmlSystemGetCudaDriverVersion_v2));
            Optional<SimulatedDriver> sim = simulated ? SimulatedDriver.find() : Optional.empty();
            return new DriverInfo(driverVersion, nvmlVersion,
                    cuda == null ? null : cuda / 1000 + "." + cuda % 1000 / 10,
                    sim.isPresent(), sim.map(SimulatedDriver::describe).orElse(null), libraryFile);
        });
    }

    public int deviceCount() {
        return guarded(() -> readInt("nvmlDeviceGetCount_v2", lib::nvmlDeviceGetCount_v2));
    }

    // ---- GPUs ----

    /** Everything about GPU {@code index} at once. */
    public GpuReading gpu(int index) {
        return guarded(() -> readGpu(index, device(index)));
    }

    /** All GPUs, in index order. A GPU that fails (lost, ...) fails the whole call; use {@link #gpu} to go one by one. */
    public List<GpuReading> gpus() {
        return guarded(() -> {
            List<GpuReading> gpus = new ArrayList<>();
            for (int i = 0, n = readInt("nvmlDeviceGetCount_v2", lib::nvmlDeviceGetCount_v2); i < n; i++) {
                gpus.add(readGpu(i, device(i)));
            }
            return List.copyOf(gpus);
        });
    }

    /** The GPU with that GPU-... UUID. */
    public GpuReading gpuByUuid(String uuid) {
        return guarded(() -> {
            Pointer d = handleByUuid(uuid);
            if (readInt("nvmlDeviceIsMigDeviceHandle", r -> lib.nvmlDeviceIsMigDeviceHandle(d, r)) != 0) {
                throw new IllegalArgumentException(uuid + " is a MIG device, not a GPU; see migDevices()");
            }
            return readGpu(readInt("nvmlDeviceGetIndex", r -> lib.nvmlDeviceGetIndex(d, r)), d);
        });
    }

    public MemoryInfo memory(int index) {
        return guarded(() -> readMemory(device(index)));
    }

    /** @throws NvmlNotSupportedException while MIG is enabled: the driver reports no utilization then */
    public Utilization utilization(int index) {
        return guarded(() -> readUtilization(device(index)));
    }

    /** nvmlDeviceGetTemperatureV where the driver has it, else the older nvmlDeviceGetTemperature. */
    public int temperatureC(int index) {
        return guarded(() -> readTemperature(device(index)));
    }

    public long powerDrawMilliwatts(int index) {
        return guarded(() -> {
            Pointer d = device(index);
            return Integer.toUnsignedLong(readInt("nvmlDeviceGetPowerUsage", r -> lib.nvmlDeviceGetPowerUsage(d, r)));
        });
    }

    public EccHealth ecc(int index) {
        return guarded(() -> readEcc(device(index)));
    }

    public ComputeMode computeMode(int index) {
        return guarded(() -> {
            Pointer d = device(index);
            return ComputeMode.of(readInt("nvmlDeviceGetComputeMode", r -> lib.nvmlDeviceGetComputeMode(d, r)));
        });
    }

    /** Compute processes on the GPU, MIG devices included (with their instance ids). */
    public List<GpuProcess> processes(int index) {
        return guarded(() -> readProcesses(device(index)));
    }

    // ---- MIG ----

    public MigMode migMode(int index) {
        return guarded(() -> readMigMode(device(index)));
    }

    /**
     * Enables or disables MIG. Needs root or CAP_SYS_ADMIN on a real driver.
     *
     * @throws NvmlException with the activation status when the change stays pending (the GPU is in use
     *         or needs a reset)
     */
    public MigMode setMigMode(int index, boolean enabled) {
        return guarded(() -> migChange(() -> {
            Pointer d = device(index);
            IntByReference activation = new IntByReference();
            call("nvmlDeviceSetMigMode", () -> lib.nvmlDeviceSetMigMode(d,
                    enabled ? NvmlLibrary.NVML_DEVICE_MIG_ENABLE : NvmlLibrary.NVML_DEVICE_MIG_DISABLE, activation));
            if (activation.getValue() != NvmlError.SUCCESS.code()) {
                throw NvmlException.of(activation.getValue(), "nvmlDeviceSetMigMode (activation)",
                        "MIG " + (enabled ? "enable" : "disable") + " on GPU " + index
                                + " is pending until the GPU is idle and reset", null);
            }
            return readMigMode(d);
        }));
    }

    /**
     * The GPU instance profiles with their placements, whether MIG is on or off (they are the GPU's geometry), and what
     * still fits (0 while MIG is off); empty when the GPU has no MIG.
     */
    public List<GpuInstanceProfile> migProfiles(int index) {
        return guarded(() -> readMigProfiles(device(index)));
    }

    public List<GpuInstance> gpuInstances(int index) {
        return guarded(() -> {
            Pointer d = device(index);
            List<GpuInstance> instances = new ArrayList<>();
            List<GpuInstanceProfile> profiles = readMigProfiles(d);
            for (GpuInstanceProfile profile : profiles) {
                Pointer[] handles = new Pointer[Math.max(1, profile.instanceCount())];
                IntByReference count = new IntByReference(handles.length);
                call("nvmlDeviceGetGpuInstances", () -> lib.nvmlDeviceGetGpuInstances(d, profile.profileId(), handles, count));
                for (int i = 0; i < count.getValue(); i++) instances.add(readGpuInstance(index, handles[i], profiles));
            }
            instances.sort(Comparator.comparingInt(GpuInstance::id));
            return List.copyOf(instances);
        });
    }

    /**
     * Creates a GPU instance of {@code profile} ("1g.10gb", "MIG 3g.40gb", ...).
     *
     * @param placementStart first memory slice, or null to let the driver choose
     * @throws UnknownMigProfileException naming the profiles this GPU has
     * @throws dev.horizon.nvml.error.NvmlInsufficientResourcesException when it does not fit
     */
    public GpuInstance createGpuInstance(int index, String profile, Integer placementStart) {
        return guarded(() -> migChange(() -> doCreateGpuInstance(index, profile, placementStart)));
    }

    /**
     * Creates a compute instance in GPU instance {@code gpuInstanceId}.
     *
     * @param slices compute slices, or null for all of the GPU instance's
     */
    public ComputeInstance createComputeInstance(int index, int gpuInstanceId, Integer slices) {
        return guarded(() -> migChange(() -> doCreateComputeInstance(index, gpuInstanceId, slices)));
    }

    /**
     * Creates a GPU instance and one compute instance using all of it: a MIG device, as
     * {@code nvidia-smi mig -cgi PROFILE -C} does. If the compute instance fails, the GPU instance is
     * destroyed again.
     */
    public MigDevice createMigDevice(int index, String profile, Integer placementStart) {
        return guarded(() -> migChange(() -> {
            GpuInstance gi = doCreateGpuInstance(index, profile, placementStart);
            ComputeInstance ci;
            try {
                ci = doCreateComputeInstance(index, gi.id(), null);
            } catch (RuntimeException e) {
                try {
                    doDestroyGpuInstance(index, gi.id(), false);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            return readMigDevices(index, device(index)).stream()
                    .filter(m -> m.gpuInstanceId() == gi.id() && m.computeInstanceId() == ci.id())
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("the driver lists no MIG device for GPU instance "
                            + gi.id() + " / compute instance " + ci.id() + " it just created"));
        }));
    }

    public void destroyComputeInstance(int index, int gpuInstanceId, int computeInstanceId) {
        guarded(() -> migChange(() -> {
            Pointer gi = gpuInstanceHandle(device(index), gpuInstanceId);
            PointerByReference ci = new PointerByReference();
            call("nvmlGpuInstanceGetComputeInstanceById",
                    () -> lib.nvmlGpuInstanceGetComputeInstanceById(gi, computeInstanceId, ci));
            call("nvmlComputeInstanceDestroy", () -> lib.nvmlComputeInstanceDestroy(ci.getValue()));
            return null;
        }));
    }

    /** Destroys a GPU instance; it must have no compute instances left (else NVML_ERROR_IN_USE). */
    public void destroyGpuInstance(int index, int gpuInstanceId) {
        guarded(() -> migChange(() -> doDestroyGpuInstance(index, gpuInstanceId, false)));
    }

    /** Destroys a GPU instance and its compute instances first: the MIG devices it holds. */
    public void destroyMigDevice(int index, int gpuInstanceId) {
        guarded(() -> migChange(() -> doDestroyGpuInstance(index, gpuInstanceId, true)));
    }

    /**
     * The MIG devices of GPU {@code index}; empty when MIG is off.
     *
     * @throws NvmlPermissionException when the driver refuses to list GPU instances to this user (not root): the MIG
     *         devices are then unknown
     */
    public List<MigDevice> migDevices(int index) {
        return guarded(() -> readMigDevices(index, device(index)));
    }

    /** What nvmlDeviceGetMaxMigDeviceCount says: 0 while MIG is off, else how many MIG devices the GPU can hold. */
    public int maxMigDeviceCount(int index) {
        return guarded(() -> {
            Pointer d = device(index);
            return readInt("nvmlDeviceGetMaxMigDeviceCount", r -> lib.nvmlDeviceGetMaxMigDeviceCount(d, r));
        });
    }

    /**
     * The MIG device a UUID names, in either form drivers use: {@code MIG-<uuid>} (R470 on) or
     * {@code MIG-GPU-<GPU uuid>/<GPU instance>/<compute instance>} (R450-R465, and what CUDA still accepts).
     */
    public Optional<MigDevice> migDeviceByUuid(String uuid) {
        return guarded(() -> {
            Optional<MigDeviceName> legacy = MigDeviceName.parseLegacy(uuid);
            if (legacy.isPresent()) {
                MigDeviceName name = legacy.get();
                int gpu = readInt("nvmlDeviceGetIndex", r -> lib.nvmlDeviceGetIndex(handleByUuid(name.gpuUuid()), r));
                return readMigDevices(gpu, device(gpu)).stream()
                        .filter(m -> m.gpuInstanceId() == name.gpuInstanceId() && m.computeInstanceId() == name.computeInstanceId())
                        .findFirst();
            }
            for (int i = 0, n = readInt("nvmlDeviceGetCount_v2", lib::nvmlDeviceGetCount_v2); i < n; i++) {
                Optional<MigDevice> found = readMigDevices(i, device(i)).stream().filter(m -> m.uuid().equals(uuid)).findFirst();
                if (found.isPresent()) return found;
            }
            return Optional.<MigDevice>empty();
        });
    }

    /**
     * Starts watching every GPU for critical Xid errors (GPUs that cannot be watched, lost ones for
     * instance, are left out). Close the watch when done.
     */
    public XidWatch watchXid() {
        return guarded(() -> {
            PointerByReference set = new PointerByReference();
            call("nvmlEventSetCreate", () -> lib.nvmlEventSetCreate(set));
            int count = readInt("nvmlDeviceGetCount_v2", lib::nvmlDeviceGetCount_v2);
            for (int i = 0; i < count; i++) {
                try {
                    Pointer d = device(i);
                    call("nvmlDeviceRegisterEvents", () -> lib.nvmlDeviceRegisterEvents(d,
                            NvmlLibrary.NVML_EVENT_TYPE_XID_CRITICAL_ERROR, set.getValue()));
                } catch (NvmlException e) {
                    // this GPU cannot report events (lost, or no support): the others still can
                }
            }
            return new XidWatch(set.getValue());
        });
    }

    /** Waits for Xid events on the GPUs registered when it was made. Not shared between threads. */
    public final class XidWatch implements AutoCloseable {
        private final Pointer set;
        private boolean freed;

        private XidWatch(Pointer set) {
            this.set = set;
        }

        /** The next Xid, or empty when none arrives within {@code timeout}. */
        public Optional<XidEvent> next(Duration timeout) {
            return guarded(() -> {
                EventData data = new EventData();
                int ms = (int) Math.min(Integer.MAX_VALUE, Math.max(0, timeout.toMillis()));
                int rc = invoke("nvmlEventSetWait_v2", () -> lib.nvmlEventSetWait_v2(set, data, ms));
                if (rc == NvmlError.TIMEOUT.code()) return Optional.<XidEvent>empty();
                check("nvmlEventSetWait_v2", rc);
                int index = readInt("nvmlDeviceGetIndex", r -> lib.nvmlDeviceGetIndex(data.device, r));
                return Optional.of(new XidEvent(index, data.eventData, instanceId(data.gpuInstanceId),
                        instanceId(data.computeInstanceId)));
            });
        }

        @Override
        public void close() {
            if (freed) return;
            freed = true;
            guarded(() -> {
                call("nvmlEventSetFree", () -> lib.nvmlEventSetFree(set));
                return null;
            });
        }
    }

    // ---- reading ----

    private GpuReading readGpu(int index, Pointer d) {
        String pciBusId = optional(() -> {
            PciInfo pci = new PciInfo();
            call("nvmlDeviceGetPciInfo_v3", () -> lib.nvmlDeviceGetPciInfo_v3(d, pci));
            return Native.toString(pci.busId);
        });
        return new GpuReading(index,
                string("nvmlDeviceGetUUID", NvmlLibrary.DEVICE_UUID_BUFFER_SIZE, (b, n) -> lib.nvmlDeviceGetUUID(d, b, n)),
                string("nvmlDeviceGetName", NvmlLibrary.DEVICE_NAME_BUFFER_SIZE, (b, n) -> lib.nvmlDeviceGetName(d, b, n)),
                pciBusId,
                optionalAny(() -> readMemory(d)),
                optional(() -> readUtilization(d)),
                optional(() -> readTemperature(d)),
                optional(() -> Integer.toUnsignedLong(readInt("nvmlDeviceGetPowerUsage", r -> lib.nvmlDeviceGetPowerUsage(d, r)))),
                optional(() -> Integer.toUnsignedLong(readInt("nvmlDeviceGetEnforcedPowerLimit",
                        r -> lib.nvmlDeviceGetEnforcedPowerLimit(d, r)))),
                optional(() -> ComputeMode.of(readInt("nvmlDeviceGetComputeMode", r -> lib.nvmlDeviceGetComputeMode(d, r)))),
                optional(() -> readMigMode(d)),
                readEcc(d));
    }

    /** nvmlMemory_v2_t where the driver has it, else the v1 struct (whose used includes reserved). */
    private MemoryInfo readMemory(Pointer d) {
        if (!memoryV2Missing) {
            MemoryV2 v2 = new MemoryV2();
            int rc = attempt("nvmlDeviceGetMemoryInfo_v2", () -> lib.nvmlDeviceGetMemoryInfo_v2(d, v2));
            if (rc == NvmlError.SUCCESS.code()) return new MemoryInfo(v2.total, v2.reserved, v2.free, v2.used);
            if (olderDriver(rc)) {
                memoryV2Missing = true;
            } else if (rc != NvmlError.NOT_SUPPORTED.code()) {
                throw error("nvmlDeviceGetMemoryInfo_v2", rc);
            }
        }
        MemoryV1 v1 = new MemoryV1();
        call("nvmlDeviceGetMemoryInfo", () -> lib.nvmlDeviceGetMemoryInfo(d, v1));
        return new MemoryInfo(v1.total, null, v1.free, v1.used);
    }

    /** nvmlDeviceGetTemperatureV (newer drivers deprecate the older call); nvmlDeviceGetTemperature where it is missing or refuses. */
    private int readTemperature(Pointer d) {
        if (!temperatureVMissing) {
            Temperature t = new Temperature();
            t.sensorType = NvmlLibrary.NVML_TEMPERATURE_GPU;
            int rc = attempt("nvmlDeviceGetTemperatureV", () -> lib.nvmlDeviceGetTemperatureV(d, t));
            if (rc == NvmlError.SUCCESS.code()) return t.temperature;
            if (olderDriver(rc)) {
                temperatureVMissing = true;
            } else if (rc != NvmlError.NOT_SUPPORTED.code()) {
                throw error("nvmlDeviceGetTemperatureV", rc);
            }
        }
        return readInt("nvmlDeviceGetTemperature", r -> lib.nvmlDeviceGetTemperature(d, NvmlLibrary.NVML_TEMPERATURE_GPU, r));
    }

    /** The driver predates a versioned call: the symbol is missing, or it knows another version of the struct. */
    private static boolean olderDriver(int rc) {
        return rc == NvmlError.FUNCTION_NOT_FOUND.code() || rc == NvmlError.ARGUMENT_VERSION_MISMATCH.code();
    }

    private Utilization readUtilization(Pointer d) {
        NvmlStructs.Utilization raw = new NvmlStructs.Utilization();
        call("nvmlDeviceGetUtilizationRates", () -> lib.nvmlDeviceGetUtilizationRates(d, raw));
        return new Utilization(raw.gpu, raw.memory);
    }

    private MigMode readMigMode(Pointer d) {
        IntByReference current = new IntByReference();
        IntByReference pending = new IntByReference();
        call("nvmlDeviceGetMigMode", () -> lib.nvmlDeviceGetMigMode(d, current, pending));
        return new MigMode(current.getValue() == NvmlLibrary.NVML_DEVICE_MIG_ENABLE,
                pending.getValue() == NvmlLibrary.NVML_DEVICE_MIG_ENABLE);
    }

    private EccHealth readEcc(Pointer d) {
        Boolean enabled = optional(() -> {
            IntByReference current = new IntByReference();
            IntByReference pending = new IntByReference();
            call("nvmlDeviceGetEccMode", () -> lib.nvmlDeviceGetEccMode(d, current, pending));
            return current.getValue() != 0;
        });
        int[] remap = optional(() -> {
            IntByReference corr = new IntByReference(), unc = new IntByReference();
            IntByReference pending = new IntByReference(), failed = new IntByReference();
            call("nvmlDeviceGetRemappedRows", () -> lib.nvmlDeviceGetRemappedRows(d, corr, unc, pending, failed));
            return new int[] {corr.getValue(), unc.getValue(), pending.getValue(), failed.getValue()};
        });
        return new EccHealth(enabled,
                optional(() -> eccCount(d, NvmlLibrary.NVML_MEMORY_ERROR_TYPE_CORRECTED)),
                optional(() -> eccCount(d, NvmlLibrary.NVML_MEMORY_ERROR_TYPE_UNCORRECTED)),
                optional(() -> retiredPages(d, NvmlLibrary.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS)),
                optional(() -> retiredPages(d, NvmlLibrary.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)),
                optional(() -> readInt("nvmlDeviceGetRetiredPagesPendingStatus",
                        r -> lib.nvmlDeviceGetRetiredPagesPendingStatus(d, r)) != 0),
                remap == null ? null : remap[0], remap == null ? null : remap[1],
                remap == null ? null : remap[2] != 0, remap == null ? null : remap[3] != 0);
    }

    private long eccCount(Pointer d, int errorType) {
        LongByReference count = new LongByReference();
        call("nvmlDeviceGetTotalEccErrors",
                () -> lib.nvmlDeviceGetTotalEccErrors(d, errorType, NvmlLibrary.NVML_VOLATILE_ECC, count));
        return count.getValue();
    }

    private int retiredPages(Pointer d, int cause) {
        IntByReference count = new IntByReference(0);
        int rc = invoke("nvmlDeviceGetRetiredPages", () -> lib.nvmlDeviceGetRetiredPages(d, cause, count, null));
        if (rc != NvmlError.SUCCESS.code() && rc != NvmlError.INSUFFICIENT_SIZE.code()) {
            throw error("nvmlDeviceGetRetiredPages", rc);
        }
        return count.getValue();
    }

    private List<GpuProcess> readProcesses(Pointer d) {
        String fn = "nvmlDeviceGetComputeRunningProcesses_v3";
        IntByReference count = new IntByReference(0);
        int rc = invoke(fn, () -> lib.nvmlDeviceGetComputeRunningProcesses_v3(d, count, null));
        for (int attempt = 0; rc == NvmlError.INSUFFICIENT_SIZE.code() && attempt < PROCESS_QUERY_ATTEMPTS; attempt++) {
            ProcessInfo[] infos = (ProcessInfo[]) new ProcessInfo().toArray(count.getValue() + 4);
            count.setValue(infos.length);
            rc = invoke(fn, () -> lib.nvmlDeviceGetComputeRunningProcesses_v3(d, count, infos[0]));
            if (rc == NvmlError.SUCCESS.code()) {
                List<GpuProcess> processes = new ArrayList<>();
                for (int i = 0; i < count.getValue(); i++) {
                    ProcessInfo p = infos[i];
                    p.read();
                    processes.add(new GpuProcess(p.pid, processName(p.pid),
                            p.usedGpuMemory == NvmlStructs.VALUE_NOT_AVAILABLE ? null : p.usedGpuMemory,
                            instanceId(p.gpuInstanceId), instanceId(p.computeInstanceId)));
                }
                return List.copyOf(processes);
            }
        }
        check(fn, rc);
        return List.of(); // NVML_SUCCESS on the first call: no processes
    }

    private String processName(int pid) {
        return optionalAny(() -> string("nvmlSystemGetProcessName", NvmlLibrary.PROCESS_NAME_BUFFER_SIZE,
                (b, n) -> lib.nvmlSystemGetProcessName(pid, b, n)));
    }

    private static Integer instanceId(int id) {
        return id == NvmlStructs.NO_INSTANCE_ID ? null : id;
    }

    private List<GpuInstanceProfile> readMigProfiles(Pointer d) {
        List<GpuInstanceProfile> profiles = new ArrayList<>();
        for (int profile = 0; profile < NvmlLibrary.NVML_GPU_INSTANCE_PROFILE_COUNT; profile++) {
            GpuInstanceProfileInfoV2 info = new GpuInstanceProfileInfoV2();
            int nvmlProfile = profile;
            int rc = invoke("nvmlDeviceGetGpuInstanceProfileInfoV",
                    () -> lib.nvmlDeviceGetGpuInstanceProfileInfoV(d, nvmlProfile, info));
            if (rc == NvmlError.NOT_SUPPORTED.code() || rc == NvmlError.INVALID_ARGUMENT.code()) continue;
            check("nvmlDeviceGetGpuInstanceProfileInfoV", rc);
            Integer remaining = optionalAny(() -> readInt("nvmlDeviceGetGpuInstanceRemainingCapacity",
                    r -> lib.nvmlDeviceGetGpuInstanceRemainingCapacity(d, info.id, r)));
            List<MigPlacement> placements = optionalAny(() -> placements(d, info.id));
            profiles.add(new GpuInstanceProfile(info.id, profileName(info.name), info.sliceCount, info.instanceCount,
                    remaining == null ? 0 : remaining, info.memorySizeMB, info.multiprocessorCount,
                    info.copyEngineCount, info.decoderCount, info.encoderCount, info.jpegCount, info.ofaCount,
                    placements == null ? List.of() : placements));
        }
        profiles.sort(Comparator.comparingInt(GpuInstanceProfile::sliceCount).thenComparingLong(GpuInstanceProfile::memoryMiB)
                .thenComparingInt(GpuInstanceProfile::profileId));
        return List.copyOf(profiles);
    }

    private List<MigPlacement> placements(Pointer d, int profileId) {
        String fn = "nvmlDeviceGetGpuInstancePossiblePlacements_v2";
        IntByReference count = new IntByReference(0);
        call(fn, () -> lib.nvmlDeviceGetGpuInstancePossiblePlacements_v2(d, profileId, null, count));
        if (count.getValue() == 0) return List.of();
        GpuInstancePlacement[] array = (GpuInstancePlacement[]) new GpuInstancePlacement().toArray(count.getValue());
        call(fn, () -> lib.nvmlDeviceGetGpuInstancePossiblePlacements_v2(d, profileId, array[0], count));
        List<MigPlacement> placements = new ArrayList<>();
        for (int i = 0; i < count.getValue(); i++) {
            array[i].read();
            placements.add(new MigPlacement(array[i].start, array[i].size));
        }
        return List.copyOf(placements);
    }

    private static String profileName(byte[] raw) {
        String name = Native.toString(raw).strip();
        return name.regionMatches(true, 0, "MIG ", 0, 4) ? name.substring(4) : name;
    }

    private GpuInstanceProfile findProfile(int index, Pointer d, String requested) {
        MigMode mode = optional(() -> readMigMode(d));
        if (mode == null) {
            throw NvmlException.of(NvmlError.NOT_SUPPORTED.code(), "nvmlDeviceGetMigMode",
                    "GPU " + index + " does not support MIG", null);
        }
        if (!mode.current()) {
            throw NvmlException.of(NvmlError.NOT_SUPPORTED.code(), "nvmlDeviceGetMigMode",
                    "MIG is disabled on GPU " + index + (mode.pending() ? " (enabling waits for a GPU reset)" : ""),
                    "enable it first: horizon smi mig enable --gpu " + index);
        }
        List<GpuInstanceProfile> profiles = readMigProfiles(d);
        String wanted = requested == null ? "" : requested.strip();
        if (wanted.regionMatches(true, 0, "MIG ", 0, 4)) wanted = wanted.substring(4).strip();
        for (GpuInstanceProfile profile : profiles) {
            if (profile.name().equalsIgnoreCase(wanted)) return profile;
        }
        List<String> names = profiles.stream().map(GpuInstanceProfile::name).collect(Collectors.toList());
        String gpuName = optionalAny(() -> string("nvmlDeviceGetName", NvmlLibrary.DEVICE_NAME_BUFFER_SIZE,
                (b, n) -> lib.nvmlDeviceGetName(d, b, n)));
        throw new UnknownMigProfileException("unknown MIG profile \"" + requested + "\" for GPU " + index
                + (gpuName == null ? "" : " (" + gpuName + ")") + "; valid profiles: " + String.join(", ", names), names);
    }

    private GpuInstance doCreateGpuInstance(int index, String profileName, Integer placementStart) {
        Pointer d = device(index);
        GpuInstanceProfile profile = findProfile(index, d, profileName);
        PointerByReference gi = new PointerByReference();
        if (placementStart == null) {
            call("nvmlDeviceCreateGpuInstance", () -> lib.nvmlDeviceCreateGpuInstance(d, profile.profileId(), gi));
        } else {
            GpuInstancePlacement placement = new GpuInstancePlacement(placementStart, profile.placementSize());
            call("nvmlDeviceCreateGpuInstanceWithPlacement",
                    () -> lib.nvmlDeviceCreateGpuInstanceWithPlacement(d, profile.profileId(), placement, gi));
        }
        return readGpuInstance(index, gi.getValue(), readMigProfiles(d));
    }

    private GpuInstance readGpuInstance(int index, Pointer gi, List<GpuInstanceProfile> profiles) {
        GpuInstanceInfo info = new GpuInstanceInfo();
        call("nvmlGpuInstanceGetInfo", () -> lib.nvmlGpuInstanceGetInfo(gi, info));
        String name = profiles.stream().filter(p -> p.profileId() == info.profileId).map(GpuInstanceProfile::name)
                .findFirst().orElse("profile " + info.profileId);
        return new GpuInstance(index, info.id, info.profileId, name,
                new MigPlacement(info.placement.start, info.placement.size));
    }

    private Pointer gpuInstanceHandle(Pointer d, int gpuInstanceId) {
        PointerByReference gi = new PointerByReference();
        call("nvmlDeviceGetGpuInstanceById", () -> lib.nvmlDeviceGetGpuInstanceById(d, gpuInstanceId, gi));
        return gi.getValue();
    }

    private ComputeInstance doCreateComputeInstance(int index, int gpuInstanceId, Integer slices) {
        Pointer d = device(index);
        Pointer gi = gpuInstanceHandle(d, gpuInstanceId);
        List<GpuInstanceProfile> profiles = readMigProfiles(d);
        GpuInstance parent = readGpuInstance(index, gi, profiles);
        int wanted = slices != null ? slices : profiles.stream()
                .filter(p -> p.profileId() == parent.profileId()).mapToInt(GpuInstanceProfile::sliceCount).findFirst()
                .orElseThrow(() -> new IllegalStateException("GPU instance " + gpuInstanceId + " has an unlisted profile"));
        Integer ciProfile = CI_PROFILE_BY_SLICES.get(wanted);
        if (ciProfile == null) {
            throw new IllegalArgumentException("a compute instance takes 1, 2, 3, 4, 6, 7 or 8 slices, not " + wanted);
        }
        ComputeInstanceProfileInfoV2 info = new ComputeInstanceProfileInfoV2();
        call("nvmlGpuInstanceGetComputeInstanceProfileInfoV", () -> lib.nvmlGpuInstanceGetComputeInstanceProfileInfoV(
                gi, ciProfile, NvmlLibrary.NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, info));
        PointerByReference ci = new PointerByReference();
        call("nvmlGpuInstanceCreateComputeInstance", () -> lib.nvmlGpuInstanceCreateComputeInstance(gi, info.id, ci));
        return readComputeInstance(index, gpuInstanceId, gi, ci.getValue());
    }

    private ComputeInstance readComputeInstance(int index, int gpuInstanceId, Pointer gi, Pointer ci) {
        ComputeInstanceInfo info = new ComputeInstanceInfo();
        call("nvmlComputeInstanceGetInfo_v2", () -> lib.nvmlComputeInstanceGetInfo_v2(ci, info));
        ComputeInstanceProfileInfoV2 profile = new ComputeInstanceProfileInfoV2();
        String name = optionalAny(() -> {
            call("nvmlGpuInstanceGetComputeInstanceProfileInfoV", () -> lib.nvmlGpuInstanceGetComputeInstanceProfileInfoV(
                    gi, info.profileId, NvmlLibrary.NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, profile));
            return profileName(profile.name);
        });
        return new ComputeInstance(index, gpuInstanceId, info.id, info.profileId,
                name == null ? "profile " + info.profileId : name, new MigPlacement(info.placement.start, info.placement.size));
    }

    private List<Pointer> computeInstanceHandles(Pointer gi) {
        List<Pointer> handles = new ArrayList<>();
        for (int profile = 0; profile < NvmlLibrary.NVML_COMPUTE_INSTANCE_PROFILE_COUNT; profile++) {
            ComputeInstanceProfileInfoV2 info = new ComputeInstanceProfileInfoV2();
            int ciProfile = profile;
            int rc = invoke("nvmlGpuInstanceGetComputeInstanceProfileInfoV", () -> lib.nvmlGpuInstanceGetComputeInstanceProfileInfoV(
                    gi, ciProfile, NvmlLibrary.NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, info));
            if (rc == NvmlError.NOT_SUPPORTED.code() || rc == NvmlError.INVALID_ARGUMENT.code()) continue;
            check("nvmlGpuInstanceGetComputeInstanceProfileInfoV", rc);
            Pointer[] array = new Pointer[MAX_COMPUTE_INSTANCES];
            IntByReference count = new IntByReference(array.length);
            call("nvmlGpuInstanceGetComputeInstances", () -> lib.nvmlGpuInstanceGetComputeInstances(gi, info.id, array, count));
            for (int i = 0; i < count.getValue(); i++) handles.add(array[i]);
        }
        return handles;
    }

    private Void doDestroyGpuInstance(int index, int gpuInstanceId, boolean withComputeInstances) {
        Pointer gi = gpuInstanceHandle(device(index), gpuInstanceId);
        if (withComputeInstances) {
            for (Pointer ci : computeInstanceHandles(gi)) {
                call("nvmlComputeInstanceDestroy", () -> lib.nvmlComputeInstanceDestroy(ci));
            }
        }
        call("nvmlGpuInstanceDestroy", () -> lib.nvmlGpuInstanceDestroy(gi));
        return null;
    }

    private List<MigDevice> readMigDevices(int index, Pointer d) {
        MigMode mode = optional(() -> readMigMode(d));
        if (mode == null || !mode.current()) return List.of();
        try {
            return readEnabledMigDevices(index, d);
        } catch (NvmlPermissionException e) {
            throw NvmlException.of(e.code(), e.function(), "GPU " + index + "'s MIG devices are unknown: "
                    + (e.detail() == null ? "the driver refuses to list its GPU instances" : e.detail()),
                    "listing MIG GPU and compute instances needs root, CAP_SYS_ADMIN or the MIG capability devices"
                            + " (/dev/nvidia-caps): run the agent privileged, as its DaemonSet does");
        }
    }

    private List<MigDevice> readEnabledMigDevices(int index, Pointer d) {
        List<GpuInstanceProfile> profiles = readMigProfiles(d);
        int max = readInt("nvmlDeviceGetMaxMigDeviceCount", r -> lib.nvmlDeviceGetMaxMigDeviceCount(d, r));
        List<MigDevice> devices = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            PointerByReference ref = new PointerByReference();
            int migIndex = i;
            int rc = invoke("nvmlDeviceGetMigDeviceHandleByIndex", () -> lib.nvmlDeviceGetMigDeviceHandleByIndex(d, migIndex, ref));
            if (rc == NvmlError.NOT_FOUND.code() || rc == NvmlError.INVALID_ARGUMENT.code()) continue;
            check("nvmlDeviceGetMigDeviceHandleByIndex", rc);
            Pointer mig = ref.getValue();
            int giId = readInt("nvmlDeviceGetGpuInstanceId", r -> lib.nvmlDeviceGetGpuInstanceId(mig, r));
            int ciId = readInt("nvmlDeviceGetComputeInstanceId", r -> lib.nvmlDeviceGetComputeInstanceId(mig, r));
            GpuInstance gi = readGpuInstance(index, gpuInstanceHandle(d, giId), profiles);
            Integer sms = optionalAny(() -> {
                DeviceAttributes attributes = new DeviceAttributes();
                call("nvmlDeviceGetAttributes_v2", () -> lib.nvmlDeviceGetAttributes_v2(mig, attributes));
                return attributes.multiprocessorCount;
            });
            devices.add(new MigDevice(index, i,
                    string("nvmlDeviceGetUUID", NvmlLibrary.DEVICE_UUID_BUFFER_SIZE, (b, n) -> lib.nvmlDeviceGetUUID(mig, b, n)),
                    string("nvmlDeviceGetName", NvmlLibrary.DEVICE_NAME_BUFFER_SIZE, (b, n) -> lib.nvmlDeviceGetName(mig, b, n)),
                    giId, ciId, gi.profile(), gi.placement(), readMemory(mig), sms));
        }
        return List.copyOf(devices);
    }

    // ---- plumbing ----

    private Pointer device(int index) {
        PointerByReference ref = new PointerByReference();
        call("nvmlDeviceGetHandleByIndex_v2", () -> lib.nvmlDeviceGetHandleByIndex_v2(index, ref));
        return ref.getValue();
    }

    private Pointer handleByUuid(String uuid) {
        PointerByReference ref = new PointerByReference();
        call("nvmlDeviceGetHandleByUUID", () -> lib.nvmlDeviceGetHandleByUUID(uuid, ref));
        return ref.getValue();
    }

    private <T> T guarded(Supplier<T> body) {
        Lock lock = lifecycle.readLock();
        lock.lock();
        try {
            if (closed) {
                throw NvmlException.of(NvmlError.UNINITIALIZED.code(), "NvmlSession", "the session is closed");
            }
            return body.get();
        } finally {
            lock.unlock();
        }
    }

    private <T> T migChange(Supplier<T> body) {
        migChanges.lock();
        try {
            return body.get();
        } finally {
            migChanges.unlock();
        }
    }

    /** Runs a native call, telling the observer; a symbol the driver lacks throws NVML_ERROR_FUNCTION_NOT_FOUND. */
    private int invoke(String function, IntSupplier nativeCall) {
        long start = System.nanoTime();
        try {
            int rc = nativeCall.getAsInt();
            observer.called(function, rc, System.nanoTime() - start);
            return rc;
        } catch (UnsatisfiedLinkError e) {
            observer.called(function, NvmlError.FUNCTION_NOT_FOUND.code(), System.nanoTime() - start);
            throw NvmlException.of(NvmlError.FUNCTION_NOT_FOUND.code(), function,
                    libraryFile + " does not export " + function);
        }
    }

    /** As {@link #invoke}, answering NVML_ERROR_FUNCTION_NOT_FOUND's code for a missing symbol instead of throwing. */
    private int attempt(String function, IntSupplier nativeCall) {
        try {
            return invoke(function, nativeCall);
        } catch (NvmlNotSupportedException e) {
            return e.code();
        }
    }

    private void call(String function, IntSupplier nativeCall) {
        check(function, invoke(function, nativeCall));
    }

    private void check(String function, int rc) {
        if (rc != NvmlError.SUCCESS.code()) throw error(function, rc);
    }

    private NvmlException error(String function, int rc) {
        String text;
        try {
            text = lib.nvmlErrorString(rc);
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            text = null;
        }
        return NvmlException.of(rc, function, text);
    }

    private int readInt(String function, ToIntFunction<IntByReference> nativeCall) {
        IntByReference out = new IntByReference();
        call(function, () -> nativeCall.applyAsInt(out));
        return out.getValue();
    }

    private interface BufferCall {
        int fill(byte[] buffer, int length);
    }

    private String string(String function, int size, BufferCall nativeCall) {
        byte[] buffer = new byte[size];
        call(function, () -> nativeCall.fill(buffer, size));
        return Native.toString(buffer);
    }

    /** The value, or null when the GPU or driver does not offer it (NOT_SUPPORTED and kin). */
    private static <T> T optional(Supplier<T> read) {
        try {
            return read.get();
        } catch (NvmlNotSupportedException e) {
            return null;
        }
    }

    /** As {@link #optional}, also null when the caller may not read it (NO_PERMISSION for non-root). */
    private static <T> T optionalAny(Supplier<T> read) {
        try {
            return read.get();
        } catch (NvmlNotSupportedException | NvmlPermissionException | NvmlNotFoundException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "NvmlSession[" + libraryFile + (closed ? ", closed" : "") + "]";
    }
}
