// CFrameGuard: checks what WebSocket clients send before libwebsockets parses it.
//
// libwebsockets 4.1.6 (Debian 12's, which cannot be patched here) accepts unmasked client frames
// (RFC 6455 §5.1 says the server must fail the connection) and drops the TCP connection without a
// close frame on a control frame longer than 125 bytes (§5.5) or a 64-bit length with its top bit
// set (§5.2). It exposes neither the mask bit nor the frame header, so the check sits where lws
// reads: this target defines `recv` and `SSL_read`, which the executable exports and so preempt
// libc's and libssl's for every caller in the process (libwebsockets.so included). The guard acts
// only on the sockets the transport registered (cfg_register) on the calling thread: every other
// call goes straight to libc's `recv` (or libssl's `SSL_read`) and pays one table lookup.
//
// Per registered socket the guard follows the stream: HTTP request heads first (it looks for the
// head that asks for `Upgrade: websocket`), then RFC 6455 frame headers (it reads only headers and
// skips payloads). At the first violating frame it hands libwebsockets only the bytes before that
// frame, swallows everything after it, and reports the violation (cfg_set_hook) so the transport
// sends a close frame 1002 itself. Nothing of the violating frame reaches libwebsockets.
//
// Whether libwebsockets really reads through the guard is the transport's to check at start
// (ReadPathCheck.swift): the guard cannot see who calls it.
#ifndef CFRAMEGUARD_H
#define CFRAMEGUARD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a client did wrong (RFC 6455), as reported to the hook and by cfg_established.
typedef enum cfg_violation {
	/// Nothing.
	CFG_VIOLATION_NONE = 0,
	/// A frame without the mask bit (§5.1: a server must close on any unmasked client frame).
	CFG_VIOLATION_UNMASKED = 1,
	/// A control frame (close, ping, pong) whose length is encoded on 16 or 64 bits (§5.5: at most 125).
	CFG_VIOLATION_CONTROL_TOO_LONG = 2,
	/// A 64-bit payload length with its most significant bit set (§5.2).
	CFG_VIOLATION_LENGTH_TOP_BIT = 3,
} cfg_violation_t;

/* ---- Pure stream logic (no I/O; what the tests drive directly) -------------------------------- */

/// Follows HTTP/1.1 request heads (lines ending CRLF, a head ending with an empty line), noting
/// `Upgrade: websocket` and skipping `Content-Length` bodies.
typedef struct cfg_http {
	uint64_t body_left;      /* body bytes of the previous request still to skip */
	uint64_t content_length; /* Content-Length of the head being read */
	uint16_t line_length;    /* characters in the current line (saturating), CR excluded */
	uint8_t saw_cr;          /* the previous byte was CR */
	uint8_t header;          /* 0 other, 1 Upgrade, 2 Content-Length (once the name is complete) */
	uint8_t in_value;        /* past the ':' of the current line */
	uint8_t name_length;     /* bytes in name[] */
	uint8_t value_length;    /* bytes in value[] (leading blanks skipped) */
	uint8_t upgrade;         /* the head being read asks for Upgrade: websocket */
	uint8_t bad_length;      /* the Content-Length value is not a number */
	char name[16];           /* the header name so far, lower case (first 15 bytes) */
	char value[16];          /* the Upgrade value so far, lower case (first 15 bytes) */
} cfg_http_t;

/// Follows RFC 6455 frame headers and skips payloads.
typedef struct cfg_frames {
	uint64_t payload_left;   /* payload bytes of the current frame still to skip */
	uint64_t length;         /* the payload length being assembled */
	uint8_t position;        /* header bytes of the current frame seen so far (0: at a frame start) */
	uint8_t header_length;   /* the current frame's header length once byte 1 is known */
	uint8_t first;           /* byte 0 of the current header */
	uint8_t second;          /* byte 1 of the current header */
} cfg_frames_t;

/// Where a connection's stream is.
typedef enum cfg_phase {
	/// Reading HTTP request heads.
	CFG_PHASE_HTTP = 0,
	/// Reading WebSocket frames (from the end of the upgrade request).
	CFG_PHASE_FRAMES = 1,
	/// A violation was found: nothing more is handed to libwebsockets.
	CFG_PHASE_SWALLOW = 2,
	/// No more checks (the client sent a close frame): bytes pass unchanged.
	CFG_PHASE_PASS = 3,
} cfg_phase_t;

/// One connection's stream: its phase and both trackers.
typedef struct cfg_stream {
	cfg_http_t http;
	cfg_frames_t frames;
	uint8_t phase;        /* cfg_phase_t */
	uint8_t established;  /* the transport saw the upgrade complete (cfg_stream_established) */
	uint8_t pending;      /* a violation found before the upgrade completed, not yet reported */
} cfg_stream_t;

/// A fresh stream, at the start of an HTTP connection.
void cfg_stream_init(cfg_stream_t *stream);

/// Inspects `count` bytes just read (in stream order); returns how many leading bytes may be
/// handed on (`count` unless a violation was found in them or earlier). `*violation` is set to
/// the violation found in these bytes, or CFG_VIOLATION_NONE.
size_t cfg_stream_inspect(cfg_stream_t *stream, const uint8_t *bytes, size_t count, cfg_violation_t *violation);

/// The upgrade completed: frames start after the bytes inspected so far if the head scanner did
/// not see the upgrade itself. Returns a violation found before this point and not yet reported.
cfg_violation_t cfg_stream_established(cfg_stream_t *stream);

/// The upgrade request was refused and the connection stays HTTP: back to reading heads.
void cfg_stream_refused(cfg_stream_t *stream);

/// Scans HTTP bytes; returns the offset just past the end of a head that asked for
/// `Upgrade: websocket` (frames follow it), or -1 if these bytes hold no such end.
long cfg_http_scan(cfg_http_t *http, const uint8_t *bytes, size_t count);

/// Scans frame bytes; returns how many leading bytes are clean: `count`, or the offset of the
/// first byte of the violating frame's header found in these bytes (0 when that header began in
/// an earlier read), with `*violation` set.
size_t cfg_frames_scan(cfg_frames_t *frames, const uint8_t *bytes, size_t count, cfg_violation_t *violation,
		       int *saw_close);

/* ---- The read guard (what the transport calls) ------------------------------------------------ */

/// Called on the reading thread, from inside a read of a registered socket whose upgrade
/// completed, when its client sent a violating frame (nothing of it reached libwebsockets).
/// `token` is what cfg_register was given.
typedef void (*cfg_violation_hook_t)(void *token, cfg_violation_t violation);

/// Sets the process-wide hook (once, before any socket is registered).
void cfg_set_hook(cfg_violation_hook_t hook);

/// Reads a registered socket as `recv` would (same arguments and result, errno on failure), for a
/// transport that needs more from the read than its bytes (the kernel's receive timestamp, say).
/// `context` is what cfg_register was given with it.
typedef ssize_t (*cfg_reader_t)(int fd, void *buf, size_t len, int flags, void *context);

/// Starts guarding the server socket `fd` on the calling thread (its service thread: only reads
/// on that thread are inspected). `token` identifies the connection (its lws pointer). The guard
/// reads the socket's bytes with `reader(fd, …, reader_context)`, or with libc's `recv` when
/// `reader` is NULL, then inspects them. Returns 0, or -1 if `fd` is out of range or memory ran out
/// (the socket is then not guarded).
int cfg_register(int fd, void *token, cfg_reader_t reader, void *reader_context);

/// Stops guarding `fd` if it is still registered with `token` (a number reused by another
/// connection in the meantime is left alone).
void cfg_unregister(int fd, void *token);

/// The upgrade of `fd` completed (see cfg_stream_established); returns a pending violation.
cfg_violation_t cfg_established(int fd, void *token);

/// The upgrade request on `fd` was refused; it stays HTTP (see cfg_stream_refused).
void cfg_refused(int fd, void *token);

/// Whether the process's global lookup finds the guard's `recv` and `SSL_read` (the executable
/// exports them). `0` means libwebsockets reads past the guard; `1` does not prove it reads through
/// it (a dynamic-linker audit module, for one, can bind libwebsockets' calls elsewhere): the
/// transport proves that with a read through libwebsockets itself.
int cfg_interposed(void);

#ifdef __cplusplus
}
#endif

#endif
