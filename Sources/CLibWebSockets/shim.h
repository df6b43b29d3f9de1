// CLibWebSockets: the macros of libwebsockets 4.1.6 that Swift cannot import, as constants and
// static inline helpers. Every name is prefixed CLWS_ / clws_ and says why it exists.
#ifndef CLIBWEBSOCKETS_SHIM_H
#define CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>

/// LWS_PRE: the headroom lws needs before every payload passed to lws_write (a computed macro).
static const size_t CLWS_PRE = LWS_PRE;

#endif
