/*
 * Internals of Horizon's simulated NVML driver: GPU models with their real MIG geometry, and the
 * simulated machine's state (MIG instances, processes, injected faults), which can be shared by
 * several processes through a state file (HORIZON_SIM_STATE).
 */
#ifndef HORIZON_SIM_H
#define HORIZON_SIM_H

#include <stddef.h>

#include "nvml_abi.h"

#define SIM_EXPORT __attribute__((visibility("default")))

#define SIM_MAX_GPUS 32
#define SIM_MAX_PROFILES 8
#define SIM_MAX_GI 15          /* GPU instance ids 0..14: one per aligned memory-slice range */
#define SIM_MAX_CI 8           /* compute instance ids inside a GPU instance */
#define SIM_MAX_PROCS 256
#define SIM_MAX_FAILS 64
#define SIM_MAX_XIDS 16
#define SIM_MEMORY_SLICES 8
#define SIM_COMPUTE_SLICES 7
#define SIM_NAME_LEN 64
#define SIM_ERR_LEN 512
#define SIM_NO_ID 0xFFFFFFFFu

/* One GPU instance profile as the driver lists it (nvidia-smi mig -lgip / -lgipp). */
struct sim_profile {
    unsigned nvml_profile;   /* NVML_GPU_INSTANCE_PROFILE_* the caller asks with */
    unsigned id;             /* profile id the driver answers (19 for 1g.10gb, ...) */
    const char *name;        /* without the "MIG " prefix */
    unsigned compute_slices;
    unsigned memory_slices;  /* placement size */
    unsigned instances;
    unsigned sm, ce, dec, enc, jpeg, ofa;
    unsigned long long memory_mib;
    unsigned nstarts;
    unsigned starts[SIM_COMPUTE_SLICES];
};

struct sim_model {
    const char *key;         /* what HORIZON_SIM_GPUS names: H100-80GB */
    const char *name;        /* what nvmlDeviceGetName answers */
    unsigned long long total_mib, reserved_mib;
    unsigned pci_device_id, pci_subsystem_id;
    unsigned sm_count;
    unsigned power_limit_w, idle_power_w;
    unsigned nprofiles;
    struct sim_profile profiles[SIM_MAX_PROFILES];
};

const struct sim_model *sim_model_find(const char *key);
const char *sim_model_known_list(void);
const struct sim_profile *sim_profile_by_id(const struct sim_model *m, unsigned id);
const struct sim_profile *sim_profile_by_nvml(const struct sim_model *m, unsigned nvml_profile);
/* GPU instance id for a memory-slice range: 0 for [0,8), 1-2 for halves, 3-6 quarters, 7-14 slices. */
int sim_gi_id_for(unsigned start, unsigned size);

struct sim_ci {
    int used;
    unsigned profile_id;     /* NVML_COMPUTE_INSTANCE_PROFILE_* (the id equals the enum value) */
    unsigned start, size;    /* compute slices inside the GPU instance */
};

struct sim_gi {
    int used;
    unsigned profile_id;
    unsigned start, size;    /* memory slices */
    struct sim_ci ci[SIM_MAX_CI];
};

struct sim_gpu {
    const struct sim_model *model;
    int mig_current, mig_pending;
    int compute_mode;
    int lost;
    int util_pinned;
    unsigned util_sm, util_mem;
    unsigned long long ecc_corrected, ecc_uncorrected;
    unsigned remapped_corr, remapped_unc, remap_pending, remap_failed;
    unsigned nxids;
    unsigned xids[SIM_MAX_XIDS];  /* queued Xid events, oldest first */
    struct sim_gi gi[SIM_MAX_GI];
};

struct sim_proc {
    unsigned pid;
    int gpu;
    unsigned gi, ci;             /* SIM_NO_ID when not on a MIG device */
    unsigned long long mem_mib;
    unsigned sm;                 /* share of the GPU it keeps busy, percent */
    char name[SIM_NAME_LEN];
};

struct sim_fail {
    int gpu;                     /* -1: every call of that function */
    char function[SIM_NAME_LEN];
    nvmlReturn_t code;
};

/* How the driver behaves towards this machine's processes, as set by `driver ...` (see sim_state.c). */
struct sim_driver {
    int unprivileged;            /* MIG changes and MIG instance reads answer NVML_ERROR_NO_PERMISSION */
    int mig_only_container;      /* only MIG devices visible: a MIG-enabled parent's memory answers NO_PERMISSION */
    int legacy_mig_uuids;        /* MIG-GPU-<GPU uuid>/<gi>/<ci>, as R450-R465 drivers name MIG devices */
};

struct sim_state {
    char spec[256];              /* canonical HORIZON_SIM_GPUS, e.g. 2xH100-80GB,1xA100-40GB */
    char node[SIM_NAME_LEN];     /* salt for UUIDs, HORIZON_SIM_NODE */
    int ngpus;
    struct sim_gpu gpus[SIM_MAX_GPUS];
    int nprocs;
    struct sim_proc procs[SIM_MAX_PROCS];
    int nfails;
    struct sim_fail fails[SIM_MAX_FAILS];
    struct sim_driver driver;
};

/* State: building, commands, persistence. Every function returns NVML_SUCCESS or an error code
 * and then leaves a sentence in err. */
nvmlReturn_t sim_state_from_spec(struct sim_state *st, const char *spec, const char *node, char *err, size_t errlen);
nvmlReturn_t sim_state_apply(struct sim_state *st, const char *line, char *err, size_t errlen);
nvmlReturn_t sim_state_parse(struct sim_state *st, const char *text, const char *origin, char *err, size_t errlen);
void sim_state_reset(struct sim_state *st);
size_t sim_state_format(const struct sim_state *st, char *buf, size_t len);

/* MIG operations shared by the API and by state commands. */
nvmlReturn_t sim_gi_create(struct sim_state *st, int gpu, unsigned profile_id, const nvmlGpuInstancePlacement_t *placement,
                           int *gi_id, char *err, size_t errlen);
nvmlReturn_t sim_ci_create(struct sim_state *st, int gpu, int gi_id, unsigned ci_profile, const nvmlComputeInstancePlacement_t *placement,
                           int *ci_id, char *err, size_t errlen);
unsigned sim_gi_remaining(const struct sim_state *st, int gpu, const struct sim_profile *p);
unsigned sim_ci_remaining(const struct sim_state *st, int gpu, int gi_id, unsigned ci_profile);
/* Compute-instance geometry inside a GPU instance of `gi_slices` compute slices. */
int sim_ci_profile_slices(unsigned ci_profile);
unsigned sim_ci_starts(unsigned gi_slices, unsigned ci_profile, unsigned *starts, unsigned max);
int sim_gpu_has_procs(const struct sim_state *st, int gpu, int gi, int ci);

const char *sim_error_name(nvmlReturn_t code);
int sim_error_parse(const char *text, nvmlReturn_t *code);

#endif
