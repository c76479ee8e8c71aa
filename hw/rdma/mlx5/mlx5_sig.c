/*
 * mlx5 HCA core: signature offload (block T10-DIF and CRC32 protection on
 * memory keys).
 *
 * A signature mkey (CREATE_MKEY with bsf_en, an indirect KLM mkey) carries a
 * BSF, loaded by a UMR WQE: the data is cut into blocks, and each block has
 * protection information (PI) after it in the memory domain, on the wire, both
 * or neither. Offsets through the key are wire offsets; its translation (KLMs)
 * and length describe memory. When data goes from memory to the wire (a
 * requester's gather, a responder's READ response) the wire PI is generated and
 * the memory PI checked; from the wire to memory, the wire PI is checked and
 * the memory PI generated. A failed check does not fail the transfer: it posts
 * a SIG_ERR CQE naming the mkey (once, until software re-arms it through the
 * mkey's 1-bit expected_sigerr_count) and, on a requester QP with drain_sigerr
 * (signature pipelining), moves the send queue to SQD. PSVs (CREATE_PSV,
 * SET_PSV WQEs) hold each domain's seed and tags.
 *
 * Offered as a ConnectX-5 does: T10-DIF with a CRC or IP-checksum guard, CRC32,
 * block sizes 512, 520, 4096 and 4160; no CRC32C/CRC64 (sig_crc32c,
 * sig_crc64_xp10 are 0), no crypto.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mlx5_cmd.h"
#include "trace.h"

#define SIG_MAX_BLOCK   4160

/* ---- PSVs ---------------------------------------------------------------- */

void mlx5_psv_free(Mlx5Core *c, void *obj)
{
    Mlx5Psv *p = obj;
    Mlx5Pd *pd = mlx5_table_get(&c->pds, p->pdn);

    if (pd) {
        mlx5_ref_put(&pd->refcount);
    }
    g_free(p);
}

void mlx5_cmd_create_psv(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t n, i, h[4];
    Mlx5Pd *pd;

    if (!mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x20)) {
        return;
    }
    n = MLX5_GET(cmd->in, CREATE_PSV_IN_num_psv);
    if (n < 1 || n > 4 || !MLX5_GET(c->cap_general_cur, CAP_sho)) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_UNSUPPORTED);
        return;
    }
    pd = mlx5_cmd_obj(cmd, &c->pds, MLX5_GET(cmd->in, CREATE_PSV_IN_pd));
    if (!pd) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_PARAM_ERR, MLX5_SYND_BAD_PD);
        return;
    }
    for (i = 0; i < n; i++) {
        Mlx5Psv *p = g_new0(Mlx5Psv, 1);

        if (mlx5_table_alloc(&c->psvs, p, &h[i])) {
            g_free(p);
            while (i--) {
                g_free(mlx5_table_get(&c->psvs, h[i]));
                mlx5_table_remove(&c->psvs, h[i]);
            }
            mlx5_cmd_fail(cmd, MLX5_CMD_STAT_LIM_ERR, MLX5_SYND_NO_HANDLE);
            return;
        }
    }
    for (i = 0; i < n; i++) {
        Mlx5Psv *p = mlx5_table_get(&c->psvs, h[i]);

        p->index = h[i];
        p->pdn = pd->pdn;
        pd->refcount++;
        mlx5_cmd_own(cmd, &c->psvs, h[i]);
        MLX5_SET(cmd->out + 4 * i, CREATE_PSV_OUT_psv0_index, h[i]);
        trace_mlx5_obj_create("psv", h[i]);
    }
}

void mlx5_cmd_destroy_psv(Mlx5Core *c, Mlx5CmdCtx *cmd)
{
    uint32_t h;
    Mlx5Psv *p;

    if (!mlx5_cmd_in_ok(cmd, 0x10) || !mlx5_cmd_out_ok(cmd, 0x10)) {
        return;
    }
    h = MLX5_GET(cmd->in, DESTROY_PSV_IN_psvn);
    p = mlx5_cmd_obj(cmd, &c->psvs, h);
    if (!p) {
        mlx5_cmd_fail(cmd, MLX5_CMD_STAT_BAD_RES_ERR, MLX5_SYND_BAD_HANDLE);
        return;
    }
    /*
     * a BSF may still name it (libmlx5 destroys the PSVs before the mkey): it
     * then reads 0
     */
    mlx5_table_remove(&c->psvs, h);
    mlx5_psv_free(c, p);
    trace_mlx5_obj_destroy("psv", h);
}

/*
 * SET_PSV WQE (opcode 0x20): psv index at byte 16, the transient signature
 * at 24.
 */
IbWcStatus mlx5_sig_set_psv(Mlx5Core *c, Mlx5Qp *qp, const uint8_t *wqe,
                            unsigned nbb)
{
    unsigned end = (wqe[7] & 0x3f) * MLX5_SEND_WQE_DS;
    uint32_t idx = mlx5_ld32(wqe + 16) & 0xffffff;
    Mlx5Psv *p;

    if (end < 32 || end > nbb * MLX5_SEND_WQE_BB) {
        return IB_WC_LOC_QP_OP_ERR;
    }
    p = mlx5_table_get(&c->psvs, idx);
    if (!p || (qp->st != MLX5_QP_ST_REG_UMR && p->pdn != qp->pdn)) {
        trace_mlx5_err_umr(qp->qpn, idx, 0x20);
        return IB_WC_LOC_PROT_ERR;
    }
    p->transient = mlx5_ld64(wqe + 24);
    trace_mlx5_sig_set_psv(qp->qpn, idx, p->transient);
    return IB_WC_SUCCESS;
}

/* ---- the BSF ------------------------------------------------------------- */

static uint32_t sig_block_size(uint8_t sel)
{
    static const uint32_t size[] = { 0, 512, 520, 4096, 4160 };

    return sel < G_N_ELEMENTS(size) ? size[sel] : 0;
}

/*
 * One domain: its block-format selector and PSV word, and its inline T10-DIF
 * section.
 */
static int sig_parse_domain(uint32_t bfs_psv, const uint8_t *inl,
                            Mlx5SigDomain *d)
{
    uint8_t bfs = bfs_psv >> 24;

    memset(d, 0, sizeof(*d));
    d->psv = bfs_psv & 0xffffff;
    /* CRC32; bit 0: the seed is 0 */
    if ((bfs & 0xf0) == 0x20) {
        d->type = MLX5_SIGT_CRC32;
        d->pi = 4;
        d->crc_seed = (bfs & 1) ? 0 : 0xffffffff;
        return 0;
    }
    if (bfs) {
        return -1;                              /* CRC32C, CRC64: not offered */
    }
    if (!(mlx5_ld16(inl) & 0x8000)) {
        d->psv = 0;
        /* no signature in this domain */
        return 0;
    }
    if (inl[8] != 1 && inl[8] != 2) {
        return -1;
    }
    d->type = MLX5_SIGT_T10DIF;
    d->pi = 8;
    d->csum_guard = inl[8] == 2;
    d->app = mlx5_ld16(inl + 2);
    d->ref = mlx5_ld32(inl + 4);
    d->guard_seed = (inl[9] & 0x08) ? 0xffff : 0;
    d->inc_ref = inl[13] & 0x40;
    d->appref_escape = inl[13] & 0x02;
    d->app_escape = inl[13] & 0x01;
    d->app_mask = mlx5_ld16(inl + 14);
    return 0;
}

/*
 * Decode a 64-byte BSF (basic + extended + inline sections) into @s, a
 * signature state ready to be loaded into a key. Returns 0, or -1 for what the
 * device does not take (nothing is changed: the UMR validates before it
 * commits).
 */
int mlx5_sig_parse_bsf(const uint8_t *bsf, Mlx5Sig *s)
{
    bool sbs = bsf[0] & 0x10;
    uint32_t bw, bm;

    memset(s, 0, sizeof(*s));
    if ((bsf[0] >> 6) != 2 || mlx5_ld32(bsf + 20) || mlx5_ld32(bsf + 24) ||
        mlx5_ld32(bsf + 28) ||
        sig_parse_domain(mlx5_ld32(bsf + 8), bsf + 32, &s->wire) ||
        sig_parse_domain(mlx5_ld32(bsf + 12), bsf + 48, &s->mem)) {
        /* transaction signatures, crypto, unknown formats */
        return -1;
    }
    bm = sig_block_size(bsf[3]);
    bw = sbs ? bm : sig_block_size(bsf[2]);
    s->check_mask = bsf[1];
    s->copy_mask = sbs ? bsf[2] : 0;
    if (s->mem.type && s->wire.type) {
        if (!bm || bm != bw || (sbs && s->mem.type != s->wire.type)) {
            return -1;
        }
        s->block = bm;
    } else if (s->mem.type) {
        s->block = bm;
    } else if (s->wire.type) {
        s->block = bw;
    }
    if ((s->mem.type || s->wire.type) && !s->block) {
        return -1;
    }
    s->valid = true;
    s->rx_block = UINT64_MAX;
    return 0;
}

/* ---- PI generation and checks -------------------------------------------- */

static uint16_t crc16_table[256];

uint16_t mlx5_crc16_t10dif(uint16_t crc, const uint8_t *buf, size_t len)
{
    if (!crc16_table[1]) {
        for (unsigned i = 0; i < 256; i++) {
            uint16_t v = i << 8;
            for (int k = 0; k < 8; k++) {
                v = (v & 0x8000) ? (v << 1) ^ 0x8bb7 : v << 1;
            }
            crc16_table[i] = v;
        }
    }
    for (size_t i = 0; i < len; i++) {
        crc = (crc << 8) ^ crc16_table[((crc >> 8) ^ buf[i]) & 0xff];
    }
    return crc;
}

static uint16_t sig_ip_csum(const uint8_t *buf, size_t len)
{
    uint32_t sum = 0;

    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += (buf[i] << 8) | buf[i + 1];
    }
    if (len & 1) {
        sum += buf[len - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum;
}

/* The PI domain @d gives block @b whose data is @data (s->block bytes). */
static void sig_gen(Mlx5Core *c, const Mlx5Sig *s, const Mlx5SigDomain *d,
                    uint64_t b, const uint8_t *data, uint8_t *pi)
{
    Mlx5Psv *p = d->psv ? mlx5_table_get(&c->psvs, d->psv) : NULL;

    if (d->type == MLX5_SIGT_CRC32) {
        uint32_t seed = p ? p->transient >> 32 : d->crc_seed;
        mlx5_st32(pi, ib_crc32(~seed, data, s->block));
    } else if (d->type == MLX5_SIGT_T10DIF) {
        uint16_t seed = p ? p->transient >> 48 : d->guard_seed;
        uint16_t app = p ? (uint16_t)(p->transient >> 32) : d->app;
        uint32_t ref = p ? (uint32_t)p->transient : d->ref;

        mlx5_st16(pi, d->csum_guard ? sig_ip_csum(data, s->block) :
                      mlx5_crc16_t10dif(seed, data, s->block));
        mlx5_st16(pi + 2, app);
        mlx5_st32(pi + 4, ref + (d->inc_ref ? (uint32_t)b : 0));
    }
}

/*
 * A check failed: post the SIG_ERR CQE to the CQ of the QP whose access ran
 * (send CQ for a requester, receive CQ for a responder) if the mkey is armed,
 * and start the drain of a pipelining requester. @found is the PI in the input
 * domain, @want the one computed.
 */
static void sig_report(Mlx5Core *c, Mlx5Mkey *mk, const Mlx5SigDomain *d,
                       bool wire, uint64_t b, uint16_t synd,
                       const uint8_t *found, const uint8_t *want)
{
    Mlx5Qp *qp = c->sig_qp;
    uint8_t cqe[MLX5_CQE_SIZE] = { 0 };

    trace_mlx5_sig_err(mk->key, b, wire, synd, mk->sigerr_exp != mk->sigerr_hw);
    if (!qp || mk->sigerr_exp == mk->sigerr_hw) {
        /* not armed: reported already, software has not re-armed */
        return;
    }
    mk->sigerr_hw ^= 1;
    /* T10-DIF: guard and app tag, then the ref tag; CRC32: the CRC */
    mlx5_st32(cqe + MLX5_SIGERR_CQE_expected_trans_sig, mlx5_ld32(found));
    mlx5_st32(cqe + MLX5_SIGERR_CQE_actual_trans_sig, mlx5_ld32(want));
    if (d->type == MLX5_SIGT_T10DIF) {
        mlx5_st32(cqe + MLX5_SIGERR_CQE_expected_reftag, mlx5_ld32(found + 4));
        mlx5_st32(cqe + MLX5_SIGERR_CQE_actual_reftag, mlx5_ld32(want + 4));
    }
    mlx5_st16(cqe + MLX5_SIGERR_CQE_syndrome, synd);
    /* block signature */
    cqe[MLX5_SIGERR_CQE_sig_type] = 0;
    cqe[MLX5_SIGERR_CQE_domain] = wire ? 0 : 1;
    mlx5_st32(cqe + MLX5_SIGERR_CQE_mkey, mk->key);
    mlx5_st64(cqe + MLX5_SIGERR_CQE_sig_err_offset,
              b * (mk->sig->block + d->pi));
    mlx5_st32(cqe + MLX5_CQE_sop_drop_qpn, qp->qpn);
    cqe[MLX5_CQE_op_own] = MLX5_CQE_SIG_ERR << 4;
    mlx5_cqe_post(c, c->sig_resp ? qp->cqn_rcv : qp->cqn_snd, cqe, false);
    if (!c->sig_resp && MLX5_GET(qp->qpc, QPC_drain_sigerr)) {
        /* the send queue stops once what is in flight is done */
        qp->sig_drain = true;
        qp->sq_wait = true;
    }
}

/*
 * Check @found (PI of input domain @d) against the PI computed from the block's
 * data.
 */
static void sig_check(Mlx5Core *c, Mlx5Mkey *mk, const Mlx5SigDomain *d,
                      bool wire, uint64_t b, const uint8_t *data,
                      const uint8_t *found)
{
    const Mlx5Sig *s = mk->sig;
    bool t10 = d->type == MLX5_SIGT_T10DIF;
    uint8_t want[8] = { 0 };
    uint16_t synd = 0;

    if (t10 && mlx5_ld16(found + 2) == 0xffff &&
        (d->app_escape ||
         (d->appref_escape && mlx5_ld32(found + 4) == 0xffffffff))) {
        return;                     /* escaped block: not checked */
    }
    sig_gen(c, s, d, b, data, want);
    /*
     * the PI's bytes in stream order (check_mask bit 7 = byte 0); the first
     * mismatch counts
     */
    for (unsigned i = 0; i < d->pi && !synd; i++) {
        uint8_t am = t10 && (i == 2 || i == 3) ? d->app_mask >> (i == 2 ? 8 : 0)
                                               : 0xff;

        if ((s->check_mask & (0x80 >> i)) &&
            (found[i] & am) != (want[i] & am)) {
            synd = !t10 || i < 2 ? MLX5_SIGERR_SYND_GUARD :
                   i < 4 ? MLX5_SIGERR_SYND_APPTAG : MLX5_SIGERR_SYND_REFTAG;
        }
    }
    if (synd) {
        sig_report(c, mk, d, wire, b, synd, found, want);
    }
}

/* ---- the data path ------------------------------------------------------- */

/*
 * The memory extent [0, *end) a wire range [w, w + len) of @mk touches (data
 * and PI).
 */
bool mlx5_sig_mem_end(const Mlx5Mkey *mk, uint64_t w, uint64_t len,
                      uint64_t *end)
{
    const Mlx5Sig *s = mk->sig;
    uint64_t bw, bm, e, b, r;

    if (w + len < w || w > (1ull << 52) || len > (1ull << 52)) {
        return false;
    }
    if (!s->block) {
        *end = w + len;
        return true;
    }
    if (!len) {
        *end = 0;
        return true;
    }
    bw = s->block + s->wire.pi;
    bm = s->block + s->mem.pi;
    e = w + len - 1;
    b = e / bw;
    r = e % bw;
    *end = b * bm + MIN(r + 1, (uint64_t)s->block);
    if (r == bw - 1) {
        /* the block ends here: its memory PI is read or written */
        *end = b * bm + bm;
    }
    return true;
}

/* Read block @b's data from memory. */
static int sig_read_block(Mlx5Core *c, Mlx5Mkey *mk, uint64_t b, uint8_t *data)
{
    const Mlx5Sig *s = mk->sig;

    return mlx5_mkey_raw(c, mk, b * (s->block + s->mem.pi), data, s->block,
                         false);
}

/*
 * Memory to wire: the wire PI of block @b (the memory PI's bytes where
 * copy_mask says).
 */
static int sig_tx_pi(Mlx5Core *c, Mlx5Mkey *mk, uint64_t b, uint8_t *pi)
{
    const Mlx5Sig *s = mk->sig;
    uint8_t data[SIG_MAX_BLOCK], mpi[8];
    int r = sig_read_block(c, mk, b, data);

    if (r) {
        return r;
    }
    memset(pi, 0, 8);
    sig_gen(c, s, &s->wire, b, data, pi);
    if (s->copy_mask && s->mem.pi) {
        r = mlx5_mkey_raw(c, mk, b * (s->block + s->mem.pi) + s->block, mpi,
                          s->mem.pi, false);
        if (r) {
            return r;
        }
        for (int i = 0; i < s->wire.pi && i < s->mem.pi; i++) {
            if (s->copy_mask & (0x80 >> i)) {
                pi[i] = mpi[i];
            }
        }
    }
    return 0;
}

/*
 * The last wire byte of block @b has moved: check the input domain, write the
 * memory PI.
 */
static int sig_block_end(Mlx5Core *c, Mlx5Mkey *mk, uint64_t b, bool to_mem)
{
    Mlx5Sig *s = mk->sig;
    uint64_t mpi_off = b * (s->block + s->mem.pi) + s->block;
    uint8_t data[SIG_MAX_BLOCK], pi[8] = { 0 };
    int r;

    if (!to_mem) {
        if (!s->mem.pi || !s->check_mask) {
            return 0;
        }
        r = sig_read_block(c, mk, b, data);
        if (!r) {
            r = mlx5_mkey_raw(c, mk, mpi_off, pi, s->mem.pi, false);
        }
        if (!r) {
            sig_check(c, mk, &s->mem, false, b, data, pi);
        }
        return r;
    }
    if (!(s->wire.pi && s->check_mask) && !s->mem.pi) {
        return 0;
    }
    r = sig_read_block(c, mk, b, data);
    if (r) {
        return r;
    }
    /* (with wire PI, this chunk held its last byte: rx_pi is block @b's) */
    if (s->wire.pi && s->check_mask) {
        sig_check(c, mk, &s->wire, true, b, data, s->rx_pi);
    }
    if (s->mem.pi) {
        sig_gen(c, s, &s->mem, b, data, pi);
        for (int i = 0; i < s->wire.pi && i < s->mem.pi; i++) {
            if (s->copy_mask & (0x80 >> i)) {
                pi[i] = s->rx_pi[i];
            }
        }
        r = mlx5_mkey_raw(c, mk, mpi_off, pi, s->mem.pi, true);
    }
    return r;
}

/*
 * Move @len bytes at wire offset @w of signature mkey @mk (range already
 * checked with mlx5_sig_mem_end): to memory (@to_mem, from the wire) or from
 * memory (to the wire).
 */
int mlx5_sig_copy(Mlx5Core *c, Mlx5Mkey *mk, uint64_t w, uint8_t *buf,
                  uint64_t len, bool to_mem)
{
    Mlx5Sig *s = mk->sig;
    uint64_t bw, bm;

    if (!s->block) {
        return mlx5_mkey_raw(c, mk, w, buf, len, to_mem);
    }
    bw = s->block + s->wire.pi;
    bm = s->block + s->mem.pi;
    while (len) {
        uint64_t b = w / bw, r = w % bw, n;
        int ret;

        if (r < s->block) {
            n = MIN(len, s->block - r);
            ret = mlx5_mkey_raw(c, mk, b * bm + r, buf, n, to_mem);
        } else {
            unsigned i = r - s->block;
            n = MIN(len, bw - r);
            ret = 0;
            if (to_mem) {
                if (i == 0 || s->rx_block != b) {
                    memset(s->rx_pi, 0, sizeof(s->rx_pi));
                    s->rx_block = b;
                }
                memcpy(s->rx_pi + i, buf, n);
            } else {
                uint8_t pi[8];
                ret = sig_tx_pi(c, mk, b, pi);
                memcpy(buf, pi + i, n);
            }
        }
        if (!ret && r + n == bw) {
            ret = sig_block_end(c, mk, b, to_mem);
        }
        if (ret) {
            return ret;
        }
        w += n;
        buf += n;
        len -= n;
    }
    return 0;
}
