package dev.horizon.service.rest;

import dev.horizon.api.InvalidJobException;
import dev.horizon.api.JsonLimits;
import dev.horizon.service.web.ApiException;
import java.util.ArrayList;
import java.util.List;

/** Reads small request bodies (teams, tokens) with 400s that name the field, within {@link JsonLimits} as the job JSON is. */
public final class JsonBodies {
    private JsonBodies() {
    }

    public static <T> T read(String body, Class<T> type, String example) {
        if (body == null || body.isBlank()) throw new ApiException(400, "the body is empty", List.of("send JSON such as " + example));
        T value;
        try {
            value = JsonLimits.read(body, type, "body");
        } catch (InvalidJobException e) {
            List<String> problems = new ArrayList<>(e.problems());
            problems.add("for example " + example);
            throw new ApiException(400, "invalid body", problems);
        }
        if (value == null) throw new ApiException(400, "the body is JSON null", List.of("send a JSON object such as " + example));
        return value;
    }
}
