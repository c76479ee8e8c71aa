/*
 * rds-check: Reliable Datagram Sockets over the RDMA device (the kernel's rds_rdma transport),
 * every byte checked. RDS carries each message over an RC connection the kernel sets up
 * between the two hosts (RDMA CM), in 4 KiB fragments; the socket is forced onto the IB
 * transport (SO_RDS_TRANSPORT), so nothing runs over TCP.
 *
 *   rds-check server LOCALIP PORT COUNT
 *       takes COUNT messages on LOCALIP:PORT, checks each (header and every payload byte)
 *       and sends it back to its sender. Exit status 0 when all COUNT were intact.
 *   rds-check client LOCALIP SERVERIP PORT COUNT
 *       sends COUNT messages of sizes from 16 bytes to 1 MiB to SERVERIP:PORT (from LOCALIP,
 *       port PORT + 1), one at a time, and checks that each comes back identical. Prints
 *       "rds-check: N messages, B bytes verified, OK" and exits 0 when all did.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rds.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#define MAGIC       0x52445343u     /* "RDSC" */
#define MAX_MSG     (1u << 20)      /* RDS_MAX_MSG_SIZE */
#define TIMEOUT_MS  60000

struct hdr {
    uint32_t magic, seq, len, seed;
};

static const uint32_t sizes[] = {
    16, 17, 100, 1000, 4095, 4096, 4097, 8192, 12345, 65536, 65537, 262144, 1000000, MAX_MSG,
};

static void die(const char *what)
{
    fprintf(stderr, "rds-check: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void fill(uint8_t *p, uint32_t len, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;

    for (uint32_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = x >> 24;
    }
}

/* A message as sent: header, then its payload from the seed. */
static uint32_t make(uint8_t *buf, uint32_t seq)
{
    uint32_t len = sizes[seq % (sizeof(sizes) / sizeof(sizes[0]))];
    struct hdr h = { MAGIC, seq, len, seq * 7919 + 13 };

    memcpy(buf, &h, sizeof(h));
    fill(buf + sizeof(h), len - sizeof(h), h.seed);
    return len;
}

/* Whether @buf (@got bytes) is message @seq, intact. */
static int check(const uint8_t *buf, ssize_t got, uint32_t seq, uint8_t *want)
{
    uint32_t len = make(want, seq);

    if (got != (ssize_t)len) {
        fprintf(stderr, "rds-check: message %u: %zd bytes, want %u\n", seq, got, len);
        return 0;
    }
    for (uint32_t i = 0; i < len; i++) {
        if (buf[i] != want[i]) {
            fprintf(stderr, "rds-check: message %u: byte %u is 0x%02x, want 0x%02x\n", seq, i,
                    buf[i], want[i]);
            return 0;
        }
    }
    return 1;
}

static int rds_socket(const char *ip, unsigned port)
{
    int fd = socket(AF_RDS, SOCK_SEQPACKET, 0), tr = RDS_TRANS_IB, sz = 8 << 20;
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

    if (fd < 0) {
        die("socket(AF_RDS) (is the rds module loaded?)");
    }
    if (setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &tr, sizeof(tr))) {
        die("SO_RDS_TRANSPORT RDS_TRANS_IB (is rds_rdma loaded?)");
    }
    /* room for whole messages in flight (the receiver's buffer is its congestion limit) */
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) ||
        setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz))) {
        die("SO_SNDBUFFORCE/SO_RCVBUFFORCE");
    }
    if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1) {
        fprintf(stderr, "rds-check: bad address %s\n", ip);
        exit(2);
    }
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
        die("bind");
    }
    return fd;
}

static ssize_t recv_msg(int fd, uint8_t *buf, struct sockaddr_in *from)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    socklen_t fl = sizeof(*from);
    ssize_t n;

    if (poll(&pfd, 1, TIMEOUT_MS) != 1) {
        fprintf(stderr, "rds-check: nothing came in %d s\n", TIMEOUT_MS / 1000);
        exit(1);
    }
    n = recvfrom(fd, buf, MAX_MSG, 0, (struct sockaddr *)from, &fl);
    if (n < 0) {
        die("recvfrom");
    }
    return n;
}

int main(int argc, char **argv)
{
    uint8_t *buf = malloc(MAX_MSG), *want = malloc(MAX_MSG);
    struct sockaddr_in peer = { .sin_family = AF_INET };
    unsigned long count, bytes = 0;
    int fd, server;

    if (!buf || !want) {
        return 1;
    }
    if (argc == 5 && !strcmp(argv[1], "server")) {
        server = 1;
        count = strtoul(argv[4], NULL, 0);
        fd = rds_socket(argv[2], atoi(argv[3]));
    } else if (argc == 6 && !strcmp(argv[1], "client")) {
        server = 0;
        count = strtoul(argv[5], NULL, 0);
        fd = rds_socket(argv[2], atoi(argv[4]) + 1);
        peer.sin_port = htons(atoi(argv[4]));
        if (inet_pton(AF_INET, argv[3], &peer.sin_addr) != 1) {
            return 2;
        }
    } else {
        fprintf(stderr, "usage: rds-check server LOCALIP PORT COUNT\n"
                        "       rds-check client LOCALIP SERVERIP PORT COUNT\n");
        return 2;
    }
    for (uint32_t seq = 0; seq < count; seq++) {
        struct sockaddr_in from;
        ssize_t n;

        if (!server) {
            uint32_t len = make(buf, seq);
            if (sendto(fd, buf, len, 0, (struct sockaddr *)&peer, sizeof(peer)) != len) {
                die("sendto");
            }
        }
        n = recv_msg(fd, buf, &from);
        if (!check(buf, n, seq, want)) {
            return 1;
        }
        bytes += n;
        if (server && sendto(fd, buf, n, 0, (struct sockaddr *)&from, sizeof(from)) != n) {
            die("sendto (echo)");
        }
    }
    printf("rds-check: %lu messages, %lu bytes verified, OK\n", count, bytes);
    close(fd);
    return 0;
}
