#ifndef CLINUXSHIM_H
#define CLINUXSHIM_H

/* The Linux calls Swift's Glibc module leaves out, for the load tool's lean WebSocket client
 * (CorkboardLoadKit): epoll and eventfd (its event loop), the TCP socket options (TCP_NODELAY,
 * TCP_QUICKACK), memmem (its frame scanner), naming a thread (also the transport's service threads)
 * and counting the CPUs of the affinity mask (the server's and the load tool's default threads). */
#include <stddef.h>
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

#endif
