/*
 * The GPU models the simulated driver knows, with what the real cards report: the name
 * nvmlDeviceGetName answers, total memory as nvidia-smi shows it, PCI ids, power limits and the
 * GPU instance profiles of `nvidia-smi mig -lgip` / `-lgipp` (profile id, slices, instances,
 * SMs, engines, memory, placements). All four models have 7 compute slices and 8 memory slices.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim.h"

#define ALL_1G 7, {0, 1, 2, 3, 4, 5, 6}
#define PAIRS 4, {0, 2, 4, 6}
#define PAIRS_2G 3, {0, 2, 4}
#define HALVES 2, {0, 4}
#define WHOLE 1, {0}

/* Columns: nvml profile, id, name, compute slices, memory slices, instances, SM, CE, DEC, ENC,
 * JPEG, OFA, memory MiB, placements (start positions; the size is the memory slices). */
static const struct sim_model MODELS[] = {
    {"H100-80GB", "NVIDIA H100 80GB HBM3", 81559, 512, 0x233010DE, 0x16C110DE, 132, 700, 72, 7, {
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE, 19, "1g.10gb", 1, 1, 7, 16, 1, 1, 0, 1, 0, 9984, ALL_1G},
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1, 20, "1g.10gb+me", 1, 1, 1, 16, 1, 1, 0, 1, 1, 9984, ALL_1G},
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, 15, "1g.20gb", 1, 2, 4, 26, 1, 1, 0, 1, 0, 20096, PAIRS},
        {NVML_GPU_INSTANCE_PROFILE_2_SLICE, 14, "2g.20gb", 2, 2, 3, 32, 2, 2, 0, 2, 0, 20096, PAIRS_2G},
        {NVML_GPU_INSTANCE_PROFILE_3_SLICE, 9, "3g.40gb", 3, 4, 2, 60, 3, 3, 0, 3, 0, 40448, HALVES},
        {NVML_GPU_INSTANCE_PROFILE_4_SLICE, 5, "4g.40gb", 4, 4, 1, 64, 4, 4, 0, 4, 0, 40448, WHOLE},
        {NVML_GPU_INSTANCE_PROFILE_7_SLICE, 0, "7g.80gb", 7, 8, 1, 132, 8, 7, 0, 7, 1, 81152, WHOLE},
    }},
    /* H200 SXM 141GB as driver 580.159.04 lists it on a real H200 (the device check, tests/device):
     * 1g.18gb 16384 MiB, 1g.35gb and 2g.35gb 33280, 3g.71gb and 4g.71gb 71424, 7g.141gb 143360;
     * public `nvidia-smi mig -lgip` transcripts of older drivers read 256 MiB less for all but 1g. */
    {"H200-141GB", "NVIDIA H200", 143771, 640, 0x233510DE, 0x18BE10DE, 132, 700, 76, 7, {
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE, 19, "1g.18gb", 1, 1, 7, 16, 1, 1, 0, 1, 0, 16384, ALL_1G},
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1, 20, "1g.18gb+me", 1, 1, 1, 16, 1, 1, 0, 1, 1, 16384, ALL_1G},
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, 15, "1g.35gb", 1, 2, 4, 26, 1, 1, 0, 1, 0, 33280, PAIRS},
        {NVML_GPU_INSTANCE_PROFILE_2_SLICE, 14, "2g.35gb", 2, 2, 3, 32, 2, 2, 0, 2, 0, 33280, PAIRS_2G},
        {NVML_GPU_INSTANCE_PROFILE_3_SLICE, 9, "3g.71gb", 3, 4, 2, 60, 3, 3, 0, 3, 0, 71424, HALVES},
        {NVML_GPU_INSTANCE_PROFILE_4_SLICE, 5, "4g.71gb", 4, 4, 1, 64, 4, 4, 0, 4, 0, 71424, WHOLE},
        {NVML_GPU_INSTANCE_PROFILE_7_SLICE, 0, "7g.141gb", 7, 8, 1, 132, 8, 7, 0, 7, 1, 143360, WHOLE},
    }},
    /* A100-SXM4-80GB: its 7g.80gb reads 79.00 GiB on public `nvidia-smi mig -lgip` transcripts. */
    {"A100-80GB", "NVIDIA A100-SXM4-80GB", 81920, 512, 0x20B210DE, 0x147F10DE, 108, 400, 58, 7, {
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE, 19, "1g.10gb", 1, 1, 7, 14, 1, 0, 0, 0, 0, 9728, ALL_1G},
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1, 20, "1g.10gb+me", 1, 1, 1, 14, 1, 1, 0, 1, 1, 9728, ALL_1G},
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, 15, "1g.20gb", 1, 2, 4, 14, 1, 1, 0, 0, 0, 19968, PAIRS},
        {NVML_GPU_INSTANCE_PROFILE_2_SLICE, 14, "2g.20gb", 2, 2, 3, 28, 2, 1, 0, 0, 0, 19968, PAIRS_2G},
        {NVML_GPU_INSTANCE_PROFILE_3_SLICE, 9, "3g.40gb", 3, 4, 2, 42, 3, 2, 0, 0, 0, 40192, HALVES},
        {NVML_GPU_INSTANCE_PROFILE_4_SLICE, 5, "4g.40gb", 4, 4, 1, 56, 4, 2, 0, 0, 0, 40192, WHOLE},
        {NVML_GPU_INSTANCE_PROFILE_7_SLICE, 0, "7g.80gb", 7, 8, 1, 98, 7, 5, 0, 1, 1, 80896, WHOLE},
    }},
    {"A100-40GB", "NVIDIA A100-SXM4-40GB", 40960, 448, 0x20B010DE, 0x134F10DE, 108, 400, 55, 7, {
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE, 19, "1g.5gb", 1, 1, 7, 14, 1, 0, 0, 0, 0, 4864, ALL_1G},
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1, 20, "1g.5gb+me", 1, 1, 1, 14, 1, 1, 0, 1, 1, 4864, ALL_1G},
        {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, 15, "1g.10gb", 1, 2, 4, 14, 1, 1, 0, 0, 0, 9856, PAIRS},
        {NVML_GPU_INSTANCE_PROFILE_2_SLICE, 14, "2g.10gb", 2, 2, 3, 28, 2, 1, 0, 0, 0, 9856, PAIRS_2G},
        {NVML_GPU_INSTANCE_PROFILE_3_SLICE, 9, "3g.20gb", 3, 4, 2, 42, 3, 2, 0, 0, 0, 19968, HALVES},
        {NVML_GPU_INSTANCE_PROFILE_4_SLICE, 5, "4g.20gb", 4, 4, 1, 56, 4, 2, 0, 0, 0, 19968, WHOLE},
        {NVML_GPU_INSTANCE_PROFILE_7_SLICE, 0, "7g.40gb", 7, 8, 1, 98, 7, 5, 0, 1, 1, 40192, WHOLE},
    }},
};

#define NMODELS (sizeof(MODELS) / sizeof(MODELS[0]))

const struct sim_model *sim_model_find(const char *key) {
    for (size_t i = 0; i < NMODELS; i++) {
        if (strcasecmp(MODELS[i].key, key) == 0) return &MODELS[i];
    }
    return NULL;
}

const char *sim_model_known_list(void) {
    static char list[256];
    if (!list[0]) {
        size_t off = 0;
        for (size_t i = 0; i < NMODELS; i++) {
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", MODELS[i].key);
        }
    }
    return list;
}

const struct sim_profile *sim_profile_by_id(const struct sim_model *m, unsigned id) {
    for (unsigned i = 0; i < m->nprofiles; i++) {
        if (m->profiles[i].id == id) return &m->profiles[i];
    }
    return NULL;
}

const struct sim_profile *sim_profile_by_nvml(const struct sim_model *m, unsigned nvml_profile) {
    for (unsigned i = 0; i < m->nprofiles; i++) {
        if (m->profiles[i].nvml_profile == nvml_profile) return &m->profiles[i];
    }
    return NULL;
}

int sim_gi_id_for(unsigned start, unsigned size) {
    switch (size) {
    case 8: return start == 0 ? 0 : -1;
    case 4: return start % 4 == 0 && start < 8 ? 1 + (int)start / 4 : -1;
    case 2: return start % 2 == 0 && start < 8 ? 3 + (int)start / 2 : -1;
    case 1: return start < 8 ? 7 + (int)start : -1;
    default: return -1;
    }
}

int sim_ci_profile_slices(unsigned ci_profile) {
    switch (ci_profile) {
    case NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE: return 1;
    case NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE: return 2;
    case NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE: return 3;
    case NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE: return 4;
    case NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE: return 7;
    default: return -1;
    }
}

/* Compute placements are aligned to their size (3-slice ones to 4), like the driver lists them:
 * a 7-slice GPU instance takes 1c at 0..6, 2c at 0,2,4, 3c at 0,4, 4c at 0, 7c at 0. */
unsigned sim_ci_starts(unsigned gi_slices, unsigned ci_profile, unsigned *starts, unsigned max) {
    int size = sim_ci_profile_slices(ci_profile);
    if (size < 0 || (unsigned)size > gi_slices) return 0;
    unsigned step = size == 3 ? 4 : (unsigned)size;
    unsigned n = 0;
    for (unsigned s = 0; s + (unsigned)size <= gi_slices && n < max; s += step) starts[n++] = s;
    return n;
}
