package dev.horizon.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

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
        // Trailing tokens fail (JsonLimits): two jobs pasted into one body must not quietly submit the first.
        JobSpec spec = JsonLimits.read(json, JobSpec.class, "job");
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
}
