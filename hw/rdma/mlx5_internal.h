/*
 * mlx5 HCA core: private state shared by the hw/rdma/mlx5_*.c core files.
 * Nothing here includes QEMU device-layer headers (see docs/design.md, "Layers").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_INTERNAL_H
#define HW_RDMA_MLX5_INTERNAL_H

#include "hw/rdma/mlx5_core.h"
#include "hw/rdma/mlx5_prm.h"

#define MLX5_MAX_PAS            (1u << 18)   /* PAS/MTT entries accepted per object */
#define MLX5_MAX_MBOX_BLOCKS    ((0x110 + 8 * MLX5_MAX_PAS) / MLX5_CMD_MBOX_DATA + 2)
#define MLX5_MAX_CMD_LEN        (MLX5_CMD_INLINE_BYTES + MLX5_MAX_MBOX_BLOCKS * MLX5_CMD_MBOX_DATA)
#define MLX5_MAX_PAGES          (1u << 20)   /* host pages the driver may give (we ask none) */
#define MLX5_MAX_PKEYS          16
#define MLX5_GUID_CAP           1
#define MLX5_LOG_EQE_STRIDE     6

/* A table of objects addressed by small integer handles. */
typedef struct Mlx5Table {
    void **slot;
    uint32_t size;              /* number of slots; handle = index */
    uint32_t first;             /* lowest handle handed out */
    uint32_t next;              /* rotor for allocation */
    uint32_t count;
    const char *name;
} Mlx5Table;

/* Guest buffer described by a physical address list (PAS). */
typedef struct Mlx5Buf {
    uint64_t *pas;
    uint32_t npages;
    uint8_t log_page_size;      /* absolute log2 of the page size */
    uint32_t page_offset;       /* byte offset of the first entry in pas[0] */
} Mlx5Buf;

typedef struct Mlx5Eq {
    uint32_t eqn;
    uint8_t log_eq_size;
    uint32_t uar_page;
    uint32_t intr;
    uint64_t event_bitmask;
    uint32_t pi;                /* producer counter (free running, 24 bits used) */
    uint32_t ci;                /* last consumer counter written by the driver */
    bool armed;
    bool overrun;
    uint32_t refcount;          /* CQs bound to this EQ */
    Mlx5Buf buf;
} Mlx5Eq;

typedef struct Mlx5Cq {
    uint32_t cqn;
    uint32_t uid;
    uint8_t log_cq_size;
    uint8_t cqe_sz;             /* 0 = 64 B, 1 = 128 B */
    bool oi;
    uint32_t uar_page;
    uint32_t c_eqn;
    uint64_t dbr_addr;
    uint32_t pi;                /* producer counter */
    uint8_t arm_sn;
    bool armed;
    bool armed_solicited;
    uint32_t arm_ci;
    uint32_t refcount;          /* QPs/SRQs using this CQ */
    uint8_t status;             /* CQ_ERROR syndrome latched (overrun) */
    Mlx5Buf buf;
} Mlx5Cq;

typedef struct Mlx5Pd {
    uint32_t pdn;
    uint32_t uid;
    uint32_t refcount;
} Mlx5Pd;

typedef struct Mlx5Uar {
    uint32_t index;
    uint32_t uid;
} Mlx5Uar;

typedef struct Mlx5Xrcd {
    uint32_t xrcdn;
    uint32_t refcount;
} Mlx5Xrcd;

typedef struct Mlx5Mkey {
    uint32_t index;
    uint32_t key;               /* index << 8 | mkey_7_0 */
    uint32_t pdn;
    uint8_t access_mode;
    bool free;                  /* disabled until UMR enables it */
    bool umr_en;
    bool length64;
    bool a, rw, rr, lw, lr;
    uint32_t qpn;
    uint64_t start_addr;
    uint64_t len;
    uint8_t log_page_size;
    uint32_t translations_octword_size;
    uint64_t *mtt;              /* MTT entries (access_mode MTT) */
    uint32_t nmtt;
} Mlx5Mkey;

typedef struct Mlx5Srq {
    uint32_t srqn;
    uint32_t uid;
    uint8_t log_srq_size;
    uint8_t log_rq_stride;
    uint32_t xrcd;
    uint32_t cqn;
    uint32_t pdn;
    uint16_t lwm;
    bool armed;
    uint64_t dbr_addr;
    uint8_t state;
    uint32_t refcount;          /* QPs attached */
    Mlx5Buf buf;
} Mlx5Srq;

typedef struct Mlx5Qp {
    uint32_t qpn;
    uint32_t uid;
    uint8_t st;
    uint8_t state;
    uint8_t qpc[MLX5_QPC_SIZE];     /* current context image (decoded copy) */
    uint32_t pdn;
    uint32_t cqn_snd;
    uint32_t cqn_rcv;
    uint32_t srqn;
    uint8_t rq_type;
    uint8_t log_rq_size;
    uint8_t log_rq_stride;
    uint8_t log_sq_size;
    bool no_sq;
    uint32_t user_index;
    uint64_t dbr_addr;
    uint8_t port;
    Mlx5Buf buf;
} Mlx5Qp;

typedef struct Mlx5Port {
    bool link_up;
    uint8_t state;              /* IB_PORT_STATE_* */
    uint16_t lid;
    uint16_t sm_lid;
    uint8_t sm_sl;
    uint8_t lmc;
    uint32_t cap_mask;
    uint16_t pkeys[MLX5_MAX_PKEYS];
    uint16_t pkey_violations;
    uint16_t qkey_violations;
    uint64_t gid_prefix;
    uint8_t subnet_timeout;
    uint64_t mkey;
} Mlx5Port;

typedef struct Mlx5CmdCtx Mlx5CmdCtx;
typedef void Mlx5CmdHandler(Mlx5Core *c, Mlx5CmdCtx *cmd);

struct Mlx5Core {
    Mlx5CoreConfig cfg;
    const Mlx5CoreOps *ops;
    void *opaque;

    /* init segment */
    uint32_t cmdq_addr_h;
    uint32_t cmdq_addr_l;
    uint8_t nic_interface;
    uint32_t db_pending;        /* command doorbell bits not yet executed */
    uint32_t cq_db_hi_latch;    /* first half of a split 64-bit CQ doorbell */
    bool sq_db_pending;         /* a send doorbell was rung since the last run */
    bool health_fatal;
    uint8_t health_synd;
    int64_t start_ns;

    /* HCA function state */
    bool hca_enabled;
    bool hca_initialized;
    uint16_t issi;
    uint32_t pages_given;
    uint8_t cap_general_cur[HCA_CAP_SIZE];
    uint8_t cap_atomic_cur[HCA_CAP_SIZE];
    bool host_endianness_set;

    Mlx5Table eqs, cqs, pds, uars, xrcds, tds, mkeys, srqs, qps;
    Mlx5Port port;

    /* trace/test counters */
    uint64_t cmd_count;
};

static inline void mlx5_ref_put(uint32_t *refcount)
{
    if (*refcount) {
        (*refcount)--;
    }
}

/* mlx5_core.c */
int mlx5_dma_read(Mlx5Core *c, uint64_t pa, void *buf, size_t len);
int mlx5_dma_write(Mlx5Core *c, uint64_t pa, const void *buf, size_t len);
void mlx5_health_fatal(Mlx5Core *c, uint8_t synd);
void mlx5_function_reset(Mlx5Core *c);

/* mlx5_table (in mlx5_res.c) */
void mlx5_table_init(Mlx5Table *t, const char *name, uint32_t size, uint32_t first);
void mlx5_table_destroy(Mlx5Table *t, void (*free_obj)(Mlx5Core *, void *), Mlx5Core *c);
int mlx5_table_alloc(Mlx5Table *t, void *obj, uint32_t *handle);
int mlx5_table_insert(Mlx5Table *t, uint32_t handle, void *obj);
void *mlx5_table_get(const Mlx5Table *t, uint32_t handle);
void mlx5_table_remove(Mlx5Table *t, uint32_t handle);
void mlx5_res_reset(Mlx5Core *c);
void mlx5_res_teardown(Mlx5Core *c);

/* PAS buffers (mlx5_res.c) */
int mlx5_buf_init(Mlx5Buf *b, const uint8_t *pas_be, uint64_t npas, uint8_t log_page_size,
                  uint32_t page_offset, uint64_t need_bytes);
void mlx5_buf_free(Mlx5Buf *b);
/* Bus address of byte @off of the buffer, or UINT64_MAX if out of range. */
uint64_t mlx5_buf_addr(const Mlx5Buf *b, uint64_t off);
int mlx5_buf_write(Mlx5Core *c, const Mlx5Buf *b, uint64_t off, const void *data, size_t len);
int mlx5_buf_read(Mlx5Core *c, const Mlx5Buf *b, uint64_t off, void *data, size_t len);

/* mlx5_caps.c */
void mlx5_caps_build(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap, bool cur);
void mlx5_caps_reset(Mlx5Core *c);

/* mlx5_eq.c */
int mlx5_eq_post(Mlx5Core *c, Mlx5Eq *eq, uint8_t type, uint8_t sub_type,
                 const uint8_t *data, size_t data_len);
/* Post an async event to the EQ whose bitmask has @type. */
void mlx5_eq_post_async(Mlx5Core *c, uint8_t type, uint8_t sub_type,
                        const uint8_t *data, size_t data_len);
Mlx5Eq *mlx5_eq_find_by_event(Mlx5Core *c, uint8_t type);
void mlx5_eq_doorbell(Mlx5Core *c, uint32_t val, bool arm);
void mlx5_eq_free(Mlx5Core *c, void *obj);

/* mlx5_cq.c */
void mlx5_cq_doorbell(Mlx5Core *c, uint32_t hi, uint32_t cqn);
int mlx5_cq_post(Mlx5Core *c, Mlx5Cq *cq, uint8_t *cqe, bool solicited);
void mlx5_cq_free(Mlx5Core *c, void *obj);

/* mlx5_qp.c, mlx5_srq.c, mlx5_mkey.c */
void mlx5_qp_free(Mlx5Core *c, void *obj);
void mlx5_qp_process_all(Mlx5Core *c, unsigned budget);
void mlx5_srq_free(Mlx5Core *c, void *obj);
void mlx5_mkey_free(Mlx5Core *c, void *obj);

/* mlx5_mad.c */
void mlx5_port_reset(Mlx5Core *c);
void mlx5_port_set_link(Mlx5Core *c, bool up);

/* command dispatch (mlx5_cmdq.c) */
void mlx5_cmdq_process(Mlx5Core *c);

#endif
