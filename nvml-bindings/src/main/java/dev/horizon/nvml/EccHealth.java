package dev.horizon.nvml;

/**
 * ECC and memory-repair health of a GPU. A null field is one this GPU does not report: A100,
 * H100 and H200 have no page retirement (they remap rows instead), older GPUs no row remapping.
 *
 * @param eccEnabled current ECC mode
 * @param correctedErrors corrected ECC errors since the driver loaded (volatile counter)
 * @param uncorrectedErrors uncorrected ECC errors since the driver loaded
 * @param retiredPagesSingleBit pages retired for repeated single-bit errors
 * @param retiredPagesDoubleBit pages retired for double-bit errors
 * @param retirementPending a retirement waits for the next driver reload
 * @param remappedRowsCorrectable rows remapped for correctable errors
 * @param remappedRowsUncorrectable rows remapped for uncorrectable errors
 * @param remappingPending a remap waits for the next GPU reset
 * @param remappingFailed a remap failed: the GPU needs service
 */
public record EccHealth(Boolean eccEnabled, Long correctedErrors, Long uncorrectedErrors,
                        Integer retiredPagesSingleBit, Integer retiredPagesDoubleBit, Boolean retirementPending,
                        Integer remappedRowsCorrectable, Integer remappedRowsUncorrectable,
                        Boolean remappingPending, Boolean remappingFailed) {

    /** True when the GPU should be drained: uncorrected errors, a pending repair or a failed remap. */
    public boolean needsAttention() {
        return positive(uncorrectedErrors) || Boolean.TRUE.equals(retirementPending)
                || Boolean.TRUE.equals(remappingPending) || Boolean.TRUE.equals(remappingFailed);
    }

    private static boolean positive(Long value) {
        return value != null && value > 0;
    }
}
