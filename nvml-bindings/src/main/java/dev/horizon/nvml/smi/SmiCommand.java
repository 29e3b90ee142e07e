package dev.horizon.nvml.smi;

import dev.horizon.nvml.MigDevice;
import dev.horizon.nvml.MigMode;
import dev.horizon.nvml.NvmlSession;
import dev.horizon.nvml.XidEvent;
import dev.horizon.nvml.error.NvmlException;
import dev.horizon.nvml.sim.SimulatedDriver;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code horizon smi}: an nvidia-smi-like view of the GPUs through the NVML bindings, and the MIG
 * changes the demo and the tests need. Errors exit non-zero with one line on stderr.
 */
public final class SmiCommand {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    private static final Set<String> VALUE_FLAGS = Set.of("--gpu", "--profile", "--placement", "--gi", "--uuid", "--timeout");
    private static final Set<String> SWITCHES = Set.of("--json", "--all", "--help", "-h");

    private static final String HELP = String.join("\n",
            "Usage: horizon smi [--json] [--gpu N]",
            "       horizon smi mig profiles --gpu N [--json]",
            "       horizon smi mig enable|disable --gpu N",
            "       horizon smi mig create --gpu N --profile PROFILE [--placement START] [--json]",
            "       horizon smi mig destroy --gpu N (--gi ID | --uuid MIG-UUID | --all)",
            "       horizon smi events [--timeout SECONDS]",
            "       horizon smi sim COMMAND...",
            "",
            "Shows the GPUs, their memory, utilization, MIG devices and processes through NVML",
            "(libnvidia-ml), like nvidia-smi; --json prints the same for machines.",
            "",
            "  mig profiles   GPU instance profiles: free/total instances, memory, placements",
            "  mig enable     turn MIG mode on (root or CAP_SYS_ADMIN on a real GPU)",
            "  mig create     a GPU instance of PROFILE (e.g. 1g.10gb) and a compute instance using all of it",
            "  mig destroy    a GPU instance and its compute instances",
            "  events         wait for Xid errors (default 10 seconds)",
            "  sim            send a command to the simulated driver, e.g. sim fault gpu=1 lost",
            "",
            "Environment: HORIZON_SIM_GPUS=2xH100-80GB runs against the simulated driver;",
            "HORIZON_SIM_STATE=FILE shares its state between processes; HORIZON_NVML_LIBRARY_PATH",
            "names the folder of the real libnvidia-ml.so.1. See nvml-bindings/README.md.");

    private final PrintStream out;
    private final PrintStream err;

    private SmiCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /** Runs one command line; returns the exit status. Never throws. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return new SmiCommand(out, err).run(args);
    }

    private int run(String[] args) {
        Args a;
        try {
            a = Args.parse(args);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        if (a.has("--help") || a.has("-h")) {
            out.println(HELP);
            return OK;
        }
        try {
            String verb = a.positional(0);
            if (verb == null) return show(a);
            switch (verb) {
                case "mig": return mig(a);
                case "events": return events(a);
                case "sim": return sim(a);
                default: return usage("unknown command \"" + verb + "\"");
            }
        } catch (NvmlException e) {
            err.println("horizon smi: " + e.getMessage());
            return FAILED;
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        } catch (RuntimeException e) {
            err.println("horizon smi: " + oneLine(e.toString()));
            return FAILED;
        }
    }

    private int show(Args a) {
        a.expectPositionals(0);
        try (NvmlSession nvml = NvmlSession.open()) {
            SmiReport report = SmiReport.collect(nvml, a.intValue("--gpu"));
            out.print(a.has("--json") ? SmiJson.render(report) + "\n" : SmiText.render(report));
            return OK;
        }
    }

    private int mig(Args a) {
        String action = a.positional(1);
        if (action == null) throw new IllegalArgumentException("mig needs an action: profiles, enable, disable, create or destroy");
        a.expectPositionals(2);
        int gpu = a.requiredInt("--gpu");
        try (NvmlSession nvml = NvmlSession.open()) {
            switch (action) {
                case "profiles":
                    if (a.has("--json")) out.println(Json.write(SmiJson.tree(nvml.migProfiles(gpu))));
                    else out.print(SmiText.profiles(gpu, nvml.migProfiles(gpu)));
                    return OK;
                case "enable":
                case "disable":
                    MigMode mode = nvml.setMigMode(gpu, action.equals("enable"));
                    out.println("MIG mode of GPU " + gpu + ": " + (mode.current() ? "Enabled" : "Disabled"));
                    return OK;
                case "create":
                    MigDevice created = nvml.createMigDevice(gpu, a.required("--profile"), a.intValue("--placement"));
                    if (a.has("--json")) out.println(Json.write(SmiJson.tree(created)));
                    else out.println("Created MIG device " + created.uuid() + " on GPU " + gpu + ": profile "
                            + created.profile() + ", GPU instance " + created.gpuInstanceId() + ", compute instance "
                            + created.computeInstanceId() + ", placement " + created.placement());
                    return OK;
                case "destroy":
                    return destroy(nvml, gpu, a);
                default:
                    throw new IllegalArgumentException("unknown mig action \"" + action + "\"");
            }
        }
    }

    private int destroy(NvmlSession nvml, int gpu, Args a) {
        List<Integer> targets = new ArrayList<>();
        if (a.has("--all")) {
            nvml.gpuInstances(gpu).forEach(gi -> targets.add(gi.id()));
        } else if (a.value("--uuid") != null) {
            String uuid = a.value("--uuid");
            targets.add(nvml.migDeviceByUuid(uuid).filter(m -> m.gpuIndex() == gpu)
                    .map(MigDevice::gpuInstanceId)
                    .orElseThrow(() -> new IllegalArgumentException("GPU " + gpu + " has no MIG device " + uuid)));
        } else {
            targets.add(a.requiredInt("--gi"));
        }
        for (int gi : targets) {
            nvml.destroyMigDevice(gpu, gi);
            out.println("Destroyed GPU instance " + gi + " on GPU " + gpu);
        }
        if (targets.isEmpty()) out.println("GPU " + gpu + " has no GPU instances");
        return OK;
    }

    private int events(Args a) {
        a.expectPositionals(1);
        Integer seconds = a.intValue("--timeout");
        Duration timeout = Duration.ofSeconds(seconds == null ? 10 : seconds);
        try (NvmlSession nvml = NvmlSession.open(); NvmlSession.XidWatch watch = nvml.watchXid()) {
            Optional<XidEvent> event;
            int seen = 0;
            while ((event = watch.next(seen == 0 ? timeout : Duration.ZERO)).isPresent()) {
                XidEvent e = event.get();
                out.println("GPU " + e.gpuIndex() + ": Xid " + e.xid()
                        + (e.gpuInstanceId() == null ? "" : " (GPU instance " + e.gpuInstanceId() + ")"));
                seen++;
            }
            if (seen == 0) out.println("No Xid events in " + timeout.toSeconds() + "s");
            return OK;
        }
    }

    private int sim(Args a) {
        List<String> words = a.positionals().subList(1, a.positionals().size());
        if (words.isEmpty()) throw new IllegalArgumentException("sim needs a command, e.g. sim fault gpu=1 lost");
        SimulatedDriver sim = SimulatedDriver.find().orElse(null);
        if (sim == null) {
            err.println("horizon smi: sim works only with the simulated driver; set HORIZON_SIM_GPUS");
            return FAILED;
        }
        sim.command(String.join(" ", words));
        out.println("simulated driver: " + String.join(" ", words));
        return OK;
    }

    private int usage(String problem) {
        err.println("horizon smi: " + oneLine(problem) + " (see horizon smi --help)");
        return USAGE;
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
    }

    /** Flags and positional words of one command line. */
    private static final class Args {
        private final List<String> positionals = new ArrayList<>();
        private final Map<String, String> values = new HashMap<>();

        static Args parse(String[] args) {
            Args a = new Args();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                String inline = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    inline = arg.substring(eq + 1);
                    arg = arg.substring(0, eq);
                }
                if (VALUE_FLAGS.contains(arg)) {
                    if (inline == null && i + 1 >= args.length) throw new IllegalArgumentException(arg + " needs a value");
                    a.values.put(arg, inline != null ? inline : args[++i]);
                } else if (SWITCHES.contains(arg)) {
                    a.values.put(arg, "true");
                } else if (arg.startsWith("-") && a.positionals.isEmpty()) {
                    throw new IllegalArgumentException("unknown option " + arg);
                } else {
                    a.positionals.add(args[i]);
                }
            }
            return a;
        }

        List<String> positionals() {
            return positionals;
        }

        String positional(int i) {
            return i < positionals.size() ? positionals.get(i) : null;
        }

        void expectPositionals(int max) {
            if (positionals.size() > max) throw new IllegalArgumentException("unexpected \"" + positionals.get(max) + "\"");
        }

        boolean has(String flag) {
            return values.containsKey(flag);
        }

        String value(String flag) {
            return values.get(flag);
        }

        String required(String flag) {
            String v = values.get(flag);
            if (v == null || v.isBlank()) throw new IllegalArgumentException(flag + " is required");
            return v;
        }

        Integer intValue(String flag) {
            String v = values.get(flag);
            if (v == null) return null;
            try {
                return Integer.parseInt(v.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " takes a number, not \"" + v + "\"");
            }
        }

        int requiredInt(String flag) {
            required(flag);
            return intValue(flag);
        }
    }
}
