/*
 * xsk-check: native XDP programs and AF_XDP sockets on an interface (mlx5e on the device), with
 * nothing but the kernel's UAPI: the XDP programs are a few BPF instructions assembled here,
 * attached in driver mode (BPF_LINK_CREATE, XDP_FLAGS_DRV_MODE: mlx5e's own XDP path, not the
 * generic one), the AF_XDP socket's UMEM and rings set up by hand.
 *
 *   xsk-check rx IF PORT COUNT copy|zc SECONDS
 *       an XDP program redirects UDP/IPv4 frames to PORT to an AF_XDP socket on queue 0
 *       (bound in copy or zero-copy mode); the other frames pass. Receives until COUNT frames
 *       of xsk-check tx came or SECONDS passed; checks every byte of each. Exit status 0 when
 *       all COUNT came, none twice and none damaged.
 *   xsk-check tx IF DSTMAC SRCIP DSTIP PORT COUNT copy|zc
 *       sends COUNT UDP/IPv4 frames (source and destination port PORT, 64 bytes of numbered
 *       payload) from an AF_XDP socket on queue 0, 16 at a time (zero-copy: beside a pass-all
 *       XDP program, which mlx5e needs for it); exit status 0 when the completion ring gave
 *       every one back.
 *   xsk-check echo IF DSTMAC SRCIP DSTIP PORT COUNT copy|zc
 *       both at once on one socket: sends COUNT frames as tx does while an XDP program gives
 *       it those that come back to PORT (the peer's XDP_TX or redirect); exit status 0 when all
 *       COUNT came back intact.
 *   xsk-check xdp IF pass|drop|tx|redirect PORT SECONDS
 *       attaches for SECONDS a program that gives UDP/IPv4 frames to PORT the verdict named
 *       (tx and redirect swap the MAC addresses first and send the frame back out of the same
 *       interface: XDP_TX, or bpf_redirect to its ifindex); the other frames pass.
 *
 * XSK_FRAME=BYTES: the UMEM's frame size (default 4096).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

/* the UMEM's chunk size: XSK_FRAME in the environment, else a page (mlx5e maps a page-sized
 * frame with one MTT entry, a smaller one with two KLM entries: the frame and a filler) */
static unsigned FRAME = 4096;
#define NFRAMES 4096u
#define RING 2048u
#define PAYLOAD 64u
#define HDRS 42u                        /* Ethernet, IPv4 (no options), UDP */
#define BATCH 16u

static void die(const char *what)
{
    fprintf(stderr, "xsk-check: %s: %s\n", what, strerror(errno));
    exit(2);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
    return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* ---- a BPF program, assembled --------------------------------------------------------------- */

static struct bpf_insn prog[64];
static unsigned nprog;
static unsigned to_pass[8], nto_pass;    /* jumps to the "pass" tail, fixed up at the end */

static void insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
    prog[nprog++] = (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src,
                                       .off = off, .imm = imm };
}

#define LDX(sz, d, s, o)   insn(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define STX(sz, d, s, o)   insn(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
#define MOVR(d, s)         insn(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOVI(d, i)         insn(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADDI(d, i)         insn(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define CALL(f)            insn(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()             insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

static void jmp_pass(uint8_t op, uint8_t d, uint8_t src, int32_t imm)
{
    to_pass[nto_pass++] = nprog;
    insn(BPF_JMP | op | (src ? BPF_X : BPF_K), d, src, 0, imm);
}

/*
 * The program: frames that are not UDP/IPv4 to @port pass; the others get @action (xsk:
 * redirected to the socket in XSKMAP @map_fd at their queue). Returns the program's fd.
 */
static int load_prog(const char *action, uint16_t port, int map_fd, int ifindex)
{
    static char log[65536];
    union bpf_attr a;
    unsigned i;
    int fd;

    nprog = nto_pass = 0;
    LDX(BPF_W, 2, 1, 0);                         /* r2 = data */
    LDX(BPF_W, 3, 1, 4);                         /* r3 = data_end */
    MOVR(4, 2);
    ADDI(4, HDRS);
    jmp_pass(BPF_JGT, 4, 3, 0);                  /* too short */
    LDX(BPF_H, 4, 2, 12);
    jmp_pass(BPF_JNE, 4, 0, htons(0x0800));      /* not IPv4 */
    LDX(BPF_B, 4, 2, 23);
    jmp_pass(BPF_JNE, 4, 0, 17);                 /* not UDP */
    LDX(BPF_H, 4, 2, 36);
    jmp_pass(BPF_JNE, 4, 0, htons(port));        /* another port */
    if (!strcmp(action, "xsk")) {
        LDX(BPF_W, 2, 1, 16);                    /* rx_queue_index */
        insn(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map_fd);
        insn(0, 0, 0, 0, 0);
        MOVI(3, XDP_PASS);                       /* no socket there: pass */
        CALL(BPF_FUNC_redirect_map);
        EXIT();
    } else if (!strcmp(action, "drop")) {
        MOVI(0, XDP_DROP);
        EXIT();
    } else if (!strcmp(action, "tx") || !strcmp(action, "redirect")) {
        LDX(BPF_W, 4, 2, 0);                     /* swap the MAC addresses */
        LDX(BPF_H, 5, 2, 4);
        LDX(BPF_W, 6, 2, 6);
        LDX(BPF_H, 7, 2, 10);
        STX(BPF_W, 2, 6, 0);
        STX(BPF_H, 2, 7, 4);
        STX(BPF_W, 2, 4, 6);
        STX(BPF_H, 2, 5, 10);
        if (!strcmp(action, "tx")) {
            MOVI(0, XDP_TX);
        } else {
            MOVI(1, ifindex);
            MOVI(2, 0);
            CALL(BPF_FUNC_redirect);
        }
        EXIT();
    } else if (strcmp(action, "pass")) {
        fprintf(stderr, "xsk-check: unknown action %s\n", action);
        exit(2);
    }
    for (i = 0; i < nto_pass; i++) {
        prog[to_pass[i]].off = nprog - to_pass[i] - 1;
    }
    MOVI(0, XDP_PASS);
    EXIT();

    memset(&a, 0, sizeof(a));
    a.prog_type = BPF_PROG_TYPE_XDP;
    a.expected_attach_type = BPF_XDP;
    a.insns = (uintptr_t)prog;
    a.insn_cnt = nprog;
    a.license = (uintptr_t)"GPL";
    a.log_buf = (uintptr_t)log;
    a.log_size = sizeof(log);
    a.log_level = 1;
    fd = sys_bpf(BPF_PROG_LOAD, &a);
    if (fd < 0) {
        fprintf(stderr, "%s\n", log);
        die("BPF_PROG_LOAD");
    }
    return fd;
}

/* Attach @prog_fd to @ifindex in driver mode; the link lasts as long as its fd. */
static int attach(int prog_fd, int ifindex)
{
    union bpf_attr a;
    int fd;

    memset(&a, 0, sizeof(a));
    a.link_create.prog_fd = prog_fd;
    a.link_create.target_ifindex = ifindex;
    a.link_create.attach_type = BPF_XDP;
    a.link_create.flags = XDP_FLAGS_DRV_MODE;
    fd = sys_bpf(BPF_LINK_CREATE, &a);
    if (fd < 0) {
        die("BPF_LINK_CREATE (driver mode)");
    }
    return fd;
}

/* ---- the AF_XDP socket ---------------------------------------------------------------------- */

typedef struct Ring {
    uint32_t *prod, *cons;
    void *desc;
} Ring;

static int xsk;
static uint8_t *umem;
static Ring fill, comp, rx, tx;

static void ring_map(Ring *r, const struct xdp_ring_offset *o, size_t entry, off_t pgoff)
{
    uint8_t *m = mmap(NULL, o->desc + RING * entry, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_POPULATE, xsk, pgoff);

    if (m == MAP_FAILED) {
        die("mmap of a ring");
    }
    r->prod = (uint32_t *)(m + o->producer);
    r->cons = (uint32_t *)(m + o->consumer);
    r->desc = m + o->desc;
}

static void xsk_open(int ifindex, bool zc)
{
    struct xdp_umem_reg mr = { 0 };
    struct xdp_mmap_offsets off;
    struct sockaddr_xdp sx = { 0 };
    socklen_t ol = sizeof(off);
    int n = RING;
    unsigned i;

    xsk = socket(AF_XDP, SOCK_RAW, 0);
    if (xsk < 0) {
        die("socket(AF_XDP)");
    }
    umem = mmap(NULL, (size_t)FRAME * NFRAMES, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (umem == MAP_FAILED) {
        die("mmap of the UMEM");
    }
    mr.addr = (uintptr_t)umem;
    mr.len = (uint64_t)FRAME * NFRAMES;
    mr.chunk_size = FRAME;
    if (setsockopt(xsk, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)) ||
        setsockopt(xsk, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof(n)) ||
        setsockopt(xsk, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n, sizeof(n)) ||
        setsockopt(xsk, SOL_XDP, XDP_RX_RING, &n, sizeof(n)) ||
        setsockopt(xsk, SOL_XDP, XDP_TX_RING, &n, sizeof(n))) {
        die("setsockopt (UMEM, rings)");
    }
    if (getsockopt(xsk, SOL_XDP, XDP_MMAP_OFFSETS, &off, &ol)) {
        die("XDP_MMAP_OFFSETS");
    }
    ring_map(&fill, &off.fr, sizeof(uint64_t), XDP_UMEM_PGOFF_FILL_RING);
    ring_map(&comp, &off.cr, sizeof(uint64_t), XDP_UMEM_PGOFF_COMPLETION_RING);
    ring_map(&rx, &off.rx, sizeof(struct xdp_desc), XDP_PGOFF_RX_RING);
    ring_map(&tx, &off.tx, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING);
    /* the first half of the UMEM for receiving, the second for sending */
    for (i = 0; i < RING; i++) {
        ((uint64_t *)fill.desc)[i] = (uint64_t)i * FRAME;
    }
    __atomic_store_n(fill.prod, RING, __ATOMIC_RELEASE);
    sx.sxdp_family = AF_XDP;
    sx.sxdp_ifindex = ifindex;
    sx.sxdp_queue_id = 0;
    sx.sxdp_flags = zc ? XDP_ZEROCOPY : XDP_COPY;
    if (bind(xsk, (struct sockaddr *)&sx, sizeof(sx))) {
        die(zc ? "bind (zero-copy)" : "bind (copy)");
    }
}

/* ---- frames --------------------------------------------------------------------------------- */

static uint16_t csum(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    size_t i;

    for (i = 0; i + 1 < n; i += 2) {
        s += (uint32_t)p[i] << 8 | p[i + 1];
    }
    while (s >> 16) {
        s = (s & 0xffff) + (s >> 16);
    }
    return ~s;
}

static uint8_t pattern(uint32_t seq, unsigned i)
{
    return (uint8_t)(seq * 7 + i * 13 + 1);
}

static size_t build(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint32_t sip,
                    uint32_t dip, uint16_t port, uint32_t seq, uint32_t count)
{
    uint8_t *ip = f + 14, *udp = f + 34, *pl = f + HDRS;
    uint16_t c;
    unsigned i;

    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    f[12] = 0x08;
    f[13] = 0x00;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[2] = (20 + 8 + PAYLOAD) >> 8;
    ip[3] = (uint8_t)(20 + 8 + PAYLOAD);
    ip[8] = 64;
    ip[9] = 17;
    memcpy(ip + 12, &sip, 4);
    memcpy(ip + 16, &dip, 4);
    c = csum(ip, 20);
    ip[10] = c >> 8;
    ip[11] = (uint8_t)c;
    udp[0] = port >> 8;
    udp[1] = (uint8_t)port;
    udp[2] = port >> 8;
    udp[3] = (uint8_t)port;
    udp[4] = 0;
    udp[5] = 8 + PAYLOAD;
    udp[6] = udp[7] = 0;                         /* (no UDP checksum) */
    memcpy(pl, "XSKC", 4);
    memcpy(pl + 4, &seq, 4);
    memcpy(pl + 8, &count, 4);
    for (i = 12; i < PAYLOAD; i++) {
        pl[i] = pattern(seq, i);
    }
    return HDRS + PAYLOAD;
}

/* Is @f (@len bytes) a frame of xsk-check tx for @port? Its sequence number in *@seq. */
static bool check(const uint8_t *f, uint32_t len, uint16_t port, uint32_t count, uint32_t *seq)
{
    const uint8_t *pl = f + HDRS;
    uint32_t n;
    unsigned i;

    if (len < HDRS + PAYLOAD || f[12] != 0x08 || f[13] || f[23] != 17 ||
        (f[36] << 8 | f[37]) != port || memcmp(pl, "XSKC", 4)) {
        return false;
    }
    memcpy(seq, pl + 4, 4);
    memcpy(&n, pl + 8, 4);
    if (*seq >= count || n != count || csum(f + 14, 20)) {
        return false;
    }
    for (i = 12; i < PAYLOAD; i++) {
        if (pl[i] != pattern(*seq, i)) {
            return false;
        }
    }
    return true;
}

/* ---- the three commands --------------------------------------------------------------------- */

/* An XSKMAP with the socket at queue 0, and a program redirecting @port's frames to it. */
static int xsk_attach(int ifindex, uint16_t port)
{
    union bpf_attr a;
    uint32_t key = 0, val;
    int map, link;

    memset(&a, 0, sizeof(a));
    a.map_type = BPF_MAP_TYPE_XSKMAP;
    a.key_size = 4;
    a.value_size = 4;
    a.max_entries = 64;
    map = sys_bpf(BPF_MAP_CREATE, &a);
    if (map < 0) {
        die("BPF_MAP_CREATE (XSKMAP)");
    }
    link = attach(load_prog("xsk", port, map, ifindex), ifindex);
    val = xsk;
    memset(&a, 0, sizeof(a));
    a.map_fd = map;
    a.key = (uintptr_t)&key;
    a.value = (uintptr_t)&val;
    if (sys_bpf(BPF_MAP_UPDATE_ELEM, &a)) {
        die("BPF_MAP_UPDATE_ELEM (the socket at queue 0)");
    }
    return link;
}

/* What the receive side saw. */
static uint8_t *seen;
static uint32_t got, twice, bad, other;

/* Take what the RX ring holds (waiting up to @ms for it), give the frames back. */
static void rx_drain(uint16_t port, uint32_t count, int ms)
{
    struct pollfd p = { .fd = xsk, .events = POLLIN };
    uint32_t cons = *rx.cons, prod, fprod = *fill.prod;

    if (ms) {
        poll(&p, 1, ms);
    }
    prod = __atomic_load_n(rx.prod, __ATOMIC_ACQUIRE);
    for (; cons != prod; cons++) {
        struct xdp_desc *d = &((struct xdp_desc *)rx.desc)[cons & (RING - 1)];
        uint32_t seq;

        if (check(umem + d->addr, d->len, port, count, &seq)) {
            if (seen[seq]) {
                twice++;
            } else {
                seen[seq] = 1;
                got++;
            }
        } else if (d->len >= HDRS && umem[d->addr + 23] == 17 &&
                   (umem[d->addr + 36] << 8 | umem[d->addr + 37]) == port) {
            bad++;
        } else {
            other++;
        }
        /* the frame goes back to the fill ring */
        ((uint64_t *)fill.desc)[fprod++ & (RING - 1)] = d->addr & ~(uint64_t)(FRAME - 1);
    }
    __atomic_store_n(fill.prod, fprod, __ATOMIC_RELEASE);
    __atomic_store_n(rx.cons, cons, __ATOMIC_RELEASE);
}

static int cmd_rx(int ifindex, uint16_t port, uint32_t count, bool zc, double secs)
{
    double end = now() + secs;
    int link;

    seen = calloc(count, 1);
    xsk_open(ifindex, zc);
    link = xsk_attach(ifindex, port);
    printf("xsk-check: receiving %u frames to UDP port %u (%s)\n", count, port,
           zc ? "zero-copy" : "copy");
    while (got < count && now() < end) {
        rx_drain(port, count, 100);
    }
    printf("xsk-check: received %u of %u frames (%s), %u twice, %u damaged, %u others\n", got,
           count, zc ? "zero-copy" : "copy", twice, bad, other);
    close(xsk);
    close(link);
    return got == count && !twice && !bad ? 0 : 1;
}

/* Send @count frames 16 at a time (and take what comes back if @echo). */
static int cmd_tx(int ifindex, const char *ifname, const char *dmac_s, const char *sip_s,
                  const char *dip_s, uint16_t port, uint32_t count, bool zc, bool echo)
{
    uint8_t dmac[6], smac[6];
    struct ifreq ifr = { 0 };
    struct in_addr sip, dip;
    uint32_t sent = 0, done = 0;
    double end = now() + 60;
    int s, link = -1;

    if (sscanf(dmac_s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dmac[0], &dmac[1], &dmac[2], &dmac[3],
               &dmac[4], &dmac[5]) != 6 || !inet_aton(sip_s, &sip) || !inet_aton(dip_s, &dip)) {
        fprintf(stderr, "xsk-check: bad MAC or address\n");
        return 2;
    }
    s = socket(AF_INET, SOCK_DGRAM, 0);
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (s < 0 || ioctl(s, SIOCGIFHWADDR, &ifr)) {
        die("SIOCGIFHWADDR");
    }
    close(s);
    memcpy(smac, ifr.ifr_hwaddr.sa_data, 6);
    seen = calloc(count, 1);
    xsk_open(ifindex, zc);
    if (echo) {
        link = xsk_attach(ifindex, port);
    } else if (zc) {
        /* mlx5e runs zero-copy sockets only beside an XDP program (else ENETDOWN) */
        link = attach(load_prog("pass", port, -1, ifindex), ifindex);
    }
    if (link >= 0) {
        sleep(2);                               /* (mlx5e re-creates its channels) */
    }
    while (done < count && now() < end) {
        uint32_t prod = *tx.prod, cons, b;

        /* a batch, once the last one completed */
        for (b = 0; b < BATCH && sent < count && sent == done + b; b++, sent++) {
            struct xdp_desc *d = &((struct xdp_desc *)tx.desc)[prod++ & (RING - 1)];
            d->addr = (uint64_t)(RING + sent % RING) * FRAME;    /* the second half */
            d->len = build(umem + d->addr, dmac, smac, sip.s_addr, dip.s_addr, port, sent,
                           count);
            d->options = 0;
        }
        __atomic_store_n(tx.prod, prod, __ATOMIC_RELEASE);
        if (sendto(xsk, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN &&
            errno != EBUSY && errno != ENOBUFS) {
            die("sendto (the TX kick)");
        }
        usleep(2000);
        cons = *comp.cons;
        b = __atomic_load_n(comp.prod, __ATOMIC_ACQUIRE);
        done += b - cons;
        __atomic_store_n(comp.cons, b, __ATOMIC_RELEASE);
        if (echo) {
            rx_drain(port, count, 0);
        }
    }
    printf("xsk-check: sent %u of %u frames (%s), %u completed\n", sent, count,
           zc ? "zero-copy" : "copy", done);
    if (echo) {
        end = now() + 10;
        while (got < count && now() < end) {
            rx_drain(port, count, 100);
        }
        printf("xsk-check: %u of %u came back, %u twice, %u damaged, %u others\n", got, count,
               twice, bad, other);
    }
    if (link >= 0) {
        close(link);
    }
    close(xsk);
    return done == count && (!echo || (got == count && !twice && !bad)) ? 0 : 1;
}

int main(int argc, char **argv)
{
    int ifindex;

    if (argc < 3) {
        goto usage;
    }
    ifindex = if_nametoindex(argv[2]);
    if (!ifindex) {
        die(argv[2]);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (getenv("XSK_FRAME")) {
        FRAME = atoi(getenv("XSK_FRAME"));
    }
    if (!strcmp(argv[1], "rx") && argc == 7) {
        return cmd_rx(ifindex, atoi(argv[3]), strtoul(argv[4], NULL, 0),
                      !strcmp(argv[5], "zc"), atof(argv[6]));
    }
    if ((!strcmp(argv[1], "tx") || !strcmp(argv[1], "echo")) && argc == 9) {
        return cmd_tx(ifindex, argv[2], argv[3], argv[4], argv[5], atoi(argv[6]),
                      strtoul(argv[7], NULL, 0), !strcmp(argv[8], "zc"),
                      !strcmp(argv[1], "echo"));
    }
    if (!strcmp(argv[1], "xdp") && argc == 6) {
        int link = attach(load_prog(argv[3], atoi(argv[4]), -1, ifindex), ifindex);
        printf("xsk-check: XDP program \"%s\" for UDP port %s attached to %s\n", argv[3],
               argv[4], argv[2]);
        sleep(atoi(argv[5]));
        close(link);
        return 0;
    }
usage:
    fprintf(stderr, "usage: xsk-check rx IF PORT COUNT copy|zc SECONDS\n"
                    "       xsk-check tx|echo IF DSTMAC SRCIP DSTIP PORT COUNT copy|zc\n"
                    "       xsk-check xdp IF pass|drop|tx|redirect PORT SECONDS\n");
    return 2;
}
