/*
 * Vendor-neutral IB transport: fault injection on a port's link (frames
 * arriving from the fabric), for testing what runs on top: drop, duplicate,
 * reorder, corrupt and delay frames, each with its own probability, from a
 * seeded generator so that a run can be repeated.
 *
 * drop     the frame is lost.
 * corrupt  one byte covered by the ICRC is flipped: the receiver drops the
 * frame as a link error (stat_rx_bad), as a real port drops a frame with a bad
 * CRC. dup      the frame arrives twice. reorder  the frame is held back and
 * arrives after the next one (or 1 ms later). delay    every frame arrives
 * delay_us later (order kept). Frames the port sends to itself (loopback) do
 * not cross the link and see no faults. ecn      an ECN-capable RoCE frame
 * arrives marked Congestion Experienced, as from a switch whose queue fills
 * (ib_cong.c answers it with a CNP). Held frames wait in a bounded queue
 * (IB_FAULT_HOLD); when it is full the oldest is delivered at once. Nothing is
 * allocated per frame.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "ib_internal.h"
#include "trace.h"

#define IB_FAULT_HOLD           64
/* a held-back frame waits at most 1 ms */
#define IB_FAULT_REORDER_NS     1000000

struct IbFault {
    IbFaultConfig cfg;
    IbFaultStats stats;
    uint64_t rng;
    uint8_t (*buf)[IB_MAX_FRAME];
    uint32_t len[IB_FAULT_HOLD];
    int64_t due[IB_FAULT_HOLD];
    unsigned head, count;
    /* the newest held frame waits for the next one */
    bool reorder_held;
    uint8_t scratch[IB_MAX_FRAME];
};

static uint32_t ib_fault_rand(IbFault *f)
{
    /* xorshift64* */
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    return (uint32_t)((f->rng * 0x2545f4914f6cdd1dull) >> 32);
}

static bool ib_fault_hit(IbFault *f, uint8_t pct)
{
    return pct && ib_fault_rand(f) % 100 < pct;
}

void ib_fault_cleanup(IbPort *port)
{
    if (port->fault) {
        g_free(port->fault->buf);
        g_free(port->fault);
        port->fault = NULL;
    }
}

void ib_fault_configure(IbPort *port, const IbFaultConfig *cfg)
{
    IbFault *f = port->fault;

    if (!cfg->drop && !cfg->dup && !cfg->reorder && !cfg->corrupt &&
        !cfg->ecn && !cfg->delay_us) {
        ib_fault_cleanup(port);
        return;
    }
    if (!f) {
        f = port->fault = g_new0(IbFault, 1);
        f->buf = g_malloc(IB_FAULT_HOLD * sizeof(*f->buf));
    }
    f->cfg = *cfg;
    memset(&f->stats, 0, sizeof(f->stats));
    f->cfg.drop = MIN(cfg->drop, 100);
    f->cfg.dup = MIN(cfg->dup, 100);
    f->cfg.reorder = MIN(cfg->reorder, 100);
    f->cfg.corrupt = MIN(cfg->corrupt, 100);
    f->cfg.ecn = MIN(cfg->ecn, 100);
    f->rng = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ull;
    f->head = f->count = 0;
    f->reorder_held = false;
}

/* Deliver the oldest held frame. */
static void ib_fault_release_one(IbPort *port)
{
    IbFault *f = port->fault;
    unsigned slot = f->head;

    f->head = (f->head + 1) % IB_FAULT_HOLD;
    f->count--;
    if (!f->count) {
        f->reorder_held = false;
    }
    ib_port_rx(port, f->buf[slot], f->len[slot]);
}

static void ib_fault_hold(IbPort *port, const uint8_t *frame, size_t len,
                          int64_t due)
{
    IbFault *f = port->fault;
    unsigned slot;

    if (f->count == IB_FAULT_HOLD) {
        ib_fault_release_one(port);
    }
    slot = (f->head + f->count) % IB_FAULT_HOLD;
    memcpy(f->buf[slot], frame, len);
    f->len[slot] = len;
    f->due[slot] = due;
    f->count++;
}

/*
 * Swap the two newest held frames (the held-back one goes after the one just
 * queued).
 */
static void ib_fault_swap_last(IbFault *f)
{
    unsigned a = (f->head + f->count - 1) % IB_FAULT_HOLD;
    unsigned b = (f->head + f->count - 2) % IB_FAULT_HOLD;
    uint32_t la = f->len[a];

    memcpy(f->scratch, f->buf[a], la);
    memcpy(f->buf[a], f->buf[b], f->len[b]);
    f->len[a] = f->len[b];
    memcpy(f->buf[b], f->scratch, la);
    f->len[b] = la;
    /* the held-back frame keeps no earlier time */
    f->due[b] = f->due[a];
}

static void ib_fault_deliver(IbPort *port, const uint8_t *frame, size_t len,
                             int64_t now)
{
    IbFault *f = port->fault;

    if (!f->cfg.delay_us && !f->count) {
        ib_port_rx(port, frame, len);
        return;
    }
    /* frames are held: queue behind them, keeping the order */
    ib_fault_hold(port, frame, len, now + (int64_t)f->cfg.delay_us * 1000);
    if (f->reorder_held && f->count >= 2) {
        ib_fault_swap_last(f);
        f->reorder_held = false;
    }
    while (f->count && f->due[f->head] <= now && !f->reorder_held) {
        ib_fault_release_one(port);
    }
    ib_port_update_deadline(port);
}

void ib_port_link_rx(IbPort *port, const uint8_t *frame, size_t len,
                     const IbEthHdr *h)
{
    IbFault *f = port->fault;
    uint8_t copy[IB_MAX_FRAME];
    IbEthHdr parsed;
    int64_t now;

    if (!f || len > IB_MAX_FRAME) {
        if (h) {
            ib_port_rx_hdr(port, frame, len, h);
        } else {
            ib_port_rx(port, frame, len);
        }
        return;
    }
    /* (frames the faults copy, hold or damage are parsed again) */
    now = port->ops->now_ns(port);
    if (ib_fault_hit(f, f->cfg.drop)) {
        f->stats.drop++;
        trace_ib_fault("drop", len);
        return;
    }
    if (port->roce && f->cfg.ecn && (h || ib_eth_parse(frame, len, &parsed))) {
        /* only an ECN-capable frame can be marked, and draws a number */
        if (!h) {
            h = &parsed;
        }
        if (ib_cong_ect(frame, len, h) && ib_fault_hit(f, f->cfg.ecn)) {
            memcpy(copy, frame, len);
            ib_cong_mark_ce(copy, h);
            f->stats.ecn++;
            trace_ib_fault("ECN CE mark", len);
            frame = copy;
        }
    }
    if (ib_fault_hit(f, f->cfg.corrupt) && len > 60) {
        /*
         * a byte after the BTH (at 42 + 12 with or without a GRH before it):
         * covered by the ICRC, which leaves out only fields in front of it and
         * the BTH's reserved byte
         */
        size_t off = 54 + ib_fault_rand(f) % (len - 4 - 54);
        if (frame != copy) {
            memcpy(copy, frame, len);
        }
        copy[off] ^= 1u << (ib_fault_rand(f) % 8);
        f->stats.corrupt++;
        trace_ib_fault("corrupt", len);
        ib_fault_deliver(port, copy, len, now);
        return;
    }
    if (ib_fault_hit(f, f->cfg.reorder) && !f->reorder_held) {
        f->stats.reorder++;
        trace_ib_fault("reorder", len);
        ib_fault_hold(port, frame, len,
                      now + IB_FAULT_REORDER_NS +
                          (int64_t)f->cfg.delay_us * 1000);
        f->reorder_held = true;
        ib_port_update_deadline(port);
        return;
    }
    ib_fault_deliver(port, frame, len, now);
    if (ib_fault_hit(f, f->cfg.dup)) {
        f->stats.dup++;
        trace_ib_fault("duplicate", len);
        ib_fault_deliver(port, frame, len, now);
    }
}

int64_t ib_fault_deadline(const IbPort *port)
{
    const IbFault *f = port->fault;

    return f && f->count ? f->due[f->head] : INT64_MAX;
}

void ib_fault_expire(IbPort *port, int64_t now)
{
    IbFault *f = port->fault;

    while (f && f->count && f->due[f->head] <= now) {
        /* waited long enough for a frame to pass it */
        f->reorder_held = false;
        ib_fault_release_one(port);
    }
}

bool ib_fault_stats(const IbPort *port, IbFaultStats *st)
{
    if (!port->fault) {
        return false;
    }
    *st = port->fault->stats;
    return true;
}
