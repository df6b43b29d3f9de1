// CLibWebSockets: the macros of libwebsockets 4.1.6 that Swift cannot import, as constants and
// static inline helpers. Every name is prefixed CLWS_ / clws_ and says why it exists.
#ifndef CLIBWEBSOCKETS_SHIM_H
#define CLIBWEBSOCKETS_SHIM_H

/* uv.h: the server owns the libuv loop lws runs on (the clws_uv_* helpers below). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <uv.h>
#include <libwebsockets.h>

/// LWS_PRE: the headroom lws needs before every payload passed to lws_write (a computed macro).
static const size_t CLWS_PRE = LWS_PRE;

/// Context option: initialise OpenSSL globally (needed for any TLS, server or client); a 1ll<<n macro.
static const uint64_t CLWS_OPT_DO_SSL_GLOBAL_INIT = LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;

/// Context option: close text frames carrying invalid UTF-8 with 1007.
static const uint64_t CLWS_OPT_VALIDATE_UTF8 = LWS_SERVER_OPTION_VALIDATE_UTF8;

/// Context option: listen on IPv4 only (used when binding loopback through the "lo" interface).
static const uint64_t CLWS_OPT_DISABLE_IPV6 = LWS_SERVER_OPTION_DISABLE_IPV6;

/// Context option: a client sends ci.origin verbatim (lws otherwise prefixes "http://").
static const uint64_t CLWS_OPT_JUST_USE_RAW_ORIGIN = LWS_SERVER_OPTION_JUST_USE_RAW_ORIGIN;

/// CONTEXT_PORT_NO_LISTEN: the port value for a client-only context (a macro).
static const int CLWS_PORT_NO_LISTEN = CONTEXT_PORT_NO_LISTEN;

/// CONTEXT_PORT_NO_LISTEN_SERVER: a server vhost that listens on no port of its own (the server
/// adopts the sockets its own listener accepts; a macro).
static const int CLWS_PORT_NO_LISTEN_SERVER = CONTEXT_PORT_NO_LISTEN_SERVER;

/// Context option: run the service loop on libuv (epoll) through the event-library plugin.
static const uint64_t CLWS_OPT_LIBUV = LWS_SERVER_OPTION_LIBUV;

/// Adopts an accepted server socket into a vhost as an HTTP connection (TLS when the vhost has
/// it); the union argument of lws_adopt_descriptor_vhost is awkward from Swift.
static inline struct lws *clws_adopt_socket(struct lws_vhost *vh, int fd)
{
	return lws_adopt_socket_vhost(vh, fd);
}

/// Adopts a listening socket as a raw file descriptor served by the named protocol, so the
/// service loop calls LWS_CALLBACK_RAW_RX_FILE when connections wait to be accepted.
static inline struct lws *clws_adopt_listener(struct lws_vhost *vh, int fd, const char *protocol)
{
	lws_sock_file_fd_type desc;
	desc.filefd = fd;
	return lws_adopt_descriptor_vhost(vh, LWS_ADOPT_RAW_FILE_DESC, desc, protocol, NULL);
}

/// Adopts a connected socket as a raw socket bound to `protocol` (no HTTP, no TLS): libwebsockets
/// reads it with its own `recv` and hands what it read to LWS_CALLBACK_RAW_RX. The read-path
/// check (ReadPathCheck.swift) reads its probe through it. On failure lws closes `fd`.
static inline struct lws *clws_adopt_raw_socket(struct lws_vhost *vh, int fd, const char *protocol)
{
	lws_sock_file_fd_type desc;
	desc.sockfd = fd;
	return lws_adopt_descriptor_vhost(vh, LWS_ADOPT_SOCKET, desc, protocol, NULL);
}

/// lws_write_ws_flags is a static inline over macro-valued enums; wrapped so Swift gets plain ints.
static inline int clws_ws_flags(int binary, int start, int end)
{
	return lws_write_ws_flags(binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT, start, end);
}

/// A scheduler entry that knows its owner: lws passes only the sul pointer to timer callbacks,
/// so the sul is the first member and the owner (an unretained Swift object) follows it.
typedef struct clws_timer {
	lws_sorted_usec_list_t sul;
	void *owner;
} clws_timer_t;

/// A libuv loop owned by the server (lws runs on it as a "foreign" loop): the server runs it,
/// stops it and closes it, so shutdown does not depend on lws returning from uv_run.
static inline uv_loop_t *clws_uv_loop_create(void)
{
	uv_loop_t *loop = (uv_loop_t *)malloc(sizeof(uv_loop_t));
	if (loop && uv_loop_init(loop)) {
		free(loop);
		return NULL;
	}
	return loop;
}

/// Runs the loop until clws_uv_loop_stop or until nothing is left to watch.
static inline void clws_uv_loop_run(uv_loop_t *loop)
{
	uv_run(loop, UV_RUN_DEFAULT);
}

/// Makes clws_uv_loop_run return (call on the loop's thread, from a callback).
static inline void clws_uv_loop_stop(uv_loop_t *loop)
{
	uv_stop(loop);
}

static inline void clws_uv_close_handle(uv_handle_t *handle, void *arg)
{
	(void)arg;
	if (!uv_is_closing(handle))
		uv_close(handle, NULL);
}

/// After lws_context_destroy: lets lws finish closing its handles, closes anything left, and
/// frees the loop. With `bounded`, lws gets a thousand turns at most (it may never finish, see
/// CLWS_PIPE_CALLBACK_CANCELLED) before what is left is closed.
static inline void clws_uv_loop_close(uv_loop_t *loop, int bounded)
{
	if (bounded) {
		int budget = 1000;
		while (budget-- > 0 && uv_run(loop, UV_RUN_NOWAIT))
			;
	} else
		uv_run(loop, UV_RUN_DEFAULT);
	if (uv_loop_close(loop) == UV_EBUSY) {
		uv_walk(loop, clws_uv_close_handle, NULL);
		uv_run(loop, UV_RUN_DEFAULT);
		uv_loop_close(loop);
	}
	free(loop);
}

/// After lws_context_destroy: lets lws finish closing its handles, closes anything left, and
/// frees the loop.
static inline void clws_uv_loop_destroy(uv_loop_t *loop)
{
	clws_uv_loop_close(loop, 0);
}

/* ---- Destroying a context that runs on libuv -------------------------------------------------
 * lws 4.1.6 closes its cancel pipe (an eventfd) twice on libuv: lws_context_destroy closes it
 * (lws_destroy_event_pipe -> lws_plat_pipe_close), and the pipe's uv close callback, run later by
 * the loop, closes the same number again (lws_libuv_closewsi -> __lws_close_free_wsi_final).
 * In between, any thread of the process may be given that number (a listener, an accepted
 * socket, a database file), and the second close then closes it under its owner: measured here
 * as aborts in insert_wsi and uv_poll_start and corrupted connections when servers start and
 * stop side by side. clws_uv_destroy_context makes the second close harmless. */

typedef struct clws_event_pipe {
	uv_handle_t *handle;
	int fd;
} clws_event_pipe_t;

static inline void clws_find_event_pipe(uv_handle_t *handle, void *arg)
{
	clws_event_pipe_t *found = (clws_event_pipe_t *)arg;
	uv_os_fd_t fd;
	char path[48], target[48];
	ssize_t n;

	if (found->handle || handle->type != UV_POLL || uv_is_closing(handle) || uv_fileno(handle, &fd))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", (int)fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	if (!strcmp(target, "anon_inode:[eventfd]")) {
		found->handle = handle;
		found->fd = (int)fd;
	}
}

/// How clws_uv_destroy_context dealt with lws's second close of its cancel pipe.
typedef enum clws_pipe_outcome {
	/// The number was held by a placeholder, which the second close closed (the usual case).
	CLWS_PIPE_PLACEHOLDER_CLOSED = 0,
	/// No second close came (a libwebsockets that closes once): the placeholder was closed here.
	CLWS_PIPE_CLOSED_ONCE = 1,
	/// Another thread took the number first: the pipe's close callback was cancelled, leaving
	/// that wsi and the context's last allocations unfreed rather than closing its descriptor.
	CLWS_PIPE_CALLBACK_CANCELLED = 2,
	/// No cancel pipe was found on the loop (nothing to guard).
	CLWS_PIPE_NOT_FOUND = 3,
} clws_pipe_outcome_t;

/// Destroys a context running on `loop` (a loop the caller owns), lets lws finish closing its
/// handles, closes the loop, and frees it; the cancel pipe's number is held by a placeholder
/// socket from lws's first close to its second, so no other descriptor is ever closed by it.
static inline clws_pipe_outcome_t clws_uv_destroy_context(struct lws_context *context, uv_loop_t *loop)
{
	clws_event_pipe_t pipe = { NULL, -1 };
	clws_pipe_outcome_t outcome = CLWS_PIPE_NOT_FOUND;
	struct stat held;
	int placeholder = -1, dup_fd;

	uv_walk(loop, clws_find_event_pipe, &pipe);
	lws_context_destroy(context); /* first close of pipe.fd; the second is queued on the loop */
	if (pipe.handle) {
		placeholder = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (placeholder == pipe.fd) {
			/* The lowest free number was the pipe's: the placeholder holds it already. */
			dup_fd = placeholder;
			placeholder = -1;
		} else {
			/* F_DUPFD gives the lowest free number >= pipe.fd atomically: pipe.fd if free. */
			dup_fd = placeholder < 0 ? -1 : fcntl(placeholder, F_DUPFD_CLOEXEC, pipe.fd);
		}
		if (dup_fd == pipe.fd && fstat(pipe.fd, &held) == 0) {
			outcome = CLWS_PIPE_PLACEHOLDER_CLOSED;
		} else {
			if (dup_fd >= 0)
				close(dup_fd);
			if (pipe.handle->close_cb) /* still closing: nothing of lws's may close that number */
				pipe.handle->close_cb = NULL;
			outcome = CLWS_PIPE_CALLBACK_CANCELLED;
		}
	}
	/* Without the pipe's callback lws never reaches its last phase: bound the run. */
	clws_uv_loop_close(loop, outcome == CLWS_PIPE_CALLBACK_CANCELLED);
	if (outcome == CLWS_PIPE_PLACEHOLDER_CLOSED) {
		struct stat now;
		/* Still our placeholder (same socket inode): lws closed only once; close it here. */
		if (fstat(pipe.fd, &now) == 0 && now.st_ino == held.st_ino && now.st_dev == held.st_dev) {
			close(pipe.fd);
			outcome = CLWS_PIPE_CLOSED_ONCE;
		}
	}
	if (placeholder >= 0)
		close(placeholder);
	return outcome;
}

#endif
