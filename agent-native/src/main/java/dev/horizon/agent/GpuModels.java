package dev.horizon.agent;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Horizon's model names ("H100-80GB", as jobs' gpuTypes spell them) from what NVML calls the product. */
final class GpuModels {
    private static final Pattern MARKETED_MEMORY = Pattern.compile("(\\d+)GB");
    /**
     * Products whose NVML name carries no memory size and whose marketed size is not total memory rounded (an L4 reports
     * 23,034 MiB): the names jobs pin by, and node selection's table (gpu-models.yaml) maps the clouds' labels to.
     */
    private static final java.util.Map<String, String> UNSIZED = java.util.Map.of("H200", "H200-141GB", "L4", "L4-24GB", "L40S", "L40S-48GB",
            "L40", "L40-48GB", "T4", "T4-16GB", "A10G", "A10G-24GB", "A10", "A10-24GB");

    private GpuModels() {
    }

    static String horizonName(String productName, long totalMiB) {
        // "NVIDIA L4", "Tesla T4", "NVIDIA Tesla V100-SXM2-32GB": the vendor and the old Tesla brand are not the model
        String product = productName.replaceFirst("^NVIDIA\\s+", "").replaceFirst("^Tesla\\s+", "").trim();
        String family = product.split("[\\s-]", 2)[0].toUpperCase(Locale.ROOT);
        Matcher memory = MARKETED_MEMORY.matcher(product);
        if (memory.find()) return family + "-" + memory.group(1) + "GB";
        return UNSIZED.getOrDefault(family, family + "-" + Math.round(totalMiB / 1024.0) + "GB");
    }
}
