// CLibWebSockets: the macros of libwebsockets 4.1.6 that Swift cannot import, as constants and
// static inline helpers. Every name is prefixed CLWS_ / clws_ and says why it exists.
#ifndef CLIBWEBSOCKETS_SHIM_H
#define CLIBWEBSOCKETS_SHIM_H

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

#endif
