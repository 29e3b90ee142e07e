package dev.horizon.agent;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Horizon's model names ("H100-80GB", as jobs' gpuTypes spell them) from what NVML calls the product. */
final class GpuModels {
    private static final Pattern MARKETED_MEMORY = Pattern.compile("(\\d+)GB");
    /** Products whose NVML name carries no memory size and whose marketed size is not total memory rounded. */
    private static final java.util.Map<String, String> UNSIZED = java.util.Map.of("H200", "H200-141GB");

    private GpuModels() {
    }

    static String horizonName(String productName, long totalMiB) {
        String product = productName.replaceFirst("^NVIDIA\\s+", "").trim();
        String family = product.split("[\\s-]", 2)[0].toUpperCase(Locale.ROOT);
        Matcher memory = MARKETED_MEMORY.matcher(product);
        if (memory.find()) return family + "-" + memory.group(1) + "GB";
        return UNSIZED.getOrDefault(family, family + "-" + Math.round(totalMiB / 1024.0) + "GB");
    }
}
