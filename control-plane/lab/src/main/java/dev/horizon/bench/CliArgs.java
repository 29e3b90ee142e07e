package dev.horizon.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** "--name value" options; an unknown option or a missing value is a usage error naming it. */
final class CliArgs {
    private final Map<String, String> values = new HashMap<>();

    CliArgs(String command, List<String> args, Set<String> known) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.startsWith("--") || !known.contains(a.substring(2))) {
                throw new UsageException(command + ": unknown option '" + a + "'; known: --" + String.join(", --", known.stream().sorted().toList()));
            }
            if (i + 1 >= args.size()) throw new UsageException(command + ": option " + a + " needs a value");
            values.put(a.substring(2), args.get(++i));
        }
    }

    String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    Integer integer(String name) {
        String v = values.get(name);
        if (v == null) return null;
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a whole number (got '" + v + "')");
        }
    }

    double number(String name, double fallback) {
        String v = values.get(name);
        if (v == null) return fallback;
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a number (got '" + v + "')");
        }
    }

    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
