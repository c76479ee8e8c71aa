/*
 * mlx5 HCA core: the embedded switch between a PF, its VFs and the PF's link.
 *
 * While a VF of an Ethernet port is enabled, every frame a function sends
 * (its NIC SQs and its RoCE transport) and every frame from the link goes
 * through here. This is the switch firmware runs when no E-Switch manager has
 * programmed an FDB: a frame to a function's address (its permanent address
 * or an entry of its vport's unicast list) goes to that function only, a
 * multicast or broadcast frame to every function but its source and to the
 * link, anything else from a function to the link and from the link to the
 * PF (whose NIC tables decide, as with no VFs). A frame never returns to its
 * source. A frame between two functions is copied into the receiver's queue
 * (at most MLX5_ESW_RXQ_MAX; more are dropped, as by a switch port's buffer)
 * and taken at the receiver's next run, so no function runs inside another.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_eth.h"
#include "trace.h"

#define MLX5_ESW_RXQ_MAX    256
/* frames taken from the queue per run */
#define MLX5_ESW_RX_BUDGET  64

/* Copy up to @len bytes of the frame in @iov to @buf; returns how many. */
static size_t mlx5_esw_copy(const struct iovec *iov, int iovcnt, void *buf,
                            size_t len)
{
    size_t done = 0, n;
    int i;

    for (i = 0; i < iovcnt && done < len; i++) {
        n = MIN(iov[i].iov_len, len - done);
        memcpy((uint8_t *)buf + done, iov[i].iov_base, n);
        done += n;
    }
    return done;
}

/* Is @dst one of function @c's unicast addresses? */
static bool mlx5_esw_addr_is(Mlx5Core *c, const uint8_t *dst)
{
    static const uint8_t zero[6];
    Mlx5Eth *e = c->eth;
    unsigned i;

    if (!e) {
        return false;
    }
    if (memcmp(e->mac, zero, 6) && !memcmp(dst, e->mac, 6)) {
        return true;
    }
    for (i = 0; i < e->n_uc && i < MLX5_NVC_MAX_LIST; i++) {
        if (!memcmp(dst, e->uc_list[i], 6)) {
            return true;
        }
    }
    return false;
}

/* A VF of @pf that is a switch port now (its PF enabled it). */
static Mlx5Core *mlx5_esw_vf(Mlx5Core *pf, unsigned i)
{
    Mlx5Core *vf = pf->vfs[i];

    return vf && vf->vf_enabled && vf->eth ? vf : NULL;
}

/* Does @pf switch frames: an Ethernet port with a VF enabled. */
static bool mlx5_esw_on(Mlx5Core *pf)
{
    unsigned i;

    if (!pf->eth || pf->cfg.vf) {
        return false;
    }
    for (i = 0; i < pf->cfg.num_vfs; i++) {
        if (mlx5_esw_vf(pf, i)) {
            return true;
        }
    }
    return false;
}

/* Hand a copy of the frame to function @d's next run. */
static void mlx5_esw_deliver(Mlx5Core *src, Mlx5Core *d,
                             const struct iovec *iov, int iovcnt, size_t len)
{
    GByteArray *b;

    if (!d->eth || !d->hca_initialized || !d->eth->oper_up ||
        d->health_fatal) {
        return;
    }
    if (g_queue_get_length(&d->esw_rxq) >= MLX5_ESW_RXQ_MAX) {
        trace_mlx5_esw_drop(src->cfg.vf ? src->vf_index + 1 : 0,
                            d->cfg.vf ? d->vf_index + 1 : 0, len);
        return;
    }
    trace_mlx5_esw_fwd(src->cfg.vf ? src->vf_index + 1 : 0,
                       d->cfg.vf ? d->vf_index + 1 : 0, len);
    b = g_byte_array_sized_new(len);
    g_byte_array_set_size(b, len);
    mlx5_esw_copy(iov, iovcnt, b->data, len);
    g_queue_push_tail(&d->esw_rxq, b);
    d->ops->kick(d->opaque);
}

bool mlx5_port_tx(Mlx5Core *c, const struct iovec *iov, int iovcnt,
                  bool best_effort)
{
    Mlx5Core *pf = c->cfg.vf ? c->pf : c;
    size_t len = 0;
    uint8_t dst[6];
    unsigned i;
    int k;

    if (!pf || !mlx5_esw_on(pf)) {
        /* a VF with no switch (detached, disabled, an IB port): lost */
        return c->cfg.vf ? true
                         : c->ops->link_tx(c->opaque, 1, iov, iovcnt,
                                           best_effort);
    }
    for (k = 0; k < iovcnt; k++) {
        len += iov[k].iov_len;
    }
    if (mlx5_esw_copy(iov, iovcnt, dst, 6) < 6) {
        return true;
    }
    if (dst[0] & 1) {
        if (c != pf) {
            mlx5_esw_deliver(c, pf, iov, iovcnt, len);
        }
        for (i = 0; i < pf->cfg.num_vfs; i++) {
            Mlx5Core *vf = mlx5_esw_vf(pf, i);

            if (vf && vf != c) {
                mlx5_esw_deliver(c, vf, iov, iovcnt, len);
            }
        }
    } else {
        if (c != pf && mlx5_esw_addr_is(pf, dst)) {
            mlx5_esw_deliver(c, pf, iov, iovcnt, len);
            return true;
        }
        for (i = 0; i < pf->cfg.num_vfs; i++) {
            Mlx5Core *vf = mlx5_esw_vf(pf, i);

            if (vf && vf != c && mlx5_esw_addr_is(vf, dst)) {
                mlx5_esw_deliver(c, vf, iov, iovcnt, len);
                return true;
            }
        }
    }
    if (!pf->eth->oper_up) {
        return true;            /* the link is down: lost */
    }
    return pf->ops->link_tx(pf->opaque, 1, iov, iovcnt, best_effort);
}

bool mlx5_esw_uplink_rx(Mlx5Core *pf, const uint8_t *f, size_t len)
{
    struct iovec iov = { .iov_base = (void *)f, .iov_len = len };
    unsigned i;

    if (len < 6 || !mlx5_esw_on(pf)) {
        return false;
    }
    for (i = 0; i < pf->cfg.num_vfs; i++) {
        Mlx5Core *vf = mlx5_esw_vf(pf, i);

        if (!vf) {
            continue;
        }
        if (f[0] & 1) {
            mlx5_esw_deliver(pf, vf, &iov, 1, len);
        } else if (mlx5_esw_addr_is(vf, f)) {
            mlx5_esw_deliver(pf, vf, &iov, 1, len);
            return true;
        }
    }
    return false;
}

bool mlx5_esw_rx_run(Mlx5Core *c)
{
    unsigned n;

    for (n = 0; n < MLX5_ESW_RX_BUDGET && !g_queue_is_empty(&c->esw_rxq);
         n++) {
        GByteArray *b = g_queue_pop_head(&c->esw_rxq);

        if (c->eth && !c->health_fatal) {
            mlx5_eth_rx(c, b->data, b->len);
        }
        g_byte_array_unref(b);
    }
    return !g_queue_is_empty(&c->esw_rxq);
}

void mlx5_esw_flush(Mlx5Core *c)
{
    GByteArray *b;

    while ((b = g_queue_pop_head(&c->esw_rxq))) {
        g_byte_array_unref(b);
    }
}

void mlx5_esw_tx_ready(Mlx5Core *pf)
{
    unsigned i;

    for (i = 0; i < pf->cfg.num_vfs; i++) {
        Mlx5Core *vf = mlx5_esw_vf(pf, i);

        if (vf) {
            mlx5_eth_tx_ready(vf);
            ib_port_tx_ready(&vf->ib);
        }
    }
}
