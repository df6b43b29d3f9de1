#ifndef CLINUXSHIM_H
#define CLINUXSHIM_H

/* The Linux calls Swift's Glibc module leaves out, for the load tool's lean WebSocket client
 * (CorkboardLoadKit): epoll and eventfd (its event loop), the TCP socket options (TCP_NODELAY,
 * TCP_QUICKACK), memmem (its frame scanner), naming a thread (also the transport's service threads)
 * counting the CPUs of the affinity mask (the server's and the load tool's default threads), the
 * scheduling policy of every thread of the process (`corkboard serve --scheduling`), and the kernel's
 * receive timestamps (the transport's read timing). */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
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

/* ---- Receive timestamps (the transport's ReadTiming) ------------------------------------------
 * How long a message's bytes waited in their socket before a service thread read them: a socket
 * with SO_TIMESTAMPNS gets, with each read through recvmsg, the time its newest bytes arrived. The
 * control-message macros (CMSG_*) that carry it do not import into Swift. */

/* Reads like recv; `*stamped` says whether the kernel also said when the newest bytes read
 * arrived (SCM_TIMESTAMPNS, CLOCK_REALTIME), which is then in `*arrived`. */
static inline ssize_t clinux_recv_stamped(int fd, void *buf, size_t len, int flags, struct timespec *arrived,
                                          int *stamped) {
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(sizeof(struct timespec))];
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control};
    *stamped = 0;
    ssize_t n = recvmsg(fd, &msg, flags);
    if (n <= 0) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
        memcpy(arrived, CMSG_DATA(c), sizeof *arrived);
        *stamped = 1;
    }
    return n;
}

/* Reads like recv (the frame guard's reader for a timed socket, cfg_reader_t) and, when the kernel
 * said when the newest bytes read arrived, stores how long they waited until now in the int64_t
 * at `wait_ns` (nanoseconds; 0 if the wall clock stepped back), for the transport to take. */
static inline ssize_t clinux_recv_timed(int fd, void *buf, size_t len, int flags, void *wait_ns) {
    struct timespec arrived, now;
    int stamped;
    ssize_t n = clinux_recv_stamped(fd, buf, len, flags, &arrived, &stamped);
    if (n > 0 && stamped) {
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t wait = (int64_t)(now.tv_sec - arrived.tv_sec) * 1000000000 + (now.tv_nsec - arrived.tv_nsec);
        *(int64_t *)wait_ns = wait < 0 ? 0 : wait;
    }
    return n;
}

/* Asks the kernel to stamp what arrives on `fd` (SO_TIMESTAMPNS). Returns 0, or -1 (errno). */
static inline int clinux_request_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

/* Linux stamps an arriving packet only while some socket of the system has asked for timestamps,
 * and it switches stamping on in a deferred kernel work item, after the first SO_TIMESTAMPNS was
 * set: until that item has run, TCP delivers bytes without a timestamp. So a server that times
 * reads holds one socket with the option for its whole life (stamping never switches off under it
 * between connections) and, at start, waits until a probe's byte arrives stamped. */

/* Opens a socket that only asks for receive timestamps, so the kernel keeps stamping arriving
 * packets while it is open. Returns the descriptor (close it to let go), or -1. */
static inline int clinux_timestamps_hold(void) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (clinux_request_timestamps(fd) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether the kernel stamps arriving TCP bytes now: 1 if a byte sent over a fresh loopback
 * connection came with its timestamp, 0 if not (yet), -1 if the probe itself failed. Blocks for
 * at most a second. */
static inline int clinux_timestamps_stamping(void) {
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int server = -1, result = -1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    struct timeval limit = {.tv_sec = 1};
    uint8_t byte = 1;
    struct timespec arrived;
    int stamped;
    if (listener < 0 || client < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(listener, 1) != 0 || getsockname(listener, (struct sockaddr *)&address, &length) != 0 ||
        connect(client, (struct sockaddr *)&address, sizeof address) != 0)
        goto done;
    server = accept(listener, NULL, NULL);
    if (server < 0 || clinux_request_timestamps(server) != 0 ||
        setsockopt(server, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit) != 0 || send(client, &byte, 1, 0) != 1)
        goto done;
    if (clinux_recv_stamped(server, &byte, 1, 0, &arrived, &stamped) != 1) goto done;
    result = stamped;
done:
    if (server >= 0) close(server);
    if (client >= 0) close(client);
    if (listener >= 0) close(listener);
    return result;
}

#endif
