/*
 * A QEMU with the mlx5-hca device under -machine accel=qtest, and the unit tests' mini driver
 * on it (see mlx5-qtest.h). The qtest protocol is QEMU's own (system/qtest.c): one text line per
 * command, "OK ..." back; QEMU connects to a socket the test listens on.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-qtest.h"
#include <stdarg.h>
#include <signal.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#define CFG_ADDR 0xcf8
#define CFG_DATA 0xcfc
#define CHUNK 32768                     /* bytes per b64read/b64write */

static void qt_send(Qt *q, const char *line)
{
    size_t len = strlen(line), done = 0;

    while (done < len) {
        ssize_t n = write(q->fd, line + done, len - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            g_error("qtest: QEMU went away (write: %s); its stderr: %s", g_strerror(errno),
                    q->stderr_path);
        }
        done += n;
    }
}

char *qt_cmd(Qt *q, const char *fmt, ...)
{
    g_autofree char *cmd = NULL;
    char *line = NULL;
    size_t cap = 0;
    va_list ap;

    va_start(ap, fmt);
    cmd = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    qt_send(q, cmd);
    qt_send(q, "\n");
    for (;;) {
        ssize_t n = getline(&line, &cap, q->in);
        if (n <= 0) {
            g_error("qtest: QEMU went away during '%.60s' (see %s)", cmd, q->stderr_path);
        }
        line[strcspn(line, "\n")] = 0;
        if (g_str_has_prefix(line, "IRQ ")) {
            continue;                   /* (no IRQ interception is asked for) */
        }
        if (g_str_has_prefix(line, "OK")) {
            char *r = g_strdup(line[2] == ' ' ? line + 3 : "");
            free(line);
            return r;
        }
        g_error("qtest: '%.60s' -> '%s'", cmd, line);
    }
}

static void qt_ok(Qt *q, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void qt_ok(Qt *q, const char *fmt, ...)
{
    g_autofree char *cmd = NULL;
    va_list ap;

    va_start(ap, fmt);
    cmd = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_free(qt_cmd(q, "%s", cmd));
}

static uint64_t qt_num(char *reply)
{
    uint64_t v = g_ascii_strtoull(reply, NULL, 0);

    g_free(reply);
    return v;
}

void qt_write(Qt *q, uint64_t pa, const void *buf, size_t len)
{
    const uint8_t *b = buf;

    while (len) {
        size_t n = MIN(len, CHUNK);
        g_autofree char *enc = g_base64_encode(b, n);
        qt_ok(q, "b64write 0x%" PRIx64 " 0x%zx %s", pa, n, enc);
        pa += n;
        b += n;
        len -= n;
    }
}

void qt_read(Qt *q, uint64_t pa, void *buf, size_t len)
{
    uint8_t *b = buf;

    while (len) {
        size_t n = MIN(len, CHUNK), got;
        g_autofree char *r = qt_cmd(q, "b64read 0x%" PRIx64 " 0x%zx", pa, n);
        g_autofree uint8_t *dec = g_base64_decode(r, &got);
        g_assert_cmpuint(got, ==, n);
        memcpy(b, dec, n);
        pa += n;
        b += n;
        len -= n;
    }
}

uint32_t qt_readl(Qt *q, uint64_t addr)
{
    return qt_num(qt_cmd(q, "readl 0x%" PRIx64, addr));
}

void qt_writel(Qt *q, uint64_t addr, uint32_t v)
{
    qt_ok(q, "writel 0x%" PRIx64 " 0x%x", addr, v);
}

void qt_clock_step(Qt *q, int64_t ns)
{
    qt_ok(q, "clock_step %" PRId64, ns);
}

/* ---- PCI configuration (mechanism #1; q35 has it besides MMCONFIG) ---------------------- */

static uint32_t cfg_addr(unsigned devfn, unsigned off)
{
    return 0x80000000u | (devfn << 8) | (off & 0xfc);
}

/*
 * Extended configuration space (0x100 and above: SR-IOV, ARI) only by MMCONFIG: the test is
 * the firmware, so it enables q35's PCIEXBAR (the MCH's register 0x60; 256 buses) at the
 * address SeaBIOS uses, once.
 */
#define ECAM_BASE UINT64_C(0xb0000000)

static uint64_t ecam(Qt *q, unsigned devfn, unsigned off)
{
    if (!q->ecam) {
        qt_ok(q, "outl 0x%x 0x%x", CFG_ADDR, cfg_addr(0, 0x64));
        qt_ok(q, "outl 0x%x 0x%x", CFG_DATA, (uint32_t)(ECAM_BASE >> 32));
        qt_ok(q, "outl 0x%x 0x%x", CFG_ADDR, cfg_addr(0, 0x60));
        qt_ok(q, "outl 0x%x 0x%x", CFG_DATA, (uint32_t)ECAM_BASE | 1);
        q->ecam = true;
    }
    return ECAM_BASE + (devfn << 12) + off;
}

static uint32_t cfg_rd_devfn(Qt *q, unsigned devfn, unsigned off, unsigned size)
{
    static const char *const rd[] = { [1] = "readb", [2] = "readw", [4] = "readl" };
    uint32_t v;

    if (off >= 0x100) {
        return qt_num(qt_cmd(q, "%s 0x%" PRIx64, rd[size], ecam(q, devfn, off)));
    }
    qt_ok(q, "outl 0x%x 0x%x", CFG_ADDR, cfg_addr(devfn, off));
    v = qt_num(qt_cmd(q, "inl 0x%x", CFG_DATA)) >> (8 * (off & 3));
    return size == 4 ? v : v & ((1u << (8 * size)) - 1);
}

uint32_t qt_cfg_rd(Qt *q, unsigned off, unsigned size)
{
    return cfg_rd_devfn(q, q->devfn, off, size);
}

void qt_cfg_wr(Qt *q, unsigned off, unsigned size, uint32_t v)
{
    static const char *const op[] = { [1] = "outb", [2] = "outw", [4] = "outl" };
    static const char *const wr[] = { [1] = "writeb", [2] = "writew", [4] = "writel" };

    g_assert(size == 1 || size == 2 || size == 4);
    if (off >= 0x100) {
        qt_ok(q, "%s 0x%" PRIx64 " 0x%x", wr[size], ecam(q, q->devfn, off), v);
        return;
    }
    qt_ok(q, "outl 0x%x 0x%x", CFG_ADDR, cfg_addr(q->devfn, off));
    qt_ok(q, "%s 0x%x 0x%x", op[size], CFG_DATA + (off & 3), v);
}

static unsigned find_cap(Qt *q, uint8_t id)
{
    unsigned off = qt_cfg_rd(q, 0x34, 1), n;

    for (n = 0; off && n < 48; n++) {
        if (qt_cfg_rd(q, off, 1) == id) {
            return off;
        }
        off = qt_cfg_rd(q, off + 1, 1);
    }
    g_error("capability 0x%x not found", id);
}

void qt_msix_vector(Qt *q, unsigned v, uint64_t addr, uint32_t data, bool masked)
{
    uint64_t e = q->msix_bar + 16ull * v;   /* the table is at offset 0 of its BAR */

    qt_writel(q, e, (uint32_t)addr);
    qt_writel(q, e + 4, addr >> 32);
    qt_writel(q, e + 8, data);
    qt_writel(q, e + 12, masked);
}

/* The function's command register, capabilities and MSI-X (each vector to msi_pa). */
static void fn_enable(Qt *q)
{
    unsigned v;

    qt_cfg_wr(q, 0x04, 2, qt_cfg_rd(q, 0x04, 2) | 0x6);    /* memory space, bus master */
    q->pcie_cap = find_cap(q, 0x10);
    q->msix_cap = find_cap(q, 0x11);
    g_assert_cmpuint(qt_cfg_rd(q, q->msix_cap + 4, 4), ==, 2);     /* BIR 2, offset 0 */
    q->nvec = (qt_cfg_rd(q, q->msix_cap + 2, 2) & 0x7ff) + 1;
    /* MSI-X on, function not masked; each vector writes its number + 1 to guest RAM */
    qt_cfg_wr(q, q->msix_cap + 2, 2, 0x8000);
    for (v = 0; v < q->nvec && v < FAKE_MAX_VECTORS; v++) {
        qt_msix_vector(q, v, q->msi_pa + 4 * v, v + 1, false);
    }
    qt_ok(q, "memset 0x%" PRIx64 " 0x%x 0", q->msi_pa, 4 * FAKE_MAX_VECTORS);
}

void qt_pci_enable(Qt *q)
{
    unsigned devfn;
    uint32_t bar2;

    for (devfn = 0; devfn < 256; devfn++) {
        if (cfg_rd_devfn(q, devfn, 0, 4) ==
            (MLX5_PCI_DEVICE_ID_CX5 << 16 | PCI_VENDOR_ID_MELLANOX)) {
            break;
        }
    }
    g_assert_cmpuint(devfn, <, 256);
    q->devfn = devfn;
    /* BAR0: 64-bit, 32 MiB; BAR2: the MSI-X table and PBA */
    qt_cfg_wr(q, 0x10, 4, (uint32_t)q->bar0);
    qt_cfg_wr(q, 0x14, 4, q->bar0 >> 32);
    bar2 = qt_cfg_rd(q, 0x18, 4);
    qt_cfg_wr(q, 0x18, 4, (uint32_t)q->msix_bar);
    if ((bar2 & 6) == 4) {
        qt_cfg_wr(q, 0x1c, 4, q->msix_bar >> 32);
    }
    fn_enable(q);
    g_assert_cmphex(qt_cfg_rd(q, 0x10, 4) & ~0xfu, ==, (uint32_t)q->bar0);
}

/* SR-IOV extended capability registers (PCIe base spec 9.3.3) */
#define SRIOV_CTRL      0x08
#define SRIOV_NUM_VF    0x10
#define SRIOV_VF_OFFSET 0x14
#define SRIOV_VF_STRIDE 0x16
#define SRIOV_BAR       0x24

static unsigned find_ext_cap(Qt *q, uint16_t id)
{
    unsigned off = 0x100, n;

    for (n = 0; off && n < 64; n++) {
        uint32_t h = qt_cfg_rd(q, off, 4);

        if ((h & 0xffff) == id) {
            return off;
        }
        off = h >> 20;
    }
    g_error("extended capability 0x%x not found", id);
}

void qt_sriov_enable(Qt *q, unsigned n, uint64_t bar0, uint64_t msix)
{
    unsigned c = find_ext_cap(q, 0x10);

    qt_cfg_wr(q, c + SRIOV_NUM_VF, 2, n);
    qt_cfg_wr(q, c + SRIOV_BAR, 4, (uint32_t)bar0);                /* 64-bit */
    qt_cfg_wr(q, c + SRIOV_BAR + 4, 4, bar0 >> 32);
    qt_cfg_wr(q, c + SRIOV_BAR + 8, 4, (uint32_t)msix);            /* BAR2, 32-bit */
    qt_cfg_wr(q, c + SRIOV_CTRL, 2, 0x9);                          /* VF Enable, VF MSE */
}

Qt *qt_vf(Qt *pf, unsigned i, uint64_t msi_pa)
{
    unsigned c = find_ext_cap(pf, 0x10);
    uint32_t bar0 = qt_cfg_rd(pf, c + SRIOV_BAR, 4) & ~0xfu;
    uint64_t bar0_hi = qt_cfg_rd(pf, c + SRIOV_BAR + 4, 4);
    Qt *v = g_new(Qt, 1);

    *v = *pf;
    v->view = true;
    v->devfn = pf->devfn + qt_cfg_rd(pf, c + SRIOV_VF_OFFSET, 2) +
               i * qt_cfg_rd(pf, c + SRIOV_VF_STRIDE, 2);
    /* (a VF's own ID registers read all ones; its PF's capability names its device) */
    g_assert_cmphex(qt_cfg_rd(pf, c + 0x1a, 2), ==, MLX5_PCI_DEVICE_ID_CX5_VF);
    g_assert_cmphex(qt_cfg_rd(v, 0, 4), ==, 0xffffffff);
    g_assert_cmphex(qt_cfg_rd(v, 0x06, 2) & 0x10, ==, 0x10);       /* it exists: a cap list */
    v->bar0 = (bar0_hi << 32 | bar0) + i * (uint64_t)MLX5_VF_BAR0_SIZE;
    v->msix_bar = (qt_cfg_rd(pf, c + SRIOV_BAR + 8, 4) & ~0xfu) + i * 4096ull;
    v->msi_pa = msi_pa;
    fn_enable(v);
    return v;
}

/* ---- FakeRemoteOps --------------------------------------------------------------------- */

static void r_write(void *o, uint64_t pa, const void *buf, size_t len)
{
    qt_write(o, pa, buf, len);
}

static void r_read(void *o, uint64_t pa, void *buf, size_t len)
{
    qt_read(o, pa, buf, len);
}

/*
 * BAR0 is big-endian (DEVICE_BIG_ENDIAN): the value a handler sees is the byte-swapped
 * little-endian one a qtest access carries. The unit tests' mini driver passes handler values.
 */
static void r_mmio_write(void *o, uint64_t off, uint64_t val, unsigned size)
{
    Qt *q = o;

    g_assert(size == 4 || size == 8);
    if (size == 4) {
        qt_ok(o, "writel 0x%" PRIx64 " 0x%x", q->bar0 + off, bswap32(val));
    } else {
        qt_ok(o, "writeq 0x%" PRIx64 " 0x%" PRIx64, q->bar0 + off, bswap64(val));
    }
}

static uint64_t r_mmio_read(void *o, uint64_t off, unsigned size)
{
    Qt *q = o;

    g_assert(size == 4);
    return bswap32(qt_readl(q, q->bar0 + off));
}

static void r_run(void *o)
{
    qt_clock_step(o, 1000);     /* a main-loop turn (bottom halves) and 1 us of virtual time */
}

/* (messages between two calls count as one: the driver only asks whether one came) */
static unsigned r_irqs(void *o, unsigned vector)
{
    Qt *q = o;
    uint32_t w = qt_readl(q, q->msi_pa + 4 * vector);

    if (!w) {
        return 0;
    }
    g_assert_cmpuint(w, ==, vector + 1);
    qt_writel(q, q->msi_pa + 4 * vector, 0);
    return 1;
}

const FakeRemoteOps qt_remote_ops = {
    .write = r_write,
    .read = r_read,
    .mmio_write = r_mmio_write,
    .mmio_read = r_mmio_read,
    .run = r_run,
    .irqs = r_irqs,
};

TDrv *qt_tdrv(Qt *q, uint64_t ram_lo)
{
    return tdrv_new_remote(&qt_remote_ops, q, QT_LID, ram_lo, QT_ALLOC_HI);
}

/* ---- QEMU ---------------------------------------------------------------------------------- */

Qt *qt_start(const char *extra_args)
{
    const char *qemu = g_getenv("MLX5_QTEST_QEMU");
    g_autofree char *fw = NULL, *sock = NULL, *cmd = NULL, *qdir = NULL;
    g_auto(GStrv) argv = NULL;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    Qt *q = g_new0(Qt, 1);
    GError *err = NULL;
    int ls, errfd;

    if (!qemu) {
        g_error("MLX5_QTEST_QEMU is not set (meson sets it to build/qemu/qemu-system-x86_64)");
    }
    qdir = g_path_get_dirname(qemu);
    fw = g_getenv("MLX5_QTEST_FIRMWARE") ? g_strdup(g_getenv("MLX5_QTEST_FIRMWARE"))
                                           : g_build_filename(qdir, "firmware", NULL);
    q->dir = g_dir_make_tmp("mlx5-qtest-XXXXXX", &err);
    g_assert_no_error(err);
    sock = g_build_filename(q->dir, "qtest.sock", NULL);
    q->stderr_path = g_build_filename(q->dir, "qemu.stderr", NULL);
    g_assert_cmpuint(strlen(sock), <, sizeof(sa.sun_path));
    strcpy(sa.sun_path, sock);
    ls = socket(AF_UNIX, SOCK_STREAM, 0);
    g_assert_cmpint(ls, >=, 0);
    g_assert_cmpint(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), ==, 0);
    g_assert_cmpint(listen(ls, 1), ==, 0);

    cmd = g_strdup_printf("%s -machine q35,accel=qtest -qtest unix:%s -qtest-log none -nodefaults -display none "
                          "-m %" PRIu64 " -L %s -device mlx5-hca,addr=04.0,id=hca0,lid=%u,sm=off%s %s %s",
                          qemu, sock, QT_RAM_BYTES >> 20, fw, QT_LID,
                          extra_args && extra_args[0] == ',' ? extra_args : "",
                          extra_args && extra_args[0] != ',' ? extra_args : "",
                          g_getenv("MLX5_QTEST_ARGS") ?: "");
    g_assert_true(g_shell_parse_argv(cmd, NULL, &argv, &err));
    errfd = open(q->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    g_assert_cmpint(errfd, >=, 0);
    q->pid = fork();
    g_assert_cmpint(q->pid, >=, 0);
    if (q->pid == 0) {
        dup2(errfd, 1);
        dup2(errfd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    close(errfd);
    /* QEMU connects once it is up; if it fails first, say why */
    for (int waited = 0;; waited += 100) {
        struct pollfd p = { .fd = ls, .events = POLLIN };
        int status;
        if (poll(&p, 1, 100) == 1) {
            break;
        }
        if (waitpid(q->pid, &status, WNOHANG) == q->pid || waited > 60000) {
            g_autofree char *err = NULL;
            g_file_get_contents(q->stderr_path, &err, NULL, NULL);
            g_error("QEMU did not connect: %s\n%s", cmd, err ? err : "");
        }
    }
    q->fd = accept(ls, NULL, NULL);
    g_assert_cmpint(q->fd, >=, 0);
    close(ls);
    q->in = fdopen(dup(q->fd), "r");
    q->bar0 = QT_BAR0;
    q->msix_bar = QT_MSIX_BAR;
    q->msi_pa = QT_MSI_PA;
    g_test_message("QEMU: %s", cmd);
    return q;
}

char *qt_quit(Qt *q)
{
    g_autofree char *sock = g_build_filename(q->dir, "qtest.sock", NULL);
    char *err = NULL;
    int status;

    kill(q->pid, SIGTERM);
    g_assert_cmpint(waitpid(q->pid, &status, 0), ==, q->pid);
    g_file_get_contents(q->stderr_path, &err, NULL, NULL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        g_error("QEMU ended with status 0x%x; stderr:\n%s", status, err ? err : "");
    }
    fclose(q->in);
    close(q->fd);
    unlink(sock);
    unlink(q->stderr_path);
    rmdir(q->dir);
    g_free(q->dir);
    g_free(q->stderr_path);
    g_free(q);
    return err ? err : g_strdup("");
}
