#ifndef CLINUXSHIM_H
#define CLINUXSHIM_H

/* The Linux calls Swift's Glibc module leaves out, for the load tool's lean WebSocket client
 * (CorkboardLoadKit): epoll and eventfd (its event loop), the TCP socket options (TCP_NODELAY,
 * TCP_QUICKACK), memmem (its frame scanner), naming a thread (also the transport's service threads)
 * counting the CPUs of the affinity mask (the server's and the load tool's default threads), and the
 * scheduling policy of every thread of the process (`corkboard serve --scheduling`). */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* memmem is a GNU extension string.h declares only under _GNU_SOURCE, which Glibc's module is not
 * built with; its prototype here is the one glibc exports. */
void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);

/* The first occurrence of `needle` in `haystack`, or NULL (memmem under the module's prefix). */
static inline const void *clinux_memmem(const void *haystack, size_t haystack_length, const void *needle,
                                        size_t needle_length) {
    return memmem(haystack, haystack_length, needle, needle_length);
}

/* Names the calling thread (Linux keeps 15 bytes), for `top -H` and profiles: pthread_setname_np is
 * another GNU extension the module hides. */
static inline void clinux_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

/* sched_getaffinity, another GNU extension, under a name of the module's own: its mask is taken as
 * plain bytes, since cpu_set_t is hidden too. */
int clinux_sched_getaffinity(int pid, size_t size, void *mask) __asm__("sched_getaffinity");

/* The CPUs this process may run on: the calling thread's affinity mask (1 under `taskset -c 0`,
 * up to 1,024), or every online CPU if the mask cannot be read. Foundation's
 * `activeProcessorCount` counts every online CPU whatever the mask. */
static inline int clinux_allowed_cpus(void) {
    unsigned long mask[1024 / (8 * sizeof(unsigned long))] = {0};
    if (clinux_sched_getaffinity(0, sizeof mask, mask) == 0) {
        int count = 0;
        for (size_t i = 0; i < sizeof mask / sizeof mask[0]; i++) count += __builtin_popcountl(mask[i]);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

/* Linux's scheduling policies, by their ABI numbers: <sched.h> names SCHED_BATCH only under
 * _GNU_SOURCE. */
#define CLINUX_SCHED_OTHER 0
#define CLINUX_SCHED_BATCH 3

/* Puts every thread of the process under `policy` (CLINUX_SCHED_OTHER or CLINUX_SCHED_BATCH,
 * priority 0); threads created afterwards inherit it from their creator. Passes over /proc/self/task
 * until one changes nothing, so a thread started by a thread that was not switched yet is caught on
 * the next pass. Returns 0, or the errno of the first thread that could not be switched (a thread
 * that ended meanwhile does not count). */
static inline int clinux_set_process_scheduling(int policy) {
    struct sched_param param = {0};
    for (int pass = 0; pass < 16; pass++) {
        DIR *tasks = opendir("/proc/self/task");
        if (tasks == NULL) return errno;
        int changed = 0;
        struct dirent *entry;
        while ((entry = readdir(tasks)) != NULL) {
            if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
            int tid = atoi(entry->d_name);
            if (sched_getscheduler(tid) == policy) continue;
            if (sched_setscheduler(tid, policy, &param) != 0) {
                if (errno == ESRCH) continue;
                int failure = errno;
                closedir(tasks);
                return failure;
            }
            changed++;
        }
        closedir(tasks);
        if (changed == 0) return 0;
    }
    return 0;
}

#endif
