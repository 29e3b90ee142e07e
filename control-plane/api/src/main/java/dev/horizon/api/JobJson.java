package dev.horizon.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.JsonMappingException;
import java.util.List;
import java.util.stream.Collectors;

/** Reads and writes the job JSON, turning every malformed input into an error that names the field. */
public final class JobJson {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    private JobJson() {
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Parses and validates one job; throws {@link InvalidJobException} naming each bad field. */
    public static JobSpec parse(String json) {
        JobSpec spec;
        try {
            // Trailing tokens fail: two jobs pasted into one body must not quietly submit the first.
            spec = MAPPER.readerFor(JobSpec.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readValue(json);
        } catch (UnrecognizedPropertyException e) {
            throw new InvalidJobException(List.of(path(e) + ": unknown field; known fields are " + e.getKnownPropertyIds()));
        } catch (InvalidFormatException e) {
            throw new InvalidJobException(List.of(path(e) + ": '" + e.getValue() + "' is not a valid " + e.getTargetType().getSimpleName()
                    + (e.getTargetType().isEnum() ? " (one of " + List.of(e.getTargetType().getEnumConstants()) + ")" : "")));
        } catch (JsonMappingException e) {
            if (e.getOriginalMessage().startsWith("Trailing token")) {
                throw new InvalidJobException(List.of("the body holds more than one JSON value (line " + e.getLocation().getLineNr() + ", column "
                        + e.getLocation().getColumnNr() + "); send one job as one JSON object"));
            }
            throw new InvalidJobException(List.of(path(e) + ": " + e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            throw new InvalidJobException(List.of("the job is not valid JSON (line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + "): " + e.getOriginalMessage()));
        }
        if (spec == null) throw new InvalidJobException(List.of("the body is empty: send one job as a JSON object"));
        List<String> problems = spec.problems();
        if (!problems.isEmpty()) throw new InvalidJobException(problems);
        return spec;
    }

    public static String write(JobSpec spec) {
        try {
            return MAPPER.writeValueAsString(spec);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JobSpec record always serialises", e);
        }
    }

    private static String path(JsonMappingException e) {
        String p = e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."));
        return p.isEmpty() ? "job" : p.replace(".[", "[");
    }
}
