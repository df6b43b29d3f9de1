// The pure half of the frame guard: follows one connection's bytes (HTTP heads, then WebSocket
// frame headers) and finds the first frame RFC 6455 forbids and libwebsockets 4.1.6 lets through
// or drops without a close frame. No I/O here; ReadGuard.c feeds it what the socket returned.
#include "CFrameGuard.h"

#include <string.h>

static const char upgrade_name[] = "upgrade";
static const char length_name[] = "content-length";
static const char websocket_value[] = "websocket";

static char lower(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c + ('a' - 'A')) : (char)c;
}

/// Passes over up to `available` bytes of a body or payload that has `*left` bytes to go; returns how
/// many it passed over.
static size_t skip_left(uint64_t *left, size_t available)
{
	size_t skip = (uint64_t)available > *left ? (size_t)*left : available;
	*left -= skip;
	return skip;
}

static void http_new_line(cfg_http_t *h)
{
	h->line_length = 0;
	h->header = 0;
	h->in_value = 0;
	h->name_length = 0;
	h->value_length = 0;
}

static void http_new_head(cfg_http_t *h)
{
	http_new_line(h);
	h->content_length = 0;
	h->upgrade = 0;
	h->bad_length = 0;
}

/// The end of a header line: note what it said about the head.
static void http_end_line(cfg_http_t *h)
{
	if (h->header == 1) {
		size_t n = h->value_length;
		while (n > 0 && (h->value[n - 1] == ' ' || h->value[n - 1] == '\t'))
			n--;
		if (n == sizeof(websocket_value) - 1 && !memcmp(h->value, websocket_value, n))
			h->upgrade = 1;
	}
	http_new_line(h);
}

long cfg_http_scan(cfg_http_t *h, const uint8_t *bytes, size_t count)
{
	size_t i = 0;

	while (i < count) {
		if (h->body_left) {
			i += skip_left(&h->body_left, count - i);
			continue;
		}
		uint8_t c = bytes[i++];
		if (c == '\r') {
			h->saw_cr = 1;
			continue;
		}
		if (c == '\n' && h->saw_cr) {
			h->saw_cr = 0;
			if (h->line_length) {
				http_end_line(h);
				continue;
			}
			/* An empty line ends the head. */
			if (h->upgrade) {
				http_new_head(h);
				return (long)i;
			}
			h->body_left = h->bad_length ? 0 : h->content_length;
			http_new_head(h);
			continue;
		}
		if (h->saw_cr) {
			/* A lone CR is part of the line (libwebsockets would not end the head on it). */
			h->saw_cr = 0;
			if (h->line_length < UINT16_MAX)
				h->line_length++;
		}
		if (h->line_length < UINT16_MAX)
			h->line_length++;
		if (!h->in_value) {
			if (c == ':') {
				h->in_value = 1;
				if (h->name_length == sizeof(upgrade_name) - 1 &&
				    !memcmp(h->name, upgrade_name, h->name_length))
					h->header = 1;
				else if (h->name_length == sizeof(length_name) - 1 &&
					 !memcmp(h->name, length_name, h->name_length))
					h->header = 2;
			} else if (h->name_length < sizeof(h->name) - 1) {
				h->name[h->name_length++] = lower(c);
			} else {
				h->name_length = sizeof(h->name); /* too long for any name we look for */
			}
			continue;
		}
		if (h->header == 1) {
			if (h->value_length == 0 && (c == ' ' || c == '\t'))
				continue;
			if (h->value_length < sizeof(h->value))
				h->value[h->value_length++] = lower(c);
		} else if (h->header == 2) {
			if (c == ' ' || c == '\t')
				continue;
			if (c >= '0' && c <= '9' && h->content_length <= (UINT64_MAX - 9) / 10)
				h->content_length = h->content_length * 10 + (uint64_t)(c - '0');
			else
				h->bad_length = 1;
		}
	}
	return -1;
}

size_t cfg_frames_scan(cfg_frames_t *f, const uint8_t *bytes, size_t count, cfg_violation_t *violation,
		       int *saw_close)
{
	size_t i = 0;
	long header_start = -1; /* offset of the current header's byte 0, when it is in these bytes */

	*violation = CFG_VIOLATION_NONE;
	while (i < count) {
		if (f->payload_left) {
			i += skip_left(&f->payload_left, count - i);
			continue;
		}
		uint8_t c = bytes[i];
		switch (f->position) {
		case 0:
			header_start = (long)i;
			f->first = c;
			f->length = 0;
			break;
		case 1: {
			uint8_t length7 = c & 0x7f;
			f->second = c;
			if ((f->first & 0x08) && length7 > 125)
				*violation = CFG_VIOLATION_CONTROL_TOO_LONG;
			else if (!(c & 0x80))
				*violation = CFG_VIOLATION_UNMASKED;
			f->header_length = (uint8_t)(2 + (length7 == 126 ? 2 : length7 == 127 ? 8 : 0) + 4);
			f->length = length7 < 126 ? length7 : 0;
			break;
		}
		default:
			if ((f->second & 0x7f) == 127 && f->position == 2 && (c & 0x80))
				*violation = CFG_VIOLATION_LENGTH_TOP_BIT;
			else if (f->position < f->header_length - 4)
				f->length = (f->length << 8) | c;
			break;
		}
		if (*violation) {
			/* Hand on only what precedes this frame (0 if its header began in an earlier read). */
			return header_start >= 0 ? (size_t)header_start : 0;
		}
		f->position++;
		i++;
		if (f->position >= 2 && f->position == f->header_length) {
			f->payload_left = f->length;
			f->position = 0;
			if ((f->first & 0x0f) == 0x8) {
				/* A close frame: the connection is closing; nothing after it matters. */
				*saw_close = 1;
				return count;
			}
		}
	}
	return count;
}

void cfg_stream_init(cfg_stream_t *s)
{
	memset(s, 0, sizeof(*s));
	s->phase = CFG_PHASE_HTTP;
}

size_t cfg_stream_inspect(cfg_stream_t *s, const uint8_t *bytes, size_t count, cfg_violation_t *violation)
{
	size_t offset = 0;

	*violation = CFG_VIOLATION_NONE;
	switch (s->phase) {
	case CFG_PHASE_PASS:
		return count;
	case CFG_PHASE_SWALLOW:
		return 0;
	case CFG_PHASE_HTTP: {
		long end = cfg_http_scan(&s->http, bytes, count);
		if (end < 0)
			return count;
		/* The rest of these bytes follows an upgrade request: frames, if it is accepted. */
		s->phase = CFG_PHASE_FRAMES;
		memset(&s->frames, 0, sizeof(s->frames));
		offset = (size_t)end;
		break;
	}
	default:
		break;
	}
	int saw_close = 0;
	size_t clean = offset + cfg_frames_scan(&s->frames, bytes + offset, count - offset, violation, &saw_close);
	if (*violation) {
		s->phase = CFG_PHASE_SWALLOW;
		if (!s->established)
			s->pending = (uint8_t)*violation;
		return clean;
	}
	if (saw_close)
		s->phase = CFG_PHASE_PASS;
	return count;
}

cfg_violation_t cfg_stream_established(cfg_stream_t *s)
{
	cfg_violation_t pending = (cfg_violation_t)s->pending;

	s->established = 1;
	s->pending = CFG_VIOLATION_NONE;
	if (s->phase == CFG_PHASE_HTTP) {
		/* The head scanner missed the upgrade (a form it does not know): frames start now. */
		s->phase = CFG_PHASE_FRAMES;
		memset(&s->frames, 0, sizeof(s->frames));
	}
	return pending;
}

void cfg_stream_refused(cfg_stream_t *s)
{
	memset(&s->http, 0, sizeof(s->http));
	memset(&s->frames, 0, sizeof(s->frames));
	s->phase = CFG_PHASE_HTTP;
	s->pending = CFG_VIOLATION_NONE;
}
