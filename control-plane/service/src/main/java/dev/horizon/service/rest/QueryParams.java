package dev.horizon.service.rest;

import dev.horizon.api.Limits;
import dev.horizon.service.web.ApiException;
import java.util.List;

/**
 * Query parameters read as text and checked here, so a bad one is a 400 naming it and its range; JAX-RS would turn an
 * Integer parameter that does not parse into a bare 404.
 */
public final class QueryParams {
    private QueryParams() {
    }

    /** raw as a whole number from min to max; absent: fallback. */
    public static int number(String name, String raw, int fallback, int min, int max) {
        if (raw == null) return fallback;
        try {
            int v = Integer.parseInt(raw.strip());
            if (v >= min && v <= max) return v;
        } catch (NumberFormatException e) {
            // refused below with the range
        }
        throw new ApiException(400, "invalid query", List.of(name + " must be a whole number from " + min + " to " + max + " (got "
                + Limits.quote(raw) + ")"));
    }

    /** raw as true or false (any case); absent: fallback. */
    public static boolean bool(String name, String raw, boolean fallback) {
        if (raw == null) return fallback;
        if (raw.strip().equalsIgnoreCase("true")) return true;
        if (raw.strip().equalsIgnoreCase("false")) return false;
        throw new ApiException(400, "invalid query", List.of(name + " must be true or false (got " + Limits.quote(raw) + ")"));
    }
}
