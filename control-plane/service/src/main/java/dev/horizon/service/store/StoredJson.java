package dev.horizon.service.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Records kept as JSON text in a column; the store only reads back what it wrote, so a failure is a bug, not bad input. */
public final class StoredJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private StoredJson() {
    }

    public static <T> T read(String json, TypeReference<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the store holds JSON it did not write: " + json, e);
        }
    }

    public static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("records always serialise", e);
        }
    }
}
