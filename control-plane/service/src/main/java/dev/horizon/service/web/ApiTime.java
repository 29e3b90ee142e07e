package dev.horizon.service.web;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.horizon.api.Limits;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.LongFunction;
import java.util.regex.Pattern;

/**
 * The API's one time format: every timestamp it writes or reads is ISO-8601 UTC to the second ({@code 2026-12-02T23:59:00Z}),
 * whatever unit the store keeps it in. Store and planner keep epoch seconds or milliseconds; a view record marks each time
 * field with the serializer of its unit, so the unit never leaks to clients.
 */
public final class ApiTime {
    /** The one form: ISO-8601 UTC to the second, 2026-12-02T23:59:00Z. */
    private static final Pattern ONE_FORM = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");

    private ApiTime() {
    }

    /** epochSeconds as the API writes it. */
    public static String ofSeconds(long epochSeconds) {
        return Instant.ofEpochSecond(epochSeconds).toString();
    }

    /** epochMillis as the API writes it (to the second). */
    public static String ofMillis(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** A time a client sent (query parameter or body field), in epoch seconds; anything but the API's one form is a 400 naming the field. */
    public static long parseSeconds(String field, String raw) {
        Long seconds = epochSeconds(raw);
        if (seconds == null) {
            throw new ApiException(400, "invalid time", List.of(field + " must be an ISO-8601 UTC time such as " + ofSeconds(1_764_547_200L)
                    + " (got " + Limits.quote(raw) + ")"));
        }
        return seconds;
    }

    /**
     * text in the API's one form, in epoch seconds; null for any other. Instant.parse alone also takes an offset
     * (+01:00), a fraction of a second and lower case, each a second way of writing a time that the API would then read.
     */
    private static Long epochSeconds(String text) {
        if (text == null || !ONE_FORM.matcher(text.strip()).matches()) return null;
        try {
            return Instant.parse(text.strip()).getEpochSecond();
        } catch (DateTimeParseException e) {
            return null; // the form, but no such day or hour: 2026-02-30, 25:00
        }
    }

    /** Writes a field kept in epoch seconds. */
    public static final class Seconds extends Writer {
        public Seconds() {
            super(ApiTime::ofSeconds);
        }
    }

    /** Writes a field kept in epoch milliseconds. */
    public static final class Millis extends Writer {
        public Millis() {
            super(ApiTime::ofMillis);
        }
    }

    private abstract static class Writer extends StdSerializer<Long> {
        private final LongFunction<String> format;

        Writer(LongFunction<String> format) {
            super(Long.class);
            this.format = format;
        }

        @Override
        public void serialize(Long value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(format.apply(value));
        }
    }

    /** Reads a field kept in epoch seconds from its ISO-8601 form (a body a client sends, or JSON the store kept as the API writes it). */
    public static final class SecondsReader extends Reader {
        public SecondsReader() {
            super(1);
        }
    }

    /** Reads a field kept in epoch milliseconds from its ISO-8601 form. */
    public static final class MillisReader extends Reader {
        public MillisReader() {
            super(1000);
        }
    }

    private abstract static class Reader extends StdDeserializer<Long> {
        private final long perSecond;

        Reader(long perSecond) {
            super(Long.class);
            this.perSecond = perSecond;
        }

        @Override
        public Long deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String text = p.getValueAsString();
            Long seconds = epochSeconds(text);
            if (seconds == null) return (Long) ctxt.handleWeirdStringValue(Long.class, text, "give an ISO-8601 UTC time such as " + ofSeconds(1_764_547_200L));
            return seconds * perSecond;
        }
    }
}
