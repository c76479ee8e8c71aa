/*
 * Vendor-neutral InfiniBand transport (RC, UC, UD) for emulated HCAs.
 *
 * The transport knows IB semantics (PSNs, segmentation, ACK/NAK, RNR, retries,
 * duplicate detection, responder resources, atomics, Q_Keys) and the fabric
 * framing (docs/fabric.md). It knows nothing of any vendor's queues: the device
 * turns its WQEs into IbSendWr, and supplies memory access, receive buffers and
 * completions through IbDevOps. It never allocates per packet: every queue is
 * sized when the QP is created.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_IB_TRANSPORT_H
#define HW_RDMA_IB_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "hw/rdma/ib/ib_wire.h"     /* IbEthHdr */

#define IB_PSN_MASK         0xffffffu
#define IB_QPN_MASK         0xffffffu
#define IB_MAX_INLINE       1024
#define IB_GSI_QKEY         0x80010000u

typedef enum IbQpType {
    IB_QPT_RC,
    IB_QPT_UC,
    IB_QPT_UD,
    IB_QPT_SMI,             /* QP0 */
    IB_QPT_GSI,             /* QP1 */
    /* DC target: answers many DC initiators (ib_dc.c) */
    IB_QPT_DCT,
} IbQpType;

typedef enum IbQpState {
    IB_QPS_RESET,
    IB_QPS_INIT,
    IB_QPS_RTR,
    IB_QPS_RTS,
    IB_QPS_SQD,
    IB_QPS_SQE,
    IB_QPS_ERR,
} IbQpState;

typedef enum IbWrOpcode {
    IB_WR_SEND,
    IB_WR_SEND_IMM,
    IB_WR_SEND_INV,
    IB_WR_RDMA_WRITE,
    IB_WR_RDMA_WRITE_IMM,
    IB_WR_RDMA_READ,
    IB_WR_ATOMIC_CMP_SWP,
    IB_WR_ATOMIC_FETCH_ADD,
} IbWrOpcode;

/* Completion status, IB names (the device maps them to its syndromes). */
typedef enum IbWcStatus {
    IB_WC_SUCCESS,
    IB_WC_LOC_LEN_ERR,
    IB_WC_LOC_QP_OP_ERR,
    IB_WC_LOC_PROT_ERR,
    IB_WC_WR_FLUSH_ERR,
    IB_WC_BAD_RESP_ERR,
    IB_WC_LOC_ACCESS_ERR,
    IB_WC_REM_INV_REQ_ERR,
    IB_WC_REM_ACCESS_ERR,
    IB_WC_REM_OP_ERR,
    IB_WC_RETRY_EXC_ERR,
    IB_WC_RNR_RETRY_EXC_ERR,
    /* a memory-window bind failed (local, device-specific) */
    IB_WC_MW_BIND_ERR,
    /*
     * Not a completion: the memory is not mapped yet (on-demand paging). The
     * device has told its driver, which maps it and calls
     * ib_qp_page_fault_resume(); the transport waits (a requester pauses its
     * send queue, a responder answers RNR NAK or holds its READ responses) and
     * then tries again.
     */
    IB_WC_PAGE_FAULT,
} IbWcStatus;

/* Receive completion opcodes */
typedef enum IbRecvOpcode {
    IB_RECV_SEND,
    IB_RECV_SEND_IMM,
    IB_RECV_SEND_INV,
    IB_RECV_WRITE_IMM,
} IbRecvOpcode;

/* Access required from a memory key */
enum {
    IB_ACCESS_LOCAL_WRITE = 1 << 0,
    IB_ACCESS_REMOTE_WRITE = 1 << 1,
    IB_ACCESS_REMOTE_READ = 1 << 2,
    IB_ACCESS_REMOTE_ATOMIC = 1 << 3,
};

/*
 * Automatic path migration state (IBA 17.2.8); MIGRATED is the initial state.
 */
typedef enum IbMigState {
    IB_MIG_MIGRATED,
    IB_MIG_REARM,
    IB_MIG_ARMED,
} IbMigState;

/* Address vector: where a packet goes (the QP's path, or a UD WR's AV). */
typedef struct IbAv {
    uint16_t dlid;
    uint8_t sl;
    uint8_t src_path_bits;
    bool grh;
    uint8_t sgid_index;
    uint8_t hop_limit;
    uint8_t tclass;
    uint32_t flow_label;
    uint8_t dgid[16];
    /*
     * RoCE (the port's roce mode): the next hop's MAC and the UDP source port
     * (0: the QP's)
     */
    uint8_t dmac[6];
    uint16_t udp_sport;
    /*
     * force loopback (RoCE, an RC QP's path): to a QP of this port, no GID or
     * MAC (mlx5dv_dr's steering QPs)
     */
    bool fl;
} IbAv;

/* One send work request, decoded by the device. */
typedef struct IbSendWr {
    uint64_t cookie;            /* device's handle (e.g. WQE counter) */
    IbWrOpcode opcode;
    /* payload bytes (READ: bytes to read; atomics: 8) */
    uint32_t length;
    /* ImmDt, wire order (big endian bytes as a host u32 of be) */
    uint32_t imm;
    uint32_t inv_rkey;
    uint64_t remote_addr;
    uint32_t rkey;
    uint64_t compare_add;       /* atomics: CmpSwap compare / FetchAdd add */
    uint64_t swap;              /* atomics: CmpSwap swap */
    uint32_t xrc_srqn;          /* XRC requests: the remote XRC SRQ (XRCETH) */
    /* DC requests: the DCT's access key (target: av, dest_qpn) */
    uint64_t dc_key;
    bool solicited;
    bool signaled;
    bool fence;                 /* wait for earlier READ/ATOMIC to complete */
    /* UD and DC */
    IbAv av;
    uint32_t dest_qpn;
    uint32_t qkey;
} IbSendWr;

/* A receive buffer taken from the device's RQ/SRQ for one incoming message. */
typedef struct IbRecvWr {
    uint64_t cookie;
    uint64_t capacity;          /* total bytes the scatter list can take */
} IbRecvWr;

/*
 * The network header a packet came with (RoCE: what precedes UDP; IB:
 * IB_NET_IB)
 */
typedef enum IbNetType {
    IB_NET_IB,
    IB_NET_ROCE_IPV6,
    IB_NET_ROCE_IPV4,
} IbNetType;

typedef struct IbRecvCompletion {
    IbWcStatus status;
    IbRecvOpcode opcode;
    uint32_t byte_len;
    uint32_t imm;               /* ImmDt (wire order) or the invalidated rkey */
    uint32_t src_qpn;
    uint16_t slid;
    uint8_t sl;
    uint8_t dlid_path_bits;
    bool grh;
    bool solicited;
    uint16_t pkey_index;
    IbNetType net_type;
    /* RoCE: the frame had an 802.1Q tag (vlan_tci) */
    bool vlan;
    uint16_t vlan_tci;
} IbRecvCompletion;

typedef enum IbQpEvent {
    IB_EV_COMM_EST,
    /* the QP now uses its alternate path (ib_apm.c) */
    IB_EV_PATH_MIG,
    IB_EV_QP_FATAL,
    IB_EV_QP_REQ_ERR,           /* invalid request (responder) */
    IB_EV_QP_ACCESS_ERR,        /* remote access error (responder) */
} IbQpEvent;

typedef struct IbPort IbPort;
typedef struct IbQp IbQp;

/*
 * Transport events a device counts per QP (its queue counters): the responder's
 * requests executed, RNR NAKs for want of a receive WQE, packets out of
 * sequence (PSN sequence error NAK sent) and duplicates, the NAKs it sent for
 * invalid requests and access errors; the requester's RNR NAKs and PSN
 * sequence error NAKs received, responses implying a lost one (a later PSN
 * acknowledged or answered first), ACK timer expiries retried, and the NAKs
 * received for invalid requests, access and operation errors.
 */
typedef enum IbQpStat {
    IB_STAT_RX_WRITE,
    IB_STAT_RX_READ,
    IB_STAT_RX_ATOMIC,
    IB_STAT_OUT_OF_BUFFER,
    IB_STAT_OUT_OF_SEQUENCE,
    IB_STAT_DUPLICATE_REQUEST,
    IB_STAT_RESP_REMOTE_INVALID,
    IB_STAT_RESP_REMOTE_ACCESS,
    IB_STAT_RNR_NAK,
    IB_STAT_SEQ_NAK,
    IB_STAT_IMPLIED_NAK,
    IB_STAT_ACK_TIMEOUT,
    IB_STAT_REQ_REMOTE_INVALID,
    IB_STAT_REQ_REMOTE_ACCESS,
    IB_STAT_REQ_REMOTE_OPERATION,
    IB_STAT_N
} IbQpStat;

/*
 * Services the device provides. All memory accesses go through the device's key
 * tables and its DMA (so they work behind a vIOMMU). Return values are
 * IbWcStatus codes.
 */
typedef struct IbDevOps {
    /* requester: read @len payload bytes at offset @off of a SEND/WRITE WR */
    IbWcStatus (*gather)(IbQp *qp, const IbSendWr *wr, uint64_t off, void *buf,
                         uint32_t len);
    /*
     * requester: write READ response data / the atomic original value into the
     * WR's buffers
     */
    IbWcStatus (*scatter)(IbQp *qp, const IbSendWr *wr, uint64_t off,
                          const void *buf, uint32_t len);
    /*
     * requester: WR done (in posting order); status != SUCCESS puts the QP in
     * error
     */
    void (*send_done)(IbQp *qp, const IbSendWr *wr, IbWcStatus status);
    /*
     * responder: take the next receive buffer; false = none posted (RNR for
     * RC). @msg: a SEND's first packet payload (@msg_len bytes), NULL for a
     * WRITE with immediate or a datagram (a device may place a message by
     * its content: tag matching).
     */
    bool (*recv_get)(IbQp *qp, IbRecvWr *rwr, const void *msg,
                     uint32_t msg_len);
    IbWcStatus (*recv_scatter)(IbQp *qp, const IbRecvWr *rwr, uint64_t off,
                               const void *buf, uint32_t len);
    void (*recv_done)(IbQp *qp, const IbRecvWr *rwr,
                      const IbRecvCompletion *rc);
    /*
     * responder: give back the buffer recv_get just took (a datagram dropped on
     * a page fault)
     */
    void (*recv_put_back)(IbQp *qp, const IbRecvWr *rwr);
    /*
     * responder: remote memory access through an rkey (checks key, PD, rights,
     * bounds)
     */
    IbWcStatus (*rkey_check)(IbQp *qp, uint32_t rkey, uint64_t va, uint64_t len,
                             unsigned access);
    IbWcStatus (*rkey_write)(IbQp *qp, uint32_t rkey, uint64_t va,
                             const void *buf, uint32_t len);
    IbWcStatus (*rkey_read)(IbQp *qp, uint32_t rkey, uint64_t va, void *buf,
                            uint32_t len);
    /*
     * responder: 8-byte atomic on host-order memory; returns the original value
     */
    IbWcStatus (*rkey_atomic)(IbQp *qp, uint32_t rkey, uint64_t va,
                              bool cmp_swp, uint64_t compare_add, uint64_t swap,
                              uint64_t *orig);
    IbWcStatus (*invalidate)(IbQp *qp, uint32_t rkey);
    /*
     * XRC responder: may requests to this target QP name XRC SRQ @srqn?
     * (optional)
     */
    bool (*xrc_srq_ok)(IbQp *qp, uint32_t srqn);
    void (*qp_event)(IbQp *qp, IbQpEvent ev);
    /* count a transport event of @qp (optional) */
    void (*qp_stat)(IbQp *qp, IbQpStat stat);
    /* the fabric */
    /* send a frame; false = taken, but send no more until ib_port_tx_ready() */
    bool (*link_tx)(IbPort *port, const struct iovec *iov, int iovcnt,
                    bool best_effort);
    IbQp *(*qp_lookup)(IbPort *port, uint32_t qpn);
    int64_t (*now_ns)(IbPort *port);
    void (*set_deadline)(IbPort *port, int64_t when_ns);
    void (*kick)(IbPort *port);     /* the transport can take more WRs */
    /* another port on the fabric announced our LID or our GUID (optional) */
    void (*addr_clash)(IbPort *port, uint16_t lid, uint64_t guid);
    /* the fabric elected another master SM: port->sm_lid changed (optional) */
    void (*sm_change)(IbPort *port);
    /*
     * A port several functions share (port->shared): a packet addressed to
     * this node, before the port looks at it. True if it belongs to another
     * function's port (the device queued it there with ib_port_enqueue, or
     * dropped it). (optional)
     */
    bool (*rx_steer)(IbPort *port, const IbPacket *p, const uint8_t *frame,
                     size_t len);
    /*
     * The port whose receive path takes what @port sends to its own LID or
     * to a group: another function's, whose LID @port shares (optional: @port)
     */
    IbPort *(*local_port)(IbPort *port);
} IbDevOps;

/* ---- transport state (embedded in the device's QP and port objects) ------ */

#define IB_MAX_RD_ATOMIC    16      /* responder resources / initiator depth */
/* unacknowledged packets in flight per RC QP */
#define IB_TX_WINDOW        256
#define IB_LOOPBACK_FRAMES  64
/* version 3: version 2's, a count and the alias GUIDs (docs/fabric.md) */
#define IB_ANNOUNCE_MAX_LEN (132 + 4 + 8 * IB_MAX_ALIASES)
#define IB_MAX_FRAME        (IB_MAX_PAYLOAD + 256)
#define IB_MAX_PAYLOAD      4096

typedef struct IbSendEntry {
    IbSendWr wr;
    uint32_t first_psn;         /* valid once started */
    uint32_t npsn;              /* PSNs the message consumes */
    uint64_t resp_off;          /* READ: response bytes received */
    bool started;
    bool done;                  /* acknowledged / response complete */
} IbSendEntry;

/* Responder resource: a READ or ATOMIC kept to answer duplicates. */
typedef struct IbRespRes {
    bool valid;
    bool atomic;
    uint32_t psn;               /* first PSN */
    uint32_t npsn;
    uint64_t va;
    uint32_t rkey;
    uint32_t len;
    uint64_t orig;              /* atomic: original value */
    /* READ responses still to transmit: [tx_psn, psn + npsn) */
    bool tx_pending;
    uint32_t tx_psn;
    /* its memory faulted: held until the page fault is resumed */
    bool fault_wait;
} IbRespRes;

struct IbQp {
    IbPort *port;
    uint32_t qpn;               /* wire QPN (0/1 for SMI/GSI) */
    IbQpType type;
    IbQpState state;
    /* an RC QP of the XRC transport (initiator or target) */
    bool xrc;
    /* UD: its multicast sends are not looped back to itself */
    bool block_self_mcast;
    /* XRC target: the XRC SRQ of the request being received */
    uint32_t xrc_srqn;
    /*
     * Dynamically connected transport (ib_dc.c). A DCI is an RC requester whose
     * WRs name their target; it connects to one target at a time. A DCT answers
     * through responder contexts, one per initiator it is talking to; each
     * context is an RC responder whose dc_parent is the DCT (the device sees
     * the DCT's resources behind it).
     */
    bool dci;
    /* DCI: av/dest_qpn/dc_key hold the current target */
    bool dc_connected;
    /* DCI: current connection (a new one per connect); context */
    uint32_t dc_conn_id;
    uint32_t dc_conn_psn;       /* DCI: first PSN of the current connection */
    /* DCI: current target's key; DCT: its access key */
    uint64_t dc_key;
    IbQp *dc_parent;            /* context: the DCT */
    IbQp *dc_ctx;               /* DCT: its responder contexts */
    unsigned dc_nctx;
    unsigned dc_index;          /* context: index in the DCT's dc_ctx */
    bool dc_bound;              /* context: serving an initiator */
    bool dc_draining;           /* DCT: accepts no more requests */
    /* context: the initiator's LID (RoCE: GID) and DCI */
    uint16_t dc_slid;
    uint8_t dc_sgid[16];
    uint32_t dc_src_qpn;
    uint64_t dc_last_use;       /* context: LRU stamp */
    uint64_t dc_clock;          /* DCT: LRU clock */
    uint64_t stat_dc_key_violations;

    /* attributes, set by the device (ib_qp_modify applies state changes) */
    uint32_t dest_qpn;
    IbAv av;
    uint32_t mtu;               /* path MTU in bytes */
    uint32_t qkey;
    uint16_t pkey;
    uint8_t retry_cnt;
    uint8_t rnr_retry;
    uint8_t min_rnr_timer;
    uint8_t timeout;
    uint8_t max_rd_atomic;
    uint8_t max_dest_rd_atomic;
    bool rre, rwe, rae;
    uint32_t sq_psn;            /* next_send_psn at RTR2RTS */
    /*
     * automatic path migration (ib_apm.c): the alternate path and where
     * migration stands
     */
    IbMigState mig_state;
    IbAv alt_av;
    uint8_t alt_timeout;
    uint32_t rq_psn;            /* next_rcv_psn at INIT2RTR */

    /* requester */
    IbSendEntry *swq;
    uint32_t swq_size;          /* power of two */
    /* free-running indices: post, oldest, transmitting */
    uint32_t head, tail, cur;
    uint64_t cur_off;
    uint32_t next_psn;
    uint32_t una;               /* oldest unacknowledged PSN */
    uint8_t retries_left;
    uint8_t rnr_retries_left;
    int64_t ack_deadline;       /* 0 = not armed */
    int64_t rnr_deadline;       /* 0 = not waiting */
    /* RoCE congestion: when the last CNP for this QP's flow went out */
    int64_t cnp_sent_ns;
    /*
     * on-demand paging: the send queue waits for its driver to resolve a page
     * fault
     */
    bool req_fault;
    /* ... on a READ/atomic response, which was dropped */
    bool req_fault_rsp;
    uint32_t req_fault_idx;     /* the WR that faulted */

    /* responder */
    uint32_t epsn;
    uint32_t msn;
    bool in_send, in_write;
    bool have_rwr;
    IbRecvWr rwr;
    uint64_t recv_off;
    uint64_t write_va;
    uint32_t write_rkey;
    uint64_t write_left;
    /* READ response being read: bytes from it to the end */
    uint64_t read_left;
    uint64_t write_total;
    bool nak_sent;
    /* an ACK waiting for the end of the burst (ib_resp_ack) */
    bool ack_pending;
    uint32_t ack_psn, ack_msn;
    bool comm_est;
    /* a page fault of the responder waits for its resume */
    bool resp_fault;
    IbRespRes res[IB_MAX_RD_ATOMIC];
    unsigned res_next;

    /* port bookkeeping */
    bool tx_pending;
    IbQp *next, *prev;
    uint64_t stat_tx, stat_rx, stat_retx, stat_rnr, stat_dup;
};

/*
 * A node's identity, as NodeInfo/NodeDescription tell it (set by the device,
 * announced).
 */
typedef struct IbNodeInfo {
    uint64_t node_guid;
    uint64_t sys_guid;
    uint16_t device_id;
    uint32_t vendor_id;         /* 24 bits */
    uint32_t revision;
    /* not NUL-terminated when all 64 bytes are used */
    char desc[64];
} IbNodeInfo;

/*
 * A port of the fabric, as its announcements describe it (ib_sm.c). guid 0 =
 * free slot.
 */
/*
 * Port GUIDs a port answers to besides its own: its vports' (SR-IOV functions
 * sharing the port), alias GUIDs of the port as an SM sees them
 */
#define IB_MAX_ALIASES          64

typedef struct IbPeer {
    uint64_t guid;              /* port GUID */
    uint64_t aliases[IB_MAX_ALIASES];
    unsigned naliases;
    /* (a look-up's copy: @guid is one of the port's aliases) */
    bool alias;
    IbNodeInfo node;
    uint64_t gid_prefix;
    uint16_t lid;
    uint8_t lmc;
    uint8_t mtu;                /* IB MTU enum */
    bool sm;                    /* offers to be the subnet manager */
    uint8_t sm_priority;
    uint32_t nonce;
    int64_t last_seen;
} IbPeer;

/* other ports a port keeps in its directory */
#define IB_FABRIC_MAX_PEERS     63

/*
 * RoCE v2 (ib_roce.c): one entry of the port's GID table, as its driver
 * programs it. The GID is an IPv6 address or an IPv4-mapped one
 * (::ffff:a.b.c.d); the MAC and VLAN are the interface's the address belongs
 * to. Packets from this GID leave with them.
 */
#define IB_ROCE_MAX_GIDS    128
typedef struct IbRoceGid {
    bool valid;
    bool ipv4;
    bool vlan;
    uint16_t vlan_id;
    uint8_t gid[16];
    uint8_t mac[6];
} IbRoceGid;

/*
 * An IPv4-mapped GID (::ffff:a.b.c.d): the IPv4 address a RoCE v2 GID stands
 * for.
 */
static inline bool ib_gid_is_v4mapped(const uint8_t gid[16])
{
    static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

    return !memcmp(gid, prefix, sizeof(prefix));
}

typedef struct IbSa IbSa;
typedef struct IbMcastAttach IbMcastAttach;
typedef struct IbFault IbFault;

/* Fault injection on frames from the link (ib_fault.c); all zero = none. */
typedef struct IbFaultConfig {
    uint8_t drop, dup, reorder, corrupt;    /* percent of the frames */
    /*
     * percent of the ECN-capable RoCE frames marked Congestion Experienced, as
     * by a switch whose queue is filling (ib_cong.c answers them)
     */
    uint8_t ecn;
    /* every frame arrives this much later */
    uint32_t delay_us;
    /* of the generator (0: a fixed default) */
    uint64_t seed;
} IbFaultConfig;

typedef struct IbFaultStats {
    uint64_t drop, dup, reorder, corrupt, ecn;
} IbFaultStats;

/*
 * RoCE v2 congestion control (ib_cong.c), the ECN-based scheme of DCQCN: a
 * sender whose reaction point (RP) is enabled for a frame's priority sends it
 * ECN-capable; a switch marks it Congestion Experienced; a receiver whose
 * notification point (NP) is enabled answers with a CNP to the sending QP (at
 * most one per QP every min_time_between_cnps); the sender's RP takes the CNP
 * (handled) or, disabled for its priority, ignores it. A frame's priority is
 * the PCP of its 802.1Q tag (0 untagged). The device sets the configuration
 * (its commands) and reads the counters.
 */
typedef struct IbCongConfig {
    uint8_t rp_enable, np_enable;       /* a bit per priority */
    uint32_t min_time_between_cnps;     /* microseconds */
    uint8_t cnp_dscp;
    /* the CNP's priority: the marked frame's (prio_mode) or cnp_802p_prio */
    bool cnp_prio_mode;
    uint8_t cnp_802p_prio;
} IbCongConfig;

typedef struct IbCongStats {
    uint64_t rp_cnp_ignored, rp_cnp_handled;
    uint64_t np_ecn_marked_roce_packets, np_cnp_sent;
} IbCongStats;

struct IbPort {
    const IbDevOps *ops;
    void *dev;                  /* the device's own object */
    uint16_t lid;
    uint8_t lmc;
    uint64_t gid_prefix;
    uint64_t guid;
    bool link_up;
    /*
     * functions share the port (SR-IOV): ops->rx_steer sees what arrives, and
     * multicast sends always loop back, for the other functions' members
     */
    bool shared;
    /*
     * a function's view of another's port (a VF's): its LID and SM are that
     * port's; it never announces, elects or answers for the port
     */
    bool vport;
    bool tx_blocked;            /* the link asked us to wait */
    bool acks_pending;          /* some QP's ACK waits for ib_port_run */
    IbQp *qps;                  /* QPs not in RESET */
    uint8_t hdr[IB_MAX_FRAME];
    uint8_t payload[IB_MAX_PAYLOAD];
    /* frames to our own LID, processed after the current one (no recursion) */
    uint8_t (*lb)[IB_MAX_FRAME];
    uint32_t lb_len[IB_LOOPBACK_FRAMES];
    /* a force-loopback frame (ads.fl): taken with no GID and no link */
    bool lb_fl[IB_LOOPBACK_FRAMES];
    bool rx_fl;                 /* the frame being received is one */
    unsigned lb_head, lb_count;
    uint64_t stat_tx, stat_rx, stat_rx_drop, stat_rx_bad;
    /* packets dropped for their P_Key (PortInfo counter) */
    uint64_t stat_pkey_violations;
    /* datagrams dropped for their Q_Key (PortInfo counter) */
    uint64_t stat_qkey_violations;
    /*
     * PortCounters (IBA 16.1.3.5): octets of the IB packets (LRH to VCRC),
     * multicast packets
     */
    uint64_t stat_tx_bytes, stat_rx_bytes, stat_tx_mcast, stat_rx_mcast;
    /* (the multicast packets' octets, for vport counters) */
    uint64_t stat_tx_mcast_bytes, stat_rx_mcast_bytes;
    /*
     * address announcements (docs/fabric.md): LID/GUID clash detection, the
     * directory
     */
    uint32_t nonce;
    int64_t announce_deadline;  /* 0 = not scheduled */
    /* announcement payload being sent */
    uint8_t ann[IB_ANNOUNCE_MAX_LEN];
    /* the port's alias GUIDs (ib_port_set_aliases) */
    uint64_t aliases[IB_MAX_ALIASES];
    unsigned naliases;
    uint32_t announcements;     /* sent (SMInfo's ActCount) */
    uint8_t sm_reply[256];      /* SMInfo reply being sent */
    IbNodeInfo node;
    IbPeer *peers;              /* IB_FABRIC_MAX_PEERS entries */
    /* subnet manager (ib_sm.c): our offer, and the elected master */
    bool sm_enabled;
    uint8_t sm_priority;        /* 0..15 */
    uint16_t sm_lid;            /* master SM's LID, 0 = none */
    uint64_t sm_guid;
    /* the SA's state while we are the master (ib_sa.c) */
    IbSa *sa;
    /* multicast attachments (ib_mcast.c) */
    IbMcastAttach *mcast;
    unsigned mcast_count;
    /* fault injection on the link, NULL = none (ib_fault.c) */
    IbFault *fault;
    /*
     * RoCE v2 (ib_roce.c): the port is an Ethernet port. Packets are addressed
     * by GIDs (IP addresses) and MACs instead of LIDs, go out as standard RoCE
     * v2 frames, and there is no subnet manager, SA or announcement (the port's
     * LID is 0).
     */
    bool roce;
    uint8_t mac[6];             /* the port's own MAC (frames to it are ours) */
    IbRoceGid *gids;            /* IB_ROCE_MAX_GIDS entries while roce */
    /* the highest valid index + 1: lookups scan below it */
    unsigned gid_end;
    /* packets not sent: their source GID index is not set */
    uint64_t stat_roce_no_gid;
    /* RoCE congestion control (ib_cong.c) */
    IbCongConfig cong;
    IbCongStats cong_stats;
};

/*
 * Whether the transmit loops must stop: the link asked us to wait, or the
 * loopback ring (frames to our own LIDs) is full. The ring drains at the start
 * of every ib_port_run, so a sender to itself is paced by its receiver instead
 * of losing frames to a full ring and waiting a whole retransmission timeout (a
 * message of more than IB_LOOPBACK_FRAMES packets would).
 */
static inline bool ib_port_tx_stopped(const IbPort *port)
{
    return port->tx_blocked || port->lb_count >= IB_LOOPBACK_FRAMES;
}

#define IB_LID_PERMISSIVE       0xffff
#define IB_MLID_FIRST           0xc000  /* multicast LIDs */
#define IB_MLID_LAST            0xfffe
#define IB_LID_IS_MCAST(lid) ((lid) >= IB_MLID_FIRST && (lid) <= IB_MLID_LAST)
#define IB_ANNOUNCE_PERIOD_NS   1000000000ll
#define IB_ANNOUNCE_LEN         132     /* version 2 (docs/fabric.md) */

void ib_port_init(IbPort *port, const IbDevOps *ops, void *dev);
void ib_port_cleanup(IbPort *port);
/*
 * A frame from the link: through the fault injection if configured, then
 * ib_port_rx. @h: its headers if the caller parsed them (ib_eth_parse), or
 * NULL.
 */
void ib_port_link_rx(IbPort *port, const uint8_t *frame, size_t len,
                     const IbEthHdr *h);
/*
 * A frame to process (from the link, or looped back); ib_port_rx_hdr() with its
 * headers already parsed.
 */
void ib_port_rx(IbPort *port, const uint8_t *frame, size_t len);
void ib_port_rx_hdr(IbPort *port, const uint8_t *frame, size_t len,
                    const IbEthHdr *h);
/*
 * Queue a frame for @port's receive path, run after the current frame (its
 * loopback ring); dropped and counted if the ring is full.
 */
void ib_port_enqueue(IbPort *port, const struct iovec *iov, int iovcnt);
/* ... with @fl: a force-loopback frame, which needs no GID and no link */
void ib_port_enqueue_lb(IbPort *port, const struct iovec *iov, int iovcnt,
                        bool fl);
void ib_fault_configure(IbPort *port, const IbFaultConfig *cfg);
/* A ConnectX's congestion control defaults: RP and NP on every priority. */
void ib_cong_defaults(IbCongConfig *cfg);
/* false if no fault injection is configured */
bool ib_fault_stats(const IbPort *port, IbFaultStats *st);
/*
 * Transmit pending work (at most @budget packets). Returns true if work
 * remains.
 */
bool ib_port_run(IbPort *port, unsigned budget);
/* Timers */
void ib_port_expire(IbPort *port, int64_t now);
/* Recompute the earliest timer and pass it to ops->set_deadline. */
void ib_port_update_deadline(IbPort *port);
/* The link can take frames again. */
void ib_port_tx_ready(IbPort *port);
/*
 * Tell the fabric who we are (now, then every IB_ANNOUNCE_PERIOD_NS while the
 * link is up).
 */
void ib_port_announce(IbPort *port);
/*
 * The same from the next timer expiry: frames only leave while the machine
 * runs.
 */
void ib_port_announce_soon(IbPort *port);

/*
 * The fabric directory (ib_sm.c): this port as an entry, and look-ups (@self is
 * scratch).
 */
void ib_sm_self(const IbPort *port, IbPeer *e);
const IbPeer *ib_sm_find_lid(const IbPort *port, uint16_t lid, IbPeer *self);
/*
 * (a port's alias GUID finds a copy of its entry in @self, with @guid as its
 * GUID and alias set)
 */
const IbPeer *ib_sm_find_guid(const IbPort *port, uint64_t guid, IbPeer *self);
/*
 * The port's alias GUIDs (its vports' port GUIDs) are @guids: announced from
 * now on; the SA reports the GIDs that came and went.
 */
void ib_port_set_aliases(IbPort *port, const uint64_t *guids, unsigned n);
bool ib_sm_is_master(const IbPort *port);

/*
 * RoCE v2 (ib_roce.c). ib_roce_enable() makes @port an Ethernet port with MAC
 * @mac (its GID table empty); ib_roce_set_gid() sets (@gid NULL: clears) entry
 * @index; ib_roce_frame_is_ours() tells whether a frame from the Ethernet link
 * (its headers parsed by ib_eth_parse) is a RoCE v2 packet for this port (to
 * ib_port_link_rx) rather than for the NIC.
 */
void ib_roce_enable(IbPort *port, const uint8_t mac[6]);
bool ib_roce_set_gid(IbPort *port, unsigned index, const IbRoceGid *gid);
int ib_roce_find_gid(const IbPort *port, const uint8_t gid[16]);
bool ib_roce_frame_is_ours(const IbPort *port, const uint8_t *frame,
                           const IbEthHdr *h);

/*
 * Multicast (ib_mcast.c): attach a QP to a group (MGID), as ATTACH_TO_MCG does.
 */
#define IB_MCAST_MAX_ATTACH     1024    /* (group, QP) attachments per port */
typedef enum IbMcastStatus {
    IB_MCAST_OK,
    IB_MCAST_FULL,
    IB_MCAST_EXISTS,
    IB_MCAST_NOENT,
    IB_MCAST_BAD_GID
} IbMcastStatus;
/* at most @max_group_qps QPs of this port per group */
IbMcastStatus ib_mcast_attach(IbPort *port, const uint8_t mgid[16],
                              uint32_t qpn, unsigned max_group_qps);
IbMcastStatus ib_mcast_detach(IbPort *port, const uint8_t mgid[16],
                              uint32_t qpn);
void ib_mcast_detach_qp(IbPort *port, uint32_t qpn);

void ib_qp_init(IbQp *qp, IbPort *port, uint32_t qpn, IbQpType type,
                uint32_t sq_entries);
/*
 * DC target (after ib_qp_init with IB_QPT_DCT): its @nctx responder contexts.
 */
#define IB_DCT_MAX_CTX      64      /* initiators one DCT talks to at once */
void ib_dct_init(IbQp *dct, unsigned nctx);
/* Stop taking requests and forget every initiator (DRAIN_DCT). */
void ib_dct_drain(IbQp *dct);
void ib_qp_cleanup(IbQp *qp);
/* Apply a state change (attributes already written into @qp). */
void ib_qp_set_state(IbQp *qp, IbQpState state);
/* Queue a send WR (QP in RTS). Returns false if the send queue is full. */
bool ib_qp_post_send(IbQp *qp, const IbSendWr *wr);
/* Number of WRs the transport still holds (posted, not completed). */
uint32_t ib_qp_outstanding(const IbQp *qp);
/*
 * Error state: complete every WR still held with IB_WC_WR_FLUSH_ERR, in order.
 */
void ib_qp_flush(IbQp *qp);

/*
 * Automatic path migration (ib_apm.c). The device loads alt_av/alt_timeout and
 * sets mig_state to REARM (a packet from the peer with MigReq clear then arms
 * the QP); a migration swaps in the alternate path and raises IB_EV_PATH_MIG.
 * Software-commanded migration (ARMED only):
 */
void ib_apm_migrate(IbQp *qp);

/*
 * On-demand paging: the driver has resolved (or, @error, failed to resolve) the
 * page fault a memory access of @qp reported. IB_PF_REQUESTER resumes the
 * paused send queue (@error fails the WR that faulted with a local protection
 * error); IB_PF_RECV and IB_PF_RDMA concern the responder (its requester
 * retries after RNR NAK; READ responses held go out again; @error puts the QP
 * in error as a failed access would have).
 */
typedef enum IbPfSide { IB_PF_REQUESTER, IB_PF_RECV, IB_PF_RDMA } IbPfSide;
void ib_qp_page_fault_resume(IbQp *qp, IbPfSide side, bool error);

uint32_t ib_mtu_bytes(unsigned ib_mtu_enum);
bool ib_pkey_match(uint16_t a, uint16_t b);
int64_t ib_rnr_timeout_ns(unsigned min_rnr_timer);

#endif
