package dev.horizon.api.scheduler;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Reads a control plane's timestamp into epoch seconds: ISO-8601 UTC ({@code 2026-12-02T23:59:00Z}) as the API writes
 * every time, or a number of epoch seconds as control planes before that wrote some.
 */
public final class IsoSeconds extends StdDeserializer<Long> {
    public IsoSeconds() {
        super(Long.class);
    }

    /** field of e in epoch seconds; null when absent, null or not a time. */
    public static Long of(JsonNode e, String field) {
        JsonNode v = e.path(field);
        if (v.isNumber()) return v.asLong();
        return v.isTextual() ? parse(v.asText()) : null;
    }

    private static Long parse(String text) {
        try {
            return Instant.parse(text).getEpochSecond();
        } catch (DateTimeParseException ex) {
            return null;
        }
    }

    @Override
    public Long deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (p.currentToken().isNumeric()) return p.getLongValue();
        Long seconds = parse(p.getValueAsString());
        return seconds != null ? seconds : (Long) ctxt.handleWeirdStringValue(Long.class, p.getValueAsString(), "not an ISO-8601 time");
    }
}
