/*
 * mlx5 HCA core: private state shared by the files of hw/rdma/mlx5/ and
 * hw/rdma/mlx5/eth/. Nothing here includes QEMU device-layer headers
 * (docs/design.md).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_INTERNAL_H
#define HW_RDMA_MLX5_INTERNAL_H

#include "hw/rdma/mlx5/mlx5_core.h"
#include "hw/rdma/mlx5/mlx5_prm.h"
#include "hw/rdma/ib/ib_transport.h"
#include "hw/rdma/ib/ib_wire.h"

/* PAS/MTT entries accepted per object */
#define MLX5_MAX_PAS            (1u << 18)
#define MLX5_MAX_MBOX_BLOCKS \
    ((0x110 + 8 * MLX5_MAX_PAS) / MLX5_CMD_MBOX_DATA + 2)
#define MLX5_MAX_CMD_LEN \
    (MLX5_CMD_INLINE_BYTES + MLX5_MAX_MBOX_BLOCKS * MLX5_CMD_MBOX_DATA)
/* host pages the driver may give (we ask none) */
#define MLX5_MAX_PAGES          (1u << 20)
#define MLX5_MAX_PKEYS          16
/* pkey_table_size 0 = 128 entries (QPs, DCTs) */
#define MLX5_MAX_PKEY_INDEX     128
#define MLX5_GUID_CAP           1
/*
 * a VF's InfiniBand vport (mlx5_vport_ib.c): its GID and P_Key tables as long
 * as gid_table_size and pkey_table_size say (8, 128), the CapabilityMask bits
 * its driver may set (IsCommunicationManagementSupported)
 */
#define MLX5_VPORT_GIDS         8
#define MLX5_VPORT_PKEYS        MLX5_MAX_PKEY_INDEX
#define MLX5_VPORT_CAP_MASK1_SELECT IB_PORT_CM_SUP
#define MLX5_LOG_EQE_STRIDE     6

/* A table of objects addressed by small integer handles. */
typedef struct Mlx5Table {
    void **slot;
    /* DevX uid that created each object (0: privileged) */
    uint16_t *owner;
    uint32_t size;              /* number of slots; handle = base + index */
    uint32_t base;              /* handle of slot 0 (a VF's QPN range) */
    uint32_t first;             /* lowest slot handed out */
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
    /* producer counter (free running, 24 bits used) */
    uint32_t pi;
    /* last consumer counter written by the driver */
    uint32_t ci;
    bool armed;
    bool overrun;
    uint32_t refcount;          /* CQs bound to this EQ */
    Mlx5Buf buf;
} Mlx5Eq;

typedef struct Mlx5Cq {
    uint32_t cqn;
    uint32_t uid;
    uint8_t log_cq_size;
    uint8_t cqe_sz;             /* MLX5_CQE_SZ_* */
    bool oi;
    uint8_t period_mode;        /* CQC cq_period_mode */
    uint32_t uar_page;
    uint32_t c_eqn;
    uint64_t dbr_addr;
    uint32_t pi;                /* producer counter */
    uint8_t arm_sn;
    bool armed;
    bool armed_solicited;
    uint32_t arm_ci;
    /* producer counter at the last event (cqc last_notified_index + 1) */
    uint32_t notified_pi;
    uint32_t refcount;          /* QPs/SRQs using this CQ */
    uint8_t status;             /* CQ_ERROR syndrome latched (overrun) */
    uint16_t period;            /* moderation (MODIFY_CQ): kept and reported */
    uint16_t max_count;
    Mlx5Buf buf;
    /* CQE compression (cqe_comp_en): the session being gathered, or NULL */
    struct Mlx5CqComp *comp;
} Mlx5Cq;

typedef struct Mlx5Pd {
    uint32_t pdn;
    uint32_t uid;
    uint32_t refcount;
} Mlx5Pd;

typedef struct Mlx5Uar {
    uint32_t index;
    uint32_t uid;
    /*
     * BlueFlame buffers (bit n: the n-th from MLX5_UAR_BF_BASE) whose last
     * doorbell came without a copy (mlx5_bf.c): their doorbells run at once
     */
    uint32_t bf_plain;
} Mlx5Uar;

typedef struct Mlx5Xrcd {
    uint32_t xrcdn;
    uint32_t refcount;
} Mlx5Xrcd;

/*
 * One indirect translation entry (access modes KLMS and KSM), decoded from the
 * 16-byte wire form. A repeat block (KLMS) is stored as written: entry 0 is its
 * header (bcount = bytes per cycle, key = MLX5_STRIDE_BLOCK_OP, va =
 * repeat_count << 32 | num_ent) and each following entry has bcount = stride <<
 * 16 | byte_count.
 */
typedef struct Mlx5Klm {
    uint32_t bcount;
    uint32_t key;
    uint64_t va;
} Mlx5Klm;

#define MLX5_STRIDE_BLOCK_OP    0x400   /* key of a repeat-block header */
/*
 * KSM tables of up to 2^26 entries: mlx5_ib's implicit ODP key has one 1 GiB
 * entry per GiB of the user address space, 2^26 of them for a 57-bit one
 * (5-level paging). Beyond MLX5_MAX_PAS entries a table is sparse: at most
 * MLX5_KSM_SPARSE_SET entries name a key, the others the null mkey.
 */
#define MLX5_MAX_KSM            (1u << 26)
#define MLX5_KSM_SPARSE_SET     (1u << 16)
/* indirect mkeys on one translation path */
#define MLX5_MAX_INDIRECTION    4

/*
 * Signature offload (mlx5_sig.c): one domain's protection of each data block.
 */
typedef enum Mlx5SigType {
    MLX5_SIGT_NONE,
    /* 8 bytes: guard (CRC-16/T10 or IP checksum), app, ref tag */
    MLX5_SIGT_T10DIF,
    MLX5_SIGT_CRC32,            /* 4 bytes, big endian */
} Mlx5SigType;

typedef struct Mlx5SigDomain {
    Mlx5SigType type;
    /* protection bytes after each block: 0, 4 or 8 */
    uint8_t pi;
    /* T10-DIF guard is the IP checksum, not the CRC */
    bool csum_guard;
    bool inc_ref;               /* ref tag += 1 per block */
    bool app_escape, appref_escape;
    uint16_t app, app_mask, guard_seed;
    uint32_t ref, crc_seed;
    /* the PSV the BSF names (its value overrides the inline one) */
    uint32_t psv;
} Mlx5SigDomain;

typedef struct Mlx5Sig {
    bool valid;                 /* a BSF is loaded and enabled */
    uint32_t block;             /* data bytes per block */
    Mlx5SigDomain mem, wire;
    /* PI bytes checked in the input domain (bit 7 = byte 0) */
    uint8_t check_mask;
    /* PI bytes copied from the input to the output domain */
    uint8_t copy_mask;
    /* receive side: the wire PI of the block being received, as it arrives */
    uint64_t rx_block;
    uint8_t rx_pi[8];
} Mlx5Sig;

typedef struct Mlx5Mkey {
    uint32_t index;
    uint32_t key;               /* index << 8 | mkey_7_0 */
    uint32_t pdn;
    uint8_t access_mode;
    bool free;                  /* disabled until UMR enables it */
    bool umr_en;
    bool length64;
    bool en_rinval;             /* remote invalidation (SEND_INV) allowed */
    bool a, rw, rr, lw, lr;
    uint32_t qpn;
    uint64_t start_addr;
    uint64_t len;
    uint8_t log_page_size;
    uint32_t translations_octword_size;
    /* MTT entries as written, flag bits included (mode MTT) */
    uint64_t *mtt;
    uint32_t nmtt;              /* entries held (written up to) */
    /* KLM/KSM/repeat-block entries (modes KLMS, KSM) */
    Mlx5Klm *klm;
    uint32_t nklm;
    /*
     * a KSM table of more than MLX5_MAX_PAS entries, held sparsely: index ->
     * Mlx5Klm for the entries that name a key other than the null mkey (else
     * NULL)
     */
    GHashTable *ksm_set;
    /* mode SW_ICM: holds the range mapped at creation (memic_start, _len) */
    bool sw_icm;
    /* mode MEMIC: holds the range mapped at creation */
    bool memic;
    uint64_t memic_start;
    uint64_t memic_len;
    /* created with bsf_en: signature state (else NULL) */
    Mlx5Sig *sig;
    /* 1-bit expected_sigerr_count: reports armed while */
    uint8_t sigerr_exp;
    /*   these differ; each report flips sigerr_hw */
    uint8_t sigerr_hw;
} Mlx5Mkey;

/* A PSV (CREATE_PSV): a signature's running value, set by SET_PSV WQEs. */
typedef struct Mlx5Psv {
    uint32_t index;
    uint32_t pdn;
    /* T10-DIF: guard<<48 | app<<32 | ref; CRC32: seed<<32 */
    uint64_t transient;
} Mlx5Psv;

/*
 * Steering ICM (mlx5_sw_icm.c): where the regions are (the device's choice: in
 * the 40 bits an STE can address, the steering region aligned to its size)
 * and the addresses of what a steering entry may go to that is not an entry
 * (eth/mlx5_ste.c): MLX5_ICM_TERM_BASE | kind << 32 | id << 6.
 */
#define MLX5_ICM_STEERING_BASE  0x4000000000ull
#define MLX5_ICM_LOG_STEERING   30
#define MLX5_ICM_MODHDR_BASE    0x5000000000ull
#define MLX5_ICM_LOG_MODHDR     22
#define MLX5_ICM_TERM_BASE      0x6000000000ull
#define MLX5_ICM_MAX_OBJ        64

/* A block of steering ICM (CREATE_GENERAL_OBJECT SW_ICM); size 0: free */
typedef struct Mlx5IcmObj {
    uint64_t start, size;
    uint16_t uid;
    uint32_t refcount;          /* mkeys mapping it */
} Mlx5IcmObj;

/* A piece of device memory handed out by ALLOC_MEMIC (mlx5_memic.c). */
typedef struct Mlx5MemicAlloc {
    uint64_t start;             /* BAR0 offset */
    uint32_t size;
    uint32_t uid;
    uint32_t refcount;          /* MEMIC mkeys mapping it */
} Mlx5MemicAlloc;

typedef struct Mlx5Srq {
    uint32_t srqn;
    uint32_t uid;
    /* an XRC SRQ (CREATE_XRC_SRQ): targeted by XRC requests */
    bool xrc;
    /* XRC SRQs: reported in their CQEs (cqe_version 1) */
    uint32_t user_index;
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
    uint16_t head;              /* next WQE index of the free list */
    /* WQEs taken so far (compared with the DBR counter) */
    uint16_t consumed;
    /* a PAGE_FAULT event for one of its WQEs awaits its resume */
    bool pf_pending;
    /* ... was resumed with error: the next fault fails instead */
    bool pf_error;
    Mlx5Buf buf;
    /* a tag-matching XRQ (mlx5_xrq.c): its tag list, else NULL */
    struct Mlx5Xrq *tm;
} Mlx5Srq;

typedef struct Mlx5Sge {
    uint32_t lkey;
    uint32_t len;
    uint64_t addr;
} Mlx5Sge;

#define MLX5_SEGS_PER_WQEBB     4
#define MLX5_MAX_RECV_SGE       32      /* max_wqe_sz_rq 512 / 16 */

/* What the SQ engine decoded from one send WQE (device-owned copy). */
typedef struct Mlx5SendCtx {
    uint16_t wqe_index;
    uint8_t opcode;
    uint8_t nsge;
    bool signaled;
    bool inl;
    uint32_t length;
} Mlx5SendCtx;

/* The receive WQE the transport is filling. */
typedef struct Mlx5RecvCtx {
    uint16_t wqe_counter;       /* RQ counter, or SRQ WQE index */
    /* the SRQ it came from, or UINT32_MAX (the QP's RQ) */
    uint32_t srqn;
    /* where its completion goes (an XRC SRQ's own CQ) */
    uint32_t cqn;
    uint32_t uidx;              /* the user index its CQE carries */
    /* the PD its keys must belong to (the QP's or the SRQ's) */
    uint32_t pdn;
    uint8_t nsge;
    Mlx5Sge sge[MLX5_MAX_RECV_SGE];
    /*
     * tag matching (mlx5_xrq.c): how the message was placed (a CQE app_op, 0
     * for none), the list entry it matched, the bytes of its start not
     * scattered (a matched message's TMH), and its headers (TMH, RVH)
     */
    uint8_t tm_op;
    uint16_t tm_slot;
    uint32_t tm_skip;
    uint8_t tm_hdr[32];
} Mlx5RecvCtx;

/*
 * SQs and RQs of the Ethernet port live in the QP table with these private
 * types.
 */
#define MLX5_QP_ST_ETH_SQ   0xf0
#define MLX5_QP_ST_ETH_RQ   0xf1

typedef struct Mlx5Lro Mlx5Lro;
typedef struct Mlx5Qp {
    IbQp ib;                    /* transport state (first member) */
    uint32_t qpn;
    uint32_t uid;
    uint8_t st;
    uint8_t state;
    uint8_t qpc[MLX5_QPC_SIZE];     /* current context image (decoded copy) */
    uint32_t pdn;
    uint32_t cqn_snd;
    uint32_t cqn_rcv;
    uint32_t srqn;
    /* XRC QPs: the XRC domain (a target's XRC SRQs must be in it) */
    uint32_t xrcd;
    uint8_t rq_type;
    uint8_t log_rq_size;
    uint8_t log_rq_stride;
    uint8_t log_sq_size;
    bool no_sq;
    /*
     * tag matching: the device reads a matched rendezvous message's data and
     * sends its FIN (a QP with no send queue, QPC offload_type RNDV); the
     * reads and FINs in flight (mlx5_xrq.c)
     */
    bool tm_rndv;
    struct Mlx5TmRndv *tm_rndv_ctx;
    uint32_t tm_swq;            /* transport send entries they need */
    uint32_t user_index;
    uint64_t dbr_addr;
    /* the UAR page its send doorbells (and BlueFlame copies) come through */
    uint32_t uar;
    uint8_t port;
    Mlx5Buf buf;

    /* data path */
    uint32_t sq_cnt;            /* WQEBBs */
    /* byte offset of the SQ in buf (after the RQ) */
    uint64_t sq_off;
    uint32_t rq_cnt;
    uint32_t rq_stride;
    uint16_t sq_ci;             /* next WQEBB the engine reads */
    uint16_t rq_ci;
    Mlx5SendCtx *sctx;          /* [sq_cnt] by first WQEBB slot */
    Mlx5Sge *ssge;              /* [sq_cnt * 4] */
    uint8_t *sinl;              /* [sq_cnt * 64] inline payload copies */
    Mlx5RecvCtx rcv;
    /* DCT: the receive WQE of each responder context */
    Mlx5RecvCtx *dc_rcv;
    bool queued;                /* on the core's work list */
    /* the transport failed it: move to ERR when safe */
    bool to_error;
    bool last_wqe_sent;
    /* a NOP/UMR waits for the transport's WRs to complete */
    bool sq_wait;
    /* a signature check failed (drain_sigerr): go to SQD */
    bool sig_drain;
    /* PAGE_FAULT events awaiting their resume: 1 << type */
    uint8_t pf_pending;
    /* Ethernet SQ/RQ (mlx5_wq.c): their own state; .state stays RST */
    uint8_t wq_state;
    /* RQ: keep the VLAN tag in the frame (no strip) */
    bool vsd;
    bool flush_in_error;
    uint8_t counter_set;        /* RQ: Q counter of its drops */
    uint32_t tisn;              /* SQ */
    /* SQ: may post UMR WQEs (sqc.reg_umr: mlx5e's ICOSQ) */
    bool reg_umr;
    /* SQ: packet pacing (mlx5_pp.c): its rate table index, 0 = no limit */
    uint16_t pp_index;
    bool pp_waiting;            /* held until pp_wake */
    int64_t pp_next;            /* what it sent has left at the rate by then */
    int64_t pp_wake;
    /* striding RQ (mlx5_mpwqe.c): WQEs of 2^log_strides strides */
    uint8_t wq_type;
    uint8_t log_strides;
    uint8_t log_stride_sz;
    bool two_byte_shift;
    uint16_t mpw_wqe;           /* the WQE being filled (ring index) */
    uint32_t mpw_stride;        /* its strides used so far */
    bool mpw_next;              /* done with it: follow its next pointer */
    struct Mlx5Lro *lro;        /* RQ: its LRO session (mlx5_lro.c) */
} Mlx5Qp;

/* PerfMgt counters (mlx5_pma.c): the port's totals at the last clear */
typedef struct Mlx5PmaCounters {
    uint64_t tx_bytes, rx_bytes, tx_pkts, rx_pkts, tx_mcast, rx_mcast, rx_bad;
} Mlx5PmaCounters;

/* The vendor-specific capability's gateway (mlx5_vsc.c) */
#define MLX5_VSC_SEMS       16          /* semaphore space: dwords 0..0x3c */
#define MLX5_ICMD_MBOX      0x400       /* ICMD mailbox bytes */
typedef struct Mlx5Vsc {
    uint32_t counter, semaphore;
    uint16_t space;
    uint32_t addr, data;
    uint32_t sem[MLX5_VSC_SEMS];
    uint32_t icmd_ctrl;
    uint8_t mbox[MLX5_ICMD_MBOX];
} Mlx5Vsc;

/*
 * Fault injection (mlx5_inject.c): commands armed to fail or never complete.
 * A slot is free while remaining is 0.
 */
#define MLX5_INJECT_CMDS    8
typedef struct Mlx5InjectCmd {
    uint16_t opcode;
    int32_t op_mod;             /* -1: any */
    uint8_t status;             /* 0: the command never completes */
    uint32_t syndrome;
    uint32_t remaining;         /* executions still to hit */
    uint32_t late_ms;           /* no completion: it runs this much later */
} Mlx5InjectCmd;

typedef struct Mlx5Port {
    bool link_up;
    uint8_t state;              /* IB_PORT_STATE_* */
    uint16_t lid;
    uint16_t sm_lid;
    uint8_t sm_sl;
    uint8_t lmc;
    uint32_t cap_mask;
    uint16_t pkeys[MLX5_MAX_PKEYS];
    Mlx5PmaCounters pma_base;
    /* the transport's count at the last reset */
    uint64_t pkey_violations_base;
    uint64_t qkey_violations_base;
    uint64_t gid_prefix;
    uint8_t subnet_timeout;
    uint64_t mkey;
    bool clash;                 /* another port announced our LID or GUID */
    int64_t clash_until;
} Mlx5Port;

/*
 * BlueFlame (mlx5_bf.c): each register of a UAR page is 2^MLX5_LOG_BF_REG_SIZE
 * bytes, two buffers the driver alternates between
 */
#define MLX5_LOG_BF_REG_SIZE    9
#define MLX5_BF_BUF_SIZE        (1u << (MLX5_LOG_BF_REG_SIZE - 1))
/*
 * buffers being written at once (one per vCPU in a send); copies the engine has
 * not reached yet (a burst of BlueFlame sends before the engine runs: beyond
 * this many, the oldest run from the ring)
 */
#define MLX5_BF_BUFS            8
#define MLX5_BF_COPIES          32

typedef struct Mlx5BfBuf {
    uint64_t base;              /* UAR index << 32 | the buffer's page offset */
    uint32_t len;               /* bytes written in order; 0: free */
    uint32_t need;              /* bytes the WQE's DS count asks for */
    uint8_t data[MLX5_BF_BUF_SIZE];
} Mlx5BfBuf;

typedef struct Mlx5BfCopy {
    uint32_t qpn;
    uint32_t uar;               /* the UAR page it was written through */
    uint16_t idx;               /* the WQE's first WQEBB's counter */
    uint16_t len;               /* 0: free */
    uint8_t wqe[MLX5_BF_BUF_SIZE];
} Mlx5BfCopy;

typedef struct Mlx5Bf {
    Mlx5BfBuf buf[MLX5_BF_BUFS];
    Mlx5BfCopy copy[MLX5_BF_COPIES];
    unsigned buf_next, copy_next;   /* the next to replace when all used */
    unsigned ncopies;               /* copies in use */
} Mlx5Bf;

/* when a firmware image was built (MGIR, MCQI's version) */
typedef struct Mlx5FwDate {
    uint16_t year;
    uint8_t month, day, hour, minute;
} Mlx5FwDate;

/* a firmware image: its version and build date */
typedef struct Mlx5FwImage {
    uint16_t major, minor, subminor;
    Mlx5FwDate date;
} Mlx5FwImage;

/* the largest image (MCQI max_component_size) and MCDA block */
#define MLX5_FLASH_MAX          (8u << 20)
#define MLX5_MCDA_MAX_WRITE     0x400

/* the flash and its update state machine (mlx5_flash.c) */
typedef struct Mlx5Flash {
    uint8_t *image;             /* what the flash holds (NULL: built in) */
    uint32_t image_len;
    bool pending;               /* the image is not running yet */
    Mlx5FwImage pending_info;
    /* the update: MCC state, error code, handle; the download */
    uint8_t state, error;
    uint32_t handle;
    int64_t last_cmd_ns;
    uint8_t *dl;
    uint32_t dl_size, dl_written;
    bool verified;
    Mlx5FwImage dl_info;
} Mlx5Flash;

/* the non-volatile configuration's TLVs (mlx5_nvconf.c) */
enum {
    MLX5_NV_BASE_MAC_GUID,
    MLX5_NV_BASE_MAC_GUID_CAP,
    MLX5_NV_PCI_CONF,
    MLX5_NV_PCI_CAP,
    MLX5_NV_LINK_TYPE_P1,
    MLX5_NV_TLVS
};
#define MLX5_NV_MAX             20      /* bytes of the largest TLV */
#define MLX5_NV_VERSION         0
typedef struct Mlx5Nv {
    uint8_t cur[MLX5_NV_TLVS][MLX5_NV_MAX];     /* what runs */
    uint8_t next[MLX5_NV_TLVS][MLX5_NV_MAX];    /* what is stored */
} Mlx5Nv;

/*
 * The queue counters (mlx5_q_counter.c): what a counter set counts, for the
 * QPs and RQs bound to it (their context's counter_set_id)
 */
typedef enum Mlx5QcField {
    MLX5_QC_RX_WRITE,
    MLX5_QC_RX_READ,
    MLX5_QC_RX_ATOMIC,
    MLX5_QC_OUT_OF_BUFFER,
    MLX5_QC_OUT_OF_SEQUENCE,
    MLX5_QC_DUPLICATE_REQUEST,
    MLX5_QC_RESP_REMOTE_INVALID,
    MLX5_QC_RESP_REMOTE_ACCESS,
    MLX5_QC_RNR_NAK_RETRY,
    MLX5_QC_PACKET_SEQ,
    MLX5_QC_IMPLIED_NAK_SEQ,
    MLX5_QC_LOCAL_ACK_TIMEOUT,
    MLX5_QC_REQ_REMOTE_INVALID,
    MLX5_QC_REQ_REMOTE_ACCESS,
    MLX5_QC_REQ_REMOTE_OPERATION,
    MLX5_QC_RESP_LOCAL_LENGTH,
    MLX5_QC_RESP_CQE_ERROR,
    MLX5_QC_REQ_CQE_ERROR,
    MLX5_QC_RESP_CQE_FLUSH,
    MLX5_QC_REQ_CQE_FLUSH,
    MLX5_QC_N
} Mlx5QcField;
/* counter sets: 0 is the default one, which counts nothing */
#define MLX5_MAX_Q_COUNTERS     64
typedef struct Mlx5QCounter {
    bool used;
    uint16_t owner;             /* the uid that allocated it */
    uint64_t v[MLX5_QC_N];
} Mlx5QCounter;

typedef struct Mlx5CmdCtx Mlx5CmdCtx;
typedef struct Mlx5Eth Mlx5Eth;
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
    /* the last send doorbell may have its BlueFlame copy to come (mlx5_bf.c) */
    bool db_wait_copy;
    uint32_t cq_db_hi_latch;    /* first half of a split 64-bit CQ doorbell */
    /* inside run/expire/rx: no nested frame processing */
    unsigned busy;
    /*
     * the health buffer: a syndrome (with the RFR bit when fatal, which stops
     * the device until a firmware or system reset)
     */
    bool health_fatal;
    uint8_t health_synd;
    uint8_t health_rfr_sev;     /* rfr (bit 7), severity valid (3), level */
    uint16_t health_ext_synd;
    int64_t start_ns;           /* the last firmware reset (MGIR uptime) */
    Mlx5FwDate fw_date;         /* the running firmware's build date */
    Mlx5Flash flash;
    Mlx5Nv nv;
    /*
     * the firmware reset (mlx5_fw_reset.c): MFRL's sync-reset state, and a
     * reset armed for the next PCI reset
     */
    uint8_t mfrl_state;
    bool fw_reset_armed;
    Mlx5QCounter qcnt[MLX5_MAX_Q_COUNTERS];
    /*
     * congestion control (mlx5_cong.c): the reaction point's parameter block
     * as MODIFY_CONG_PARAMS left it, and the per-priority tag_enable bits of
     * the RP and the NP (the rest is the transport's, c->ib.cong)
     */
    uint8_t cong_rp[0x100];
    uint8_t cong_tag[2];
    Mlx5InjectCmd inject_cmd[MLX5_INJECT_CMDS];
    /*
     * the next WQE of send queue inject_wqe_qpn[0], of receive queue
     * inject_wqe_qpn[1], completes with an error
     */
    bool inject_wqe_armed[2];
    uint32_t inject_wqe_qpn[2];
    IbWcStatus inject_wqe_st[2];
    /* the link: the backend's state, and an injected link-down over it */
    bool link_cable, inject_link_down;
    bool inject_module_out;     /* the cable module is pulled out */
    /* command slots held back by an injection, to run at cmd_late_at[slot] */
    uint32_t cmd_late, cmd_late_run;
    int64_t cmd_late_at[32];
    int64_t cmd_late_deadline;

    /* HCA function state */
    bool hca_enabled;
    bool hca_initialized;
    uint16_t issi;
    uint32_t pages_given;
    uint8_t cap_general_cur[HCA_CAP_SIZE];
    uint8_t cap_atomic_cur[HCA_CAP_SIZE];
    uint8_t cap_odp_cur[HCA_CAP_SIZE];
    bool host_endianness_set;

    Mlx5Table eqs, cqs, pds, uars, xrcds, tds, mkeys, srqs, qps, uctxs, umems,
        psvs;
    /* whose data access is running (for SIG_ERR CQEs) */
    Mlx5Qp *sig_qp;
    /*   as the responder (receive CQ) or requester */
    bool sig_resp;
    Mlx5Port port;
    Mlx5Vsc vsc;
    Mlx5Eth *eth;               /* Ethernet port state (cfg.eth), else NULL */
    IbPort ib;                  /* the port's transport */
    Mlx5Qp *smi_qp, *gsi_qp;    /* owners of wire QPN 0 and 1 */
    /* ring of QPNs with SQ/RQ work pending (qps.size slots) */
    uint32_t *work;
    uint32_t work_head;
    uint32_t nwork;
    int64_t ib_deadline;        /* transport timers */
    int64_t poll_deadline;      /* RQ polling of QPs in error */
    int64_t port_deadline;      /* end of a LID/GUID clash */
    int64_t lro_deadline;       /* the first LRO session's timeout */
    int64_t pp_deadline;        /* the first paced SQ's next frame */

    /*
     * device memory (mlx5_memic.c): cfg.memic_size bytes at BAR0
     * MLX5_MEMIC_BAR_OFF
     */
    uint8_t *memic;
    Mlx5MemicAlloc *memic_alloc;    /* sorted by start */
    uint32_t memic_n, memic_max;

    /* steering ICM (mlx5_sw_icm.c): its objects, its written 4 KiB pages */
    Mlx5IcmObj icm_obj[MLX5_ICM_MAX_OBJ];
    GHashTable *icm_pages;

    /* BlueFlame writes being collected, and copies for the engine */
    Mlx5Bf bf;

    /* CQNs whose CQE compression session waits for the end of this run */
    GArray *comp_pending;

    /* SR-IOV (mlx5_sriov.c) */
    Mlx5Core **vfs;             /* a PF: cfg.num_vfs slots, NULL: detached */
    Mlx5Core *pf;               /* a VF: its PF (NULL: detached) */
    uint16_t vf_index;
    bool vf_enabled;            /* a VF: its PF's ENABLE_HCA */
    /*
     * the E-Switch manager's settings of this function's vport (kept across
     * the function's own resets; the PF's reset drops them): its admin state
     * (MODIFY_VPORT_STATE op_mod 1; the link follows it) and the
     * NIC_VPORT_CHANGE event it armed (MLX5_NVC_EV_*, one shot)
     */
    uint8_t esw_admin;
    uint8_t vport_arm;
    /* and its ACLs: the root tables (the manager's) of its ingress, egress */
    uint32_t acl_root[2];
    /*
     * and its E-Switch vport context (VST): strip the C-VLAN tag of what the
     * switch gives it; insert @esw_cvlan_tci into what it sends untagged
     */
    bool esw_cvlan_strip, esw_cvlan_insert;
    uint16_t esw_cvlan_tci;
    /*
     * and the metadata registers the FDB passes on to its receive tables
     * (fdb_to_vport_reg_c_id: bit 0 reg_c_0)
     */
    uint8_t esw_regc_pass;
    /*
     * and its scheduling element's rate limit (Mb/s, 0: none;
     * eth/mlx5_esw_qos.c): its SQs and its RDMA transport send no faster
     * together; what it sent has left by esw_tx_next
     */
    uint32_t esw_max_mbps;
    int64_t esw_tx_next;
    bool esw_rdma_held;         /* its RDMA transport waits for esw_tx_next */
    /*
     * frames the embedded switch (eth/mlx5_eswitch.c) delivered to this
     * function, taken at its next run (GByteArray each)
     */
    GQueue esw_rxq;

    /* trace/test counters */
    uint64_t cmd_count;
};

/* Whose data access runs now (a signature error's CQE goes to that QP's CQ). */
static inline void mlx5_sig_ctx(Mlx5Core *c, Mlx5Qp *qp, bool resp)
{
    c->sig_qp = qp;
    c->sig_resp = resp;
}

static inline void mlx5_ref_put(uint32_t *refcount)
{
    if (*refcount) {
        (*refcount)--;
    }
}

/* mlx5_odp.c: on-demand paging */
void mlx5_caps_odp(const Mlx5CoreConfig *cfg, uint8_t *cap);
uint32_t mlx5_set_cap_odp(Mlx5Core *c, const uint8_t *in);
/*
 * A memory access of the transport found a page not mapped: post the PAGE_FAULT
 * event. The status the transport gets back: IB_WC_PAGE_FAULT (it waits for the
 * resume), or if no event queue takes page faults, the error the access fails
 * with.
 */
IbWcStatus mlx5_odp_wqe_fault(Mlx5Core *c, Mlx5Qp *qp, Mlx5Srq *srq,
                              uint8_t type, uint16_t wqe_index, uint32_t len);
IbWcStatus mlx5_odp_rdma_fault(Mlx5Core *c, Mlx5Qp *qp, uint32_t rkey,
                               uint64_t va, uint32_t op_len, uint32_t pkt_len,
                               bool write);

/* mlx5_bf.c: BlueFlame */
/* A write at page offset @po >= MLX5_UAR_BF_BASE of UAR @uar. */
void mlx5_bf_write(Mlx5Core *c, uint32_t uar, uint64_t po, uint64_t val,
                   unsigned size);
/*
 * The complete BlueFlame copy of @qp's WQE @idx, written through the QP's own
 * UAR page, if there is one, into @wqe (room for MLX5_BF_BUF_SIZE bytes):
 * returns its WQEBBs, else 0. Drops copies of WQEs the engine has passed.
 */
unsigned mlx5_bf_take(Mlx5Core *c, const Mlx5Qp *qp, uint16_t idx,
                      uint8_t *wqe);
/* Drop the copies of QP @qpn (destroyed, or reset). */
void mlx5_bf_forget(Mlx5Core *c, uint32_t qpn);
void mlx5_bf_reset(Mlx5Core *c);

/* mlx5_sig.c: signature offload */
void mlx5_psv_free(Mlx5Core *c, void *obj);
int mlx5_sig_parse_bsf(const uint8_t *bsf, Mlx5Sig *s);
IbWcStatus mlx5_sig_set_psv(Mlx5Core *c, Mlx5Qp *qp, const uint8_t *wqe,
                            unsigned nbb);
bool mlx5_sig_mem_end(const Mlx5Mkey *mk, uint64_t w, uint64_t len,
                      uint64_t *end);
int mlx5_sig_copy(Mlx5Core *c, Mlx5Mkey *mk, uint64_t w, uint8_t *buf,
                  uint64_t len, bool to_mem);
uint16_t mlx5_crc16_t10dif(uint16_t crc, const uint8_t *buf, size_t len);
int mlx5_mkey_raw(Mlx5Core *c, const Mlx5Mkey *mk, uint64_t off, uint8_t *b,
                  uint64_t len, bool to_mem);

/* mlx5_sw_icm.c */
/* software steering is offered (the sw-steering property, an Ethernet port) */
bool mlx5_sw_icm_offered(const Mlx5CoreConfig *cfg);
/* its caps in page @type */
void mlx5_sw_icm_caps(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap);
void mlx5_sw_icm_init(Mlx5Core *c);
void mlx5_sw_icm_free(Mlx5Core *c);
void mlx5_sw_icm_reset(Mlx5Core *c);
/*
 * CREATE_MKEY of access mode SW_ICM: [start, start + len) must lie in one
 * object, which a DevX user must own. The object is then held.
 */
bool mlx5_sw_icm_map(Mlx5Core *c, uint32_t uid, uint64_t start, uint64_t len);
void mlx5_sw_icm_unmap(Mlx5Core *c, uint64_t start, uint64_t len);
/*
 * Is [addr, addr + len) in one live object that @uid may use (its own or the
 * kernel's; uid 0: any)?
 */
bool mlx5_icm_owned(Mlx5Core *c, uint16_t uid, uint64_t addr, uint64_t len);
/* Move @len bytes at ICM address @addr; nonzero if not in one live object. */
int mlx5_icm_rw(Mlx5Core *c, uint64_t addr, void *buf, uint64_t len,
                bool to_mem);

/* mlx5_memic.c */
void mlx5_memic_init(Mlx5Core *c);
void mlx5_memic_free(Mlx5Core *c);
void mlx5_memic_reset(Mlx5Core *c);
void mlx5_caps_dev_mem(const Mlx5CoreConfig *cfg, uint8_t *cap);
bool mlx5_memic_map(Mlx5Core *c, uint32_t uid, uint64_t start, uint64_t len);
void mlx5_memic_unmap(Mlx5Core *c, uint64_t start, uint64_t len);
int mlx5_memic_rw(Mlx5Core *c, uint64_t off, void *buf, uint64_t len,
                  bool to_mem);
bool mlx5_memic_mmio_read(Mlx5Core *c, uint64_t off, unsigned size,
                          uint64_t *val);
bool mlx5_memic_mmio_write(Mlx5Core *c, uint64_t off, uint64_t val,
                           unsigned size);

/*
 * mlx5_record.c: the guest's inputs to Mlx5CoreOps.record (no-ops without it)
 */
void mlx5_record_cmd(Mlx5Core *c, const uint8_t *in, uint32_t inlen,
                     uint32_t outlen);
void mlx5_record_send_wqe(Mlx5Core *c, const Mlx5Qp *qp, const uint8_t *wqe,
                          unsigned nbb);
void mlx5_record_recv_wqe(Mlx5Core *c, const Mlx5Qp *qp, bool srq,
                          const uint8_t *wqe, uint32_t stride);
void mlx5_record_frame(Mlx5Core *c, const uint8_t *frame, size_t len);
void mlx5_record_mmio(Mlx5Core *c, uint64_t off, uint64_t val, unsigned size);

/* mlx5_sriov.c */
void mlx5_sriov_init(Mlx5Core *c);
void mlx5_sriov_free(Mlx5Core *c);
bool mlx5_sriov_enable_hca(Mlx5Core *c, Mlx5CmdCtx *cmd, unsigned fid,
                           bool on);
bool mlx5_sriov_initializing(Mlx5Core *c);
void mlx5_sriov_pf_reset(Mlx5Core *c);
void mlx5_sriov_pf_link(Mlx5Core *c);
/* mlx5_vport_ib.c: the HCA vports of an InfiniBand port functions share */
bool mlx5_ib_vport_is(const Mlx5Core *c);
void mlx5_ib_vport_sync(Mlx5Core *vf);
void mlx5_ib_vport_aliases(Mlx5Core *pf);
void mlx5_ib_query_vport_counter(Mlx5Core *c, Mlx5CmdCtx *cmd);
bool mlx5_ib_rx_steer(IbPort *port, const IbPacket *p, const uint8_t *frame,
                      size_t len);
IbPort *mlx5_ib_local_port(IbPort *port);
bool mlx5_ib_vport_tx(Mlx5Core *vf, const struct iovec *iov, int iovcnt,
                      bool best_effort);
void mlx5_ib_vport_tx_ready(Mlx5Core *pf);
bool mlx5_ib_reg(Mlx5Core *c, Mlx5CmdCtx *cmd, uint16_t reg_id, uint8_t *reg,
                 size_t len, bool write);

/* eth/mlx5_eswitch.c: the embedded switch */
/*
 * Send a frame out of function @c's port (its NIC SQ @sqn, or with @sqn 0 its
 * RoCE or IB transport): to the link, or through the switch to other
 * functions. Returns false as Mlx5CoreOps.link_tx does.
 */
bool mlx5_port_tx(Mlx5Core *c, uint32_t sqn, const struct iovec *iov,
                  int iovcnt, bool best_effort);
/*
 * A frame from @pf's link: true if the switch took it (through the FDB, or a
 * VF's alone); false: it is the PF's (its NIC tables decide).
 */
bool mlx5_esw_uplink_rx(Mlx5Core *pf, const uint8_t *f, size_t len);
/* Receive what the switch queued for @c: true if more waits. */
bool mlx5_esw_rx_run(Mlx5Core *c);
void mlx5_esw_flush(Mlx5Core *c);
/* @pf's link takes frames again: so do its VFs' SQs */
void mlx5_esw_tx_ready(Mlx5Core *pf);
/* A VF's link with the uplink's @uplink, as its vport's admin state says */
bool mlx5_esw_vport_link(Mlx5Core *vf, bool uplink);

/* mlx5_core.c */
int mlx5_dma_read(Mlx5Core *c, uint64_t pa, void *buf, size_t len);
int mlx5_dma_write(Mlx5Core *c, uint64_t pa, const void *buf, size_t len);
void mlx5_health_fatal(Mlx5Core *c, uint8_t synd);
/* mlx5_inject.c */
void mlx5_health_raise(Mlx5Core *c, uint8_t synd, uint16_t ext_synd,
                       bool fatal);
/*
 * Before a command runs: false if an injection takes it (@cmd's status and
 * syndrome are set; or, *@no_completion, it must never complete).
 */
bool mlx5_inject_cmd_check(Mlx5Core *c, Mlx5CmdCtx *cmd, unsigned slot,
                           bool *no_completion);
/*
 * A send queue's next WQE: true if an injection takes it (it completes with
 * *@st, the queue goes to error)
 */
bool mlx5_inject_wqe_hit(Mlx5Core *c, uint32_t qpn, bool recv, IbWcStatus *st);
/* held-back commands whose time has come run */
void mlx5_inject_expire(Mlx5Core *c, int64_t now);
/* the driver asked for a firmware reset (NIC interface SW_RESET) */
void mlx5_fw_sw_reset(Mlx5Core *c);

/* the link is up: the backend's, not injected down, the module in */
static inline bool mlx5_link_wanted(Mlx5Core *c)
{
    return c->link_cable && !c->inject_link_down && !c->inject_module_out;
}
/* mlx5_module.c: the module was pulled out or put in (PORT_MODULE_EVENT) */
void mlx5_module_event(Mlx5Core *c, bool out);

/* mlx5_q_counter.c */
void mlx5_q_counter_caps(uint8_t *cap);
void mlx5_q_counter_reset(Mlx5Core *c);
/* mlx5_cong.c: congestion control caps; back to the firmware's defaults */
void mlx5_cong_caps(uint8_t *cap);
void mlx5_cong_reset(Mlx5Core *c);
/* count @field in counter set @set (if allocated) */
void mlx5_q_count(Mlx5Core *c, uint32_t set, Mlx5QcField field);
/* count @field for QP @qp's counter set */
void mlx5_qp_count(Mlx5Core *c, Mlx5Qp *qp, Mlx5QcField field);
/* the transport's count of @stat for a QP (IbDevOps.qp_stat) */
void mlx5_ib_qp_stat(IbQp *ib, IbQpStat stat);

/* mlx5_fw_reset.c */
void mlx5_fw_reset_caps(uint8_t *cap, bool cur);
/* a PCI (or system) reset: an armed firmware reset happens now */
void mlx5_fw_reset_pci(Mlx5Core *c);
/*
 * NIC interface DISABLED written (the fast teardown): true if that was the
 * sync reset's, and the device has reset
 */
bool mlx5_fw_reset_teardown(Mlx5Core *c);
/* the firmware starts a sync reset (fault injection): NULL, or why not */
char *mlx5_fw_reset_request(Mlx5Core *c);

/* mlx5_flash.c */
uint8_t mlx5_flash_check(const uint8_t *img, size_t len, const char *psid,
                         Mlx5FwImage *info);
void mlx5_flash_boot(Mlx5Core *c, bool reboot);
void mlx5_flash_reset(Mlx5Core *c);
void mlx5_flash_free(Mlx5Core *c);
bool mlx5_flash_pending(Mlx5Core *c, Mlx5FwImage *info);
/* the flash's content (image and configuration) to the host's file */
void mlx5_flash_store(Mlx5Core *c);

/* mlx5_nvconf.c */
void mlx5_nv_reset(Mlx5Core *c);
void mlx5_nv_boot(Mlx5Core *c, bool reboot);
/* the next values as the flash keeps them (at most MLX5_NV_SAVE_MAX bytes) */
#define MLX5_NV_SAVE_MAX        (MLX5_NV_TLVS * (8 + MLX5_NV_MAX))
size_t mlx5_nv_save(Mlx5Core *c, uint8_t *buf);
const char *mlx5_nv_load(Mlx5Core *c, const uint8_t *buf, size_t len);
void mlx5_function_reset(Mlx5Core *c);

/* mlx5_table (in mlx5_res.c) */
void mlx5_table_init(Mlx5Table *t, const char *name, uint32_t size,
                     uint32_t first);
void mlx5_table_destroy(Mlx5Table *t, void (*free_obj)(Mlx5Core *, void *),
                        Mlx5Core *c);
void mlx5_table_set_base(Mlx5Table *t, uint32_t base);
int mlx5_table_alloc(Mlx5Table *t, void *obj, uint32_t *handle);
int mlx5_table_insert(Mlx5Table *t, uint32_t handle, void *obj);
void *mlx5_table_get(const Mlx5Table *t, uint32_t handle);
void mlx5_table_remove(Mlx5Table *t, uint32_t handle);
uint16_t mlx5_table_owner(const Mlx5Table *t, uint32_t handle);
void mlx5_table_set_owner(Mlx5Table *t, uint32_t handle, uint16_t uid);
/* Does any object of @t belong to @uid? */
bool mlx5_table_has_owner(const Mlx5Table *t, uint16_t uid);
/*
 * A walk over the live objects of a table, in handle order; it ends after the
 * last live one. The body may not remove objects.
 */
typedef struct Mlx5TableIter {
    uint32_t pos, seen;
} Mlx5TableIter;
void *mlx5_table_next(const Mlx5Table *t, Mlx5TableIter *it);
#define MLX5_TABLE_FOREACH(t, obj)                                      \
    for (Mlx5TableIter it_ = { 0 }; ((obj) = mlx5_table_next((t), &it_));)
void mlx5_res_reset(Mlx5Core *c);
/* Free an object that holds nothing else (PD, UAR, TIS, ...). */
void mlx5_plain_free(Mlx5Core *c, void *obj);
void mlx5_res_teardown(Mlx5Core *c);

/* PAS buffers (mlx5_res.c) */
int mlx5_buf_init(Mlx5Buf *b, const uint8_t *pas_be, uint64_t npas,
                  uint8_t log_page_size, uint32_t page_offset,
                  uint64_t need_bytes);
void mlx5_buf_free(Mlx5Buf *b);
/* Bus address of byte @off of the buffer, or UINT64_MAX if out of range. */
uint64_t mlx5_buf_addr(const Mlx5Buf *b, uint64_t off);
int mlx5_buf_write(Mlx5Core *c, const Mlx5Buf *b, uint64_t off,
                   const void *data, size_t len);
int mlx5_buf_read(Mlx5Core *c, const Mlx5Buf *b, uint64_t off, void *data,
                  size_t len);

/* mlx5_caps.c */
void mlx5_caps_build(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap,
                     bool cur);
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
/*
 * Write @cqe at the producer index as mlx5_cq_post does, but without ending a
 * compression session first (mlx5_cqe_comp.c writes its own that way).
 */
int mlx5_cq_write(Mlx5Core *c, Mlx5Cq *cq, uint8_t *cqe, bool solicited);
/* a CQE slot's size, 64 or 128 bytes (the CQE itself: its last 64) */
uint32_t mlx5_cqe_size(const Mlx5Cq *cq);
/* Completions waiting beyond the consumer index, or -1 if the record faults. */
int64_t mlx5_cq_used(Mlx5Core *c, Mlx5Cq *cq);
/* The CQ is armed and a completion has come: post its event. */
void mlx5_cq_notify(Mlx5Core *c, Mlx5Cq *cq, bool solicited);
void mlx5_cq_free(Mlx5Core *c, void *obj);

/* mlx5_cqe_comp.c: CQE compression (PRM "CQE Compression") */
#define MLX5_CQE_COMP_MAX   64          /* cqe_compression_max_num */
/* The compression parts of a CQ context; a syndrome or 0. */
uint32_t mlx5_cqe_comp_create(Mlx5Cq *cq, const uint8_t *cqc);
void mlx5_cqe_comp_free(Mlx5Core *c, Mlx5Cq *cq);
/* QUERY_CQ: the compression fields of the context. */
void mlx5_cqe_comp_query(const Mlx5Cq *cq, uint8_t *cqc);
/*
 * A successful receive CQE for CQ @cqn: compressed with the ones before it
 * when the CQ compresses and they agree, else posted. @striding: its
 * wqe_counter is a stride index and byte_cnt counts strides.
 */
void mlx5_cqe_post_rx(Mlx5Core *c, uint32_t cqn, uint8_t *cqe, bool striding);
/* Write the session @cq gathers (before anything else reaches the CQ). */
void mlx5_cqe_comp_flush(Mlx5Core *c, Mlx5Cq *cq);
/* End every session (the end of a run: the frames of one burst are in). */
void mlx5_cqe_comp_flush_all(Mlx5Core *c);

/* mlx5_mkey.c: data-path translation */
enum {
    MLX5_MKEY_LR = 1 << 0,
    MLX5_MKEY_LW = 1 << 1,
    MLX5_MKEY_RR = 1 << 2,
    MLX5_MKEY_RW = 1 << 3,
    MLX5_MKEY_A = 1 << 4,
};
enum {
    MLX5_XLATE_BAD_KEY = 1,
    MLX5_XLATE_ACCESS = 2,
    MLX5_XLATE_BOUNDS = 3,
    MLX5_XLATE_DMA = 4,
    /* an MTT entry without the access bit: page fault (ODP) */
    MLX5_XLATE_FAULT = 5,
};
#define MLX5_INVALID_LKEY   0x100
/*
 * The null mkey (QUERY_SPECIAL_CONTEXTS): an indirect entry naming it maps
 * nothing yet. With page faults (ODP) an access through it faults on the key
 * the access named (implicit ODP: the driver then creates the piece and points
 * the entry at it); without, it is a bad key. Index 2 is below the first mkey
 * index the device hands out.
 */
#define MLX5_NULL_MKEY      0x200
/* MTT entry: the page may be read (ODP) */
#define MLX5_MTT_RD_EN      (1ull << 0)
#define MLX5_MTT_WR_EN      (1ull << 1)     /* ... and written */
int mlx5_mkey_check(Mlx5Core *c, uint32_t key, uint32_t pdn, unsigned need,
                    uint64_t va, uint64_t len, Mlx5Mkey **out);
int mlx5_mkey_copy(Mlx5Core *c, uint32_t key, uint32_t pdn, unsigned need,
                   uint64_t va, void *buf, uint64_t len, bool to_mem);
/*
 * Grow @mk's translation table to hold entries [0, n); false if beyond its
 * capacity.
 */
bool mlx5_mkey_xlt_reserve(Mlx5Mkey *mk, uint64_t n);
/*
 * KLM/KSM entries [@first, @first + @n) from their 16-byte wire form at @src
 * (reserved first): whether a sparse KSM table has room for the keys among
 * them, and storing them.
 */
bool mlx5_mkey_klm_fits(const Mlx5Mkey *mk, uint64_t first,
                        const uint8_t *src, uint32_t n);
void mlx5_mkey_klm_store(Mlx5Mkey *mk, uint64_t first, const uint8_t *src,
                         uint32_t n);
uint64_t mlx5_mkey_xlt_capacity(const Mlx5Mkey *mk);

/* mlx5_umr.c: UMR WQEs and invalidation */
IbWcStatus mlx5_umr_execute(Mlx5Core *c, Mlx5Qp *qp, const uint8_t *wqe,
                            unsigned nbb);
IbWcStatus mlx5_mkey_invalidate(Mlx5Core *c, Mlx5Qp *qp, uint32_t pdn,
                                uint32_t rkey);

/* mlx5_qp.c, mlx5_srq.c, mlx5_mkey.c */
void mlx5_qp_free(Mlx5Core *c, void *obj);
void mlx5_srq_free(Mlx5Core *c, void *obj);
/* mlx5_xrq.c: tag matching */
void mlx5_caps_tm(uint8_t *cap);
void mlx5_xrq_free(Mlx5Srq *srq);
IbWcStatus mlx5_xrq_list_op(Mlx5Core *c, Mlx5Qp *qp, const uint8_t *wqe,
                            unsigned nbb, uint16_t idx);
bool mlx5_xrq_recv_get(Mlx5Core *c, Mlx5Qp *qp, Mlx5Srq *srq,
                       Mlx5RecvCtx *rcv, const uint8_t *msg, uint32_t len,
                       IbRecvWr *rwr);
bool mlx5_xrq_recv_done(Mlx5Core *c, Mlx5Qp *qp, Mlx5RecvCtx *rcv,
                        const IbRecvCompletion *rc);
bool mlx5_xrq_recv_skip(const Mlx5RecvCtx *rcv, uint64_t *off,
                        const uint8_t **buf, uint32_t *len);
bool mlx5_xrq_internal(const IbSendWr *wr);
IbWcStatus mlx5_xrq_gather(Mlx5Qp *qp, const IbSendWr *wr, uint64_t off,
                           void *buf, uint32_t len);
IbWcStatus mlx5_xrq_scatter(Mlx5Core *c, Mlx5Qp *qp, const IbSendWr *wr,
                            uint64_t off, const void *buf, uint32_t len);
void mlx5_xrq_send_done(Mlx5Core *c, Mlx5Qp *qp, const IbSendWr *wr,
                        IbWcStatus st);
uint32_t mlx5_xrq_qp_init(Mlx5Core *c, Mlx5Qp *qp, const uint8_t *qpc);
void mlx5_xrq_qp_fini(Mlx5Qp *qp);
void mlx5_mkey_free(Mlx5Core *c, void *obj);
void mlx5_umem_free(Mlx5Core *c, void *obj);

/*
 * the mlx5 QP behind a transport QP (a DCT behind its responder contexts), and
 * its device
 */
static inline Mlx5Qp *qp_of(IbQp *ib)
{
    return container_of(ib->dc_parent ? ib->dc_parent : ib, Mlx5Qp, ib);
}

/* the receive WQE a transport QP is filling */
static inline Mlx5RecvCtx *mlx5_rcv_of(IbQp *ib)
{
    Mlx5Qp *qp = qp_of(ib);

    return ib->dc_parent && qp->dc_rcv ? &qp->dc_rcv[ib->dc_index] : &qp->rcv;
}

static inline Mlx5Core *core_of(IbQp *ib)
{
    return ib->port->dev;
}

/* mlx5_exec.c: data path, send side and scheduling */
extern const IbDevOps mlx5_ib_ops;
uint8_t mlx5_syndrome(IbWcStatus st);
bool mlx5_qp_is_ud(const Mlx5Qp *qp);
void mlx5_cqe_post(Mlx5Core *c, uint32_t cqn, uint8_t *cqe, bool solicited);
void mlx5_qp_event(Mlx5Core *c, Mlx5Qp *qp, uint8_t type);
IbWcStatus mlx5_xlate_status(int r, bool remote);
/* Walk a scatter/gather list from byte @off, moving @len bytes. */
IbWcStatus mlx5_sgl_copy(Mlx5Core *c, uint32_t pdn, const Mlx5Sge *sge,
                         unsigned n, size_t stride, unsigned first,
                         uint64_t off, void *buf, uint32_t len, bool to_mem);

/* mlx5_recv.c: data path, responder side (IbDevOps members) */
void mlx5_rq_flush(Mlx5Core *c, Mlx5Qp *qp);
bool mlx5_ib_recv_get(IbQp *ib, IbRecvWr *rwr, const void *msg,
                      uint32_t msg_len);
IbWcStatus mlx5_ib_recv_scatter(IbQp *ib, const IbRecvWr *rwr, uint64_t off,
                                const void *buf, uint32_t len);
void mlx5_ib_recv_done(IbQp *ib, const IbRecvWr *rwr,
                       const IbRecvCompletion *rc);
void mlx5_ib_recv_put_back(IbQp *ib, const IbRecvWr *rwr);
bool mlx5_ib_xrc_srq_ok(IbQp *ib, uint32_t srqn);
IbWcStatus mlx5_ib_rkey_check(IbQp *ib, uint32_t rkey, uint64_t va,
                              uint64_t len, unsigned access);
IbWcStatus mlx5_ib_rkey_write(IbQp *ib, uint32_t rkey, uint64_t va,
                              const void *buf, uint32_t len);
IbWcStatus mlx5_ib_rkey_read(IbQp *ib, uint32_t rkey, uint64_t va, void *buf,
                             uint32_t len);
IbWcStatus mlx5_ib_rkey_atomic(IbQp *ib, uint32_t rkey, uint64_t va,
                               bool cmp_swp, uint64_t compare_add,
                               uint64_t swap, uint64_t *orig);
IbWcStatus mlx5_ib_invalidate(IbQp *ib, uint32_t rkey);
void mlx5_exec_queue(Mlx5Core *c, Mlx5Qp *qp);
bool mlx5_exec_run(Mlx5Core *c, unsigned budget);
int mlx5_exec_qp_init(Mlx5Core *c, Mlx5Qp *qp);
void mlx5_exec_qp_fini(Mlx5Core *c, Mlx5Qp *qp);
void mlx5_exec_modify(Mlx5Core *c, Mlx5Qp *qp, uint8_t old_state);
void mlx5_exec_set_deadline(Mlx5Core *c);
void mlx5_exec_expire(Mlx5Core *c, int64_t now);
void mlx5_exec_sq_doorbell(Mlx5Core *c, uint64_t ctrl);

/* mlx5_mad.c */
/* A PORT_CHANGE event of port 1 (once the HCA is initialized). */
void mlx5_port_event(Mlx5Core *c, uint8_t sub_type);
void mlx5_port_reset(Mlx5Core *c);
void mlx5_port_set_link(Mlx5Core *c, bool up);
void mlx5_port_clash(Mlx5Core *c, uint16_t lid, uint64_t guid);
void mlx5_port_sm_change(Mlx5Core *c);
uint16_t mlx5_pma_process(Mlx5Core *c, uint8_t *mad);
void mlx5_pma_clear(Mlx5Core *c);
void mlx5_port_expire(Mlx5Core *c, int64_t now);

/* command dispatch (mlx5_cmdq.c) */
void mlx5_cmdq_process(Mlx5Core *c);

#endif
