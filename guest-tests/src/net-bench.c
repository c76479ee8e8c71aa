/*
 * net-bench: TCP throughput and small-datagram UDP rate between two guests, over whichever
 * interface the addresses route through (scripts/bench.sh --eth: mlx5e beside virtio-net).
 *
 *   net-bench tcp-recv PORT                 accept one connection, read to EOF
 *   net-bench tcp-send ADDR PORT MIB        send MIB MiB
 *   net-bench udp-recv PORT SECONDS         count datagrams until SECONDS pass with none
 *   net-bench udp-send ADDR PORT SIZE SECONDS [COUNT]   send SIZE-byte datagrams for SECONDS
 *                                            (or COUNT of them, paced, if COUNT is given)
 *
 * The receivers print one line: "net-bench: tcp bytes=N seconds=S MiB/s=R" (from the first
 * byte to EOF) or "net-bench: udp datagrams=N bytes=B seconds=S kpps=R" (first to last
 * datagram); the UDP sender prints what it sent.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static struct sockaddr_in addr_of(const char *ip, const char *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(port)) };

    if (ip && inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
        fprintf(stderr, "net-bench: bad address %s\n", ip);
        exit(2);
    }
    return a;
}

static int tcp_recv(const char *port)
{
    struct sockaddr_in a = addr_of(NULL, port);
    static char buf[1 << 16];
    int one = 1, s, c;
    long long total = 0;
    double t0 = 0;
    ssize_t n;

    s = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (s < 0 || bind(s, (void *)&a, sizeof(a)) || listen(s, 1)) {
        die("tcp-recv: listen");
    }
    c = accept(s, NULL, NULL);
    if (c < 0) {
        die("tcp-recv: accept");
    }
    while ((n = read(c, buf, sizeof(buf))) > 0) {
        if (!total) {
            t0 = now();
        }
        total += n;
    }
    if (n < 0) {
        die("tcp-recv: read");
    }
    double dt = now() - t0;
    printf("net-bench: tcp bytes=%lld seconds=%.3f MiB/s=%.2f\n", total, dt,
           dt > 0 ? total / 1048576.0 / dt : 0);
    return total ? 0 : 1;
}

static int tcp_send(const char *ip, const char *port, const char *mib)
{
    struct sockaddr_in a = addr_of(ip, port);
    static char buf[1 << 16];
    long long left = atoll(mib) << 20;
    int s, tries;

    memset(buf, 'x', sizeof(buf));
    for (tries = 0;; tries++) {
        s = socket(AF_INET, SOCK_STREAM, 0);
        if (!connect(s, (void *)&a, sizeof(a))) {
            break;
        }
        close(s);
        if (tries == 100) {
            die("tcp-send: connect");
        }
        usleep(200000);             /* (the receiver may not listen yet) */
    }
    while (left > 0) {
        ssize_t n = write(s, buf, left < (long long)sizeof(buf) ? left : sizeof(buf));
        if (n <= 0) {
            die("tcp-send: write");
        }
        left -= n;
    }
    close(s);
    return 0;
}

static int udp_recv(const char *port, const char *secs)
{
    struct sockaddr_in a = addr_of(NULL, port);
    static char buf[1 << 16];
    int s = socket(AF_INET, SOCK_DGRAM, 0), rcvbuf = 4 << 20;
    long long n = 0, bytes = 0;
    double t0 = 0, t1 = 0;
    struct pollfd p = { .fd = s, .events = POLLIN };

    setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    if (s < 0 || bind(s, (void *)&a, sizeof(a))) {
        die("udp-recv: bind");
    }
    /* (the first datagram may take a while: the sender starts after us) */
    while (poll(&p, 1, n ? atoi(secs) * 1000 : 120000) == 1) {
        ssize_t r = recv(s, buf, sizeof(buf), 0);
        if (r < 0) {
            die("udp-recv: recv");
        }
        t1 = now();
        if (!n) {
            t0 = t1;
        }
        n++;
        bytes += r;
    }
    double dt = t1 - t0;
    printf("net-bench: udp datagrams=%lld bytes=%lld seconds=%.3f kpps=%.2f\n", n, bytes, dt,
           dt > 0 ? n / dt / 1000 : 0);
    return n ? 0 : 1;
}

static int udp_send(const char *ip, const char *port, const char *size, const char *secs,
                    long long max)
{
    struct sockaddr_in a = addr_of(ip, port);
    static char buf[1 << 16];
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    size_t len = atoi(size);
    double end;
    long long n = 0, dropped = 0;

    if (s < 0 || len > sizeof(buf) || connect(s, (void *)&a, sizeof(a))) {
        die("udp-send: connect");
    }
    memset(buf, 'u', len);
    end = now() + atof(secs);
    while (now() < end && (!max || n < max)) {
        if (max) {
            usleep(10000);
        }
        for (int i = 0; i < (max ? 1 : 64); i++) {
            if (send(s, buf, len, 0) == (ssize_t)len) {
                n++;
            } else if (errno == ENOBUFS || errno == EAGAIN || errno == ECONNREFUSED) {
                dropped++;
            } else {
                die("udp-send: send");
            }
        }
    }
    printf("net-bench: udp sent=%lld refused=%lld\n", n, dropped);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "tcp-recv")) {
        return tcp_recv(argv[2]);
    }
    if (argc == 5 && !strcmp(argv[1], "tcp-send")) {
        return tcp_send(argv[2], argv[3], argv[4]);
    }
    if (argc == 4 && !strcmp(argv[1], "udp-recv")) {
        return udp_recv(argv[2], argv[3]);
    }
    if ((argc == 6 || argc == 7) && !strcmp(argv[1], "udp-send")) {
        return udp_send(argv[2], argv[3], argv[4], argv[5], argc == 7 ? atoll(argv[6]) : 0);
    }
    fprintf(stderr, "usage: see the head of net-bench.c\n");
    return 2;
}
