package dev.horizon.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Structure;
import dev.horizon.nvml.jna.NvmlStructs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No native-image runs here, so this checks what can drift without one: the configuration in graalvm/config ships
 * in the agent's jar where native-image looks, every class it names exists, and every NVML struct JNA maps by
 * reflection is listed.
 */
class NativeImageConfigTest {
    private static final String DIR = "META-INF/native-image/dev.horizon/horizon-agent/";
    private static final Pattern NAME = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"");

    @Test
    void everyNamedClassExists() throws Exception {
        for (String file : List.of("reflect-config.json", "jni-config.json")) {
            List<String> names = names(read(file));
            assertTrue(names.size() > 10, file + " names " + names.size() + " classes");
            for (String name : names) Class.forName(name, false, getClass().getClassLoader());
        }
    }

    @Test
    void everyNvmlStructIsReflectable() throws Exception {
        List<String> reflected = names(read("reflect-config.json"));
        List<String> structs = Arrays.stream(NvmlStructs.class.getDeclaredClasses()).filter(Structure.class::isAssignableFrom)
                .map(Class::getName).toList();
        assertTrue(structs.size() > 10);
        List<String> missing = new ArrayList<>(structs);
        missing.removeAll(reflected);
        assertEquals(List.of(), missing, "NVML structs missing from graalvm/config/reflect-config.json");
    }

    @Test
    void theLibraryProxyAndRunTimeInitializationAreConfigured() throws Exception {
        assertTrue(read("proxy-config.json").contains("\"dev.horizon.nvml.jna.NvmlLibrary\""));
        assertTrue(read("native-image.properties").contains("--initialize-at-run-time=com.sun.jna,dev.horizon.nvml.jna"));
        assertTrue(read("resource-config.json").contains("com/sun/jna/linux-x86-64/libjnidispatch.so"));
    }

    private static List<String> names(String json) {
        List<String> names = new ArrayList<>();
        Matcher m = NAME.matcher(json);
        while (m.find()) names.add(m.group(1));
        return names;
    }

    private static String read(String file) throws IOException {
        try (InputStream in = NativeImageConfigTest.class.getClassLoader().getResourceAsStream(DIR + file)) {
            assertNotNull(in, DIR + file + " is not on the class path; agent-native's pom copies graalvm/config there");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
