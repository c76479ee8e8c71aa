/*
 * mlx5 HCA core, Ethernet port: transport interface objects. A TIS is what an
 * SQ sends through; a TIR is where steering delivers a frame: straight to one
 * RQ, or through an RQ table (RQT) chosen by the frame's RSS hash (Toeplitz or
 * inverted XOR8 over the selected address and port fields).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "net/checksum.h"
#include "mlx5_eth.h"
#include "trace.h"

/*
 * The object of an object command (the handle at in+8) the issuer may use, or
 * fail.
 */
static void *mlx5_eth_obj(Mlx5CmdCtx *cmd, Mlx5Table *t)
{
    void *obj;

    if (!mlx5_cmd_in_ok(cmd, 0x10)) {
        return NULL;
    }
    obj = mlx5_cmd_obj(cmd, t, MLX5_GET(cmd->in, OBJ_IN_handle));
    if (!obj) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
    }
    return obj;
}

/*
 * Insert @obj in @t, answering its handle; false (and @obj freed) if the table
 * is full.
 */
static bool mlx5_eth_insert(Mlx5CmdCtx *cmd, Mlx5Table *t, void *obj,
                            uint32_t *h)
{
    if (mlx5_table_alloc(t, obj, h)) {
        g_free(obj);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return false;
    }
    mlx5_cmd_own(cmd, t, *h);
    MLX5_SET(cmd->out, OBJ_OUT_handle, *h);
    trace_mlx5_obj_create(t->name, *h);
    return true;
}

/* ---- TIS ----------------------------------------------------------------- */

void mlx5_cmd_create_tis(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ctx = cmd->in + OBJ_CTX_OFF;
    Mlx5Tis *tis;

    if (!mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + TISC_SIZE) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    if (!mlx5_cmd_ref(cmd, &c->tds, MLX5_GET(ctx, TISC_transport_domain))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    tis = g_new0(Mlx5Tis, 1);
    tis->td = MLX5_GET(ctx, TISC_transport_domain);
    tis->prio = MLX5_GET(ctx, TISC_prio);
    mlx5_eth_insert(cmd, &c->eth->tises, tis, &tis->tisn);
}

void mlx5_cmd_modify_tis(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Tis *tis = mlx5_eth_obj(cmd, &c->eth->tises);

    if (tis && mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + TISC_SIZE)) {
        /*
         * bitmask bit 0: prio (the only field we keep; there is one traffic
         * class)
         */
        if (mlx5_ld64(cmd->in + OBJ_IN_modify_bitmask_OFF) & 1) {
            tis->prio = MLX5_GET(cmd->in + OBJ_CTX_OFF, TISC_prio);
        }
    }
}

void mlx5_cmd_destroy_tis(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Tis *tis = mlx5_eth_obj(cmd, &c->eth->tises);

    if (!tis) {
        return;
    }
    if (tis->refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    mlx5_table_remove(&c->eth->tises, tis->tisn);
    trace_mlx5_obj_destroy("tis", tis->tisn);
    g_free(tis);
}

void mlx5_cmd_query_tis(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Tis *tis = mlx5_eth_obj(cmd, &c->eth->tises);
    uint8_t *ctx = cmd->out + 0x10;

    if (tis && mlx5_cmd_out_ok(cmd, 0x10 + TISC_SIZE)) {
        MLX5_SET(ctx, TISC_prio, tis->prio);
        MLX5_SET(ctx, TISC_transport_domain, tis->td);
    }
}

/* ---- RQT ----------------------------------------------------------------- */

void mlx5_rqt_free(Mlx5Core *c, void *obj)
{
    Mlx5Rqt *rqt = obj;

    g_free(rqt->rqn);
    g_free(rqt);
}

/* Load @size RQ numbers from @list into @rqt. Returns a syndrome or 0. */
static uint32_t mlx5_rqt_load(Mlx5Core *c, Mlx5CmdCtx *cmd, Mlx5Rqt *rqt,
                              const uint8_t *ctx)
{
    uint32_t size = MLX5_GET(ctx, RQTC_rqt_actual_size), i;

    if (size == 0 || size > rqt->max_size ||
        !mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + RQTC_LIST_OFF + 4 * size)) {
        return MLX5_SYND_BAD_SIZE;
    }
    for (i = 0; i < size; i++) {
        uint32_t rqn = mlx5_ld32(ctx + RQTC_LIST_OFF + 4 * i) & 0xffffff;
        Mlx5Qp *rq = mlx5_cmd_ref(cmd, &c->qps, rqn);
        if (!rq || rq->st != MLX5_QP_ST_ETH_RQ) {
            return MLX5_SYND_BAD_QPN;
        }
    }
    for (i = 0; i < size; i++) {
        rqt->rqn[i] = mlx5_ld32(ctx + RQTC_LIST_OFF + 4 * i) & 0xffffff;
    }
    rqt->size = size;
    return 0;
}

void mlx5_cmd_create_rqt(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ctx = cmd->in + OBJ_CTX_OFF;
    uint32_t max, synd;
    Mlx5Rqt *rqt;

    if (!mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + RQTC_LIST_OFF) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    max = MLX5_GET(ctx, RQTC_rqt_max_size);
    if (max == 0 || max > (1u << MLX5_ETH_LOG_MAX_RQT_SIZE)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_SIZE);
        return;
    }
    rqt = g_new0(Mlx5Rqt, 1);
    rqt->max_size = max;
    rqt->rqn = g_new0(uint32_t, max);
    synd = mlx5_rqt_load(c, cmd, rqt, ctx);
    if (synd) {
        mlx5_rqt_free(c, rqt);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    if (mlx5_table_alloc(&c->eth->rqts, rqt, &rqt->rqtn)) {
        mlx5_rqt_free(c, rqt);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
        return;
    }
    mlx5_cmd_own(cmd, &c->eth->rqts, rqt->rqtn);
    MLX5_SET(cmd->out, OBJ_OUT_handle, rqt->rqtn);
    trace_mlx5_eth_rqt(rqt->rqtn, rqt->size, rqt->rqn[0]);
}

void mlx5_cmd_modify_rqt(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Rqt *rqt = mlx5_eth_obj(cmd, &c->eth->rqts);
    uint32_t synd;

    if (!rqt || !mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + RQTC_LIST_OFF)) {
        return;
    }
    if (!MLX5_GET(cmd->in, MODIFY_RQT_bitmask_rqn_list)) {
        return;
    }
    synd = mlx5_rqt_load(c, cmd, rqt, cmd->in + OBJ_CTX_OFF);
    if (synd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, synd);
        return;
    }
    trace_mlx5_eth_rqt(rqt->rqtn, rqt->size, rqt->rqn[0]);
}

void mlx5_cmd_destroy_rqt(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Rqt *rqt = mlx5_eth_obj(cmd, &c->eth->rqts);

    if (!rqt) {
        return;
    }
    if (rqt->refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    mlx5_table_remove(&c->eth->rqts, rqt->rqtn);
    trace_mlx5_obj_destroy("rqt", rqt->rqtn);
    mlx5_rqt_free(c, rqt);
}

void mlx5_cmd_query_rqt(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Rqt *rqt = mlx5_eth_obj(cmd, &c->eth->rqts);
    uint8_t *ctx = cmd->out + OBJ_QUERY_OUT_CTX_OFF;
    uint32_t i;

    if (!rqt || !mlx5_cmd_out_ok(cmd, OBJ_QUERY_OUT_CTX_OFF + RQTC_LIST_OFF)) {
        return;
    }
    MLX5_SET(ctx, RQTC_rqt_max_size, rqt->max_size);
    MLX5_SET(ctx, RQTC_rqt_actual_size, rqt->size);
    for (i = 0;
         i < rqt->size &&
         OBJ_QUERY_OUT_CTX_OFF + RQTC_LIST_OFF + 4 * (i + 1) <= cmd->outlen;
         i++) {
        mlx5_st32(ctx + RQTC_LIST_OFF + 4 * i, rqt->rqn[i]);
    }
}

/* ---- TIR ----------------------------------------------------------------- */

static void mlx5_tir_put(Mlx5Core *c, Mlx5Tir *tir)
{
    Mlx5Rqt *rqt = mlx5_table_get(&c->eth->rqts, tir->rqtn);

    if (tir->disp_type == MLX5_TIRC_DISP_INDIRECT && rqt) {
        mlx5_ref_put(&rqt->refcount);
    }
}

void mlx5_tir_free(Mlx5Core *c, void *obj)
{
    mlx5_tir_put(c, obj);
    g_free(obj);
}

static void mlx5_tir_load_hash(Mlx5Tir *tir, const uint8_t *ctx)
{
    tir->hash_fn = MLX5_GET(ctx, TIRC_rx_hash_fn);
    tir->symmetric = MLX5_GET(ctx, TIRC_rx_hash_symmetric);
    tir->hash_sel = MLX5_GET(ctx, TIRC_hash_outer);
    memcpy(tir->key, ctx + TIRC_toeplitz_key_OFF, sizeof(tir->key));
}

void mlx5_cmd_create_tir(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    const uint8_t *ctx = cmd->in + OBJ_CTX_OFF;
    Mlx5Tir *tir;
    Mlx5Rqt *rqt = NULL;
    Mlx5Qp *rq;

    if (!mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + TIRC_SIZE) ||
        !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    /*
     * transport domain 0 is the function's default one, never allocated: DPDK
     * names it in the drop queue's TIR, which it creates at probe time before
     * it learns its TIS's domain
     */
    if (MLX5_GET(ctx, TIRC_transport_domain) &&
        !mlx5_cmd_ref(cmd, &c->tds, MLX5_GET(ctx, TIRC_transport_domain))) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    tir = g_new0(Mlx5Tir, 1);
    if (mlx5_lro_tir_load(tir, ctx)) {
        g_free(tir);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    tir->td = MLX5_GET(ctx, TIRC_transport_domain);
    tir->disp_type = MLX5_GET(ctx, TIRC_disp_type);
    tir->self_lb_block = MLX5_GET(ctx, TIRC_self_lb_block);
    if (tir->disp_type == MLX5_TIRC_DISP_DIRECT) {
        tir->inline_rqn = MLX5_GET(ctx, TIRC_inline_rqn);
        rq = mlx5_cmd_ref(cmd, &c->qps, tir->inline_rqn);
        if (!rq || rq->st != MLX5_QP_ST_ETH_RQ) {
            g_free(tir);
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_QPN);
            return;
        }
    } else if (tir->disp_type == MLX5_TIRC_DISP_INDIRECT) {
        tir->rqtn = MLX5_GET(ctx, TIRC_indirect_table);
        rqt = mlx5_cmd_ref(cmd, &c->eth->rqts, tir->rqtn);
        mlx5_tir_load_hash(tir, ctx);
        if (!rqt || tir->hash_fn > MLX5_RX_HASH_FN_TOEPLITZ) {
            g_free(tir);
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_HANDLE);
            return;
        }
    } else {
        g_free(tir);
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    if (mlx5_eth_insert(cmd, &c->eth->tirs, tir, &tir->tirn)) {
        if (rqt) {
            rqt->refcount++;
        }
        if (mlx5_sw_icm_offered(&c->cfg)) {
            /* where a steering entry sends frames to it (mlx5_ste.c) */
            mlx5_icm_out(cmd->out,
                         mlx5_icm_term(MLX5_ICM_T_TIR, tir->tirn));
        }
        trace_mlx5_eth_tir(tir->tirn, tir->disp_type,
                           tir->inline_rqn | tir->rqtn, tir->hash_fn,
                           tir->hash_sel);
        if (tir->lro_mask) {
            trace_mlx5_eth_tir_lro(tir->tirn, tir->lro_mask,
                                   tir->lro_max_payload, tir->lro_timeout_us);
        }
    }
}

void mlx5_cmd_modify_tir(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Tir *tir = mlx5_eth_obj(cmd, &c->eth->tirs);
    const uint8_t *ctx = cmd->in + OBJ_CTX_OFF;
    Mlx5Tir next;

    if (!tir || !mlx5_cmd_in_ok(cmd, OBJ_CTX_OFF + TIRC_SIZE)) {
        return;
    }
    /* every field is checked before any changes */
    next = *tir;
    if (MLX5_GET(cmd->in, MODIFY_TIR_bitmask_hash)) {
        if (tir->disp_type != MLX5_TIRC_DISP_INDIRECT ||
            MLX5_GET(ctx, TIRC_rx_hash_fn) > MLX5_RX_HASH_FN_TOEPLITZ) {
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR,
                          MLX5_SYND_BAD_HANDLE);
            return;
        }
        mlx5_tir_load_hash(&next, ctx);
    }
    if (MLX5_GET(cmd->in, MODIFY_TIR_bitmask_packet_merge) &&
        mlx5_lro_tir_load(&next, ctx)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    if (MLX5_GET(cmd->in, MODIFY_TIR_bitmask_self_lb_en)) {
        next.self_lb_block = MLX5_GET(ctx, TIRC_self_lb_block);
    }
    *tir = next;
    trace_mlx5_eth_tir_lro(tir->tirn, tir->lro_mask, tir->lro_max_payload,
                           tir->lro_timeout_us);
}

void mlx5_cmd_destroy_tir(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Tir *tir = mlx5_eth_obj(cmd, &c->eth->tirs);

    if (!tir) {
        return;
    }
    if (tir->refcount) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_RES_BUSY, MLX5_SYND_BUSY);
        return;
    }
    mlx5_table_remove(&c->eth->tirs, tir->tirn);
    trace_mlx5_obj_destroy("tir", tir->tirn);
    mlx5_tir_free(c, tir);
}

void mlx5_cmd_query_tir(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    Mlx5Tir *tir = mlx5_eth_obj(cmd, &c->eth->tirs);
    uint8_t *ctx = cmd->out + OBJ_QUERY_OUT_CTX_OFF;

    if (!tir || !mlx5_cmd_out_ok(cmd, OBJ_QUERY_OUT_CTX_OFF + TIRC_SIZE)) {
        return;
    }
    MLX5_SET(ctx, TIRC_disp_type, tir->disp_type);
    MLX5_SET(ctx, TIRC_inline_rqn, tir->inline_rqn);
    MLX5_SET(ctx, TIRC_indirect_table, tir->rqtn);
    MLX5_SET(ctx, TIRC_rx_hash_fn, tir->hash_fn);
    MLX5_SET(ctx, TIRC_rx_hash_symmetric, tir->symmetric);
    MLX5_SET(ctx, TIRC_self_lb_block, tir->self_lb_block);
    MLX5_SET(ctx, TIRC_transport_domain, tir->td);
    MLX5_SET(ctx, TIRC_hash_outer, tir->hash_sel);
    memcpy(ctx + TIRC_toeplitz_key_OFF, tir->key, sizeof(tir->key));
    mlx5_lro_tir_query(tir, ctx);
}

/* ---- RSS ----------------------------------------------------------------- */

/*
 * Microsoft's RSS hash with @key (40 bytes) over @len bytes of @in (at most
 * 36): QEMU's net_toeplitz_*, as e1000e, igb and virtio-net use it.
 */
uint32_t mlx5_toeplitz(uint8_t *key, uint8_t *in, size_t len)
{
    net_toeplitz_key k;
    uint32_t hash = 0;

    net_toeplitz_key_init(&k, key);
    net_toeplitz_add(&hash, in, MIN(len, 36), &k);
    return hash;
}

/*
 * The RQ an incoming frame goes to through @tir, and the hash the CQE reports.
 * The hash input is the fields the TIR selects that the frame has, in Toeplitz
 * order (source address, destination address, source port, destination port); a
 * symmetric TIR orders each pair so that both directions of a flow hash alike.
 */
uint32_t mlx5_tir_select(Mlx5Core *c, Mlx5Tir *tir, const IbEthHdr *h,
                         uint32_t *hash, uint8_t *hash_type)
{
    uint8_t in[36] = { 0 };
    size_t n = 0, alen = h->ip_version == 6 ? 16 : 4;
    const uint8_t *s = h->src, *d = h->dst;
    uint16_t sp = h->sport, dp = h->dport;
    bool want6 = tir->hash_sel & HASH_SEL_l3_prot_type;
    bool want_udp = tir->hash_sel & HASH_SEL_l4_prot_type;
    Mlx5Rqt *rqt;
    uint32_t i;

    *hash = 0;
    *hash_type = 0;
    if (tir->disp_type == MLX5_TIRC_DISP_DIRECT) {
        return tir->inline_rqn;
    }
    rqt = mlx5_table_get(&c->eth->rqts, tir->rqtn);
    if (!rqt || !rqt->size) {
        return 0;
    }
    if (tir->symmetric &&
        (memcmp(s, d, alen) > 0 || (!memcmp(s, d, alen) && sp > dp))) {
        s = h->dst;
        d = h->src;
        sp = h->dport;
        dp = h->sport;
    }
    if (h->ip_version && (h->ip_version == 6) == want6) {
        if (tir->hash_sel & HASH_SEL_SRC_IP) {
            memcpy(in + n, s, alen);
            n += alen;
        }
        if (tir->hash_sel & HASH_SEL_DST_IP) {
            memcpy(in + n, d, alen);
            n += alen;
        }
        if (n) {
            *hash_type |= (h->ip_version == 6 ? 2 : 1) << 2;
        }
        if (h->l4 && (h->proto == (want_udp ? 17 : 6)) &&
            (tir->hash_sel & (HASH_SEL_L4_SPORT | HASH_SEL_L4_DPORT))) {
            if (tir->hash_sel & HASH_SEL_L4_SPORT) {
                mlx5_st16(in + n, sp);
                n += 2;
            }
            if (tir->hash_sel & HASH_SEL_L4_DPORT) {
                mlx5_st16(in + n, dp);
                n += 2;
            }
            *hash_type |= (want_udp ? 2 : 1) << 6;
        }
    }
    if (tir->hash_fn == MLX5_RX_HASH_FN_TOEPLITZ) {
        *hash = mlx5_toeplitz(tir->key, in, n);
    } else if (tir->hash_fn == MLX5_RX_HASH_FN_INVERTED_XOR8) {
        uint8_t x = 0;
        for (i = 0; i < n; i++) {
            x ^= in[i];
        }
        *hash = (uint8_t)~x;
    }
    if (!n) {
        *hash_type = 0;
    }
    return rqt->rqn[*hash % rqt->size];
}
