package dev.horizon.tests;

import java.nio.file.Path;
import java.util.Map;

/** The hostile-input corpus on the embedded H2 file store. */
class HostileInputH2IT extends HostileInput {
    @Override
    Map<String, String> store(Path dir) {
        return Map.of();
    }

    @Override
    String[] storeOptions() {
        return new String[0];
    }
}
