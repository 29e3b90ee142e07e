package dev.horizon.service;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The control plane's entry point. Without arguments it is the server. With a command it runs that command inside the
 * service, in-process, and exits with its status: {@code token-create} makes a token straight in the store for a
 * locked-out operator ({@code ./horizon token create --store}). The lab's application (control-plane/lab-service) is this
 * service plus two commands of its own: {@code bench} replays a scenario through the service's planning code and store
 * ({@code ./horizon bench --engine service}, on {@code horizon.clock=virtual}) and {@code soak} times the plan loop on an
 * empty store and on one holding months of history ({@code ./horizon soak}); the production service ships neither.
 */
@QuarkusMain
public class HorizonMain implements QuarkusApplication {
    @Inject
    Instance<ServiceCommand> available;

    public static void main(String... args) {
        Quarkus.run(HorizonMain.class, args);
    }

    @Override
    public int run(String... args) {
        if (args.length == 0) {
            Quarkus.waitForExit();
            return 0;
        }
        // commands run inside the service, by name: each takes the arguments after its name and returns the exit status
        Map<String, ServiceCommand> commands = new TreeMap<>();
        available.forEach(c -> commands.put(c.name(), c));
        ServiceCommand command = commands.get(args[0]);
        if (command == null) {
            System.err.println("horizon control plane: unknown command '" + args[0] + "'; commands: " + commands.keySet() + " (none: the server)");
            return 2;
        }
        return command.run(Arrays.asList(args).subList(1, args.length), System.out, System.err);
    }
}
