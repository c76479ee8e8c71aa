/*
 * Vendor-neutral IB fabric services: the subnet administrator's state and the
 * helpers its two files share (ib_sa.c: dispatch, replies, RMPP, PathRecord,
 * MCMemberRecord; ib_sa_records.c: NodeRecord, PortInfoRecord, GUIDInfoRecord,
 * ServiceRecord, InformInfo and Reports).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_IB_SA_INTERNAL_H
#define HW_RDMA_IB_SA_INTERNAL_H

#include "ib_internal.h"
#include "hw/rdma/ib/ib_mad.h"

#define IB_SA_MAX_GROUPS        64
#define IB_SA_MAX_MEMBERS       64
#define IB_SA_MAX_RMPP          8
#define IB_SA_MAX_SERVICES      64
#define IB_SA_MAX_INFORMS       64
/* 200 */
#define IB_SA_SEG_DATA          IB_SA_DATA_LEN
/* 64 segments */
#define IB_SA_MAX_TABLE         (64 * IB_SA_SEG_DATA)
/* 220 */
#define IB_RMPP_SEG_PAYLOAD     (IB_MAD_SIZE - IB_RMPP_SM_KEY_OFF)
#define IB_RMPP_SM_KEY_OFF      IB_SA_SM_KEY
#define IB_SA_RESP_TIME         18      /* 4.096 us * 2^18: about a second */
#define IB_SA_PACKET_LIFE       18      /* as opensm's default */
#define IB_SA_MLID_BASE         IB_MLID_FIRST
#define IB_SA_CAP2_SENDONLY_FULL (1u << 12)

typedef struct IbSaMember {
    uint8_t gid[16];
    uint8_t join;               /* JoinState bits; 0 = free slot */
} IbSaMember;

typedef struct IbSaGroup {
    bool used;
    /* created by the SA (the IPoIB broadcast group) */
    bool permanent;
    uint8_t mgid[16];
    uint16_t mlid;
    uint32_t qkey;
    uint16_t pkey;
    uint8_t mtu, rate, plt, sl, tclass, hop_limit, scope;
    uint32_t flow_label;
    IbSaMember member[IB_SA_MAX_MEMBERS];
} IbSaGroup;

/*
 * An RMPP transfer of a GetTableResp: segments go out as the receiver's ACKs
 * open its window
 */
typedef struct IbSaRmpp {
    bool used;
    uint64_t tid;
    uint16_t dlid;
    uint32_t dqpn;
    uint16_t pkey;
    uint8_t sl;
    /*
     * the request's GRH, which every segment answers (a VF of a port shared by
     * functions is found by its GID)
     */
    bool grh;
    uint8_t sgid[16];
    uint8_t hop_limit, tclass;
    uint32_t flow_label;
    uint8_t hdr[IB_SA_DATA];    /* MAD + RMPP + SA header of every segment */
    uint32_t len;               /* table bytes */
    uint32_t nseg;
    uint32_t acked;             /* segments the receiver has */
    uint32_t sent;              /* segments sent */
    uint64_t age;
    uint8_t *data;              /* IB_SA_MAX_TABLE bytes */
} IbSaRmpp;

typedef struct IbSaService {
    /* the ServiceRecord as registered; rec[0..7] ServiceID */
    uint8_t rec[176];
    int64_t expires;            /* INT64_MAX: no lease */
    bool used;
} IbSaService;

typedef struct IbSaInform {
    /* the subscriber's port GID (where Reports go) */
    uint8_t gid[16];
    uint16_t lid;               /* ... and its LID, QP */
    uint32_t qpn;
    uint16_t trap;              /* 0xffff: every trap */
    bool used;
} IbSaInform;

struct IbSa {
    IbSaGroup group[IB_SA_MAX_GROUPS];
    IbSaService service[IB_SA_MAX_SERVICES];
    IbSaInform inform[IB_SA_MAX_INFORMS];
    uint16_t notice_count;
    IbSaRmpp rmpp[IB_SA_MAX_RMPP];
    uint64_t rmpp_age;
    uint8_t req[IB_MAD_SIZE];   /* the request, copied in */
    uint8_t mad[IB_MAD_SIZE];   /* the reply being built */
    uint8_t table[IB_SA_MAX_TABLE];
    uint16_t next_mlid;
    uint32_t mgid_serial;       /* SA-assigned MGIDs */
};


/* ib_sa.c */
void ib_sa_send(IbPort *port, uint16_t dlid, uint32_t dqpn, uint16_t pkey,
                uint8_t sl, const IbPacket *req, const uint8_t *mad);
void ib_sa_error(IbPort *port, const IbPacket *p, uint16_t status);
void ib_sa_reply_one(IbPort *port, const IbPacket *p, const uint8_t *rec,
                     uint32_t len);
void ib_sa_reply_table(IbPort *port, const IbPacket *p, unsigned n,
                       uint32_t rec_len);
void ib_sa_reply_records(IbPort *port, const IbPacket *p, uint8_t method,
                         unsigned n, uint32_t len);

/* ib_sa_records.c */
void ib_sa_directory(IbPort *port, const IbPacket *p, uint8_t method,
                     uint16_t attr);
void ib_sa_service(IbPort *port, const IbPacket *p, uint8_t method);
void ib_sa_inform(IbPort *port, const IbPacket *p, uint8_t method);

#endif
