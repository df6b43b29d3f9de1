// Keeping the kernel's receive timestamps switched on for a server that times its reads.
//
// Linux stamps an arriving packet only while some socket of the system has asked for timestamps,
// and it switches stamping on in a deferred kernel work item, after the first `SO_TIMESTAMPNS`
// was set. Until that item has run, TCP delivers bytes without a timestamp: 786 of 2,000 fresh
// loopback connections, each the only timed socket, got their first byte unstamped. So a server
// that times reads holds one socket with the option for its whole life (stamping never switches
// off under it between connections) and, at start, waits until a probe's byte arrives stamped.
#define _GNU_SOURCE
#include "CFrameGuard.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

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

/// Whether one byte over a fresh loopback TCP connection arrives with a timestamp.
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
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		struct cmsghdr align;
		char bytes[CMSG_SPACE(sizeof(struct timespec))];
	} control;
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control};
	if (recvmsg(server, &msg, 0) != 1)
		goto done;
	result = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS)
			result = 1;
done:
	if (server >= 0)
		close(server);
	if (client >= 0)
		close(client);
	if (listener >= 0)
		close(listener);
	return result;
}
