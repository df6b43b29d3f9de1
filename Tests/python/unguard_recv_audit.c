/* A dynamic-linker audit module (LD_AUDIT, rtld-audit(7)) that takes the frame guard out of
 * libwebsockets' read path, for Tests/python/test_frame_guard.py.
 *
 * The executable exports the guard's `recv`, and the dynamic linker binds libwebsockets.so's calls
 * to it. This module binds libwebsockets' `recv` to libc's instead, and nothing else: every symbol
 * lookup in the process still finds the guard's (what `cfg_interposed` sees), but libwebsockets
 * reads past it. That is the failure the server's start-up check (ReadPathCheck.swift) must catch.
 *
 * Built by the test: cc -shared -fPIC -o unguard_recv.so unguard_recv_audit.c */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

enum { OTHER = 0, LIBWEBSOCKETS = 1 };

typedef ssize_t (*recv_fn)(int, void *, size_t, int);

static recv_fn libc_recv;

unsigned int la_version(unsigned int version)
{
	(void)version;
	return LAV_CURRENT;
}

/* Bindings from libwebsockets to anything are reported to la_symbind64; no others. */
unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	if (lmid == LM_ID_BASE && strstr(map->l_name, "libwebsockets.so")) {
		*cookie = LIBWEBSOCKETS;
		return LA_FLG_BINDFROM | LA_FLG_BINDTO;
	}
	*cookie = OTHER;
	return LA_FLG_BINDTO;
}

/* libc's `recv` in the program's namespace (this module lives in a namespace of its own, with its
 * own libc, whose errno libwebsockets would not see), looked up at the first call. */
static ssize_t unguarded_recv(int fd, void *buf, size_t len, int flags)
{
	recv_fn real = __atomic_load_n(&libc_recv, __ATOMIC_ACQUIRE);
	if (!real) {
		void *libc = dlmopen(LM_ID_BASE, "libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
		real = libc ? (recv_fn)dlsym(libc, "recv") : NULL;
		if (!real)
			return -1;
		__atomic_store_n(&libc_recv, real, __ATOMIC_RELEASE);
	}
	return real(fd, buf, len, flags);
}

uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook, uintptr_t *defcook,
		       unsigned int *flags, const char *symname)
{
	(void)ndx;
	(void)defcook;
	(void)flags;
	if (*refcook == LIBWEBSOCKETS && strcmp(symname, "recv") == 0)
		return (uintptr_t)unguarded_recv;
	return sym->st_value;
}
