// CLibWebSockets: the macros of libwebsockets 4.1.6 that Swift cannot import, as constants and
// static inline helpers. Every name is prefixed CLWS_ / clws_ and says why it exists.
#ifndef CLIBWEBSOCKETS_SHIM_H
#define CLIBWEBSOCKETS_SHIM_H

/* uv.h: the server owns the libuv loop lws runs on (the clws_uv_* helpers below). */
#include <stdlib.h>
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
/// frees the loop.
static inline void clws_uv_loop_destroy(uv_loop_t *loop)
{
	uv_run(loop, UV_RUN_DEFAULT);
	if (uv_loop_close(loop) == UV_EBUSY) {
		uv_walk(loop, clws_uv_close_handle, NULL);
		uv_run(loop, UV_RUN_DEFAULT);
		uv_loop_close(loop);
	}
	free(loop);
}

#endif
