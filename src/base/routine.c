/* The public routine a thread is in, from its stack: the outermost frame inside
 * libshoal whose symbol is a shmem_* (or pshmem_*) routine. A routine that ends in a
 * tail call leaves no frame of its own; then the program's frame that called into
 * libshoal says which routine it called: the call instruction just before its return
 * address names it, directly or through the PLT slot it went by (called_before). */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdint.h>
#include <string.h>

#include "base/routine.h"
#include "env/log.h"

/* call rel32 (E8), then the target: a PLT stub "jmp *slot(%rip)" (FF 25 rel32),
 * possibly after endbr64 (F3 0F 1E FA) and a bnd prefix (F2), or the routine. */
const void *shoal_call_target_x86_64(const unsigned char *r)
{
    if (r[-5] != 0xe8)
        return NULL;
    int32_t rel;
    memcpy(&rel, r - 4, 4);
    const unsigned char *t = r + rel;
    if (t[0] == 0xf3 && t[1] == 0x0f && t[2] == 0x1e && t[3] == 0xfa)
        t += 4;
    if (t[0] == 0xf2)
        t++;
    if (t[0] != 0xff || t[1] != 0x25)
        return t;
    memcpy(&rel, t + 2, 4);
    return *(const void *const *)(t + 6 + rel);
}

/* bl imm26, then the target: a PLT stub "adrp x16, page; ldr x17, [x16, #off]"
 * (possibly after bti c), or the routine. */
const void *shoal_call_target_aarch64(const unsigned char *r)
{
    uint32_t bl, i0, i1;
    memcpy(&bl, r - 4, 4);
    if ((bl >> 26) != 0x25)
        return NULL;
    int64_t off = (int64_t)((uint64_t)(bl & 0x3ffffff) << 38) >> 36;
    const unsigned char *t = r - 4 + off;
    memcpy(&i0, t, 4);
    if (i0 == 0xd503245f) /* bti c */
        memcpy(&i0, t += 4, 4);
    memcpy(&i1, t + 4, 4);
    if ((i0 & 0x9f00001f) != 0x90000010 || (i1 & 0xffc003ff) != 0xf9400211)
        return t; /* not adrp x16 + ldr x17, [x16]: the routine itself */
    uint64_t imm = ((uint64_t)((i0 >> 5) & 0x7ffff) << 2) | ((i0 >> 29) & 3);
    int64_t page = (int64_t)(imm << 43) >> 31; /* sign-extended, times 4096 */
    uintptr_t slot = ((uintptr_t)t & ~(uintptr_t)0xfff) + (uintptr_t)page +
            (uintptr_t)((i1 >> 10) & 0xfff) * 8;
    return *(const void *const *)slot;
}

/* The machine's own decoder; elsewhere a tail-called routine goes unnamed
 * ("routine not identified"). */
static const void *called_before(const unsigned char *r)
{
#if defined(__x86_64__)
    return shoal_call_target_x86_64(r);
#elif defined(__aarch64__)
    return shoal_call_target_aarch64(r);
#else
    (void)r;
    return NULL;
#endif
}

static const char *shmem_name(const char *s)
{
    if (s && strncmp(s, "pshmem", 6) == 0)
        return s + 1;
    return s && strncmp(s, "shmem", 5) == 0 ? s : NULL;
}

/* Shoal's transport modules (transport/module.c: libshoal-NAME.so beside libshoal)
 * count as Shoal: a wait inside one (an MPI barrier polled from libshoal) sits
 * between libshoal's frames. */
static int shoal_module(const Dl_info *info)
{
    if (!info->dli_fname)
        return 0;
    const char *base = strrchr(info->dli_fname, '/');
    return strncmp(base ? base + 1 : info->dli_fname, "libshoal-", 9) == 0;
}

const char *shoal_routine_now(int skip, int *inside)
{
    void *frames[64];
    int n = backtrace(frames, 64);
    const char *routine = NULL;
    Dl_info self, info;
    *inside = 0;
    if (!dladdr((void *)shoal_routine_now, &self))
        return NULL;
    for (int i = 1 + skip; i < n; i++) {
        int known = dladdr(frames[i], &info);
        if (known && info.dli_fbase == self.dli_fbase) {
            *inside = 1;
            if (shmem_name(info.dli_sname))
                routine = shmem_name(info.dli_sname);
            continue;
        }
        if (known && *inside && shoal_module(&info))
            continue;
        /* Frames before libshoal's: a signal handler's trampoline, or the program
         * itself when it was interrupted outside Shoal. */
        if (!*inside)
            continue;
        if (!routine) {
            const void *f = called_before(frames[i]);
            if (f && dladdr(f, &info) && info.dli_fbase == self.dli_fbase)
                routine = shmem_name(info.dli_sname);
        }
        break;
    }
    return routine;
}

/* Written by shmem_init's thread, read by the report's handler on any thread: whole
 * pointers (atomics), each pointing at a static string. */
static const char *init_phase;

/* SHOAL_LOG=boot:debug times each phase, boot:info the whole start. */
static void log_phase(const char *next)
{
    static double init_began, phase_began, init_cpu, phase_cpu;
    double now = shoal_log_now(), cpu = shoal_log_cpu();
    const char *was = __atomic_load_n(&init_phase, __ATOMIC_RELAXED);
    if (was)
        SHOAL_LOG(BOOT, DEBUG, "start-up: %s took %.3f s (CPU %.3f s)", was,
                  now - phase_began, cpu - phase_cpu);
    else
        init_began = now, init_cpu = cpu;
    if (!next)
        SHOAL_LOG(BOOT, INFO, "start-up took %.3f s (CPU %.3f s)", now - init_began,
                  cpu - init_cpu);
    phase_began = now;
    phase_cpu = cpu;
}

void shoal_init_phase(const char *phase)
{
    if (SHOAL_LOG_ON(BOOT, INFO))
        log_phase(phase);
    __atomic_store_n(&init_phase, phase, __ATOMIC_RELEASE);
}

const char *shoal_init_phase_now(void)
{
    return __atomic_load_n(&init_phase, __ATOMIC_ACQUIRE);
}
