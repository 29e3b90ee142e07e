/*
 * Horizon's simulated libnvidia-ml: the NVML functions Horizon calls, answering for the GPUs named
 * by HORIZON_SIM_GPUS with the real models' names, memory and MIG geometry, and the return codes
 * the driver uses (NVML_ERROR_INSUFFICIENT_RESOURCES when an instance does not fit,
 * NVML_ERROR_GPU_IS_LOST for a GPU that fell off the bus, ...).
 *
 * Environment, read by the first nvmlInit of a process:
 *   HORIZON_SIM_GPUS          e.g. 8xH100-80GB or 4xA100-80GB,4xH100-80GB
 *   HORIZON_SIM_STATE         optional file with the state, shared by every process that names it
 *   HORIZON_SIM_FAULTS        optional commands applied when the state is created, ';'-separated,
 *                             e.g. "fault gpu=1 lost;fault gpu=0 xid=48"
 *   HORIZON_SIM_NODE          optional salt for the GPU UUIDs (two simulated nodes, distinct UUIDs)
 *   HORIZON_SIM_UNPRIVILEGED  =1: MIG changes and MIG instance reads answer NVML_ERROR_NO_PERMISSION, as
 *                             for a non-root user (the state command `driver unprivileged=1` does the same)
 *
 * Thread-safe: one mutex in the process, and an flock on "<state file>.lock" between processes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

#define DRIVER_VERSION "550.90.07"
#define NVML_VERSION "12.550.90.07"
#define CUDA_DRIVER_VERSION 12040
#define MAGIC_DEV 0x4e564d4cu
#define MAGIC_GI 0x4e564749u
#define MAGIC_CI 0x4e564349u
#define MAGIC_EVENTS 0x4e564556u

struct nvmlDevice_st { unsigned magic; int gpu, gi, ci; };
struct nvmlGpuInstance_st { unsigned magic; int gpu, gi; };
struct nvmlComputeInstance_st { unsigned magic; int gpu, gi, ci; };
struct nvmlEventSet_st { unsigned magic; unsigned long long mask[SIM_MAX_GPUS]; };

/* Handles stay valid for the life of the process; whether they still name something is checked
 * against the state on every call (a destroyed instance's handle answers INVALID_ARGUMENT). */
static struct nvmlDevice_st g_devs[SIM_MAX_GPUS];
static struct nvmlDevice_st g_migs[SIM_MAX_GPUS][SIM_MAX_GI][SIM_MAX_CI];
static struct nvmlGpuInstance_st g_gis[SIM_MAX_GPUS][SIM_MAX_GI];
static struct nvmlComputeInstance_st g_cis[SIM_MAX_GPUS][SIM_MAX_GI][SIM_MAX_CI];

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sim_state g_st, g_tmp;
static int g_configured, g_init_count, g_unprivileged;
static char g_state_path[4096];
static int g_lock_fd = -1;
static struct stat g_seen;
static int g_seen_valid;
static __thread char g_last_error[SIM_ERR_LEN];

/* ---- state file ---- */

static void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_last_error, sizeof g_last_error, fmt, ap);
    va_end(ap);
}

static int same_file_version(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 8192, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (len < cap - 1) break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (buf) buf[len] = 0;
    return buf;
}

/* Loads the state file into g_tmp. Returns NVML_SUCCESS, or NVML_ERROR_NOT_FOUND when the file is
 * missing or empty. */
static nvmlReturn_t load_file(struct stat *seen) {
    if (stat(g_state_path, seen) != 0 || seen->st_size == 0) return NVML_ERROR_NOT_FOUND;
    char *text = read_file(g_state_path);
    if (!text) {
        set_error("HORIZON_SIM_STATE=%s cannot be read: %s", g_state_path, strerror(errno));
        return NVML_ERROR_UNKNOWN;
    }
    memset(&g_tmp, 0, sizeof g_tmp);
    snprintf(g_tmp.node, sizeof g_tmp.node, "%s", g_st.node[0] ? g_st.node : "sim-node");
    char err[SIM_ERR_LEN];
    nvmlReturn_t r = sim_state_parse(&g_tmp, text, g_state_path, err, sizeof err);
    free(text);
    if (r != NVML_SUCCESS) {
        set_error("HORIZON_SIM_STATE %s", err);
        return r;
    }
    return NVML_SUCCESS;
}

static nvmlReturn_t reload_if_changed(void) {
    if (!g_state_path[0]) return NVML_SUCCESS;
    struct stat now;
    if (stat(g_state_path, &now) != 0) return NVML_SUCCESS; /* removed: keep what we have, the next change recreates it */
    if (g_seen_valid && same_file_version(&now, &g_seen)) return NVML_SUCCESS;
    nvmlReturn_t r = load_file(&now);
    if (r == NVML_ERROR_NOT_FOUND) return NVML_SUCCESS;
    if (r != NVML_SUCCESS) return r;
    if (strcmp(g_tmp.spec, g_st.spec) != 0) {
        set_error("HORIZON_SIM_STATE=%s now holds GPUs %s, this process simulates %s", g_state_path, g_tmp.spec, g_st.spec);
        return NVML_ERROR_INVALID_STATE;
    }
    g_st = g_tmp;
    g_seen = now;
    g_seen_valid = 1;
    return NVML_SUCCESS;
}

static nvmlReturn_t save(void) {
    if (!g_state_path[0]) return NVML_SUCCESS;
    size_t cap = 65536;
    char *buf = NULL;
    for (;;) {
        char *bigger = realloc(buf, cap);
        if (!bigger) {
            free(buf);
            return NVML_ERROR_MEMORY;
        }
        buf = bigger;
        size_t need = sim_state_format(&g_st, buf, cap);
        if (need < cap) break;
        cap = need + 1;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", g_state_path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    int ok = f && fputs(buf, f) >= 0;
    if (f && fclose(f) != 0) ok = 0;
    free(buf);
    if (!ok || rename(tmp, g_state_path) != 0) {
        set_error("cannot write HORIZON_SIM_STATE=%s: %s", g_state_path, strerror(errno));
        unlink(tmp);
        return NVML_ERROR_UNKNOWN;
    }
    g_seen_valid = stat(g_state_path, &g_seen) == 0;
    return NVML_SUCCESS;
}

static void file_lock(int exclusive) {
    if (g_lock_fd >= 0) {
        while (flock(g_lock_fd, exclusive ? LOCK_EX : LOCK_SH) != 0 && errno == EINTR) {}
    }
}

static void file_unlock(void) {
    if (g_lock_fd >= 0) flock(g_lock_fd, LOCK_UN);
}

static void init_handles(void) {
    for (int g = 0; g < SIM_MAX_GPUS; g++) {
        g_devs[g] = (struct nvmlDevice_st){MAGIC_DEV, g, -1, -1};
        for (int i = 0; i < SIM_MAX_GI; i++) {
            g_gis[g][i] = (struct nvmlGpuInstance_st){MAGIC_GI, g, i};
            for (int c = 0; c < SIM_MAX_CI; c++) {
                g_migs[g][i][c] = (struct nvmlDevice_st){MAGIC_DEV, g, i, c};
                g_cis[g][i][c] = (struct nvmlComputeInstance_st){MAGIC_CI, g, i, c};
            }
        }
    }
}

static nvmlReturn_t apply_env_faults(void) {
    const char *faults = getenv("HORIZON_SIM_FAULTS");
    if (!faults || !*faults) return NVML_SUCCESS;
    char *copy = strdup(faults), *save_ptr = NULL;
    if (!copy) return NVML_ERROR_MEMORY;
    nvmlReturn_t r = NVML_SUCCESS;
    for (char *cmd = strtok_r(copy, ";", &save_ptr); cmd && r == NVML_SUCCESS; cmd = strtok_r(NULL, ";", &save_ptr)) {
        char err[SIM_ERR_LEN];
        r = sim_state_apply(&g_st, cmd, err, sizeof err);
        if (r != NVML_SUCCESS) set_error("HORIZON_SIM_FAULTS \"%s\": %s", cmd, err);
    }
    free(copy);
    return r;
}

/* Reads the environment once per process (under g_mu). */
static nvmlReturn_t configure(void) {
    if (g_configured) return NVML_SUCCESS;
    const char *spec = getenv("HORIZON_SIM_GPUS");
    const char *node = getenv("HORIZON_SIM_NODE");
    const char *path = getenv("HORIZON_SIM_STATE");
    const char *unpriv = getenv("HORIZON_SIM_UNPRIVILEGED");
    g_unprivileged = unpriv && strcmp(unpriv, "1") == 0;
    char err[SIM_ERR_LEN];
    nvmlReturn_t r;
    init_handles();
    if (!path || !*path) {
        g_state_path[0] = 0;
        r = sim_state_from_spec(&g_st, spec, node, err, sizeof err);
        if (r != NVML_SUCCESS) {
            set_error("%s", err);
            return r;
        }
        r = apply_env_faults();
        g_configured = r == NVML_SUCCESS;
        return r;
    }
    if (strlen(path) + 16 >= sizeof g_state_path) {
        set_error("HORIZON_SIM_STATE path is too long");
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    snprintf(g_state_path, sizeof g_state_path, "%s", path);
    char lock_path[sizeof g_state_path + 8];
    snprintf(lock_path, sizeof lock_path, "%s.lock", path);
    g_lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (g_lock_fd < 0) {
        set_error("HORIZON_SIM_STATE=%s: cannot open %s: %s", path, lock_path, strerror(errno));
        g_state_path[0] = 0;
        return NVML_ERROR_OPERATING_SYSTEM;
    }
    file_lock(1);
    memset(&g_st, 0, sizeof g_st);
    snprintf(g_st.node, sizeof g_st.node, "%s", node && *node ? node : "sim-node");
    struct stat seen;
    r = load_file(&seen);
    if (r == NVML_SUCCESS) {
        struct sim_state *probe = &g_st; /* only to canonicalise HORIZON_SIM_GPUS */
        if (spec && *spec) {
            r = sim_state_from_spec(probe, spec, node, err, sizeof err);
            if (r != NVML_SUCCESS) set_error("%s", err);
            else if (strcmp(probe->spec, g_tmp.spec) != 0) {
                set_error("HORIZON_SIM_STATE=%s holds GPUs %s but HORIZON_SIM_GPUS=%s; delete the file or unset HORIZON_SIM_GPUS",
                          path, g_tmp.spec, spec);
                r = NVML_ERROR_INVALID_ARGUMENT;
            }
        }
        if (r == NVML_SUCCESS) {
            g_st = g_tmp;
            g_seen = seen;
            g_seen_valid = 1;
        }
    } else if (r == NVML_ERROR_NOT_FOUND) {
        r = sim_state_from_spec(&g_st, spec, node, err, sizeof err);
        if (r != NVML_SUCCESS) set_error("%s (HORIZON_SIM_STATE=%s does not exist yet)", err, path);
        if (r == NVML_SUCCESS) r = apply_env_faults();
        if (r == NVML_SUCCESS) r = save();
    }
    file_unlock();
    if (r != NVML_SUCCESS) {
        close(g_lock_fd);
        g_lock_fd = -1;
        g_state_path[0] = 0;
        g_seen_valid = 0;
        return r;
    }
    g_configured = 1;
    return NVML_SUCCESS;
}

/* ---- calls ---- */

struct call { int dirty; };
struct ref { int gpu, gi, ci; };

static nvmlReturn_t injected(const char *fn, int gpu) {
    for (int i = 0; i < g_st.nfails; i++) {
        if (g_st.fails[i].gpu == gpu && strcmp(g_st.fails[i].function, fn) == 0) {
            set_error("injected failure of %s", fn);
            return g_st.fails[i].code;
        }
    }
    return NVML_SUCCESS;
}

static nvmlReturn_t begin(struct call *c, const char *fn, int exclusive) {
    c->dirty = 0;
    pthread_mutex_lock(&g_mu);
    file_lock(exclusive);
    if (!g_init_count) return NVML_ERROR_UNINITIALIZED;
    nvmlReturn_t r = reload_if_changed();
    return r != NVML_SUCCESS ? r : injected(fn, -1);
}

static nvmlReturn_t end(struct call *c, nvmlReturn_t r) {
    if (r == NVML_SUCCESS && c->dirty) r = save();
    file_unlock();
    pthread_mutex_unlock(&g_mu);
    return r;
}

static int in_pool(const void *p, const void *base, size_t bytes) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
    return a >= b && a < b + bytes;
}

static int gi_exists(int g, int gi) {
    return g >= 0 && g < g_st.ngpus && gi >= 0 && gi < SIM_MAX_GI && g_st.gpus[g].gi[gi].used;
}

static int ci_exists(int g, int gi, int ci) {
    return gi_exists(g, gi) && ci >= 0 && ci < SIM_MAX_CI && g_st.gpus[g].gi[gi].ci[ci].used;
}

static nvmlReturn_t check_gpu(const char *fn, int g) {
    if (g < 0 || g >= g_st.ngpus) return NVML_ERROR_INVALID_ARGUMENT;
    if (g_st.gpus[g].lost) {
        set_error("GPU %d has fallen off the bus", g);
        return NVML_ERROR_GPU_IS_LOST;
    }
    return injected(fn, g);
}

static nvmlReturn_t begin_dev(struct call *c, const char *fn, nvmlDevice_t d, int exclusive, struct ref *ref) {
    nvmlReturn_t r = begin(c, fn, exclusive);
    if (r != NVML_SUCCESS) return r;
    int is_gpu = in_pool(d, g_devs, sizeof g_devs), is_mig = in_pool(d, g_migs, sizeof g_migs);
    if ((!is_gpu && !is_mig) || d->magic != MAGIC_DEV) return NVML_ERROR_INVALID_ARGUMENT;
    *ref = (struct ref){d->gpu, d->gi, d->ci};
    if (is_mig && !ci_exists(d->gpu, d->gi, d->ci)) return NVML_ERROR_INVALID_ARGUMENT;
    return check_gpu(fn, d->gpu);
}

static nvmlReturn_t begin_gi(struct call *c, const char *fn, nvmlGpuInstance_t h, int exclusive, struct ref *ref) {
    nvmlReturn_t r = begin(c, fn, exclusive);
    if (r != NVML_SUCCESS) return r;
    if (!in_pool(h, g_gis, sizeof g_gis) || h->magic != MAGIC_GI || !gi_exists(h->gpu, h->gi)) return NVML_ERROR_INVALID_ARGUMENT;
    *ref = (struct ref){h->gpu, h->gi, -1};
    return check_gpu(fn, h->gpu);
}

static nvmlReturn_t begin_ci(struct call *c, const char *fn, nvmlComputeInstance_t h, int exclusive, struct ref *ref) {
    nvmlReturn_t r = begin(c, fn, exclusive);
    if (r != NVML_SUCCESS) return r;
    if (!in_pool(h, g_cis, sizeof g_cis) || h->magic != MAGIC_CI || !ci_exists(h->gpu, h->gi, h->ci)) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *ref = (struct ref){h->gpu, h->gi, h->ci};
    return check_gpu(fn, h->gpu);
}

static nvmlReturn_t copy_string(char *dst, unsigned len, const char *src) {
    if (!dst) return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(src) + 1 > len) return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(dst, src, strlen(src) + 1);
    return NVML_SUCCESS;
}

static int unprivileged(void) {
    return g_unprivileged || g_st.driver.unprivileged;
}

static nvmlReturn_t privileged(void) {
    if (!unprivileged()) return NVML_SUCCESS;
    set_error("unprivileged (HORIZON_SIM_UNPRIVILEGED=1 or driver unprivileged=1): MIG changes are refused as for a non-root user");
    return NVML_ERROR_NO_PERMISSION;
}

/* The real driver also refuses to list GPU and compute instances, their placements and remaining
 * capacity to a caller without root, CAP_SYS_ADMIN or the MIG capability devices. */
static nvmlReturn_t privileged_read(void) {
    if (!unprivileged()) return NVML_SUCCESS;
    set_error("unprivileged (HORIZON_SIM_UNPRIVILEGED=1 or driver unprivileged=1): MIG instances cannot be read, as for a non-root user");
    return NVML_ERROR_NO_PERMISSION;
}

/* ---- what a simulated GPU reports ---- */

static const struct sim_profile *gi_profile(int g, int gi) {
    return sim_profile_by_id(g_st.gpus[g].model, g_st.gpus[g].gi[gi].profile_id);
}

static unsigned long long fnv1a(const char *s, unsigned long long seed) {
    unsigned long long h = 1469598103934665603ULL ^ seed;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void format_uuid(char *out, size_t len, const char *prefix, const char *key) {
    unsigned long long a = fnv1a(key, 0x9e3779b97f4a7c15ULL), b = fnv1a(key, 0xc2b2ae3d27d4eb4fULL);
    snprintf(out, len, "%s-%08llx-%04llx-%04llx-%04llx-%04llx%08llx", prefix, a >> 32, (a >> 16) & 0xffff,
             0x4000 | (a & 0x0fff), 0x8000 | ((b >> 48) & 0x3fff), (b >> 32) & 0xffff, b & 0xffffffffULL);
}

static void gpu_uuid(int g, char *out, size_t len) {
    char key[160];
    snprintf(key, sizeof key, "%s|%d|%s", g_st.node, g, g_st.gpus[g].model->key);
    format_uuid(out, len, "GPU", key);
}

/* MIG-<uuid> since R470; R450-R465 drivers named MIG devices MIG-GPU-<GPU uuid>/<gi>/<ci> (legacy=1). */
static void mig_uuid_as(const struct ref *r, int legacy, char *out, size_t len) {
    char parent[NVML_DEVICE_UUID_V2_BUFFER_SIZE], key[200];
    gpu_uuid(r->gpu, parent, sizeof parent);
    if (legacy) {
        snprintf(out, len, "MIG-%.48s/%d/%d", parent, r->gi, r->ci); /* a GPU UUID is 40 characters */
        return;
    }
    snprintf(key, sizeof key, "%s|%d|%d|%u", parent, r->gi, r->ci, g_st.gpus[r->gpu].gi[r->gi].profile_id);
    format_uuid(out, len, "MIG", key);
}

static void mig_uuid(const struct ref *r, char *out, size_t len) {
    mig_uuid_as(r, g_st.driver.legacy_mig_uuids, out, len);
}

/* "3g.40gb" for a compute instance using its whole GPU instance, "1c.3g.40gb" for a part. */
static void ci_profile_name(int g, int gi, unsigned ci_slices, char *out, size_t len) {
    const struct sim_profile *p = gi_profile(g, gi);
    if (ci_slices == p->compute_slices) snprintf(out, len, "%s", p->name);
    else snprintf(out, len, "%uc.%s", ci_slices, p->name);
}

static unsigned long long procs_mib(int g, int gi, int ci) {
    unsigned long long sum = 0;
    for (int i = 0; i < g_st.nprocs; i++) {
        const struct sim_proc *p = &g_st.procs[i];
        if (p->gpu == g && (gi < 0 || p->gi == (unsigned)gi) && (ci < 0 || p->ci == (unsigned)ci)) sum += p->mem_mib;
    }
    return sum;
}

static void utilization(int g, unsigned *sm, unsigned *mem) {
    const struct sim_gpu *gpu = &g_st.gpus[g];
    if (gpu->util_pinned) {
        *sm = gpu->util_sm;
        *mem = gpu->util_mem;
        return;
    }
    unsigned busy = 0;
    for (int i = 0; i < g_st.nprocs; i++) busy += g_st.procs[i].gpu == g ? g_st.procs[i].sm : 0;
    if (busy > 100) busy = 100;
    if (busy > 0) { /* a little movement, as sampled utilization has */
        int jitter = (int)((time(NULL) / 2 + g) % 5) - 2;
        int v = (int)busy + jitter;
        busy = v < 1 ? 1 : v > 100 ? 100 : (unsigned)v;
    }
    *sm = busy;
    *mem = busy * 3 / 5;
}

/* ---- one-value getters: checks, then `read` fills *out for the device ---- */

typedef nvmlReturn_t (*uint_reader)(const struct ref *d, unsigned *out);

static nvmlReturn_t read_uint(const char *fn, nvmlDevice_t device, unsigned *out, uint_reader read) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, fn, device, 0, &d);
    if (r == NVML_SUCCESS && !out) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = read(&d, out);
    return end(&c, r);
}

static nvmlReturn_t gpu_index_of(const struct ref *d, unsigned *out) {
    if (d->gi >= 0) return NVML_ERROR_NOT_SUPPORTED;
    *out = (unsigned)d->gpu;
    return NVML_SUCCESS;
}

static nvmlReturn_t power_of(const struct ref *d, unsigned *out) {
    if (d->gi >= 0) return NVML_ERROR_NOT_SUPPORTED;
    const struct sim_model *m = g_st.gpus[d->gpu].model;
    unsigned sm, mem;
    utilization(d->gpu, &sm, &mem);
    *out = (m->idle_power_w + (m->power_limit_w - m->idle_power_w) * sm / 100) * 1000 + 317 * (unsigned)(d->gpu % 3);
    return NVML_SUCCESS;
}

static nvmlReturn_t power_limit_of(const struct ref *d, unsigned *out) {
    if (d->gi >= 0) return NVML_ERROR_NOT_SUPPORTED;
    *out = g_st.gpus[d->gpu].model->power_limit_w * 1000;
    return NVML_SUCCESS;
}

static nvmlReturn_t temperature_of(const struct ref *d, unsigned *out) {
    if (d->gi >= 0) return NVML_ERROR_NOT_SUPPORTED;
    unsigned sm, mem;
    utilization(d->gpu, &sm, &mem);
    *out = 29 + (unsigned)d->gpu % 4 + sm * 2 / 5;
    return NVML_SUCCESS;
}

static nvmlReturn_t compute_mode_of(const struct ref *d, unsigned *out) {
    *out = (unsigned)g_st.gpus[d->gpu].compute_mode;
    return NVML_SUCCESS;
}

static nvmlReturn_t is_mig_of(const struct ref *d, unsigned *out) {
    *out = d->gi >= 0;
    return NVML_SUCCESS;
}

static nvmlReturn_t gi_id_of(const struct ref *d, unsigned *out) {
    if (d->gi < 0) return NVML_ERROR_NOT_SUPPORTED;
    *out = (unsigned)d->gi;
    return NVML_SUCCESS;
}

static nvmlReturn_t ci_id_of(const struct ref *d, unsigned *out) {
    if (d->gi < 0) return NVML_ERROR_NOT_SUPPORTED;
    *out = (unsigned)d->ci;
    return NVML_SUCCESS;
}

/* Like the driver: 0 while MIG is off, else the most MIG devices the GPU can hold. */
static nvmlReturn_t max_mig_devices_of(const struct ref *d, unsigned *out) {
    if (d->gi >= 0) return NVML_ERROR_INVALID_ARGUMENT;
    *out = g_st.gpus[d->gpu].mig_current ? SIM_COMPUTE_SLICES : 0;
    return NVML_SUCCESS;
}

/* ---- init, versions, errors ---- */

static nvmlReturn_t do_init(const char *fn) {
    pthread_mutex_lock(&g_mu);
    nvmlReturn_t r = configure();
    if (r == NVML_SUCCESS) {
        file_lock(0);
        r = reload_if_changed();
        if (r == NVML_SUCCESS) r = injected(fn, -1);
        if (r == NVML_SUCCESS) g_init_count++;
        file_unlock();
    }
    pthread_mutex_unlock(&g_mu);
    return r;
}

SIM_EXPORT nvmlReturn_t nvmlInit_v2(void) { return do_init(__func__); }
SIM_EXPORT nvmlReturn_t nvmlInit(void) { return do_init(__func__); }
SIM_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
    (void)flags;
    return do_init(__func__);
}

SIM_EXPORT nvmlReturn_t nvmlShutdown(void) {
    struct call c;
    nvmlReturn_t r = begin(&c, __func__, 0);
    if (r == NVML_SUCCESS) g_init_count--;
    return end(&c, r);
}

SIM_EXPORT const char *nvmlErrorString(nvmlReturn_t result) {
    static const char *const TEXT[] = {
        "Success", "Uninitialized", "Invalid Argument", "Not Supported", "Insufficient Permissions",
        "Already Initialized", "Not Found", "Insufficient Size", "Insufficient External Power", "Driver Not Loaded",
        "Timeout", "Interrupt request issue", "NVML Shared Library Not Found", "Function Not Found",
        "Corrupted infoROM", "GPU is lost", "GPU requires restart", "The operating system has blocked the request.",
        "RM has detected an NVML/RM version mismatch.", "In use by another client", "Insufficient Memory", "No data",
        "The requested vgpu operation is not available on target device, because ECC is enabled",
        "Ran out of critical resources, other than memory", "Frequency not supported",
        "Argument version mismatch", "Deprecated", "System not ready", "No GPUs were found", "Invalid state",
        "Reset type not supported",
    };
    if ((unsigned)result < sizeof TEXT / sizeof TEXT[0]) return TEXT[result];
    return "Unknown Error";
}

SIM_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    struct call c;
    nvmlReturn_t r = begin(&c, __func__, 0);
    if (r == NVML_SUCCESS) r = copy_string(version, length, DRIVER_VERSION);
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    struct call c;
    nvmlReturn_t r = begin(&c, __func__, 0);
    if (r == NVML_SUCCESS) r = copy_string(version, length, NVML_VERSION);
    return end(&c, r);
}

static nvmlReturn_t cuda_version(const char *fn, int *v) {
    struct call c;
    nvmlReturn_t r = begin(&c, fn, 0);
    if (r == NVML_SUCCESS && !v) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) *v = CUDA_DRIVER_VERSION;
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { return cuda_version(__func__, v); }
SIM_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { return cuda_version(__func__, v); }

SIM_EXPORT nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length) {
    struct call c;
    nvmlReturn_t r = begin(&c, __func__, 0);
    if (r == NVML_SUCCESS) {
        r = NVML_ERROR_NOT_FOUND;
        for (int i = 0; i < g_st.nprocs && r == NVML_ERROR_NOT_FOUND; i++) {
            if (g_st.procs[i].pid == pid) r = copy_string(name, length, g_st.procs[i].name);
        }
    }
    return end(&c, r);
}

/* ---- devices ---- */

SIM_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    struct call c;
    nvmlReturn_t r = begin(&c, __func__, 0);
    if (r == NVML_SUCCESS && !count) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) *count = (unsigned)g_st.ngpus;
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    struct call c;
    nvmlReturn_t r = begin(&c, __func__, 0);
    if (r == NVML_SUCCESS && (!device || index >= (unsigned)g_st.ngpus)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = check_gpu(__func__, (int)index);
    if (r == NVML_SUCCESS) *device = &g_devs[index];
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
    struct call c;
    nvmlReturn_t r = begin(&c, __func__, 0);
    if (r == NVML_SUCCESS && (!uuid || !device)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r != NVML_SUCCESS) return end(&c, r);
    char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    r = NVML_ERROR_NOT_FOUND;
    for (int g = 0; g < g_st.ngpus && r == NVML_ERROR_NOT_FOUND; g++) {
        gpu_uuid(g, buf, sizeof buf);
        if (strcmp(buf, uuid) == 0) {
            r = check_gpu(__func__, g);
            if (r == NVML_SUCCESS) *device = &g_devs[g];
            break;
        }
        for (int gi = 0; gi < SIM_MAX_GI && r == NVML_ERROR_NOT_FOUND; gi++) {
            for (int ci = 0; ci < SIM_MAX_CI && r == NVML_ERROR_NOT_FOUND; ci++) {
                if (!ci_exists(g, gi, ci)) continue;
                struct ref ref = {g, gi, ci};
                char legacy[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
                mig_uuid_as(&ref, 0, buf, sizeof buf);
                mig_uuid_as(&ref, 1, legacy, sizeof legacy);
                if (strcmp(buf, uuid) != 0 && strcmp(legacy, uuid) != 0) continue;
                r = check_gpu(__func__, g);
                if (r == NVML_SUCCESS) *device = &g_migs[g][gi][ci];
            }
        }
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
    return read_uint(__func__, device, index, gpu_index_of);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r != NVML_SUCCESS) return end(&c, r);
    const struct sim_model *m = g_st.gpus[d.gpu].model;
    if (d.gi < 0) return end(&c, copy_string(name, length, m->name));
    char profile[SIM_NAME_LEN], full[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    ci_profile_name(d.gpu, d.gi, g_st.gpus[d.gpu].gi[d.gi].ci[d.ci].size, profile, sizeof profile);
    snprintf(full, sizeof full, "%s MIG %s", m->name, profile);
    return end(&c, copy_string(name, length, full));
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r != NVML_SUCCESS) return end(&c, r);
    char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    if (d.gi < 0) gpu_uuid(d.gpu, buf, sizeof buf);
    else mig_uuid(&d, buf, sizeof buf);
    return end(&c, copy_string(uuid, length, buf));
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    static const unsigned BUSES[8] = {0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB};
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !pci) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        const struct sim_model *m = g_st.gpus[d.gpu].model;
        memset(pci, 0, sizeof *pci);
        pci->domain = (unsigned)d.gpu / 8;
        pci->bus = BUSES[d.gpu % 8];
        pci->device = 0;
        pci->pciDeviceId = m->pci_device_id;
        pci->pciSubSystemId = m->pci_subsystem_id;
        snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", pci->domain & 0xffff, pci->bus & 0xff,
                 pci->device & 0x1f);
        snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", pci->domain, pci->bus & 0xff, pci->device & 0x1f);
    }
    return end(&c, r);
}

/* In a container that sees only MIG devices the driver refuses the parent's memory
 * (nvidia-container-toolkit#842); the MIG devices' own memory still answers. */
static nvmlReturn_t memory_visible(const struct ref *d) {
    if (d->gi >= 0 || !g_st.driver.mig_only_container || !g_st.gpus[d->gpu].mig_current) return NVML_SUCCESS;
    set_error("container=mig-only: GPU %d's own memory is not visible, only its MIG devices'", d->gpu);
    return NVML_ERROR_NO_PERMISSION;
}

/* total / reserved / allocated, in bytes */
static void memory_of(const struct ref *d, unsigned long long *total, unsigned long long *reserved, unsigned long long *used) {
    const struct sim_model *m = g_st.gpus[d->gpu].model;
    if (d->gi < 0) {
        *total = m->total_mib << 20;
        *reserved = m->reserved_mib << 20;
        *used = procs_mib(d->gpu, -1, -1) << 20;
    } else {
        *total = gi_profile(d->gpu, d->gi)->memory_mib << 20;
        *reserved = 0;
        *used = procs_mib(d->gpu, d->gi, -1) << 20; /* compute instances share their GPU instance's memory */
    }
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !memory) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = memory_visible(&d);
    if (r == NVML_SUCCESS) {
        unsigned long long total, reserved, used;
        memory_of(&d, &total, &reserved, &used);
        memory->total = total;
        memory->used = reserved + used;
        memory->free = total - reserved - used;
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !memory) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS && memory->version != nvmlMemory_v2) r = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (r == NVML_SUCCESS) r = memory_visible(&d);
    if (r == NVML_SUCCESS) {
        unsigned long long total, reserved, used;
        memory_of(&d, &total, &reserved, &used);
        memory->total = total;
        memory->reserved = reserved;
        memory->used = used;
        memory->free = total - reserved - used;
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *util) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !util) r = NVML_ERROR_INVALID_ARGUMENT;
    /* like the driver: no utilization for a MIG-enabled GPU or a MIG device */
    if (r == NVML_SUCCESS && (d.gi >= 0 || g_st.gpus[d.gpu].mig_current)) r = NVML_ERROR_NOT_SUPPORTED;
    if (r == NVML_SUCCESS) utilization(d.gpu, &util->gpu, &util->memory);
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned int *temp) {
    if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    return read_uint(__func__, device, temp, temperature_of);
}

/* What newer drivers offer instead of the deprecated nvmlDeviceGetTemperature. */
SIM_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_v1_t *temperature) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !temperature) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS && temperature->version != nvmlTemperature_v1) r = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (r == NVML_SUCCESS && temperature->sensorType != NVML_TEMPERATURE_GPU) r = NVML_ERROR_INVALID_ARGUMENT;
    unsigned value = 0;
    if (r == NVML_SUCCESS) r = temperature_of(&d, &value);
    if (r == NVML_SUCCESS) temperature->temperature = (int)value;
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
    return read_uint(__func__, device, power, power_of);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit) {
    return read_uint(__func__, device, limit, power_limit_of);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && (!current || !pending)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) *current = *pending = NVML_FEATURE_ENABLED;
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter,
                                                    unsigned long long *count) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && (!count || (unsigned)type > 1 || (unsigned)counter > 1)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        const struct sim_gpu *gpu = &g_st.gpus[d.gpu];
        *count = type == NVML_MEMORY_ERROR_TYPE_CORRECTED ? gpu->ecc_corrected : gpu->ecc_uncorrected;
    }
    return end(&c, r);
}

/* A100, H100 and H200 replace page retirement by row remapping: the driver says NOT_SUPPORTED. */
SIM_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int *count,
                                                  unsigned long long *addresses) {
    struct call c;
    struct ref d;
    (void)cause;
    (void)addresses;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !count) r = NVML_ERROR_INVALID_ARGUMENT;
    return end(&c, r == NVML_SUCCESS ? NVML_ERROR_NOT_SUPPORTED : r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *pending) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !pending) r = NVML_ERROR_INVALID_ARGUMENT;
    return end(&c, r == NVML_SUCCESS ? NVML_ERROR_NOT_SUPPORTED : r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corr, unsigned int *unc, unsigned int *pending,
                                                  unsigned int *failed) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && (!corr || !unc || !pending || !failed)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS && d.gi >= 0) r = NVML_ERROR_NOT_SUPPORTED;
    if (r == NVML_SUCCESS) {
        const struct sim_gpu *gpu = &g_st.gpus[d.gpu];
        *corr = gpu->remapped_corr;
        *unc = gpu->remapped_unc;
        *pending = gpu->remap_pending;
        *failed = gpu->remap_failed;
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !count) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r != NVML_SUCCESS) return end(&c, r);
    unsigned n = 0, room = infos ? *count : 0;
    for (int i = 0; i < g_st.nprocs; i++) {
        const struct sim_proc *p = &g_st.procs[i];
        if (p->gpu != d.gpu || (d.gi >= 0 && (p->gi != (unsigned)d.gi || p->ci != (unsigned)d.ci))) continue;
        if (n < room) infos[n] = (nvmlProcessInfo_t){p->pid, p->mem_mib << 20, p->gi, p->ci};
        n++;
    }
    r = n > room ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
    *count = n;
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode) {
    unsigned value = 0;
    nvmlReturn_t r = read_uint(__func__, device, mode ? &value : NULL, compute_mode_of);
    if (r == NVML_SUCCESS) *mode = (nvmlComputeMode_t)value;
    return r;
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !attributes) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r != NVML_SUCCESS) return end(&c, r);
    const struct sim_model *m = g_st.gpus[d.gpu].model;
    const struct sim_profile *p = d.gi >= 0 ? gi_profile(d.gpu, d.gi) : sim_profile_by_nvml(m, NVML_GPU_INSTANCE_PROFILE_7_SLICE);
    unsigned ci_slices = d.gi >= 0 ? g_st.gpus[d.gpu].gi[d.gi].ci[d.ci].size : p->compute_slices;
    *attributes = (nvmlDeviceAttributes_t){
        .multiprocessorCount = d.gi >= 0 ? p->sm * ci_slices / p->compute_slices : m->sm_count,
        .sharedCopyEngineCount = p->ce, .sharedDecoderCount = p->dec, .sharedEncoderCount = p->enc,
        .sharedJpegCount = p->jpeg, .sharedOfaCount = p->ofa,
        .gpuInstanceSliceCount = p->compute_slices, .computeInstanceSliceCount = ci_slices,
        .memorySizeMB = d.gi >= 0 ? p->memory_mib : m->total_mib,
    };
    return end(&c, r);
}

/* ---- MIG mode and GPU instances ---- */

SIM_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && (!current || !pending || d.gi >= 0)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        *current = (unsigned)g_st.gpus[d.gpu].mig_current;
        *pending = (unsigned)g_st.gpus[d.gpu].mig_pending;
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t device, unsigned int mode, nvmlReturn_t *activationStatus) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 1, &d);
    if (r == NVML_SUCCESS && (!activationStatus || mode > NVML_DEVICE_MIG_ENABLE || d.gi >= 0)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = privileged();
    if (r != NVML_SUCCESS) return end(&c, r);
    struct sim_gpu *gpu = &g_st.gpus[d.gpu];
    if (mode == NVML_DEVICE_MIG_DISABLE) {
        for (int i = 0; i < SIM_MAX_GI; i++) {
            if (gpu->gi[i].used) {
                set_error("GPU %d still has GPU instances", d.gpu);
                return end(&c, NVML_ERROR_IN_USE);
            }
        }
    }
    gpu->mig_pending = (int)mode;
    if (gpu->mig_current != (int)mode && sim_gpu_has_procs(&g_st, d.gpu, -1, -1)) {
        *activationStatus = NVML_ERROR_IN_USE; /* stays pending until the GPU is idle and reset */
    } else {
        gpu->mig_current = (int)mode;
        *activationStatus = NVML_SUCCESS;
    }
    c.dirty = 1;
    return end(&c, NVML_SUCCESS);
}

/* Profiles (and their placements) are the GPU's geometry: the driver lists them whether MIG is on or
 * off. An enum newer than the driver is INVALID_ARGUMENT, one this GPU lacks NOT_SUPPORTED. */
static nvmlReturn_t gi_profile_for(const struct ref *d, unsigned profile, const struct sim_profile **out) {
    if (d->gi >= 0) return NVML_ERROR_INVALID_ARGUMENT;
    if (profile >= NVML_GPU_INSTANCE_PROFILE_COUNT) return NVML_ERROR_INVALID_ARGUMENT;
    *out = sim_profile_by_nvml(g_st.gpus[d->gpu].model, profile);
    return *out ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

/* `need_mig`: what needs MIG on. Remaining capacity and the instances of a profile do not: with MIG
 * off a real H200 (driver 580.159.04) answers each profile's capacity on the empty GPU and no instances. */
static nvmlReturn_t gi_profile_by_id_for(const struct ref *d, unsigned profile_id, int need_mig, const struct sim_profile **out) {
    if (d->gi >= 0) return NVML_ERROR_INVALID_ARGUMENT;
    if (need_mig && !g_st.gpus[d->gpu].mig_current) return NVML_ERROR_NOT_SUPPORTED;
    *out = sim_profile_by_id(g_st.gpus[d->gpu].model, profile_id);
    return *out ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

#define FILL_GI_PROFILE(info, p)                                                                               \
    do {                                                                                                       \
        (info)->id = (p)->id;                                                                                  \
        (info)->isP2pSupported = 0;                                                                            \
        (info)->sliceCount = (p)->compute_slices;                                                              \
        (info)->instanceCount = (p)->instances;                                                                \
        (info)->multiprocessorCount = (p)->sm;                                                                 \
        (info)->copyEngineCount = (p)->ce;                                                                     \
        (info)->decoderCount = (p)->dec;                                                                       \
        (info)->encoderCount = (p)->enc;                                                                       \
        (info)->jpegCount = (p)->jpeg;                                                                         \
        (info)->ofaCount = (p)->ofa;                                                                           \
        (info)->memorySizeMB = (p)->memory_mib;                                                                \
    } while (0)

SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile, nvmlGpuInstanceProfileInfo_t *info) {
    struct call c;
    struct ref d;
    const struct sim_profile *p = NULL;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !info) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = gi_profile_for(&d, profile, &p);
    if (r == NVML_SUCCESS) FILL_GI_PROFILE(info, p);
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile, nvmlGpuInstanceProfileInfo_v2_t *info) {
    struct call c;
    struct ref d;
    const struct sim_profile *p = NULL;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !info) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS && info->version != nvmlGpuInstanceProfileInfo_v2) r = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (r == NVML_SUCCESS) r = gi_profile_for(&d, profile, &p);
    if (r == NVML_SUCCESS) {
        FILL_GI_PROFILE(info, p);
        snprintf(info->name, sizeof info->name, "MIG %s", p->name);
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t device, unsigned int profileId,
                                                                      nvmlGpuInstancePlacement_t *placements, unsigned int *count) {
    struct call c;
    struct ref d;
    const struct sim_profile *p = NULL;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !count) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = gi_profile_by_id_for(&d, profileId, 0, &p);
    if (r == NVML_SUCCESS) r = privileged_read();
    if (r != NVML_SUCCESS) return end(&c, r);
    if (placements && *count < p->nstarts) r = NVML_ERROR_INSUFFICIENT_SIZE;
    for (unsigned k = 0; placements && r == NVML_SUCCESS && k < p->nstarts; k++) {
        placements[k] = (nvmlGpuInstancePlacement_t){p->starts[k], p->memory_slices};
    }
    *count = p->nstarts;
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t device, unsigned int profileId, unsigned int *count) {
    struct call c;
    struct ref d;
    const struct sim_profile *p = NULL;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !count) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = gi_profile_by_id_for(&d, profileId, 0, &p);
    if (r == NVML_SUCCESS) r = privileged_read();
    if (r == NVML_SUCCESS) *count = sim_gi_remaining(&g_st, d.gpu, p);
    return end(&c, r);
}

static nvmlReturn_t create_gi(const char *fn, nvmlDevice_t device, unsigned profileId, const nvmlGpuInstancePlacement_t *placement,
                              nvmlGpuInstance_t *out) {
    struct call c;
    struct ref d;
    const struct sim_profile *p = NULL;
    nvmlReturn_t r = begin_dev(&c, fn, device, 1, &d);
    if (r == NVML_SUCCESS && !out) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = privileged();
    if (r == NVML_SUCCESS) r = gi_profile_by_id_for(&d, profileId, 1, &p);
    if (r != NVML_SUCCESS) return end(&c, r);
    char err[SIM_ERR_LEN];
    int id;
    r = sim_gi_create(&g_st, d.gpu, profileId, placement, &id, err, sizeof err);
    if (r != NVML_SUCCESS) set_error("%s", err);
    else {
        *out = &g_gis[d.gpu][id];
        c.dirty = 1;
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceCreateGpuInstance(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstance) {
    return create_gi(__func__, device, profileId, NULL, gpuInstance);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t device, unsigned int profileId,
                                                                 const nvmlGpuInstancePlacement_t *placement,
                                                                 nvmlGpuInstance_t *gpuInstance) {
    if (!placement) return NVML_ERROR_INVALID_ARGUMENT;
    return create_gi(__func__, device, profileId, placement, gpuInstance);
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gpuInstance) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_gi(&c, __func__, gpuInstance, 1, &d);
    if (r == NVML_SUCCESS) r = privileged();
    if (r != NVML_SUCCESS) return end(&c, r);
    struct sim_gi *gi = &g_st.gpus[d.gpu].gi[d.gi];
    for (int ci = 0; ci < SIM_MAX_CI; ci++) {
        if (gi->ci[ci].used) {
            set_error("GPU instance %d still has compute instances", d.gi);
            return end(&c, NVML_ERROR_IN_USE);
        }
    }
    if (sim_gpu_has_procs(&g_st, d.gpu, d.gi, -1)) return end(&c, NVML_ERROR_IN_USE);
    memset(gi, 0, sizeof *gi);
    c.dirty = 1;
    return end(&c, NVML_SUCCESS);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstances,
                                                  unsigned int *count) {
    struct call c;
    struct ref d;
    const struct sim_profile *p = NULL;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && (!count || !gpuInstances)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = gi_profile_by_id_for(&d, profileId, 0, &p);
    if (r == NVML_SUCCESS) r = privileged_read();
    if (r != NVML_SUCCESS) return end(&c, r);
    unsigned n = 0;
    for (int i = 0; i < SIM_MAX_GI; i++) {
        if (g_st.gpus[d.gpu].gi[i].used && g_st.gpus[d.gpu].gi[i].profile_id == profileId) gpuInstances[n++] = &g_gis[d.gpu][i];
    }
    *count = n;
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id, nvmlGpuInstance_t *gpuInstance) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && (!gpuInstance || d.gi >= 0)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS && !g_st.gpus[d.gpu].mig_current) r = NVML_ERROR_NOT_SUPPORTED;
    if (r == NVML_SUCCESS) r = privileged_read();
    if (r == NVML_SUCCESS && !gi_exists(d.gpu, (int)id)) r = NVML_ERROR_NOT_FOUND;
    if (r == NVML_SUCCESS) *gpuInstance = &g_gis[d.gpu][id];
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_gi(&c, __func__, gpuInstance, 0, &d);
    if (r == NVML_SUCCESS && !info) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        const struct sim_gi *gi = &g_st.gpus[d.gpu].gi[d.gi];
        *info = (nvmlGpuInstanceInfo_t){&g_devs[d.gpu], (unsigned)d.gi, gi->profile_id, {gi->start, gi->size}};
    }
    return end(&c, r);
}

/* ---- compute instances ---- */

static nvmlReturn_t ci_profile_check(const struct ref *d, unsigned profile, unsigned engProfile) {
    if (profile >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT || engProfile != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    int slices = sim_ci_profile_slices(profile);
    return slices < 0 || (unsigned)slices > gi_profile(d->gpu, d->gi)->compute_slices ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
}

static void fill_ci_profile(const struct ref *d, unsigned profile, nvmlComputeInstanceProfileInfo_t *info, char *name, size_t name_len) {
    const struct sim_profile *p = gi_profile(d->gpu, d->gi);
    unsigned slices = (unsigned)sim_ci_profile_slices(profile);
    unsigned starts[SIM_COMPUTE_SLICES];
    *info = (nvmlComputeInstanceProfileInfo_t){
        .id = profile, .sliceCount = slices,
        .instanceCount = sim_ci_starts(p->compute_slices, profile, starts, SIM_COMPUTE_SLICES),
        .multiprocessorCount = p->sm * slices / p->compute_slices,
        .sharedCopyEngineCount = p->ce, .sharedDecoderCount = p->dec, .sharedEncoderCount = p->enc,
        .sharedJpegCount = p->jpeg, .sharedOfaCount = p->ofa,
    };
    if (name) {
        char profile_name[SIM_NAME_LEN];
        ci_profile_name(d->gpu, d->gi, slices, profile_name, sizeof profile_name);
        snprintf(name, name_len, "MIG %s", profile_name);
    }
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                                     unsigned int engProfile, nvmlComputeInstanceProfileInfo_t *info) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_gi(&c, __func__, gpuInstance, 0, &d);
    if (r == NVML_SUCCESS && !info) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = ci_profile_check(&d, profile, engProfile);
    if (r == NVML_SUCCESS) fill_ci_profile(&d, profile, info, NULL, 0);
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                                      unsigned int engProfile, nvmlComputeInstanceProfileInfo_v2_t *info) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_gi(&c, __func__, gpuInstance, 0, &d);
    if (r == NVML_SUCCESS && !info) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS && info->version != nvmlComputeInstanceProfileInfo_v2) r = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (r == NVML_SUCCESS) r = ci_profile_check(&d, profile, engProfile);
    if (r == NVML_SUCCESS) {
        nvmlComputeInstanceProfileInfo_t v1;
        fill_ci_profile(&d, profile, &v1, info->name, sizeof info->name);
        info->id = v1.id;
        info->sliceCount = v1.sliceCount;
        info->instanceCount = v1.instanceCount;
        info->multiprocessorCount = v1.multiprocessorCount;
        info->sharedCopyEngineCount = v1.sharedCopyEngineCount;
        info->sharedDecoderCount = v1.sharedDecoderCount;
        info->sharedEncoderCount = v1.sharedEncoderCount;
        info->sharedJpegCount = v1.sharedJpegCount;
        info->sharedOfaCount = v1.sharedOfaCount;
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceRemainingCapacity(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                                           unsigned int *count) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_gi(&c, __func__, gpuInstance, 0, &d);
    if (r == NVML_SUCCESS && !count) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = ci_profile_check(&d, profileId, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED);
    if (r == NVML_SUCCESS) r = privileged_read();
    if (r == NVML_SUCCESS) *count = sim_ci_remaining(&g_st, d.gpu, d.gi, profileId);
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstancePossiblePlacements(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                                            nvmlComputeInstancePlacement_t *placements,
                                                                            unsigned int *count) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_gi(&c, __func__, gpuInstance, 0, &d);
    if (r == NVML_SUCCESS && !count) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = ci_profile_check(&d, profileId, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED);
    if (r == NVML_SUCCESS) r = privileged_read();
    if (r != NVML_SUCCESS) return end(&c, r);
    unsigned starts[SIM_COMPUTE_SLICES];
    unsigned n = sim_ci_starts(gi_profile(d.gpu, d.gi)->compute_slices, profileId, starts, SIM_COMPUTE_SLICES);
    unsigned size = (unsigned)sim_ci_profile_slices(profileId);
    if (placements && *count < n) r = NVML_ERROR_INSUFFICIENT_SIZE;
    for (unsigned k = 0; placements && r == NVML_SUCCESS && k < n; k++) {
        placements[k] = (nvmlComputeInstancePlacement_t){starts[k], size};
    }
    *count = n;
    return end(&c, r);
}

static nvmlReturn_t create_ci(const char *fn, nvmlGpuInstance_t gpuInstance, unsigned profileId,
                              const nvmlComputeInstancePlacement_t *placement, nvmlComputeInstance_t *out) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_gi(&c, fn, gpuInstance, 1, &d);
    if (r == NVML_SUCCESS && !out) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = privileged();
    if (r == NVML_SUCCESS) r = ci_profile_check(&d, profileId, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED);
    if (r != NVML_SUCCESS) return end(&c, r);
    char err[SIM_ERR_LEN];
    int id;
    r = sim_ci_create(&g_st, d.gpu, d.gi, profileId, placement, &id, err, sizeof err);
    if (r != NVML_SUCCESS) set_error("%s", err);
    else {
        *out = &g_cis[d.gpu][d.gi][id];
        c.dirty = 1;
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                             nvmlComputeInstance_t *computeInstance) {
    return create_ci(__func__, gpuInstance, profileId, NULL, computeInstance);
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceCreateComputeInstanceWithPlacement(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                                          const nvmlComputeInstancePlacement_t *placement,
                                                                          nvmlComputeInstance_t *computeInstance) {
    if (!placement) return NVML_ERROR_INVALID_ARGUMENT;
    return create_ci(__func__, gpuInstance, profileId, placement, computeInstance);
}

SIM_EXPORT nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t computeInstance) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_ci(&c, __func__, computeInstance, 1, &d);
    if (r == NVML_SUCCESS) r = privileged();
    if (r == NVML_SUCCESS && sim_gpu_has_procs(&g_st, d.gpu, d.gi, d.ci)) {
        set_error("processes are running on compute instance %d of GPU instance %d", d.ci, d.gi);
        r = NVML_ERROR_IN_USE;
    }
    if (r == NVML_SUCCESS) {
        memset(&g_st.gpus[d.gpu].gi[d.gi].ci[d.ci], 0, sizeof(struct sim_ci));
        c.dirty = 1;
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                           nvmlComputeInstance_t *computeInstances, unsigned int *count) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_gi(&c, __func__, gpuInstance, 0, &d);
    if (r == NVML_SUCCESS && (!count || !computeInstances)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = ci_profile_check(&d, profileId, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED);
    if (r == NVML_SUCCESS) r = privileged_read();
    if (r != NVML_SUCCESS) return end(&c, r);
    unsigned n = 0;
    const struct sim_gi *gi = &g_st.gpus[d.gpu].gi[d.gi];
    for (int ci = 0; ci < SIM_MAX_CI; ci++) {
        if (gi->ci[ci].used && gi->ci[ci].profile_id == profileId) computeInstances[n++] = &g_cis[d.gpu][d.gi][ci];
    }
    *count = n;
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance, unsigned int id,
                                                              nvmlComputeInstance_t *computeInstance) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_gi(&c, __func__, gpuInstance, 0, &d);
    if (r == NVML_SUCCESS && !computeInstance) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) r = privileged_read();
    if (r == NVML_SUCCESS && !ci_exists(d.gpu, d.gi, (int)id)) r = NVML_ERROR_NOT_FOUND;
    if (r == NVML_SUCCESS) *computeInstance = &g_cis[d.gpu][d.gi][id];
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_ci(&c, __func__, computeInstance, 0, &d);
    if (r == NVML_SUCCESS && !info) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        const struct sim_ci *ci = &g_st.gpus[d.gpu].gi[d.gi].ci[d.ci];
        *info = (nvmlComputeInstanceInfo_t){&g_devs[d.gpu], &g_gis[d.gpu][d.gi], (unsigned)d.ci, ci->profile_id,
                                            {ci->start, ci->size}};
    }
    return end(&c, r);
}

/* ---- MIG devices (one per compute instance) ---- */

SIM_EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice) {
    return read_uint(__func__, device, isMigDevice, is_mig_of);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id) {
    return read_uint(__func__, device, id, gi_id_of);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id) {
    return read_uint(__func__, device, id, ci_id_of);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count) {
    return read_uint(__func__, device, count, max_mig_devices_of);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && (!migDevice || d.gi >= 0)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS && !g_st.gpus[d.gpu].mig_current) r = NVML_ERROR_NOT_SUPPORTED;
    if (r != NVML_SUCCESS) return end(&c, r);
    unsigned n = 0;
    r = NVML_ERROR_NOT_FOUND;
    for (int gi = 0; gi < SIM_MAX_GI && r == NVML_ERROR_NOT_FOUND; gi++) {
        for (int ci = 0; ci < SIM_MAX_CI && r == NVML_ERROR_NOT_FOUND; ci++) {
            if (!ci_exists(d.gpu, gi, ci)) continue;
            if (n++ == index) {
                *migDevice = &g_migs[d.gpu][gi][ci];
                r = NVML_SUCCESS;
            }
        }
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, migDevice, 0, &d);
    if (r == NVML_SUCCESS && (!device || d.gi < 0)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) *device = &g_devs[d.gpu];
    return end(&c, r);
}

/* ---- events (Xid) ---- */

#define SUPPORTED_EVENTS (nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError | nvmlEventTypeXidCriticalError)

SIM_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
    struct call c;
    nvmlReturn_t r = begin(&c, __func__, 0);
    if (r == NVML_SUCCESS && !set) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        *set = calloc(1, sizeof **set);
        if (!*set) r = NVML_ERROR_MEMORY;
        else (*set)->magic = MAGIC_EVENTS;
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
    struct call c;
    nvmlReturn_t r = begin(&c, __func__, 0);
    if (r == NVML_SUCCESS && (!set || set->magic != MAGIC_EVENTS)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        set->magic = 0;
        free(set);
    }
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && !eventTypes) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) *eventTypes = SUPPORTED_EVENTS;
    return end(&c, r);
}

SIM_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set) {
    struct call c;
    struct ref d;
    nvmlReturn_t r = begin_dev(&c, __func__, device, 0, &d);
    if (r == NVML_SUCCESS && (!set || set->magic != MAGIC_EVENTS || d.gi >= 0)) r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS && (eventTypes & ~SUPPORTED_EVENTS)) r = NVML_ERROR_NOT_SUPPORTED;
    if (r == NVML_SUCCESS) set->mask[d.gpu] |= eventTypes;
    return end(&c, r);
}

/* Delivers the oldest queued Xid of a registered GPU; several waiters share the queue. */
SIM_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        struct call c;
        nvmlReturn_t r = begin(&c, __func__, 1);
        if (r == NVML_SUCCESS && (!set || set->magic != MAGIC_EVENTS || !data)) r = NVML_ERROR_INVALID_ARGUMENT;
        if (r != NVML_SUCCESS) return end(&c, r);
        for (int g = 0; g < g_st.ngpus; g++) {
            struct sim_gpu *gpu = &g_st.gpus[g];
            if (!(set->mask[g] & nvmlEventTypeXidCriticalError) || gpu->nxids == 0) continue;
            *data = (nvmlEventData_t){&g_devs[g], nvmlEventTypeXidCriticalError, gpu->xids[0], SIM_NO_ID, SIM_NO_ID};
            memmove(gpu->xids, gpu->xids + 1, (gpu->nxids - 1) * sizeof gpu->xids[0]);
            gpu->nxids--;
            c.dirty = 1;
            return end(&c, NVML_SUCCESS);
        }
        end(&c, NVML_SUCCESS);
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long waited = (now.tv_sec - start.tv_sec) * 1000LL + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (waited >= (long long)timeoutms) return NVML_ERROR_TIMEOUT;
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

/* ---- simulator control, not part of NVML (the Java side finds them only in this library) ---- */

/* Applies one state command (see sim_state.c), as if appended to the state file. */
SIM_EXPORT nvmlReturn_t horizonSimCommand(const char *command) {
    pthread_mutex_lock(&g_mu);
    nvmlReturn_t r = configure();
    if (r != NVML_SUCCESS) {
        pthread_mutex_unlock(&g_mu);
        return r;
    }
    file_lock(1);
    r = reload_if_changed();
    if (r == NVML_SUCCESS) {
        char err[SIM_ERR_LEN];
        r = command ? sim_state_apply(&g_st, command, err, sizeof err) : NVML_ERROR_INVALID_ARGUMENT;
        if (r != NVML_SUCCESS) set_error("%s", command ? err : "no command");
        else r = save();
    }
    file_unlock();
    pthread_mutex_unlock(&g_mu);
    return r;
}

/* The sentence explaining this thread's last failure (configuration, state file, MIG fit). */
SIM_EXPORT const char *horizonSimLastError(void) { return g_last_error; }

/* "2xH100-80GB state=/tmp/s" once configured, else "" */
SIM_EXPORT const char *horizonSimDescribe(void) {
    static char text[4400];
    pthread_mutex_lock(&g_mu);
    if (!g_configured) text[0] = 0;
    else if (g_state_path[0]) snprintf(text, sizeof text, "%s state=%s", g_st.spec, g_state_path);
    else snprintf(text, sizeof text, "%s", g_st.spec);
    pthread_mutex_unlock(&g_mu);
    return text;
}

/* sizeof of the ABI structs as this compiler lays them out, for the layout tests. */
SIM_EXPORT int horizonSimSizeof(const char *type) {
#define SIZE_OF(t) if (type && strcmp(type, #t) == 0) return (int)sizeof(t)
    SIZE_OF(nvmlPciInfo_t);
    SIZE_OF(nvmlMemory_t);
    SIZE_OF(nvmlMemory_v2_t);
    SIZE_OF(nvmlUtilization_t);
    SIZE_OF(nvmlProcessInfo_v1_t);
    SIZE_OF(nvmlProcessInfo_t);
    SIZE_OF(nvmlDeviceAttributes_t);
    SIZE_OF(nvmlEventData_t);
    SIZE_OF(nvmlGpuInstancePlacement_t);
    SIZE_OF(nvmlGpuInstanceProfileInfo_t);
    SIZE_OF(nvmlGpuInstanceProfileInfo_v2_t);
    SIZE_OF(nvmlGpuInstanceInfo_t);
    SIZE_OF(nvmlComputeInstancePlacement_t);
    SIZE_OF(nvmlComputeInstanceProfileInfo_t);
    SIZE_OF(nvmlComputeInstanceProfileInfo_v2_t);
    SIZE_OF(nvmlComputeInstanceInfo_t);
    SIZE_OF(nvmlTemperature_v1_t);
#undef SIZE_OF
    return -1;
}
