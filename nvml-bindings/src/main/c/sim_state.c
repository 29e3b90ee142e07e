/*
 * The simulated machine's state and the one-line commands that change it. The state file
 * (HORIZON_SIM_STATE) is nothing but these commands, one per line, so that a person can append
 * "fault gpu=1 lost" to it and every process sharing it sees the GPU fall off the bus:
 *
 *   gpus 2xH100-80GB                          the GPUs (first line, fixed for the file's life)
 *   node NAME                                 salt for the GPU UUIDs (HORIZON_SIM_NODE)
 *   mig gpu=0 current=1 pending=1             MIG mode
 *   gi gpu=0 id=13 profile=19 start=6 size=1  a GPU instance (memory slices start:size)
 *   ci gpu=0 gi=13 id=0 profile=0 start=0 size=1   a compute instance inside it
 *   process gpu=0 pid=4242 mem=2048 [gi=13 ci=0] [sm=40] [name=train.py]   mem in MiB
 *   process-exit pid=4242
 *   util gpu=0 sm=75 mem=30 | util gpu=0 auto pin or free the utilization
 *   ecc gpu=0 corrected=2 uncorrected=0 remapped-corr=1 remapped-unc=0 remap-pending=0 remap-failed=0
 *   computemode gpu=0 mode=3
 *   fault gpu=1 lost                          every call on GPU 1 answers NVML_ERROR_GPU_IS_LOST
 *   fault gpu=0 xid=48                        queue an Xid event (nvmlEventSetWait delivers it once)
 *   fault [gpu=0] fail=nvmlDeviceGetPowerUsage:NOT_SUPPORTED   that call answers that code
 *   fault clear [gpu=0]                       remove injected faults
 *   driver [unprivileged=1] [container=mig-only] [mig-uuids=legacy]   how the driver treats this host's
 *                                             processes: a non-root user, a container that sees only MIG
 *                                             devices (nvidia-container-toolkit#842), R450-R465 MIG UUIDs
 *   reset                                     back to the initial state (same GPUs)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim.h"

static nvmlReturn_t fail(char *err, size_t errlen, nvmlReturn_t code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static nvmlReturn_t fail(char *err, size_t errlen, nvmlReturn_t code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

static const char *ERROR_NAMES[] = {
    "SUCCESS", "UNINITIALIZED", "INVALID_ARGUMENT", "NOT_SUPPORTED", "NO_PERMISSION",
    "ALREADY_INITIALIZED", "NOT_FOUND", "INSUFFICIENT_SIZE", "INSUFFICIENT_POWER",
    "DRIVER_NOT_LOADED", "TIMEOUT", "IRQ_ISSUE", "LIBRARY_NOT_FOUND", "FUNCTION_NOT_FOUND",
    "CORRUPTED_INFOROM", "GPU_IS_LOST", "RESET_REQUIRED", "OPERATING_SYSTEM",
    "LIB_RM_VERSION_MISMATCH", "IN_USE", "MEMORY", "NO_DATA", "VGPU_ECC_NOT_SUPPORTED",
    "INSUFFICIENT_RESOURCES", "FREQ_NOT_SUPPORTED", "ARGUMENT_VERSION_MISMATCH", "DEPRECATED",
    "NOT_READY", "GPU_NOT_FOUND", "INVALID_STATE", "RESET_TYPE_NOT_SUPPORTED",
};
#define NERROR_NAMES (sizeof(ERROR_NAMES) / sizeof(ERROR_NAMES[0]))

const char *sim_error_name(nvmlReturn_t code) {
    if ((unsigned)code < NERROR_NAMES) return ERROR_NAMES[code];
    return code == NVML_ERROR_UNKNOWN ? "UNKNOWN" : "?";
}

/* Accepts 15, GPU_IS_LOST or NVML_ERROR_GPU_IS_LOST. */
int sim_error_parse(const char *text, nvmlReturn_t *code) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*text && !*end && !errno) {
        if ((v >= 0 && v < (long)NERROR_NAMES) || v == NVML_ERROR_UNKNOWN) {
            *code = (nvmlReturn_t)v;
            return 1;
        }
        return 0;
    }
    const char *name = text;
    if (strncasecmp(name, "NVML_ERROR_", 11) == 0) name += 11;
    else if (strcasecmp(name, "NVML_SUCCESS") == 0) name = "SUCCESS";
    for (unsigned i = 0; i < NERROR_NAMES; i++) {
        if (strcasecmp(name, ERROR_NAMES[i]) == 0) {
            *code = (nvmlReturn_t)i;
            return 1;
        }
    }
    if (strcasecmp(name, "UNKNOWN") == 0) {
        *code = NVML_ERROR_UNKNOWN;
        return 1;
    }
    return 0;
}

/* ---- building the GPUs from HORIZON_SIM_GPUS ---- */

nvmlReturn_t sim_state_from_spec(struct sim_state *st, const char *spec, const char *node, char *err, size_t errlen) {
    memset(st, 0, sizeof *st);
    snprintf(st->node, sizeof st->node, "%s", node && *node ? node : "sim-node");
    char buf[256];
    if (!spec || !*spec) {
        return fail(err, errlen, NVML_ERROR_DRIVER_NOT_LOADED,
                    "HORIZON_SIM_GPUS is not set; set it to e.g. 2xH100-80GB (known models: %s)", sim_model_known_list());
    }
    if (strlen(spec) >= sizeof buf) {
        return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "HORIZON_SIM_GPUS is too long");
    }
    snprintf(buf, sizeof buf, "%s", spec);
    size_t off = 0;
    char *save = NULL;
    for (char *part = strtok_r(buf, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*part)) part++;
        char *tail = part + strlen(part);
        while (tail > part && isspace((unsigned char)tail[-1])) *--tail = 0;
        if (!*part) continue;
        long count = 1;
        char *model = part;
        char *x = strpbrk(part, "xX");
        if (x && x > part) {
            char *end;
            long n = strtol(part, &end, 10);
            if (end == x) {
                count = n;
                model = x + 1;
            }
        }
        const struct sim_model *m = sim_model_find(model);
        if (!m) {
            return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT,
                        "HORIZON_SIM_GPUS=\"%s\": unknown GPU model \"%s\"; known models: %s (e.g. HORIZON_SIM_GPUS=8xH100-80GB)",
                        spec, model, sim_model_known_list());
        }
        if (count < 1 || st->ngpus + count > SIM_MAX_GPUS) {
            return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT,
                        "HORIZON_SIM_GPUS=\"%s\": %ld GPUs of %s is out of range (1 to %d GPUs in all)", spec, count,
                        m->key, SIM_MAX_GPUS);
        }
        for (long i = 0; i < count; i++) st->gpus[st->ngpus++].model = m;
        off += (size_t)snprintf(st->spec + off, sizeof st->spec - off, "%s%ldx%s", off ? "," : "", count, m->key);
    }
    if (st->ngpus == 0) {
        return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "HORIZON_SIM_GPUS=\"%s\" names no GPU (known models: %s)",
                    spec, sim_model_known_list());
    }
    return NVML_SUCCESS;
}

void sim_state_reset(struct sim_state *st) {
    for (int g = 0; g < st->ngpus; g++) {
        const struct sim_model *m = st->gpus[g].model;
        memset(&st->gpus[g], 0, sizeof st->gpus[g]);
        st->gpus[g].model = m;
    }
    st->nprocs = 0;
    st->nfails = 0;
    memset(&st->driver, 0, sizeof st->driver);
}

/* ---- MIG geometry ---- */

static int ranges_overlap(unsigned a, unsigned alen, unsigned b, unsigned blen) {
    return a < b + blen && b < a + alen;
}

static unsigned gi_compute_used(const struct sim_gpu *gpu) {
    unsigned used = 0;
    for (int i = 0; i < SIM_MAX_GI; i++) {
        if (!gpu->gi[i].used) continue;
        const struct sim_profile *p = sim_profile_by_id(gpu->model, gpu->gi[i].profile_id);
        used += p ? p->compute_slices : 0;
    }
    return used;
}

static unsigned gi_count_of(const struct sim_gpu *gpu, unsigned profile_id) {
    unsigned n = 0;
    for (int i = 0; i < SIM_MAX_GI; i++) n += gpu->gi[i].used && gpu->gi[i].profile_id == profile_id;
    return n;
}

static int memory_free(const struct sim_gpu *gpu, unsigned start, unsigned size) {
    for (int i = 0; i < SIM_MAX_GI; i++) {
        if (gpu->gi[i].used && ranges_overlap(start, size, gpu->gi[i].start, gpu->gi[i].size)) return 0;
    }
    return 1;
}

/* How many still-free placements (of every profile) a new instance at start:size would take away.
 * The driver picks the placement that spoils the fewest, lowest start first: an empty H100 puts
 * a 3g.40gb at 4:4 (so a 4g.40gb still fits at 0) and a first 1g.10gb at 6:1. */
static unsigned placements_spoiled(const struct sim_gpu *gpu, unsigned start, unsigned size) {
    unsigned spoiled = 0;
    for (unsigned i = 0; i < gpu->model->nprofiles; i++) {
        const struct sim_profile *p = &gpu->model->profiles[i];
        for (unsigned k = 0; k < p->nstarts; k++) {
            unsigned s = p->starts[k];
            if (memory_free(gpu, s, p->memory_slices) && ranges_overlap(start, size, s, p->memory_slices)) spoiled++;
        }
    }
    return spoiled;
}

unsigned sim_gi_remaining(const struct sim_state *st, int gpu_index, const struct sim_profile *p) {
    const struct sim_gpu *gpu = &st->gpus[gpu_index];
    unsigned existing = gi_count_of(gpu, p->id);
    if (existing >= p->instances) return 0;
    unsigned free_compute = SIM_COMPUTE_SLICES - gi_compute_used(gpu);
    unsigned n = 0;
    for (unsigned k = 0; k < p->nstarts; k++) n += memory_free(gpu, p->starts[k], p->memory_slices);
    unsigned by_compute = free_compute / p->compute_slices;
    unsigned by_count = p->instances - existing;
    if (n > by_compute) n = by_compute;
    if (n > by_count) n = by_count;
    return n;
}

nvmlReturn_t sim_gi_create(struct sim_state *st, int gpu_index, unsigned profile_id, const nvmlGpuInstancePlacement_t *placement,
                           int *gi_id, char *err, size_t errlen) {
    struct sim_gpu *gpu = &st->gpus[gpu_index];
    if (!gpu->mig_current) {
        return fail(err, errlen, NVML_ERROR_NOT_SUPPORTED, "MIG mode is not enabled on GPU %d", gpu_index);
    }
    const struct sim_profile *p = sim_profile_by_id(gpu->model, profile_id);
    if (!p) {
        return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "GPU %d (%s) has no GPU instance profile id %u", gpu_index,
                    gpu->model->key, profile_id);
    }
    unsigned start;
    if (placement) {
        int listed = 0;
        for (unsigned k = 0; k < p->nstarts; k++) listed |= p->starts[k] == placement->start;
        if (!listed || placement->size != p->memory_slices) {
            return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "placement %u:%u is not a possible placement of %s",
                        placement->start, placement->size, p->name);
        }
        if (sim_gi_remaining(st, gpu_index, p) == 0 || !memory_free(gpu, placement->start, placement->size)) {
            return fail(err, errlen, NVML_ERROR_INSUFFICIENT_RESOURCES, "%s does not fit at %u:%u on GPU %d", p->name,
                        placement->start, placement->size, gpu_index);
        }
        start = placement->start;
    } else {
        if (sim_gi_remaining(st, gpu_index, p) == 0) {
            return fail(err, errlen, NVML_ERROR_INSUFFICIENT_RESOURCES, "no room left for %s on GPU %d", p->name, gpu_index);
        }
        unsigned best = 0, best_spoiled = ~0u;
        for (unsigned k = 0; k < p->nstarts; k++) {
            if (!memory_free(gpu, p->starts[k], p->memory_slices)) continue;
            unsigned spoiled = placements_spoiled(gpu, p->starts[k], p->memory_slices);
            if (spoiled < best_spoiled) {
                best_spoiled = spoiled;
                best = p->starts[k];
            }
        }
        start = best;
    }
    int id = sim_gi_id_for(start, p->memory_slices);
    if (id < 0 || gpu->gi[id].used) {
        return fail(err, errlen, NVML_ERROR_INSUFFICIENT_RESOURCES, "%s does not fit at %u:%u on GPU %d", p->name, start,
                    p->memory_slices, gpu_index);
    }
    memset(&gpu->gi[id], 0, sizeof gpu->gi[id]);
    gpu->gi[id].used = 1;
    gpu->gi[id].profile_id = p->id;
    gpu->gi[id].start = start;
    gpu->gi[id].size = p->memory_slices;
    *gi_id = id;
    return NVML_SUCCESS;
}

static unsigned gi_compute_slices(const struct sim_gpu *gpu, int gi_id) {
    const struct sim_profile *p = sim_profile_by_id(gpu->model, gpu->gi[gi_id].profile_id);
    return p ? p->compute_slices : 0;
}

static int ci_slot_free(const struct sim_gi *gi, unsigned start, unsigned size) {
    for (int c = 0; c < SIM_MAX_CI; c++) {
        if (gi->ci[c].used && ranges_overlap(start, size, gi->ci[c].start, gi->ci[c].size)) return 0;
    }
    return 1;
}

unsigned sim_ci_remaining(const struct sim_state *st, int gpu_index, int gi_id, unsigned ci_profile) {
    const struct sim_gpu *gpu = &st->gpus[gpu_index];
    const struct sim_gi *gi = &gpu->gi[gi_id];
    unsigned starts[SIM_COMPUTE_SLICES];
    unsigned n = sim_ci_starts(gi_compute_slices(gpu, gi_id), ci_profile, starts, SIM_COMPUTE_SLICES);
    unsigned size = (unsigned)sim_ci_profile_slices(ci_profile);
    unsigned free_slots = 0;
    for (unsigned k = 0; k < n; k++) free_slots += ci_slot_free(gi, starts[k], size);
    return free_slots;
}

nvmlReturn_t sim_ci_create(struct sim_state *st, int gpu_index, int gi_id, unsigned ci_profile, const nvmlComputeInstancePlacement_t *placement,
                           int *ci_id, char *err, size_t errlen) {
    struct sim_gpu *gpu = &st->gpus[gpu_index];
    if (gi_id < 0 || gi_id >= SIM_MAX_GI || !gpu->gi[gi_id].used) {
        return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "GPU %d has no GPU instance %d", gpu_index, gi_id);
    }
    struct sim_gi *gi = &gpu->gi[gi_id];
    unsigned starts[SIM_COMPUTE_SLICES];
    unsigned n = sim_ci_starts(gi_compute_slices(gpu, gi_id), ci_profile, starts, SIM_COMPUTE_SLICES);
    if (n == 0) {
        return fail(err, errlen, NVML_ERROR_NOT_SUPPORTED, "compute instance profile %u does not fit GPU instance %d",
                    ci_profile, gi_id);
    }
    unsigned size = (unsigned)sim_ci_profile_slices(ci_profile);
    int chosen = -1;
    for (unsigned k = 0; k < n; k++) {
        if (placement && (placement->start != starts[k] || placement->size != size)) continue;
        if (ci_slot_free(gi, starts[k], size)) {
            chosen = (int)starts[k];
            break;
        }
        if (placement) break;
    }
    if (placement && chosen < 0) {
        int possible = 0;
        for (unsigned k = 0; k < n; k++) possible |= placement->start == starts[k] && placement->size == size;
        if (!possible) {
            return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "compute placement %u:%u is not possible",
                        placement->start, placement->size);
        }
    }
    int id = -1;
    for (int c = 0; c < SIM_MAX_CI && id < 0; c++) {
        if (!gi->ci[c].used) id = c;
    }
    if (chosen < 0 || id < 0) {
        return fail(err, errlen, NVML_ERROR_INSUFFICIENT_RESOURCES, "no room for that compute instance in GPU instance %d",
                    gi_id);
    }
    gi->ci[id].used = 1;
    gi->ci[id].profile_id = ci_profile;
    gi->ci[id].start = (unsigned)chosen;
    gi->ci[id].size = size;
    *ci_id = id;
    return NVML_SUCCESS;
}

int sim_gpu_has_procs(const struct sim_state *st, int gpu, int gi, int ci) {
    for (int i = 0; i < st->nprocs; i++) {
        const struct sim_proc *p = &st->procs[i];
        if (p->gpu != gpu) continue;
        if (gi >= 0 && p->gi != (unsigned)gi) continue;
        if (ci >= 0 && p->ci != (unsigned)ci) continue;
        return 1;
    }
    return 0;
}

/* ---- commands ---- */

#define MAX_ARGS 12

struct args {
    int n;
    char *key[MAX_ARGS];
    char *val[MAX_ARGS]; /* NULL for a bare word such as "lost" */
};

static const char *arg(const struct args *a, const char *key) {
    for (int i = 0; i < a->n; i++) {
        if (strcmp(a->key[i], key) == 0) return a->val[i] ? a->val[i] : "";
    }
    return NULL;
}

static int has_word(const struct args *a, const char *word) {
    for (int i = 0; i < a->n; i++) {
        if (!a->val[i] && strcmp(a->key[i], word) == 0) return 1;
    }
    return 0;
}

static int num(const struct args *a, const char *key, unsigned long long *out, char *err, size_t errlen) {
    const char *v = arg(a, key);
    if (!v) return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-') {
        fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "%s=%s is not a number", key, v);
        return -1;
    }
    *out = n;
    return 1;
}

/* Reads key as a number; `required` makes its absence an error. Returns NVML_SUCCESS or the error. */
static nvmlReturn_t need(const struct args *a, const char *key, int required, unsigned long long *out, char *err, size_t errlen) {
    int r = num(a, key, out, err, errlen);
    if (r < 0) return NVML_ERROR_INVALID_ARGUMENT;
    if (r == 0 && required) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "missing %s=", key);
    return NVML_SUCCESS;
}

static nvmlReturn_t need_gpu(const struct sim_state *st, const struct args *a, int *gpu, char *err, size_t errlen) {
    unsigned long long g;
    nvmlReturn_t r = need(a, "gpu", 1, &g, err, errlen);
    if (r) return r;
    if (g >= (unsigned long long)st->ngpus) {
        return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "gpu=%llu does not exist (the simulated GPUs are 0..%d)", g,
                    st->ngpus - 1);
    }
    *gpu = (int)g;
    return NVML_SUCCESS;
}

#define TRY(expr)                       \
    do {                                \
        nvmlReturn_t r_ = (expr);       \
        if (r_ != NVML_SUCCESS) return r_; \
    } while (0)

static nvmlReturn_t cmd_mig(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    int g;
    unsigned long long cur = 0, pend = 0;
    TRY(need_gpu(st, a, &g, err, errlen));
    TRY(need(a, "current", 1, &cur, err, errlen));
    TRY(need(a, "pending", 0, &pend, err, errlen));
    if (!arg(a, "pending")) pend = cur;
    if (!cur) {
        for (int i = 0; i < SIM_MAX_GI; i++) {
            if (st->gpus[g].gi[i].used) {
                return fail(err, errlen, NVML_ERROR_IN_USE, "GPU %d still has GPU instances; destroy them first", g);
            }
        }
    }
    st->gpus[g].mig_current = cur != 0;
    st->gpus[g].mig_pending = pend != 0;
    return NVML_SUCCESS;
}

static nvmlReturn_t cmd_gi(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    int g, id;
    unsigned long long want_id, profile, start, size;
    TRY(need_gpu(st, a, &g, err, errlen));
    TRY(need(a, "id", 1, &want_id, err, errlen));
    TRY(need(a, "profile", 1, &profile, err, errlen));
    TRY(need(a, "start", 1, &start, err, errlen));
    TRY(need(a, "size", 1, &size, err, errlen));
    nvmlGpuInstancePlacement_t pl = {(unsigned)start, (unsigned)size};
    TRY(sim_gi_create(st, g, (unsigned)profile, &pl, &id, err, errlen));
    if ((unsigned long long)id != want_id) {
        st->gpus[g].gi[id].used = 0;
        return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "GPU instance at %llu:%llu has id %d, not %llu", start, size,
                    id, want_id);
    }
    return NVML_SUCCESS;
}

static nvmlReturn_t cmd_ci(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    int g, id;
    unsigned long long gi, want_id, profile, start, size;
    TRY(need_gpu(st, a, &g, err, errlen));
    TRY(need(a, "gi", 1, &gi, err, errlen));
    TRY(need(a, "id", 1, &want_id, err, errlen));
    TRY(need(a, "profile", 1, &profile, err, errlen));
    TRY(need(a, "start", 1, &start, err, errlen));
    TRY(need(a, "size", 1, &size, err, errlen));
    if (gi >= SIM_MAX_GI || want_id >= SIM_MAX_CI) {
        return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "gi=%llu id=%llu is out of range", gi, want_id);
    }
    nvmlComputeInstancePlacement_t pl = {(unsigned)start, (unsigned)size};
    TRY(sim_ci_create(st, g, (int)gi, (unsigned)profile, &pl, &id, err, errlen));
    if ((unsigned long long)id != want_id) {
        /* ids are handed out lowest first; a file may name a higher one, so move it there */
        struct sim_gi *gp = &st->gpus[g].gi[gi];
        if (gp->ci[want_id].used) {
            gp->ci[id].used = 0;
            return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "compute instance %llu already exists", want_id);
        }
        gp->ci[want_id] = gp->ci[id];
        gp->ci[id].used = 0;
    }
    return NVML_SUCCESS;
}

static nvmlReturn_t cmd_process(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    int g;
    unsigned long long pid, mem, gi = SIM_NO_ID, ci = SIM_NO_ID, sm = 50;
    TRY(need_gpu(st, a, &g, err, errlen));
    TRY(need(a, "pid", 1, &pid, err, errlen));
    TRY(need(a, "mem", 1, &mem, err, errlen));
    TRY(need(a, "gi", 0, &gi, err, errlen));
    TRY(need(a, "ci", 0, &ci, err, errlen));
    TRY(need(a, "sm", 0, &sm, err, errlen));
    struct sim_gpu *gpu = &st->gpus[g];
    if (gpu->mig_current && (gi == SIM_NO_ID || ci == SIM_NO_ID)) {
        return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "GPU %d is in MIG mode: a process needs gi= and ci=", g);
    }
    if (gi != SIM_NO_ID) {
        if (!gpu->mig_current || gi >= SIM_MAX_GI || ci >= SIM_MAX_CI || !gpu->gi[gi].used || !gpu->gi[gi].ci[ci].used) {
            return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "GPU %d has no MIG device gi=%llu ci=%llu", g, gi, ci);
        }
    }
    unsigned long long capacity = gpu->model->total_mib - gpu->model->reserved_mib;
    if (gi != SIM_NO_ID) capacity = sim_profile_by_id(gpu->model, gpu->gi[gi].profile_id)->memory_mib;
    unsigned long long in_use = 0;
    for (int i = 0; i < st->nprocs; i++) {
        if (st->procs[i].gpu == g && st->procs[i].gi == (unsigned)gi) in_use += st->procs[i].mem_mib;
    }
    if (in_use + mem > capacity) {
        return fail(err, errlen, NVML_ERROR_MEMORY, "pid %llu wants %llu MiB but only %llu MiB are free there", pid, mem,
                    capacity - in_use);
    }
    if (st->nprocs >= SIM_MAX_PROCS) return fail(err, errlen, NVML_ERROR_MEMORY, "too many simulated processes");
    struct sim_proc *p = &st->procs[st->nprocs++];
    memset(p, 0, sizeof *p);
    p->pid = (unsigned)pid;
    p->gpu = g;
    p->gi = (unsigned)gi;
    p->ci = (unsigned)ci;
    p->mem_mib = mem;
    p->sm = sm > 100 ? 100 : (unsigned)sm;
    const char *name = arg(a, "name");
    snprintf(p->name, sizeof p->name, "%s", name && *name ? name : "python3");
    return NVML_SUCCESS;
}

static nvmlReturn_t cmd_process_exit(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    unsigned long long pid;
    TRY(need(a, "pid", 1, &pid, err, errlen));
    int kept = 0, removed = 0;
    for (int i = 0; i < st->nprocs; i++) {
        if (st->procs[i].pid == pid) removed++;
        else st->procs[kept++] = st->procs[i];
    }
    st->nprocs = kept;
    return removed ? NVML_SUCCESS : fail(err, errlen, NVML_ERROR_NOT_FOUND, "no simulated process with pid %llu", pid);
}

static nvmlReturn_t cmd_util(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    int g;
    unsigned long long sm = 0, mem = 0;
    TRY(need_gpu(st, a, &g, err, errlen));
    if (has_word(a, "auto")) {
        st->gpus[g].util_pinned = 0;
        return NVML_SUCCESS;
    }
    TRY(need(a, "sm", 1, &sm, err, errlen));
    TRY(need(a, "mem", 0, &mem, err, errlen));
    if (sm > 100 || mem > 100) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "utilization is a percentage");
    st->gpus[g].util_pinned = 1;
    st->gpus[g].util_sm = (unsigned)sm;
    st->gpus[g].util_mem = (unsigned)mem;
    return NVML_SUCCESS;
}

static nvmlReturn_t cmd_ecc(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    int g;
    TRY(need_gpu(st, a, &g, err, errlen));
    struct sim_gpu *gpu = &st->gpus[g];
    unsigned long long v;
    struct { const char *key; unsigned long long *wide; unsigned *narrow; } fields[] = {
        {"corrected", &gpu->ecc_corrected, NULL}, {"uncorrected", &gpu->ecc_uncorrected, NULL},
        {"remapped-corr", NULL, &gpu->remapped_corr}, {"remapped-unc", NULL, &gpu->remapped_unc},
        {"remap-pending", NULL, &gpu->remap_pending}, {"remap-failed", NULL, &gpu->remap_failed},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        int r = num(a, fields[i].key, &v, err, errlen);
        if (r < 0) return NVML_ERROR_INVALID_ARGUMENT;
        if (r == 0) continue;
        if (fields[i].wide) *fields[i].wide = v;
        else *fields[i].narrow = (unsigned)v;
    }
    return NVML_SUCCESS;
}

static nvmlReturn_t cmd_computemode(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    int g;
    unsigned long long mode;
    TRY(need_gpu(st, a, &g, err, errlen));
    TRY(need(a, "mode", 1, &mode, err, errlen));
    if (mode > NVML_COMPUTEMODE_EXCLUSIVE_PROCESS) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "mode is 0..3");
    st->gpus[g].compute_mode = (int)mode;
    return NVML_SUCCESS;
}

static nvmlReturn_t cmd_fault(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    int g = -1;
    if (arg(a, "gpu")) TRY(need_gpu(st, a, &g, err, errlen));
    if (has_word(a, "clear")) {
        for (int i = 0; i < st->ngpus; i++) {
            if (g >= 0 && i != g) continue;
            st->gpus[i].lost = 0;
            st->gpus[i].nxids = 0;
        }
        int kept = 0;
        for (int i = 0; i < st->nfails; i++) {
            if (g >= 0 && st->fails[i].gpu != g) st->fails[kept++] = st->fails[i];
        }
        st->nfails = kept;
        return NVML_SUCCESS;
    }
    if (has_word(a, "lost")) {
        if (g < 0) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "fault lost needs gpu=");
        st->gpus[g].lost = 1;
        return NVML_SUCCESS;
    }
    if (arg(a, "xid")) {
        unsigned long long xid;
        TRY(need(a, "xid", 1, &xid, err, errlen));
        if (g < 0) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "fault xid= needs gpu=");
        struct sim_gpu *gpu = &st->gpus[g];
        if (gpu->nxids >= SIM_MAX_XIDS) return fail(err, errlen, NVML_ERROR_MEMORY, "too many queued Xid events");
        gpu->xids[gpu->nxids++] = (unsigned)xid;
        return NVML_SUCCESS;
    }
    const char *spec = arg(a, "fail");
    if (spec) {
        const char *colon = strrchr(spec, ':');
        nvmlReturn_t code;
        if (!colon || colon == spec || !sim_error_parse(colon + 1, &code) || code == NVML_SUCCESS) {
            return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT,
                        "fail=%s: expected FUNCTION:CODE, e.g. fail=nvmlDeviceGetPowerUsage:NOT_SUPPORTED", spec);
        }
        size_t len = (size_t)(colon - spec);
        if (len >= SIM_NAME_LEN) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "function name too long");
        struct sim_fail *f = NULL;
        for (int i = 0; i < st->nfails && !f; i++) {
            if (st->fails[i].gpu == g && strlen(st->fails[i].function) == len && strncmp(st->fails[i].function, spec, len) == 0) {
                f = &st->fails[i];
            }
        }
        if (!f) {
            if (st->nfails >= SIM_MAX_FAILS) return fail(err, errlen, NVML_ERROR_MEMORY, "too many injected failures");
            f = &st->fails[st->nfails++];
            memset(f, 0, sizeof *f);
            f->gpu = g;
            memcpy(f->function, spec, len);
        }
        f->code = code;
        return NVML_SUCCESS;
    }
    return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT,
                "fault: expected lost, xid=N, fail=FUNCTION:CODE or clear");
}

/* One key=value of `driver`: "0"/"1", or one of two words. Returns 1 when set, 0 when absent, -1 on a bad value. */
static int flag(const struct args *a, const char *key, const char *off, const char *on, int *out, char *err, size_t errlen) {
    const char *v = arg(a, key);
    if (!v) return 0;
    if (strcmp(v, on) == 0 || strcmp(v, "1") == 0) *out = 1;
    else if (strcmp(v, off) == 0 || strcmp(v, "0") == 0) *out = 0;
    else {
        fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "driver %s=%s: expected %s or %s", key, v, off, on);
        return -1;
    }
    return 1;
}

static nvmlReturn_t cmd_driver(struct sim_state *st, const struct args *a, char *err, size_t errlen) {
    struct sim_driver d = st->driver;
    int set = 0, r;
    if ((r = flag(a, "unprivileged", "0", "1", &d.unprivileged, err, errlen)) < 0) return NVML_ERROR_INVALID_ARGUMENT;
    set += r;
    if ((r = flag(a, "container", "all", "mig-only", &d.mig_only_container, err, errlen)) < 0) return NVML_ERROR_INVALID_ARGUMENT;
    set += r;
    if ((r = flag(a, "mig-uuids", "modern", "legacy", &d.legacy_mig_uuids, err, errlen)) < 0) return NVML_ERROR_INVALID_ARGUMENT;
    set += r;
    if (set != a->n) {
        return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT,
                    "driver takes unprivileged=0|1, container=all|mig-only and mig-uuids=modern|legacy");
    }
    st->driver = d;
    return NVML_SUCCESS;
}

nvmlReturn_t sim_state_apply(struct sim_state *st, const char *line, char *err, size_t errlen) {
    char buf[512];
    while (isspace((unsigned char)*line)) line++;
    if (!*line || *line == '#') return NVML_SUCCESS;
    if (strlen(line) >= sizeof buf) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "command too long");
    snprintf(buf, sizeof buf, "%s", line);
    char *save = NULL;
    char *verb = strtok_r(buf, " \t\r\n", &save);
    struct args a = {0};
    for (char *tok = strtok_r(NULL, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (a.n == MAX_ARGS) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "too many arguments");
        char *eq = strchr(tok, '=');
        if (eq) *eq = 0;
        a.key[a.n] = tok;
        a.val[a.n] = eq ? eq + 1 : NULL;
        a.n++;
    }
    if (strcmp(verb, "gpus") == 0) {
        if (a.n != 1 || a.val[0]) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "gpus takes one spec");
        struct sim_state probe;
        TRY(sim_state_from_spec(&probe, a.key[0], st->node, err, errlen));
        if (st->ngpus == 0) {
            /* first line of a state file: take its GPUs */
            char node[SIM_NAME_LEN];
            snprintf(node, sizeof node, "%s", st->node);
            *st = probe;
            snprintf(st->node, sizeof st->node, "%s", node);
            return NVML_SUCCESS;
        }
        if (strcmp(probe.spec, st->spec) != 0) {
            return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "the simulated GPUs are %s and cannot change to %s",
                        st->spec, probe.spec);
        }
        return NVML_SUCCESS;
    }
    if (strcmp(verb, "node") == 0) {
        if (a.n != 1 || a.val[0]) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "node takes one name");
        snprintf(st->node, sizeof st->node, "%s", a.key[0]);
        return NVML_SUCCESS;
    }
    if (st->ngpus == 0) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "the first command must be: gpus SPEC");
    if (strcmp(verb, "reset") == 0) {
        sim_state_reset(st);
        return NVML_SUCCESS;
    }
    if (strcmp(verb, "mig") == 0) return cmd_mig(st, &a, err, errlen);
    if (strcmp(verb, "gi") == 0) return cmd_gi(st, &a, err, errlen);
    if (strcmp(verb, "ci") == 0) return cmd_ci(st, &a, err, errlen);
    if (strcmp(verb, "process") == 0) return cmd_process(st, &a, err, errlen);
    if (strcmp(verb, "process-exit") == 0) return cmd_process_exit(st, &a, err, errlen);
    if (strcmp(verb, "util") == 0) return cmd_util(st, &a, err, errlen);
    if (strcmp(verb, "ecc") == 0) return cmd_ecc(st, &a, err, errlen);
    if (strcmp(verb, "computemode") == 0) return cmd_computemode(st, &a, err, errlen);
    if (strcmp(verb, "fault") == 0) return cmd_fault(st, &a, err, errlen);
    if (strcmp(verb, "driver") == 0) return cmd_driver(st, &a, err, errlen);
    return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT,
                "unknown command \"%s\" (known: gpus node reset mig gi ci process process-exit util ecc computemode fault driver)",
                verb);
}

nvmlReturn_t sim_state_parse(struct sim_state *st, const char *text, const char *origin, char *err, size_t errlen) {
    char line[512];
    int lineno = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        if (len >= sizeof line) return fail(err, errlen, NVML_ERROR_INVALID_ARGUMENT, "%s:%d: line too long", origin, lineno);
        memcpy(line, p, len);
        line[len] = 0;
        char inner[SIM_ERR_LEN];
        nvmlReturn_t r = sim_state_apply(st, line, inner, sizeof inner);
        if (r != NVML_SUCCESS) return fail(err, errlen, r, "%s:%d: %s", origin, lineno, inner);
        p += len + (nl ? 1 : 0);
    }
    return NVML_SUCCESS;
}

#define EMIT(...)                                                       \
    do {                                                                \
        int n_ = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__); \
        if (n_ > 0) off += (size_t)n_;                                  \
    } while (0)

size_t sim_state_format(const struct sim_state *st, char *buf, size_t len) {
    size_t off = 0;
    EMIT("# Horizon simulated NVML state: one command per line (see nvml-bindings/README.md).\n");
    EMIT("gpus %s\nnode %s\n", st->spec, st->node);
    const struct sim_driver *d = &st->driver;
    if (d->unprivileged || d->mig_only_container || d->legacy_mig_uuids) {
        EMIT("driver unprivileged=%d container=%s mig-uuids=%s\n", d->unprivileged, d->mig_only_container ? "mig-only" : "all",
             d->legacy_mig_uuids ? "legacy" : "modern");
    }
    for (int g = 0; g < st->ngpus; g++) {
        const struct sim_gpu *gpu = &st->gpus[g];
        if (gpu->mig_current || gpu->mig_pending) EMIT("mig gpu=%d current=%d pending=%d\n", g, gpu->mig_current, gpu->mig_pending);
        if (gpu->compute_mode) EMIT("computemode gpu=%d mode=%d\n", g, gpu->compute_mode);
        if (gpu->util_pinned) EMIT("util gpu=%d sm=%u mem=%u\n", g, gpu->util_sm, gpu->util_mem);
        if (gpu->ecc_corrected || gpu->ecc_uncorrected || gpu->remapped_corr || gpu->remapped_unc || gpu->remap_pending || gpu->remap_failed) {
            EMIT("ecc gpu=%d corrected=%llu uncorrected=%llu remapped-corr=%u remapped-unc=%u remap-pending=%u remap-failed=%u\n",
                 g, gpu->ecc_corrected, gpu->ecc_uncorrected, gpu->remapped_corr, gpu->remapped_unc, gpu->remap_pending,
                 gpu->remap_failed);
        }
        for (int i = 0; i < SIM_MAX_GI; i++) {
            const struct sim_gi *gi = &gpu->gi[i];
            if (!gi->used) continue;
            EMIT("gi gpu=%d id=%d profile=%u start=%u size=%u\n", g, i, gi->profile_id, gi->start, gi->size);
            for (int c = 0; c < SIM_MAX_CI; c++) {
                const struct sim_ci *ci = &gi->ci[c];
                if (ci->used) EMIT("ci gpu=%d gi=%d id=%d profile=%u start=%u size=%u\n", g, i, c, ci->profile_id, ci->start, ci->size);
            }
        }
        if (gpu->lost) EMIT("fault gpu=%d lost\n", g);
        for (unsigned x = 0; x < gpu->nxids; x++) EMIT("fault gpu=%d xid=%u\n", g, gpu->xids[x]);
    }
    for (int i = 0; i < st->nprocs; i++) {
        const struct sim_proc *p = &st->procs[i];
        EMIT("process gpu=%d pid=%u mem=%llu", p->gpu, p->pid, p->mem_mib);
        if (p->gi != SIM_NO_ID) EMIT(" gi=%u ci=%u", p->gi, p->ci);
        EMIT(" sm=%u name=%s\n", p->sm, p->name);
    }
    for (int i = 0; i < st->nfails; i++) {
        const struct sim_fail *f = &st->fails[i];
        if (f->gpu >= 0) EMIT("fault gpu=%d fail=%s:%s\n", f->gpu, f->function, sim_error_name(f->code));
        else EMIT("fault fail=%s:%s\n", f->function, sim_error_name(f->code));
    }
    return off;
}
