// The I/O half of the frame guard: `recv` and `SSL_read` as the executable exports them (so
// libwebsockets.so's calls land here), the table of registered sockets, and the hook.
//
// The table is indexed by descriptor in chunks allocated on first use and never freed, so a
// lookup is two loads and never touches freed memory. A slot belongs to the thread that
// registered it: reads on any other thread (SQLite, PostgresNIO, the client transport, or anyone
// handed the same number after libwebsockets closed the socket and before its WSI_DESTROY
// unregistered it) go straight to libc's `recv` (libssl's `SSL_read`), untouched.
#define _GNU_SOURCE
#include "CFrameGuard.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>

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
	cfg_reader_t reader; /* how the socket's bytes are read (NULL: libc's recv) */
	void *reader_context;
	cfg_stream_t stream;
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

int cfg_register(int fd, void *token, cfg_reader_t reader, void *reader_context)
{
	slot_t *s = slot_for(fd, 1);
	if (!s)
		return -1;
	s->token = token;
	s->reader = reader;
	s->reader_context = reader_context;
	cfg_stream_init(&s->stream);
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

/* ---- libc's recv ---------------------------------------------------------------------------- */

typedef ssize_t (*recv_fn)(int, void *, size_t, int);

static _Atomic(recv_fn) real_recv;

/// `recv` as glibc implements it, should RTLD_NEXT find no other definition.
static ssize_t recv_through_recvfrom(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

/// libc's `recv`, which the guard's stands in front of (RTLD_NEXT: the definition after the
/// executable's own).
static ssize_t libc_recv(int fd, void *buf, size_t len, int flags)
{
	recv_fn real = atomic_load_explicit(&real_recv, memory_order_acquire);
	if (!real) {
		real = (recv_fn)dlsym(RTLD_NEXT, "recv");
		if (!real || real == recv)
			real = recv_through_recvfrom;
		atomic_store_explicit(&real_recv, real, memory_order_release);
	}
	return real(fd, buf, len, flags);
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
	if (!s || (flags & MSG_PEEK))
		return libc_recv(fd, buf, len, flags);
	ssize_t n = s->reader ? s->reader(fd, buf, len, flags, s->reader_context) : libc_recv(fd, buf, len, flags);
	if (n <= 0)
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
		n = libc_recv(fd, buf, len, flags | MSG_DONTWAIT);
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
