package dev.horizon.service.security;

import dev.horizon.service.ServiceCommand;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./horizon token create --store DIR|URL ...}: makes a token straight in the store, with no running control plane
 * and no admin token, for an operator locked out of the API (every admin token revoked or expired). The launcher runs it
 * in a control-plane process that opens the store (the H2 file of a stopped control plane, or PostgreSQL) and takes no
 * part in leader election. It checks what the API checks, writes the same audit entry, and prints the token alone on stdout.
 */
@ApplicationScoped
@Unremovable
public class TokenCommand implements ServiceCommand {
    static final String USAGE = "usage: ./horizon token create --store DIR|jdbc:postgresql://... --role admin|submitter|agent [--team T] [--node N]"
            + " [--label L] [--expires-in SECONDS]";
    private static final Set<String> OPTIONS = Set.of("--role", "--team", "--node", "--label", "--expires-in", "--max-uses");
    /** Who the audit log names for a token made this way: no token made the request. */
    static final Tokens.Grant OFFLINE = new Tokens.Grant("offline", Role.ADMIN, null, null, "./horizon token create --store");

    @Inject
    Tokens tokens;
    @Inject
    TeamStore teams;
    @Inject
    AuditLog audit;

    @Override
    public String name() {
        return "token-create";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        TokenRequest req;
        Role role;
        try {
            req = request(args);
            role = req.checked(teams);
        } catch (IllegalArgumentException e) {
            err.println("horizon token: " + e.getMessage() + "\n" + USAGE);
            return 2;
        } catch (ApiException e) {
            err.println("horizon token: " + e.getMessage() + (e.problems().isEmpty() ? "" : ": " + String.join("; ", e.problems())));
            return 2;
        }
        Tokens.Created created = tokens.create(new Tokens.Request(role, req.team(), req.node(), req.label(), req.expiresInSeconds(), OFFLINE.id(),
                req.maxUses(), Boolean.TRUE.equals(req.requireApproval())));
        audit.record(OFFLINE, "OFFLINE", "/api/v1/tokens/" + created.info().id(), 201, "created " + created.info().describe()
                + " offline, on the store");
        err.println("horizon: created " + role.name().toLowerCase(java.util.Locale.ROOT) + " token " + created.info().id()
                + " in the store; it is shown once:");
        out.println(created.token());
        return 0;
    }

    private static TokenRequest request(List<String> args) {
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < args.size(); i += 2) {
            String option = args.get(i);
            if (!OPTIONS.contains(option)) throw new IllegalArgumentException("unknown option '" + option + "'");
            if (i + 1 >= args.size()) throw new IllegalArgumentException(option + " needs a value");
            given.put(option, args.get(i + 1));
        }
        Long seconds = whole(given, "--expires-in", "a whole number of seconds");
        Long maxUses = whole(given, "--max-uses", "the number of nodes the token may enroll");
        return new TokenRequest(given.get("--role"), given.get("--team"), given.get("--node"), given.get("--label"), seconds,
                maxUses == null ? null : (int) Math.min(maxUses, Integer.MAX_VALUE), null);
    }

    private static Long whole(Map<String, String> given, String option, String what) {
        String value = given.get(option);
        try {
            return value == null ? null : Long.valueOf(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " is " + what + " (got '" + value + "')");
        }
    }
}
