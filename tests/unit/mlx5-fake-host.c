/*
 * Fake host for the mlx5 core unit tests: sparse guest memory, MSI-X recorder, manual clock,
 * and the trace-event counter behind the generated trace stubs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "mlx5-test.h"
#include <stdarg.h>
#include "trace/trace-hw_rdma.h"

#define PAGE 4096ull

static GHashTable *trace_counts;

bool mlx5_test_trace_off;

void mlx5_test_trace(const char *name, const char *fmt, ...)
{
    static int verbose = -1;
    gpointer v;

    if (mlx5_test_trace_off) {
        return;                 /* the benchmark: as QEMU's trace points when disabled */
    }
    if (!trace_counts) {
        trace_counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    }
    v = g_hash_table_lookup(trace_counts, name);
    g_hash_table_replace(trace_counts, g_strdup(name), GUINT_TO_POINTER(GPOINTER_TO_UINT(v) + 1));
    if (verbose < 0) {
        verbose = getenv("MLX5_TEST_TRACE") != NULL;
    }
    if (verbose) {
        va_list ap;
        fprintf(stderr, "%s ", name);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
}

unsigned trace_count(const char *name)
{
    return trace_counts ? GPOINTER_TO_UINT(g_hash_table_lookup(trace_counts, name)) : 0;
}

void trace_counts_reset(void)
{
    if (trace_counts) {
        g_hash_table_remove_all(trace_counts);
    }
}

uint64_t fake_flat_bytes;

FakeHost *fake_host_new(void)
{
    FakeHost *h = g_new0(FakeHost, 1);

    h->pages = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    h->brk = 0x100000;
    if (fake_flat_bytes) {
        h->flat = g_malloc0(fake_flat_bytes);
        h->flat_lo = h->brk;
        h->flat_hi = h->brk + fake_flat_bytes;
    }
    h->deadline = INT64_MAX;
    h->tx = g_ptr_array_new_with_free_func((GDestroyNotify)g_byte_array_unref);
    return h;
}

void fake_host_free(FakeHost *h)
{
    g_hash_table_destroy(h->pages);
    g_free(h->flat);
    g_ptr_array_free(h->tx, true);
    g_free(h);
}

static uint8_t *fake_page(FakeHost *h, uint64_t pa, bool create)
{
    gint64 key = pa / PAGE;
    uint8_t *p = g_hash_table_lookup(h->pages, &key);

    if (!p && create) {
        gint64 *k = g_new(gint64, 1);
        *k = key;
        p = g_malloc0(PAGE);
        g_hash_table_insert(h->pages, k, p);
    }
    return p;
}

void fake_write(FakeHost *h, uint64_t pa, const void *buf, size_t len)
{
    const uint8_t *b = buf;

    if (h->remote) {
        h->remote->write(h->remote_opaque, pa, buf, len);
        return;
    }
    if (h->flat && pa >= h->flat_lo && pa + len <= h->flat_hi && pa + len >= pa) {
        memcpy(h->flat + (pa - h->flat_lo), buf, len);
        return;
    }
    while (len) {
        size_t n = MIN(len, PAGE - pa % PAGE);
        memcpy(fake_page(h, pa, true) + pa % PAGE, b, n);
        pa += n;
        b += n;
        len -= n;
    }
}

void fake_read(FakeHost *h, uint64_t pa, void *buf, size_t len)
{
    uint8_t *b = buf;

    if (h->remote) {
        h->remote->read(h->remote_opaque, pa, buf, len);
        return;
    }
    if (h->flat && pa >= h->flat_lo && pa + len <= h->flat_hi && pa + len >= pa) {
        memcpy(buf, h->flat + (pa - h->flat_lo), len);
        return;
    }
    while (len) {
        size_t n = MIN(len, PAGE - pa % PAGE);
        uint8_t *p = fake_page(h, pa, false);
        if (p) {
            memcpy(b, p + pa % PAGE, n);
        } else {
            memset(b, 0, n);
        }
        pa += n;
        b += n;
        len -= n;
    }
}

uint32_t fake_rd32(FakeHost *h, uint64_t pa)
{
    uint8_t b[4];

    fake_read(h, pa, b, 4);
    return mlx5_ld32(b);
}

void fake_wr32(FakeHost *h, uint64_t pa, uint32_t v)
{
    uint8_t b[4];

    mlx5_st32(b, v);
    fake_write(h, pa, b, 4);
}

uint64_t fake_alloc(FakeHost *h, uint64_t size, uint64_t align)
{
    uint64_t pa = (h->brk + align - 1) & ~(align - 1);

    g_assert(!h->brk_hi || (pa <= h->brk_hi && size <= h->brk_hi - pa));
    h->brk = pa + size;
    return pa;
}

static bool fake_poisoned(FakeHost *h, uint64_t pa, size_t len)
{
    if (h->ram_hi && (pa >= h->ram_hi || len > h->ram_hi - pa)) {
        h->dma_errors++;
        return true;
    }
    if (pa < h->poison_hi && pa + len > h->poison_lo) {
        h->dma_errors++;
        return true;
    }
    return false;
}

static Mlx5DmaResult fake_dma_read(void *opaque, uint64_t pa, void *buf, size_t len)
{
    FakeHost *h = opaque;

    h->dma_reads++;
    if (fake_poisoned(h, pa, len)) {
        return -1;
    }
    fake_read(h, pa, buf, len);
    return 0;
}

static Mlx5DmaResult fake_dma_write(void *opaque, uint64_t pa, const void *buf, size_t len)
{
    FakeHost *h = opaque;

    h->dma_writes++;
    if (fake_poisoned(h, pa, len)) {
        return -1;
    }
    fake_write(h, pa, buf, len);
    return 0;
}

static void fake_irq(void *opaque, unsigned vector)
{
    FakeHost *h = opaque;

    g_assert_cmpuint(vector, <, FAKE_MAX_VECTORS);
    h->irqs[vector]++;
}

static void fake_kick(void *opaque)
{
    ((FakeHost *)opaque)->kicks++;
}

/* Frames the core sends are kept for the test to deliver (to a peer core, or nowhere). */
static bool fake_link_tx(void *opaque, unsigned port, const struct iovec *iov, int iovcnt,
                         bool best_effort)
{
    FakeHost *h = opaque;
    GByteArray *f = g_byte_array_new();
    int i;

    for (i = 0; i < iovcnt; i++) {
        /* QEMU's net queue memcpy()s every element, an empty one too: no NULL base */
        g_assert_nonnull(iov[i].iov_base);
        g_byte_array_append(f, iov[i].iov_base, iov[i].iov_len);
    }
    g_ptr_array_add(h->tx, f);
    return true;
}

static int64_t fake_now(void *opaque)
{
    return ((FakeHost *)opaque)->now;
}

static void fake_set_deadline(void *opaque, int64_t when)
{
    ((FakeHost *)opaque)->deadline = when;
}

const Mlx5CoreOps fake_host_ops = {
    .dma_read = fake_dma_read,
    .dma_write = fake_dma_write,
    .irq = fake_irq,
    .kick = fake_kick,
    .link_tx = fake_link_tx,
    .now_ns = fake_now,
    .set_deadline = fake_set_deadline,
};
