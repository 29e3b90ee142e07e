package dev.horizon.service;

import dev.horizon.service.replay.ReplayCommand;
import dev.horizon.service.security.TokenCommand;
import dev.horizon.service.soak.SoakCommand;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The control plane's entry point. Without arguments it is the server. With a command it runs that command inside the
 * service, in-process, and exits with its status: {@code bench} replays a scenario through the service's planning code
 * and store (the launcher's {@code ./horizon bench --engine service}, on {@code horizon.clock=virtual}); {@code soak} times the
 * plan loop on an empty store and on one holding months of history ({@code ./horizon soak}); {@code token-create} makes a token
 * straight in the store for a locked-out operator ({@code ./horizon token create --store}).
 */
@QuarkusMain
public class HorizonMain implements QuarkusApplication {
    @Inject
    ReplayCommand replay;
    @Inject
    SoakCommand soak;
    @Inject
    TokenCommand token;

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
        Map<String, Function<List<String>, Integer>> commands = Map.of(
                "bench", rest -> replay.run(rest, System.out, System.err),
                "soak", rest -> soak.run(rest, System.out, System.err),
                "token-create", rest -> token.run(rest, System.out, System.err));
        Function<List<String>, Integer> command = commands.get(args[0]);
        if (command == null) {
            System.err.println("horizon control plane: unknown command '" + args[0] + "'; commands: " + commands.keySet() + " (none: the server)");
            return 2;
        }
        return command.apply(Arrays.asList(args).subList(1, args.length));
    }
}
