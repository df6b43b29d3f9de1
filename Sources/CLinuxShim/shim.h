#ifndef CLINUXSHIM_H
#define CLINUXSHIM_H

/* The Linux calls Swift's Glibc module leaves out, for the load tool's lean WebSocket client
 * (CorkboardLoadKit): epoll and eventfd (its event loop), the TCP socket options (TCP_NODELAY,
 * TCP_QUICKACK), memmem (its frame scanner) and naming a thread (also the transport's service threads). */
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>

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

#endif
