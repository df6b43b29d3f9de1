// The I/O half of the frame guard: `recv` and `SSL_read` as the executable exports them (so
// libwebsockets.so's calls land here), the table of registered sockets, and the hook.
//
// The table is indexed by descriptor in chunks allocated on first use and never freed, so a
// lookup is two loads and never touches freed memory. A slot belongs to the thread that
// registered it: reads on any other thread (SQLite, PostgresNIO, the client transport, or anyone
// handed the same number after libwebsockets closed the socket and before its WSI_DESTROY
// unregistered it) pass straight through.
//
// A slot may also time its reads (cfg_time_reads): the socket then carries SO_TIMESTAMPNS, `recv`
// reads with `recvmsg`, and the slot keeps how long the newest bytes of the last read waited in
// the socket's receive queue, for the transport to take (cfg_take_read_wait); a server that times
// reads keeps the kernel stamping arrivals (cfg_timestamps_hold, cfg_timestamps_stamping).
#define _GNU_SOURCE
#include "CFrameGuard.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

typedef struct ssl_st SSL;

enum {
	CHUNK_BITS = 10,
	CHUNK_SLOTS = 1 << CHUNK_BITS,
	CHUNKS = 4096, /* descriptors below 4 Mi */
	/* Reads a swallowing connection may spend discarding what its client still sends. */
	SWALLOW_ROUNDS = 64,
};

typedef struct slot {
	_Atomic(uintptr_t) owner; /* the registering thread (pthread_t), 0 when free */
	void *token;
	cfg_stream_t stream;
	uint8_t timed;   /* cfg_time_reads: reads take the kernel's receive timestamp */
	int64_t wait_ns; /* the last timed read's wait not yet taken, or -1 */
} slot_t;

static _Atomic(slot_t *) chunks[CHUNKS];
static _Atomic(cfg_violation_hook_t) violation_hook;

static slot_t *slot_for(int fd, int create)
{
	if (fd < 0 || (fd >> CHUNK_BITS) >= CHUNKS)
		return NULL;
	_Atomic(slot_t *) *entry = &chunks[fd >> CHUNK_BITS];
	slot_t *chunk = atomic_load_explicit(entry, memory_order_acquire);
	if (!chunk && create) {
		slot_t *fresh = calloc(CHUNK_SLOTS, sizeof(slot_t));
		if (!fresh)
			return NULL;
		if (atomic_compare_exchange_strong_explicit(entry, &chunk, fresh, memory_order_acq_rel,
							    memory_order_acquire))
			chunk = fresh;
		else
			free(fresh); /* another thread installed it first; chunk holds theirs */
	}
	return chunk ? &chunk[fd & (CHUNK_SLOTS - 1)] : NULL;
}

/// The slot of `fd` if the calling thread registered it.
static slot_t *owned_slot(int fd)
{
	slot_t *s = slot_for(fd, 0);
	if (!s)
		return NULL;
	uintptr_t owner = atomic_load_explicit(&s->owner, memory_order_acquire);
	return owner && owner == (uintptr_t)pthread_self() ? s : NULL;
}

void cfg_set_hook(cfg_violation_hook_t hook)
{
	atomic_store_explicit(&violation_hook, hook, memory_order_release);
}

int cfg_register(int fd, void *token)
{
	slot_t *s = slot_for(fd, 1);
	if (!s)
		return -1;
	s->token = token;
	cfg_stream_init(&s->stream);
	s->timed = 0;
	s->wait_ns = -1;
	atomic_store_explicit(&s->owner, (uintptr_t)pthread_self(), memory_order_release);
	return 0;
}

void cfg_unregister(int fd, void *token)
{
	slot_t *s = owned_slot(fd);
	if (s && s->token == token)
		atomic_store_explicit(&s->owner, 0, memory_order_release);
}

cfg_violation_t cfg_established(int fd, void *token)
{
	slot_t *s = owned_slot(fd);
	return s && s->token == token ? cfg_stream_established(&s->stream) : CFG_VIOLATION_NONE;
}

void cfg_refused(int fd, void *token)
{
	slot_t *s = owned_slot(fd);
	if (s && s->token == token)
		cfg_stream_refused(&s->stream);
}

int cfg_time_reads(int fd, void *token)
{
	slot_t *s = owned_slot(fd);
	if (!s || s->token != token)
		return -1;
	int on = 1;
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0)
		return -1;
	s->timed = 1;
	return 0;
}

int64_t cfg_take_read_wait(int fd, void *token)
{
	slot_t *s = owned_slot(fd);
	if (!s || s->token != token)
		return -1;
	int64_t wait = s->wait_ns;
	s->wait_ns = -1;
	return wait;
}

/// Reads like recvfrom; `*stamped` says whether the kernel also said when the newest bytes read
/// arrived (SCM_TIMESTAMPNS, CLOCK_REALTIME), which is then in `*arrived`.
static ssize_t recv_stamped(int fd, void *buf, size_t len, int flags, struct timespec *arrived, int *stamped)
{
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	union {
		struct cmsghdr align;
		char bytes[CMSG_SPACE(sizeof(struct timespec))];
	} control;
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control};
	*stamped = 0;
	ssize_t n = recvmsg(fd, &msg, flags);
	if (n <= 0)
		return n;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		memcpy(arrived, CMSG_DATA(c), sizeof *arrived);
		*stamped = 1;
	}
	return n;
}

/// Reads like recvfrom and, when the kernel says when the newest bytes read arrived, stores how
/// long they waited in the slot.
static ssize_t timed_read(slot_t *s, int fd, void *buf, size_t len, int flags)
{
	struct timespec arrived, now;
	int stamped;
	ssize_t n = recv_stamped(fd, buf, len, flags, &arrived, &stamped);
	if (n > 0 && stamped) {
		clock_gettime(CLOCK_REALTIME, &now);
		int64_t wait = (int64_t)(now.tv_sec - arrived.tv_sec) * 1000000000 + (now.tv_nsec - arrived.tv_nsec);
		s->wait_ns = wait < 0 ? 0 : wait; /* the wall clock stepped back: count no wait */
	}
	return n;
}

/* ---- keeping the kernel's receive timestamps on -------------------------------------------- */

/* Linux stamps an arriving packet only while some socket of the system has asked for timestamps,
 * and it switches stamping on in a deferred kernel work item, after the first `SO_TIMESTAMPNS`
 * was set. Until that item has run, TCP delivers bytes without a timestamp: 786 of 2,000 fresh
 * loopback connections, each the only timed socket, got their first byte unstamped. So a server
 * that times reads holds one socket with the option for its whole life (stamping never switches
 * off under it between connections) and, at start, waits until a probe's byte arrives stamped. */

int cfg_timestamps_hold(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int on = 1;
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int cfg_timestamps_stamping(void)
{
	int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int server = -1, result = -1;
	struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t length = sizeof address;
	struct timeval limit = {.tv_sec = 1};
	if (listener < 0 || client < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
	    listen(listener, 1) != 0 || getsockname(listener, (struct sockaddr *)&address, &length) != 0 ||
	    connect(client, (struct sockaddr *)&address, sizeof address) != 0)
		goto done;
	server = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	int on = 1;
	uint8_t byte = 1;
	if (server < 0 || setsockopt(server, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0 ||
	    setsockopt(server, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit) != 0 || send(client, &byte, 1, 0) != 1)
		goto done;
	struct timespec arrived;
	int stamped;
	if (recv_stamped(server, &byte, 1, 0, &arrived, &stamped) != 1)
		goto done;
	result = stamped;
done:
	if (server >= 0)
		close(server);
	if (client >= 0)
		close(client);
	if (listener >= 0)
		close(listener);
	return result;
}

/// Inspects `count` bytes read into `buf`; returns how many to hand on, reporting a violation
/// found after the upgrade to the hook.
static size_t inspect(slot_t *s, uint8_t *buf, size_t count)
{
	cfg_violation_t violation;
	size_t keep = cfg_stream_inspect(&s->stream, buf, count, &violation);
	if (violation && s->stream.established) {
		cfg_violation_hook_t hook = atomic_load_explicit(&violation_hook, memory_order_acquire);
		if (hook)
			hook(s->token, violation);
	}
	return keep;
}

/* ---- recv ---------------------------------------------------------------------------------- */

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	slot_t *s = owned_slot(fd);
	ssize_t n = s && s->timed && !(flags & MSG_PEEK) ? timed_read(s, fd, buf, len, flags)
							: recvfrom(fd, buf, len, flags, NULL, NULL);
	if (n <= 0 || (flags & MSG_PEEK) || !s)
		return n;
	for (int round = 0;; round++) {
		size_t keep = inspect(s, buf, (size_t)n);
		if (keep)
			return (ssize_t)keep;
		/* Nothing to hand on (the connection is being failed): read on until the socket is
		 * empty, so libwebsockets sees "nothing yet" and keeps the connection for the close. */
		if (round == SWALLOW_ROUNDS) {
			errno = EAGAIN;
			return -1;
		}
		n = recvfrom(fd, buf, len, flags | MSG_DONTWAIT, NULL, NULL);
		if (n <= 0)
			return n;
	}
}

/* ---- SSL_read ------------------------------------------------------------------------------ */

typedef int (*ssl_read_fn)(SSL *, void *, int);
typedef int (*ssl_get_fd_fn)(const SSL *);

static ssl_read_fn real_ssl_read;
static ssl_get_fd_fn real_ssl_get_fd;
static pthread_once_t ssl_once = PTHREAD_ONCE_INIT;

int SSL_read(SSL *ssl, void *buf, int num);

static void resolve_ssl(void)
{
	real_ssl_read = (ssl_read_fn)dlsym(RTLD_NEXT, "SSL_read");
	real_ssl_get_fd = (ssl_get_fd_fn)dlsym(RTLD_NEXT, "SSL_get_fd");
	if (real_ssl_read == SSL_read)
		real_ssl_read = NULL;
}

int SSL_read(SSL *ssl, void *buf, int num)
{
	pthread_once(&ssl_once, resolve_ssl);
	if (!real_ssl_read)
		abort(); /* SSL_read was called, so libssl is loaded: RTLD_NEXT must find it */
	int n = real_ssl_read(ssl, buf, num);
	if (n <= 0 || !real_ssl_get_fd)
		return n;
	slot_t *s = owned_slot(real_ssl_get_fd(ssl));
	if (!s)
		return n;
	for (int round = 0;; round++) {
		size_t keep = inspect(s, buf, (size_t)n);
		if (keep)
			return (int)keep;
		/* As for recv: read on until OpenSSL wants more from the network, and return that
		 * result, so SSL_get_error tells libwebsockets to wait (never a made-up error). */
		n = real_ssl_read(ssl, buf, num);
		if (n <= 0)
			return n;
		if (round == SWALLOW_ROUNDS * 16)
			return 0; /* a client that keeps sending after a violation: end the connection */
	}
}

int cfg_interposed(void)
{
	return dlsym(RTLD_DEFAULT, "recv") == (void *)recv && dlsym(RTLD_DEFAULT, "SSL_read") == (void *)SSL_read;
}
