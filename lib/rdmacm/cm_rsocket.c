/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rsocket entry points. rsockets are not implemented by dpverbs: each
 * call fails with ENOSYS (so programs that import them load and can fall
 * back to plain sockets).
 */
#include <errno.h>
#include <rdma/rsocket.h>

#define NOSYS(ret) (errno = ENOSYS, (ret))

int
rsocket(int d, int t, int p)
{
	(void)d, (void)t, (void)p;
	return NOSYS(-1);
}
int
rbind(int s, const struct sockaddr *a, socklen_t l)
{
	(void)s, (void)a, (void)l;
	return NOSYS(-1);
}
int
rlisten(int s, int b)
{
	(void)s, (void)b;
	return NOSYS(-1);
}
int
raccept(int s, struct sockaddr *a, socklen_t *l)
{
	(void)s, (void)a, (void)l;
	return NOSYS(-1);
}
int
rconnect(int s, const struct sockaddr *a, socklen_t l)
{
	(void)s, (void)a, (void)l;
	return NOSYS(-1);
}
int
rshutdown(int s, int h)
{
	(void)s, (void)h;
	return NOSYS(-1);
}
int
rclose(int s)
{
	(void)s;
	return NOSYS(-1);
}
ssize_t
rrecv(int s, void *b, size_t l, int f)
{
	(void)s, (void)b, (void)l, (void)f;
	return NOSYS(-1);
}
ssize_t
rrecvfrom(int s, void *b, size_t l, int f, struct sockaddr *a, socklen_t *al)
{
	(void)s, (void)b, (void)l, (void)f, (void)a, (void)al;
	return NOSYS(-1);
}
ssize_t
rrecvmsg(int s, struct msghdr *m, int f)
{
	(void)s, (void)m, (void)f;
	return NOSYS(-1);
}
ssize_t
rsend(int s, const void *b, size_t l, int f)
{
	(void)s, (void)b, (void)l, (void)f;
	return NOSYS(-1);
}
ssize_t
rsendto(int s, const void *b, size_t l, int f, const struct sockaddr *a,
	socklen_t al)
{
	(void)s, (void)b, (void)l, (void)f, (void)a, (void)al;
	return NOSYS(-1);
}
ssize_t
rsendmsg(int s, const struct msghdr *m, int f)
{
	(void)s, (void)m, (void)f;
	return NOSYS(-1);
}
ssize_t
rread(int s, void *b, size_t c)
{
	(void)s, (void)b, (void)c;
	return NOSYS(-1);
}
ssize_t
rreadv(int s, const struct iovec *v, int c)
{
	(void)s, (void)v, (void)c;
	return NOSYS(-1);
}
ssize_t
rwrite(int s, const void *b, size_t c)
{
	(void)s, (void)b, (void)c;
	return NOSYS(-1);
}
ssize_t
rwritev(int s, const struct iovec *v, int c)
{
	(void)s, (void)v, (void)c;
	return NOSYS(-1);
}
int
rpoll(struct pollfd *f, nfds_t n, int t)
{
	(void)f, (void)n, (void)t;
	return NOSYS(-1);
}
int
rselect(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	(void)n, (void)r, (void)w, (void)e, (void)t;
	return NOSYS(-1);
}
int
rgetpeername(int s, struct sockaddr *a, socklen_t *l)
{
	(void)s, (void)a, (void)l;
	return NOSYS(-1);
}
int
rgetsockname(int s, struct sockaddr *a, socklen_t *l)
{
	(void)s, (void)a, (void)l;
	return NOSYS(-1);
}
int
rsetsockopt(int s, int lv, int o, const void *v, socklen_t l)
{
	(void)s, (void)lv, (void)o, (void)v, (void)l;
	return NOSYS(-1);
}
int
rgetsockopt(int s, int lv, int o, void *v, socklen_t *l)
{
	(void)s, (void)lv, (void)o, (void)v, (void)l;
	return NOSYS(-1);
}
int
rfcntl(int s, int c, ...)
{
	(void)s, (void)c;
	return NOSYS(-1);
}
off_t
riomap(int s, void *b, size_t l, int p, int f, off_t o)
{
	(void)s, (void)b, (void)l, (void)p, (void)f, (void)o;
	return NOSYS((off_t)-1);
}
int
riounmap(int s, void *b, size_t l)
{
	(void)s, (void)b, (void)l;
	return NOSYS(-1);
}
size_t
riowrite(int s, const void *b, size_t c, off_t o, int f)
{
	(void)s, (void)b, (void)c, (void)o, (void)f;
	return NOSYS(0);
}
