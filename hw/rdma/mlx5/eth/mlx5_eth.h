/*
 * mlx5 HCA core: state of the Ethernet port (link-type=eth; docs/user-guide.md,
 * "Ethernet port"). Objects: TIS, TIR, RQT (mlx5_tir.c), NIC flow tables
 * (mlx5_flow.c), SQ and RQ (mlx5_wq.c, kept in the QP table: they share its
 * number space, as on the hardware), the NIC vport and the port registers
 * (mlx5_vport.c); frames: mlx5_eth_tx.c, mlx5_eth_rx.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_MLX5_ETH_H
#define HW_RDMA_MLX5_ETH_H

#include "../mlx5_cmd.h"
#include "hw/rdma/mlx5/mlx5_eth_prm.h"
#include "hw/rdma/mlx5/mlx5_qos_prm.h"

/* PMTU max_mtu: the largest frame we move */
#define MLX5_ETH_MAX_FRAME      (9600 + 22)
/* a NIC pads short frames (the FCS is not ours) */
#define MLX5_ETH_MIN_FRAME      60
/* bytes of one LSO WQE's payload, at most */
#define MLX5_ETH_MAX_TSO        (256 * 1024)
#define MLX5_ETH_LOG_MAX_RQT_SIZE 8
/*
 * max_ft_level: with the chaining caps every root priority of fs_core.c that
 * this reaches is created (LAG's needs 119), and its tables take levels up to
 * 67; this covers them
 */
#define MLX5_ETH_MAX_FT_LEVEL   127
/*
 * the FDB's: mlx5_core's switchdev mode puts its fixed FDB priorities at
 * levels up to 188 (its per-vport tables)
 */
#define MLX5_FDB_MAX_FT_LEVEL   255
#define MLX5_ETH_LOG_MAX_FT_SIZE 20
/* live entries over all tables */
#define MLX5_ETH_MAX_FTES       4096
#define MLX5_ETH_MAX_DEST       16              /* destinations of one entry */
/* tables one frame may pass through */
#define MLX5_ETH_MAX_HOPS       16
/* flow counters: ids 1 .. max - 1 */
#define MLX5_ETH_MAX_FLOW_COUNTERS 4096
/* bulk sizes ALLOC_FLOW_COUNTER takes: 128 x (1, 2, 4) counters */
#define MLX5_ETH_FC_BULK_ALLOC  0x7
#define MLX5_ETH_LOG_FC_BULK_QUERY 10
#define MLX5_ETH_FC_MAX_BULK_QUERY (1u << MLX5_ETH_LOG_FC_BULK_QUERY)
/* counters one flow entry counts into */
#define MLX5_ETH_LOG_FTE_COUNTERS 2
#define MLX5_ETH_FTE_COUNTERS   (1u << MLX5_ETH_LOG_FTE_COUNTERS)

/* LRO sessions open at once (one per RQ) */
#define MLX5_LRO_MAX_OPEN       64

/* the VXLAN UDP port table (mlx5_vxlan.c) */
#define MLX5_ETH_MAX_VXLAN_PORTS 4
#define MLX5_VXLAN_IANA_PORT    4789

/* modify-header contexts (mlx5_modify_hdr.c) */
#define MLX5_MODHDR_MAX_ACTIONS 32
#define MLX5_ETH_LOG_MAX_MODHDR 12

typedef struct Mlx5ModHdr {
    uint32_t id;
    uint8_t type;               /* the flow table type it is for */
    uint8_t n;
    uint8_t actions[MLX5_MODHDR_MAX_ACTIONS][8];
    uint32_t refcount;          /* flow entries using it */
} Mlx5ModHdr;

/* packet reformat contexts (mlx5_reformat.c): encap headers */
#define MLX5_ETH_MAX_ENCAP_HDR  128
#define MLX5_ETH_LOG_MAX_REFORMAT 12

typedef struct Mlx5Reformat {
    uint32_t id;
    uint8_t type;
    uint16_t size;
    uint8_t data[MLX5_ETH_MAX_ENCAP_HDR];
    uint32_t refcount;          /* flow entries using it */
} Mlx5Reformat;

typedef struct Mlx5FlowCounter {
    uint64_t packets, bytes;
    uint32_t base;              /* first id of its allocation; 0: free */
    uint32_t n;                 /* at base: the allocation's size */
    uint32_t refs;              /* flow entries counting into it */
    uint16_t uid;
} Mlx5FlowCounter;

typedef struct Mlx5Tis {
    uint32_t tisn;
    uint32_t td;
    uint8_t prio;
    uint32_t refcount;          /* SQs sending through it */
} Mlx5Tis;

typedef struct Mlx5Rqt {
    uint32_t rqtn;
    uint32_t max_size;
    uint32_t size;
    uint32_t *rqn;              /* [max_size] */
    uint32_t refcount;          /* TIRs using it */
} Mlx5Rqt;

typedef struct Mlx5Tir {
    uint32_t tirn;
    uint32_t td;
    uint8_t disp_type;
    uint8_t hash_fn;
    bool symmetric;
    uint8_t self_lb_block;
    uint32_t inline_rqn;
    uint32_t rqtn;
    uint32_t hash_sel;          /* rx_hash_field_selector_outer */
    uint8_t key[40];
    uint32_t refcount;          /* flow entries forwarding to it */
    /* LRO (mlx5_lro.c): packet_merge_mask, the IP payload's limit in bytes */
    uint8_t lro_mask;
    uint32_t lro_max_payload;
    uint32_t lro_timeout_us;
} Mlx5Tir;

typedef struct Mlx5FlowTable Mlx5FlowTable;

typedef struct Mlx5Fte {
    uint32_t index;
    uint32_t group_id;
    uint32_t flow_tag;
    uint16_t action;
    uint8_t ndest;
    uint8_t ncnt;
    struct {
        uint8_t type;
        uint32_t id;
    } dest[MLX5_ETH_MAX_DEST];
    uint32_t cnt[MLX5_ETH_FTE_COUNTERS];    /* flow counters (COUNT) */
    uint32_t modhdr;            /* modify-header context (MOD_HDR) */
    uint32_t reformat;          /* packet reformat context (PACKET_REFORMAT) */
    uint32_t push_vlan;         /* the tag VLAN_PUSH inserts (FDB) */
    uint32_t push_vlan_2;       /* VLAN_PUSH_2's, outside push_vlan's */
    uint8_t flow_source;        /* (FDB) MLX5_FLOW_SOURCE_* */
    uint8_t value[MLX5_FTE_MATCH_PARAM_SIZE];
} Mlx5Fte;

typedef struct Mlx5FlowGroup {
    uint32_t id;
    uint32_t table_id;
    uint32_t start, end;
    uint8_t criteria_enable;
    uint8_t criteria[MLX5_FTE_MATCH_PARAM_SIZE];
    GPtrArray *ftes;            /* Mlx5Fte, in the group's range */
} Mlx5FlowGroup;

struct Mlx5FlowTable {
    uint32_t id;
    uint8_t type;
    uint8_t level;
    uint8_t log_size;
    uint8_t miss_action;
    uint32_t miss_id;
    GPtrArray *groups;          /* Mlx5FlowGroup, by start index */
    uint16_t vport;             /* an E-Switch ACL's vport */
    /* entries and tables forwarding to it, the root */
    uint32_t refcount;
    /* software owned (mlx5_ste.c): no groups, its entries in ICM from root 0 */
    bool sw_owner;
    uint64_t icm_root[2];
};

/* One direction's frames by destination kind (QUERY_VPORT_COUNTER). */
typedef struct Mlx5EthTraffic {
    uint64_t ucast_pkts, ucast_bytes, mcast_pkts, mcast_bytes, bcast_pkts,
        bcast_bytes;
} Mlx5EthTraffic;

typedef struct Mlx5EthCounters {
    Mlx5EthTraffic rx, tx;
    uint64_t rx_dropped;        /* no steering match, bad frame, no RQ */
    uint64_t rx_errors;         /* frames longer than the posted buffer */
    uint64_t tx_errors;
} Mlx5EthCounters;

/* the link modes of PPLM's legacy FEC fields */
enum {
    MLX5_PHY_FEC_10G_40G,
    MLX5_PHY_FEC_25G,
    MLX5_PHY_FEC_50G,
    MLX5_PHY_FEC_100G,
    MLX5_PHY_FEC_56G,
    MLX5_PHY_FEC_MODES
};

/* packet pacing (mlx5_pp.c): the rate table, index 0 = no limit */
#define MLX5_PP_TABLE_SIZE      128
#define MLX5_PP_MAX_RATE        100000000u      /* kbps: 100 Gb/s */
#define MLX5_PP_MIN_RATE        1u              /* kbps */

/* the E-Switch's scheduling elements (mlx5_esw_qos.c) */
#define MLX5_ESW_SCHED_MAX      128

typedef struct Mlx5EswSched {
    uint32_t id;                /* 0: a free slot; else the slot's index + 1 */
    uint8_t type;               /* MLX5_SCHED_ELEM_* */
    uint16_t vport;             /* a VPORT element's */
    uint32_t parent;            /* a TSAR's id; 0: none (the root TSAR) */
    uint32_t max_bw;            /* Mb/s; 0: no limit */
} Mlx5EswSched;

typedef struct Mlx5PpEntry {
    uint32_t rate;              /* kbps; 0: not set */
    uint32_t burst;             /* bytes sent at once, at most (0: a frame) */
    uint16_t typical;           /* (kept, not used to pace) */
    uint16_t uid;               /* the DevX context that set it, 0: kernel */
} Mlx5PpEntry;

/* the E-Switch manager's L2 table: 2^MLX5_ESW_LOG_L2_TABLE entries */
#define MLX5_ESW_LOG_L2_TABLE   5
#define MLX5_ESW_L2_ENTRIES     (1u << MLX5_ESW_LOG_L2_TABLE)

typedef struct Mlx5Eth {
    Mlx5Table tises, tirs, rqts, fts, fgs;
    uint32_t root_ft;           /* NIC RX root table, 0 = none */
    uint32_t root_ft_tx;        /* NIC TX root table, 0 = none */
    /* the E-Switch manager's FDB root table, 0 = none (mlx5_eswitch.c) */
    uint32_t root_ft_fdb;
    /* RDMA RX root table (which RoCE frames the transport takes), 0 = none */
    uint32_t root_ft_rdma;
    /* the manager's ingress and egress ACL roots of the uplink's vport */
    uint32_t acl_uplink[2];
    /* the manager's L2 table (MPFS) entries in use, by index */
    uint32_t l2_used[MLX5_ESW_L2_ENTRIES / 32];
    uint32_t nftes;
    /* NIC vport context */
    uint8_t mac[6];             /* permanent address */
    uint16_t vport_mtu;
    bool promisc_uc, promisc_mc, promisc_all, roce_en;
    uint8_t uc_list[MLX5_NVC_MAX_LIST][6], mc_list[MLX5_NVC_MAX_LIST][6];
    uint16_t n_uc, n_mc;
    /* port registers */
    uint8_t admin_status;       /* PAOS */
    uint16_t admin_mtu;         /* PMTU */
    /* PAOS admin up and the link up: the vport state */
    bool oper_up;
    /* the physical layer (mlx5_phy.c): FEC admin per link mode, pause */
    uint8_t fec_admin[MLX5_PHY_FEC_MODES];
    bool pause_tx, pause_rx;
    uint8_t pfc_tx, pfc_rx;     /* priorities with PFC */
    uint32_t link_down_events;
    /* Q counters: out_of_buffer per counter set */
    Mlx5EthCounters cnt;
    /* flow counters by id [MLX5_ETH_MAX_FLOW_COUNTERS] */
    Mlx5FlowCounter *fcs;
    Mlx5Table modhdrs;
    Mlx5Table reformats;
    Mlx5Table samplers;         /* flow samplers (mlx5_sampler.c) */
    Mlx5Table meters;           /* flow meters (mlx5_meter.c) */
    /* RQs with an open LRO session (mlx5_lro.c), oldest first */
    uint32_t lro_rq[MLX5_LRO_MAX_OPEN];
    unsigned n_lro;
    /* UDP ports of VXLAN tunnels (0: a free slot) */
    uint16_t vxlan_port[MLX5_ETH_MAX_VXLAN_PORTS];
    /* the link refused a frame: SQs wait for link_tx_ready */
    bool tx_blocked;
    Mlx5PpEntry pp[MLX5_PP_TABLE_SIZE];
    Mlx5EswSched sched[MLX5_ESW_SCHED_MAX];
    /* [MLX5_ETH_MAX_FRAME + MLX5_ETH_MAX_TSO]: TX assembly */
    uint8_t *frame;
    /*
     * RoCE: the GID table as SET_ROCE_ADDRESS wrote it (roce_addr_layout per
     * entry)
     */
    uint8_t roce_addr[IB_ROCE_MAX_GIDS][ROCE_ADDR_SIZE];
} Mlx5Eth;

static inline bool mlx5_is_wq(const Mlx5Qp *qp)
{
    return qp->st == MLX5_QP_ST_ETH_SQ || qp->st == MLX5_QP_ST_ETH_RQ;
}

/* mlx5_vport.c */
void mlx5_eth_init(Mlx5Core *c);
void mlx5_eth_reset(Mlx5Core *c);
void mlx5_eth_free(Mlx5Core *c);
void mlx5_eth_caps(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap);
void mlx5_eth_set_link(Mlx5Core *c, bool up);
/* mlx5_phy.c: the physical layer's registers (PPLM, PFCC, PPCNT) */
void mlx5_phy_reset(Mlx5Eth *e);
bool mlx5_phy_reg(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t reg_id, uint8_t *reg,
                  uint32_t len, bool write);
bool mlx5_eth_reg(Mlx5Core *c, Mlx5CmdCtx *cmd, uint32_t reg_id, uint8_t *reg,
                  uint32_t len, bool write);
void mlx5_eth_count(Mlx5EthTraffic *t, const uint8_t *f, size_t len);
Mlx5CmdHandler mlx5_cmd_query_vport_state, mlx5_cmd_query_nic_vport_context,
    mlx5_cmd_modify_nic_vport_context, mlx5_cmd_query_vport_counter;

/* mlx5_eswitch.c: the E-Switch manager (a PF with VFs and esw_manager) */
bool mlx5_esw_manager_cfg(const Mlx5CoreConfig *cfg);
void mlx5_esw_caps(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap);
/*
 * Function @c's NIC vport changed @what (MLX5_NVC_EV_*): the event to the
 * manager if it armed one for that
 */
void mlx5_esw_vport_changed(Mlx5Core *c, uint8_t what);
Mlx5CmdHandler mlx5_cmd_modify_vport_state, mlx5_cmd_set_l2_table_entry,
    mlx5_cmd_delete_l2_table_entry, mlx5_cmd_query_esw_vport_context,
    mlx5_cmd_modify_esw_vport_context;
/* The function of vport @n of manager @pf (0: the PF), or NULL. */
Mlx5Core *mlx5_esw_function(Mlx5Core *pf, unsigned n);
/* The vport number of function @c (0: the PF, 1..: its VFs). */
uint16_t mlx5_esw_vport_of(const Mlx5Core *c);
/* mlx5_fdb.c: the E-Switch's FDB (firmware and software-owned tables) */
void mlx5_fdb_caps(const Mlx5CoreConfig *cfg, uint8_t *cap);
/* the FDB's ICM addresses of vport @vport in its E-Switch context @ctx */
void mlx5_fdb_vport_icm(const Mlx5Core *c, uint16_t vport, uint8_t *ctx);
/* what mlx5_fdb_steer marks a vport with */
enum {
    MLX5_FDB_TO_FW = 1,         /* a firmware entry's: never the source */
    MLX5_FDB_TO_STE = 2,        /* a steering entry's: the source too */
};
/* mlx5_esw_qos.c: the E-Switch's scheduling elements (a VF's max_tx_rate) */
void mlx5_esw_qos_caps(const Mlx5CoreConfig *cfg, uint8_t *cap);
void mlx5_esw_qos_reset(Mlx5Core *c);
Mlx5CmdHandler mlx5_cmd_create_scheduling_element,
    mlx5_cmd_destroy_scheduling_element, mlx5_cmd_query_scheduling_element,
    mlx5_cmd_modify_scheduling_element;
/* The root table of vport @vport's ingress or (@egress) ACL: @id, 0 = none. */
void mlx5_esw_acl_root(Mlx5Core *c, unsigned vport, bool egress, uint32_t id);
/* ACL table @ft of manager @c is destroyed: no longer any vport's root */
void mlx5_esw_acl_gone(Mlx5Core *c, Mlx5FlowTable *ft);

/* mlx5_roce.c */
void mlx5_roce_caps(uint8_t *cap);
Mlx5CmdHandler mlx5_cmd_set_roce_address, mlx5_cmd_query_roce_address;

/* mlx5_tir.c */
Mlx5CmdHandler mlx5_cmd_create_tis, mlx5_cmd_modify_tis, mlx5_cmd_destroy_tis,
    mlx5_cmd_query_tis, mlx5_cmd_create_tir, mlx5_cmd_modify_tir,
    mlx5_cmd_destroy_tir, mlx5_cmd_query_tir, mlx5_cmd_create_rqt,
    mlx5_cmd_modify_rqt, mlx5_cmd_destroy_rqt, mlx5_cmd_query_rqt;
void mlx5_tis_free(Mlx5Core *c, void *obj);
void mlx5_tir_free(Mlx5Core *c, void *obj);
void mlx5_rqt_free(Mlx5Core *c, void *obj);
/* The RQ a TIR gives a frame of these parsed headers, or 0. */
uint32_t mlx5_tir_select(Mlx5Core *c, Mlx5Tir *tir, const IbEthHdr *h,
                         uint32_t *hash, uint8_t *hash_type);
uint32_t mlx5_toeplitz(uint8_t *key, uint8_t *in, size_t len);

/* mlx5_flow.c */
Mlx5CmdHandler mlx5_cmd_set_flow_table_root, mlx5_cmd_create_flow_table,
    mlx5_cmd_destroy_flow_table, mlx5_cmd_query_flow_table,
    mlx5_cmd_modify_flow_table, mlx5_cmd_create_flow_group,
    mlx5_cmd_destroy_flow_group, mlx5_cmd_set_fte, mlx5_cmd_delete_fte;
void mlx5_ft_free(Mlx5Core *c, void *obj);
Mlx5FlowTable *mlx5_ft_get(Mlx5Core *c, uint32_t id);
/* The entry of @ft a frame with match set @ms hits, or NULL. */
const Mlx5Fte *mlx5_ft_lookup(const Mlx5FlowTable *ft, const uint8_t *ms);
/*
 * One step of a walk: the entry of *@ft that a frame of @len bytes with match
 * set @ms hits, its counters counted; or NULL, and *@ft becomes the table's
 * miss table (NULL if it has none).
 */
const Mlx5Fte *mlx5_ft_hit(Mlx5Core *c, Mlx5FlowTable **ft, const uint8_t *ms,
                           size_t len);
/* The table entry @fte goes on to (its first table destination), or NULL. */
Mlx5FlowTable *mlx5_fte_next_table(Mlx5Core *c, const Mlx5Fte *fte);
/*
 * What @fte does to a frame, as steering ops (Mlx5SteerHit) in the order the
 * device applies them: DECAP, MOD_HDR, then PACKET_REFORMAT unless *@encapped
 * (a frame gets one header in front at most; set then). Returns how many, at
 * most MLX5_FTE_OPS.
 */
#define MLX5_FTE_OPS            3
unsigned mlx5_fte_ops(const Mlx5Fte *fte, bool *encapped, uint32_t *ops);
void mlx5_fg_free(Mlx5Core *c, void *obj);
/*
 * Where steering sends a frame: a TIR, and what the entries on the way did to
 * the frame (in order: MLX5_STEER_OP_DECAP, a modify-header context, or
 * MLX5_STEER_OP_ENCAP | a packet reformat context).
 */
#define MLX5_ETH_STEER_OPS      8
#define MLX5_STEER_OP_DECAP     UINT32_MAX
/* with a packet reformat context's id: its header in front */
#define MLX5_STEER_OP_ENCAP     0x80000000u
typedef struct Mlx5SteerHit {
    Mlx5Tir *tir;
    uint8_t nops;
    uint32_t ops[MLX5_ETH_STEER_OPS];
    /*
     * or, when software steering's entries rewrote it, the frame as it
     * reaches the TIR (the ops not used; the receiver frees it)
     */
    uint8_t *frame;
    size_t len;
} Mlx5SteerHit;
/* the room a frame needs for what steering may do to it on receive */
#define MLX5_ETH_RX_ROOM \
    (MLX5_ETH_MAX_FRAME + 8 + MLX5_ETH_MAX_ENCAP_HDR)
/*
 * What the switch tells a receiving function about a frame: the vport it came
 * from (MLX5_VPORT_UPLINK: the link) and the metadata registers reg_c_0 and
 * reg_c_1 as the switch left them (the receiver's tables see those its vport
 * context passes on: fdb_to_vport_reg_c_id).
 */
typedef struct Mlx5SwMeta {
    uint16_t src;
    uint32_t regc[2];
} Mlx5SwMeta;
/* Put registers @regc (bit 0 of @which: reg_c_0, bit 1: reg_c_1) into @ms. */
void mlx5_ms_regc(uint8_t *ms, const uint32_t *regc, uint8_t which);
/* Put @m into frame match parameters @ms of function @c's tables. */
void mlx5_sw_meta_ms(const Mlx5Core *c, const Mlx5SwMeta *m, uint8_t *ms);
/*
 * Steer frame @f (*@len bytes in a buffer of @room, which steering entries
 * may rewrite) from vport @m->src (its SQ @sqn, 0: none; its registers
 * @m->regc, which entries may write) through manager @pf's FDB: mark the
 * vports it goes to in @to (0..num_vfs, num_vfs + 1 the uplink). False if no
 * entry took it (a miss).
 */
bool mlx5_fdb_steer(Mlx5Core *pf, Mlx5SwMeta *m, uint32_t sqn, uint8_t *f,
                    size_t *len, size_t room, uint8_t *to);
/*
 * Steer frame @f of @len bytes (at most MLX5_ETH_MAX_FRAME + 8; parsed in @h)
 * that the switch gave with @m from the root: the TIRs it goes to, at most
 * MLX5_ETH_MAX_DEST (0 = dropped).
 */
unsigned mlx5_flow_steer(Mlx5Core *c, const uint8_t *f, size_t len,
                         const IbEthHdr *h, const Mlx5SwMeta *m,
                         Mlx5SteerHit *hits, uint32_t *flow_tag);
/*
 * May the RDMA transport take RoCE frame @f (with @m)? Yes without an RDMA RX
 * root; else as its tables say (ALLOW; DROP or a miss: no).
 */
bool mlx5_flow_rdma_rx(Mlx5Core *c, const uint8_t *f, size_t len,
                       const IbEthHdr *h, const Mlx5SwMeta *m);

/* the match set's metadata register reg_c_@i (0-7) */
#define MLX5_MS_REG_C(i)        (0xec - 4 * (i))

/* mlx5_ste.c: software steering's entries (STE v0) */
/* what a steering entry may go to besides entries (mlx5_icm_term) */
enum {
    MLX5_ICM_T_RX_DROP = 1,
    MLX5_ICM_T_TX_DROP = 2,
    MLX5_ICM_T_TX_ALLOW = 3,    /* to the wire */
    MLX5_ICM_T_TIR = 4,         /* id: the TIR's number */
    MLX5_ICM_T_FT = 5,          /* id: a firmware table: steering goes on */
    MLX5_ICM_T_SAMPLER = 6,     /* id: a flow sampler (mlx5_sampler.c) */
    MLX5_ICM_T_METER = 7,       /* id: a flow meter (mlx5_meter.c) */
    MLX5_ICM_T_VPORT = 8,       /* id: an E-Switch vport (mlx5_fdb.c) */
};
/* The ICM address of terminal @kind with @id (< 2^24). */
uint64_t mlx5_icm_term(unsigned kind, uint32_t id);
/* ICM address @addr in a create command's output (CREATE_TIR, _FLOW_TABLE) */
void mlx5_icm_out(uint8_t *out, uint64_t addr);
/* software steering's caps in page @type (NIC tables, RoCE) */
void mlx5_ste_caps(const Mlx5CoreConfig *cfg, unsigned type, uint8_t *cap);
uint32_t mlx5_ste_crc32(const uint8_t *p, size_t len);
/* The entry of a hash table of @n a key selects through @byte_mask. */
uint32_t mlx5_ste_hash(const uint8_t *key, uint16_t byte_mask, uint32_t n);
/* Lookup type @lu's key (16 bytes) of a frame with match set @ms. */
bool mlx5_ste_key(unsigned lu, const uint8_t *ms, uint8_t *key);
typedef struct Mlx5SteResult {
    uint8_t kind;               /* MLX5_ICM_T_*; 0: dropped (no entry) */
    uint32_t id;
    uint32_t flow_tag;          /* 0: none */
    bool rewritten;             /* the entries' actions changed the frame */
} Mlx5SteResult;
/*
 * A frame on its way through software steering: its buffer (@room bytes),
 * parse and match set, which the entries' actions change (mlx5_ste_action.c)
 */
typedef struct Mlx5SteFrame {
    uint8_t *f;
    size_t len, room;
    IbEthHdr *h;
    uint8_t *ms;
    uint32_t reg_b;
    bool encapped;
    /*
     * the software table's owner: its entries may name only what this uid
     * owns or the kernel's (ICM, counters, reformat contexts, destinations)
     */
    uint16_t uid;
    /* the source vport's function (its vhca_id; 0: the uplink) */
    uint16_t src_gvmi;
} Mlx5SteFrame;
/* May a walk of @uid's table use an object of @owner? */
static inline bool mlx5_ste_may(uint16_t uid, uint16_t owner)
{
    return !uid || !owner || owner == uid || owner == MLX5_SHARED_RESOURCE_UID;
}
/*
 * Walk the entries from ICM address @root for frame @fr: counters counted,
 * actions applied to @fr, where it ends in @r.
 */
void mlx5_ste_walk(Mlx5Core *c, uint64_t root, Mlx5SteFrame *fr,
                   Mlx5SteResult *r);
/* mlx5_ste_action.c: what entry @ste (64 bytes, a hit) does to @fr */
void mlx5_ste_apply(Mlx5Core *c, const uint8_t *ste, Mlx5SteFrame *fr,
                    Mlx5SteResult *r);

/* mlx5_sampler.c: the flow sampler general object */
typedef struct Mlx5Sampler {
    uint8_t table_type, level;
    uint32_t ratio;
    uint32_t default_table, sample_table;
    uint32_t seen;              /* frames since the last sampled one */
} Mlx5Sampler;
void mlx5_sampler_create(Mlx5Core *c, Mlx5CmdCtx *cmd);
void mlx5_sampler_destroy(Mlx5Core *c, Mlx5CmdCtx *cmd);
void mlx5_sampler_query(Mlx5Core *c, Mlx5CmdCtx *cmd);
/*
 * A frame reaches sampler @id: the default table it goes on in; the sample
 * table in *@st if this one is sampled (else NULL).
 */
Mlx5FlowTable *mlx5_sampler_take(Mlx5Core *c, uint32_t id, Mlx5FlowTable **st);

/* mlx5_meter.c: the (legacy) flow meter general object */
typedef struct Mlx5MeterBucket {
    int64_t tokens;             /* bytes or packets; may go below zero */
    uint64_t frac;              /* a part token, in 2^-exponent */
} Mlx5MeterBucket;
typedef struct Mlx5Meter {
    uint8_t table_type, reg;
    bool active;
    uint32_t dest;              /* the table the frame goes on in */
    uint8_t params[0x20];       /* flow_meter_parameters */
    Mlx5MeterBucket c, e;       /* committed, excess */
    int64_t last;               /* ns: the buckets filled up to here */
} Mlx5Meter;
/* the QoS page's meter caps (with software steering) */
void mlx5_meter_caps(const Mlx5CoreConfig *cfg, uint8_t *cap);
void mlx5_meter_create(Mlx5Core *c, Mlx5CmdCtx *cmd);
void mlx5_meter_modify(Mlx5Core *c, Mlx5CmdCtx *cmd);
void mlx5_meter_destroy(Mlx5Core *c, Mlx5CmdCtx *cmd);
void mlx5_meter_query(Mlx5Core *c, Mlx5CmdCtx *cmd);
/*
 * A frame of @len bytes reaches meter @id: its colour into the meter's
 * register in match set @ms; the table it goes on in (NULL: none, dropped).
 */
Mlx5FlowTable *mlx5_meter_take(Mlx5Core *c, uint32_t id, size_t len,
                               uint8_t *ms);

/* mlx5_flow_counter.c */
Mlx5CmdHandler mlx5_cmd_alloc_flow_counter, mlx5_cmd_dealloc_flow_counter,
    mlx5_cmd_query_flow_counter;
/* A flow entry counts into counter @id (false: there is no such counter). */
bool mlx5_fc_ref(Mlx5Core *c, uint32_t id);
void mlx5_fc_put(Mlx5Core *c, uint32_t id);
/* A frame of @bytes hit an entry counting into @id. */
void mlx5_fc_count(Mlx5Core *c, uint32_t id, size_t bytes);
/* The same for a steering entry of @uid's: only its own counters count. */
void mlx5_fc_count_as(Mlx5Core *c, uint32_t id, size_t bytes, uint16_t uid);

/* mlx5_pp.c: packet pacing */
/* The packet pacing caps in page @type (GENERAL: the qos bit; QOS). */
void mlx5_pp_caps(unsigned type, uint8_t *cap);
void mlx5_pp_reset(Mlx5Eth *e);
Mlx5CmdHandler mlx5_cmd_set_pp_rate_limit;
/* 0 if an SQ may name rate limit index @index, else a syndrome */
uint32_t mlx5_pp_check_index(uint32_t index);
/*
 * May @sq start its next WQE now? If not it waits (pp_waiting) and the core's
 * deadline brings it back (mlx5_pp_expire).
 */
bool mlx5_pp_may_send(Mlx5Core *c, Mlx5Qp *sq);
/* @sq sent a frame of @len bytes. */
void mlx5_pp_charge(Mlx5Core *c, Mlx5Qp *sq, size_t len);
/*
 * The RDMA transport of function @c sent a frame of @len bytes: charged to its
 * vport's rate limit; false: the transport stops (the link is "busy") until
 * what the function sent has left at the rate
 */
bool mlx5_pp_rdma_sent(Mlx5Core *c, size_t len);
void mlx5_pp_expire(Mlx5Core *c, int64_t now);

/* mlx5_vxlan.c */
Mlx5CmdHandler mlx5_cmd_add_vxlan_udp_dport, mlx5_cmd_delete_vxlan_udp_dport;
/* The table as at power-on: 4789 only. */
void mlx5_vxlan_reset(Mlx5Eth *e);
/*
 * Is frame @f (@len bytes, parsed in @h) a VXLAN datagram to a port of the
 * table? The offset of its inner Ethernet frame, parsed into @in; else 0.
 */
size_t mlx5_vxlan_inner(const Mlx5Eth *e, const uint8_t *f, size_t len,
                        const IbEthHdr *h, IbEthHdr *in);
/*
 * mlx5_tunnel.c: the inner Ethernet frame of an L2 tunnel (VXLAN, GENEVE, GRE
 * with TEB): its offset in @f and its headers in @in; 0 if @f is none
 */
#define MLX5_GENEVE_PORT        6081
/* The offset of the IP packet inside an L3 GRE or GENEVE tunnel, 0: none. */
size_t mlx5_tunnel_l3_inner(const uint8_t *f, size_t len, const IbEthHdr *h);
size_t mlx5_tunnel_l2_inner(const Mlx5Eth *e, const uint8_t *f, size_t len,
                            const IbEthHdr *h, IbEthHdr *in);

/* mlx5_modify_hdr.c */
Mlx5CmdHandler mlx5_cmd_alloc_modify_header_context,
    mlx5_cmd_dealloc_modify_header_context;
/* An entry of a @type table uses context @id (false: no such context). */
bool mlx5_modhdr_ref(Mlx5Core *c, uint32_t id, uint8_t type);
void mlx5_modhdr_put(Mlx5Core *c, uint32_t id);
/* Apply context @id's actions to frame @f (@len bytes, parsed in @h). */
/*
 * Apply E-Switch context @id's register actions to the metadata registers
 * @regc (reg_c_0, reg_c_1) a frame carries.
 */
void mlx5_modhdr_apply_regs(Mlx5Core *c, uint32_t id, uint32_t *regc);
void mlx5_modhdr_apply(Mlx5Core *c, uint32_t id, uint8_t *f, size_t len,
                       IbEthHdr *h);
/*
 * Header field @id (MLX5_ACTION_IN_FIELD_OUT_*) of frame @f: false if the
 * frame has no such header (put then does nothing).
 */
bool mlx5_modhdr_field_get(uint8_t *f, size_t len, const IbEthHdr *h,
                           uint16_t id, uint32_t *v);
void mlx5_modhdr_field_put(uint8_t *f, size_t len, const IbEthHdr *h,
                           uint16_t id, uint32_t v);
/*
 * Rewrite frame @f with @body: the IPv4 and TCP/UDP checksums follow what it
 * changed, @h is parsed again afterwards.
 */
typedef void Mlx5ModBody(void *opaque, uint8_t *f, size_t len,
                         const IbEthHdr *h);
void mlx5_modhdr_rewrite(uint8_t *f, size_t len, IbEthHdr *h,
                         Mlx5ModBody *body, void *opaque);

/* mlx5_flow_tx.c: NIC TX (egress) steering */
/*
 * Steer frame *@f of *@len bytes, sent from SQ @sqn, through the NIC TX tables.
 * False: dropped. Rewrites and encap go to a new buffer (*@f then points to it,
 * owned by the caller through *@owned) with room for MLX5_ETH_MIN_FRAME more.
 */
bool mlx5_flow_steer_tx(Mlx5Core *c, uint32_t sqn, uint8_t **f, size_t *len,
                        uint8_t **owned);

/* mlx5_reformat.c */
Mlx5CmdHandler mlx5_cmd_alloc_packet_reformat_context,
    mlx5_cmd_dealloc_packet_reformat_context;
bool mlx5_reformat_ref(Mlx5Core *c, uint32_t id);
void mlx5_reformat_put(Mlx5Core *c, uint32_t id);
/*
 * Put context @id's header in front of frame @f of *@len bytes (room for
 * MLX5_ETH_MAX_ENCAP_HDR more) and fill its lengths and IPv4 checksum.
 */
void mlx5_reformat_encap(Mlx5Core *c, uint32_t id, uint8_t *f, size_t *len);
/*
 * Apply steering op @op (Mlx5SteerHit) to frame @f of *@len bytes, parsed in
 * @h: both are updated. @f has room for MLX5_ETH_RX_ROOM bytes.
 */
void mlx5_eth_transform(Mlx5Core *c, uint32_t op, uint8_t *f, size_t *len,
                        IbEthHdr *h);

/* mlx5_wq.c */
Mlx5CmdHandler mlx5_cmd_create_sq, mlx5_cmd_modify_sq, mlx5_cmd_destroy_sq,
    mlx5_cmd_query_sq, mlx5_cmd_create_rq, mlx5_cmd_modify_rq,
    mlx5_cmd_destroy_rq, mlx5_cmd_query_rq;
void mlx5_wq_free(Mlx5Core *c, Mlx5Qp *qp);

/* mlx5_eth_tx.c */
bool mlx5_eth_sq_process(Mlx5Core *c, Mlx5Qp *sq, unsigned budget);
void mlx5_eth_tx_ready(Mlx5Core *c);

/* mlx5_eth_rx.c (the frame's headers: ib_eth_parse) */
/*
 * The match parameters of frame @f (@len bytes, parsed in @h) into @ms
 * (MLX5_FTE_MATCH_PARAM_SIZE bytes): the outer headers, and for a VXLAN
 * tunnel the VNI and the inner headers.
 */
void mlx5_eth_match_set(const Mlx5Eth *e, const uint8_t *f, size_t len,
                        const IbEthHdr *h, uint8_t *ms);
/* A frame the switch gives this function with @m (Mlx5SwMeta). */
void mlx5_eth_rx(Mlx5Core *c, const uint8_t *frame, size_t len,
                 const Mlx5SwMeta *m);
/* An error CQE for a receive on @rq (wqe_id and wqe_counter from @cqe). */
void mlx5_eth_rx_err_cqe(Mlx5Core *c, Mlx5Qp *rq, uint8_t *cqe, IbWcStatus st);

/*
 * Put @f into @rq's next WQE or strides (by its type) and complete it with
 * @cqe (the frame's fields filled in); false if it was dropped.
 */
bool mlx5_eth_rq_place(Mlx5Core *c, Mlx5Qp *rq, const uint8_t *f, size_t len,
                       uint8_t *cqe);
/* WQEs posted to @rq and not done (a striding RQ's current one too), or -1. */
int mlx5_eth_rq_posted(Mlx5Core *c, Mlx5Qp *rq);
/* The longest frame @rq's next WQE takes (0: none posted). */
uint32_t mlx5_eth_rq_room(Mlx5Core *c, Mlx5Qp *rq);

/* mlx5_lro.c: LRO sessions of RQs behind TIRs with packet_merge_mask */
void mlx5_lro_caps(uint8_t *cap);
/* A TIR context's LRO fields into @tir: a syndrome or 0. */
uint32_t mlx5_lro_tir_load(Mlx5Tir *tir, const uint8_t *ctx);
void mlx5_lro_tir_query(const Mlx5Tir *tir, uint8_t *ctx);
/*
 * Frame @f (@len bytes, parsed in @h, its CQE @cqe) for @rq through @tir:
 * true if its session took it. Otherwise the session (if any) has been
 * delivered first and the caller delivers @f.
 */
bool mlx5_lro_rx(Mlx5Core *c, Mlx5Qp *rq, const Mlx5Tir *tir,
                 const uint8_t *f, size_t len, const IbEthHdr *h,
                 const uint8_t *cqe);
/* @rq left RDY: its session is dropped. */
void mlx5_lro_drop(Mlx5Core *c, Mlx5Qp *rq);
/* @rq is destroyed. */
void mlx5_lro_free(Mlx5Core *c, Mlx5Qp *rq);
/* The core's LRO deadline passed: deliver the sessions whose time is up. */
void mlx5_lro_expire(Mlx5Core *c, int64_t now);

/* mlx5_mpwqe.c: striding RQs (multi-packet receive WQEs) */
/* The striding parts of an RQ's wq context; a syndrome or 0. */
uint32_t mlx5_mpwqe_load(Mlx5Core *c, Mlx5Qp *rq, const uint8_t *wq);
/* QUERY_RQ: the striding fields of the wq context. */
void mlx5_mpwqe_query(const Mlx5Qp *rq, uint8_t *wq);
/* The RQ went back to RST: the next frame takes WQE 0's first stride. */
void mlx5_mpwqe_reset(Mlx5Qp *rq);
/*
 * Put @f into the next strides of @rq and complete it with @cqe (the frame's
 * fields filled in); a frame that does not fit what is left of a WQE ends it
 * with a filler CQE. Returns false if the frame was dropped.
 */
bool mlx5_mpwqe_deliver(Mlx5Core *c, Mlx5Qp *rq, const uint8_t *f, size_t len,
                        uint8_t *cqe);
bool mlx5_eth_loopback(Mlx5Core *c, uint32_t td, const uint8_t *frame,
                       size_t len);

#endif
