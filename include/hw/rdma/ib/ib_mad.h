/*
 * InfiniBand management datagrams (IBA chapters 13-15): the common MAD header,
 * the SA header and the subnet administration records this project's fabric
 * services answer. Offsets are bytes from the start of the MAD (the GSI payload
 * of a UD packet to QP1), values big endian.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RDMA_IB_MAD_H
#define HW_RDMA_IB_MAD_H

#define IB_MAD_SIZE             256

/* common MAD header (IBA 13.4.3) */
#define IB_MAD_BASE_VERSION     0       /* 1 byte: 1 */
#define IB_MAD_MGMT_CLASS       1
#define IB_MAD_CLASS_VERSION    2
#define IB_MAD_METHOD           3       /* bit 7: response */
#define IB_MAD_STATUS           4       /* 2 bytes */
#define IB_MAD_CLASS_SPECIFIC   6
#define IB_MAD_TID              8       /* 8 bytes */
#define IB_MAD_ATTR_ID          16
#define IB_MAD_ATTR_MOD         20
#define IB_MAD_HDR_LEN          24

#define IB_MGMT_CLASS_SUBN_LID      0x01
#define IB_MGMT_CLASS_SUBN_ADM      0x03
#define IB_MGMT_CLASS_PERF          0x04
#define IB_MGMT_CLASS_CM            0x07
#define IB_MGMT_CLASS_SUBN_DR       0x81
#define IB_SA_CLASS_VERSION         2

#define IB_METHOD_GET               0x01
#define IB_METHOD_SET               0x02
#define IB_METHOD_SEND              0x03
#define IB_METHOD_TRAP              0x05
#define IB_METHOD_REPORT            0x06
#define IB_METHOD_TRAP_REPRESS      0x07
#define IB_METHOD_GET_TABLE         0x12
#define IB_METHOD_GET_TRACE_TABLE   0x13
#define IB_METHOD_GET_MULTI         0x14
#define IB_METHOD_DELETE            0x15
#define IB_METHOD_RESP              0x80

/* MAD status (IBA 13.4.7): common bits 0-4, class-specific bits 8-15 */
#define IB_MAD_STATUS_BUSY                  0x0001
#define IB_MAD_STATUS_BAD_VERSION           0x0004
#define IB_MAD_STATUS_METHOD_UNSUPP         0x0008
#define IB_MAD_STATUS_METHOD_ATTR_UNSUPP    0x000c
#define IB_MAD_STATUS_INVALID_FIELD         0x001c
#define IB_SA_STATUS_NO_RESOURCES           0x0100
#define IB_SA_STATUS_REQ_INVALID            0x0200
#define IB_SA_STATUS_NO_RECORDS             0x0300
#define IB_SA_STATUS_TOO_MANY_RECORDS       0x0400
#define IB_SA_STATUS_INVALID_GID            0x0500
#define IB_SA_STATUS_INSUFFICIENT_COMPS     0x0600
#define IB_SA_STATUS_REQ_DENIED             0x0700

/* RMPP header (IBA 13.6.2), present in SA MADs */
#define IB_RMPP_VERSION         24
#define IB_RMPP_TYPE            25
/* RRespTime(5) | Flags(3): Active 1, First 2, Last 4 */
#define IB_RMPP_FLAGS           26
#define IB_RMPP_STATUS          27
#define IB_RMPP_SEG_NUM         28
/* DATA: payload length; ACK: NewWindowLast */
#define IB_RMPP_PAYLEN          32
#define IB_RMPP_TYPE_DATA       1
#define IB_RMPP_TYPE_ACK        2
#define IB_RMPP_TYPE_STOP       3
#define IB_RMPP_TYPE_ABORT      4
#define IB_RMPP_FLAG_ACTIVE     1
#define IB_RMPP_FLAG_FIRST      2
#define IB_RMPP_FLAG_LAST       4

/* SA header (IBA 15.2.1.1) */
#define IB_SA_SM_KEY            36      /* 8 bytes */
#define IB_SA_ATTR_OFFSET       44      /* 2 bytes, in units of 8 bytes */
#define IB_SA_COMP_MASK         48      /* 8 bytes */
#define IB_SA_DATA              56
#define IB_SA_DATA_LEN          (IB_MAD_SIZE - IB_SA_DATA)      /* 200 */

/* SA attributes */
#define IB_SA_ATTR_CLASS_PORT_INFO      0x0001
#define IB_SA_ATTR_NOTICE               0x0002
#define IB_SA_ATTR_INFORM_INFO          0x0003
#define IB_SA_ATTR_NODE_REC             0x0011
#define IB_SA_ATTR_PORT_INFO_REC        0x0012
#define IB_SA_ATTR_SM_INFO_REC          0x0018
#define IB_SA_ATTR_LINK_REC             0x0020
#define IB_SA_ATTR_GUID_INFO_REC        0x0030
#define IB_SA_ATTR_SERVICE_REC          0x0031
#define IB_SA_ATTR_PKEY_TABLE_REC       0x0033
#define IB_SA_ATTR_PATH_REC             0x0035
#define IB_SA_ATTR_MC_MEMBER_REC        0x0038
#define IB_SA_ATTR_MULTI_PATH_REC       0x003a
#define IB_SA_ATTR_INFORM_INFO_REC      0x00f3

/* ClassPortInfo (IBA 13.4.8.1), 72 bytes */
#define IB_CPI_LEN              72
#define IB_CPI_CAP_MASK         2
/* CapabilityMask2(27) | RespTimeValue(5) */
#define IB_CPI_RESP_TIME        4

/* PathRecord (IBA 15.2.5.16), 64 bytes */
#define IB_PR_LEN               64
#define IB_PR_SERVICE_ID        0
#define IB_PR_DGID              8
#define IB_PR_SGID              24
#define IB_PR_DLID              40
#define IB_PR_SLID              42
/* RawTraffic(1) rsvd(3) FlowLabel(20) HopLimit(8) */
#define IB_PR_FLOW_HOP          44
#define IB_PR_TCLASS            48
#define IB_PR_REV_NUMB          49      /* Reversible(1) NumbPath(7) */
#define IB_PR_PKEY              50
#define IB_PR_QOS_SL            52      /* QosClass(12) SL(4) */
#define IB_PR_MTU               54      /* selector(2) MTU(6) */
#define IB_PR_RATE              55
#define IB_PR_PLT               56      /* selector(2) PacketLifeTime(6) */
#define IB_PR_PREFERENCE        57
#define IB_PR_CM_SERVICE_ID     (3ull << 0)
#define IB_PR_CM_DGID           (1ull << 2)
#define IB_PR_CM_SGID           (1ull << 3)
#define IB_PR_CM_DLID           (1ull << 4)
#define IB_PR_CM_SLID           (1ull << 5)
#define IB_PR_CM_RAW            (1ull << 6)
#define IB_PR_CM_FLOW_LABEL     (1ull << 8)
#define IB_PR_CM_HOP_LIMIT      (1ull << 9)
#define IB_PR_CM_TCLASS         (1ull << 10)
#define IB_PR_CM_REVERSIBLE     (1ull << 11)
#define IB_PR_CM_NUMB_PATH      (1ull << 12)
#define IB_PR_CM_PKEY           (1ull << 13)
#define IB_PR_CM_QOS_CLASS      (1ull << 14)
#define IB_PR_CM_SL             (1ull << 15)
#define IB_PR_CM_MTU_SELECTOR   (1ull << 16)
#define IB_PR_CM_MTU            (1ull << 17)
#define IB_PR_CM_RATE_SELECTOR  (1ull << 18)
#define IB_PR_CM_RATE           (1ull << 19)
#define IB_PR_CM_PLT_SELECTOR   (1ull << 20)
#define IB_PR_CM_PLT            (1ull << 21)

/* MCMemberRecord (IBA 15.2.5.17), 52 bytes (56 with padding: attr_offset 7) */
#define IB_MCR_LEN              52
#define IB_MCR_MGID             0
#define IB_MCR_PORT_GID         16
#define IB_MCR_QKEY             32
#define IB_MCR_MLID             36
#define IB_MCR_MTU              38      /* selector(2) MTU(6) */
#define IB_MCR_TCLASS           39
#define IB_MCR_PKEY             40
#define IB_MCR_RATE             42      /* selector(2) rate(6) */
#define IB_MCR_PLT              43      /* selector(2) PacketLifeTime(6) */
#define IB_MCR_SL_FLOW_HOP      44      /* SL(4) FlowLabel(20) HopLimit(8) */
#define IB_MCR_SCOPE_JOIN       48      /* Scope(4) JoinState(4) */
#define IB_MCR_PROXY_JOIN       49      /* ProxyJoin(1) reserved(23) */
#define IB_MCR_CM_MGID          (1ull << 0)
#define IB_MCR_CM_PORT_GID      (1ull << 1)
#define IB_MCR_CM_QKEY          (1ull << 2)
#define IB_MCR_CM_MLID          (1ull << 3)
#define IB_MCR_CM_MTU_SELECTOR  (1ull << 4)
#define IB_MCR_CM_MTU           (1ull << 5)
#define IB_MCR_CM_TCLASS        (1ull << 6)
#define IB_MCR_CM_PKEY          (1ull << 7)
#define IB_MCR_CM_RATE_SELECTOR (1ull << 8)
#define IB_MCR_CM_RATE          (1ull << 9)
#define IB_MCR_CM_PLT_SELECTOR  (1ull << 10)
#define IB_MCR_CM_PLT           (1ull << 11)
#define IB_MCR_CM_SL            (1ull << 12)
#define IB_MCR_CM_FLOW_LABEL    (1ull << 13)
#define IB_MCR_CM_HOP_LIMIT     (1ull << 14)
#define IB_MCR_CM_SCOPE         (1ull << 15)
#define IB_MCR_CM_JOIN_STATE    (1ull << 16)
#define IB_MCR_CM_PROXY_JOIN    (1ull << 17)
#define IB_MC_JOIN_FULL         1
#define IB_MC_JOIN_NON          2
#define IB_MC_JOIN_SENDONLY     4
#define IB_MC_JOIN_SENDONLY_FULL 8

/*
 * NodeRecord (IBA 15.2.5.2): LID, reserved, NodeInfo (40), NodeDescription
 * (64): 108 bytes
 */
#define IB_NR_LEN               108
#define IB_NR_LID               0
#define IB_NR_NODE_INFO         4
#define IB_NR_NODE_DESC         44
#define IB_NR_CM_LID            (1ull << 0)
/* NodeInfo fields inside a NodeRecord (IBA 14.2.5.3) */
#define IB_NI_NODE_TYPE         2
#define IB_NI_NUM_PORTS         3
#define IB_NI_SYS_GUID          4
#define IB_NI_NODE_GUID         12
#define IB_NI_PORT_GUID         20
#define IB_NI_PARTITION_CAP     28
#define IB_NI_DEVICE_ID         30
#define IB_NI_REVISION          32
#define IB_NI_LOCAL_PORT        36
#define IB_NI_VENDOR_ID         37
#define IB_NI_LEN               40

/*
 * PortInfoRecord (IBA 15.2.5.3): EndportLID, PortNum, Options, PortInfo (64):
 * 68 bytes
 */
#define IB_PIR_LEN              68
#define IB_PIR_LID              0
#define IB_PIR_PORT_NUM         2
#define IB_PIR_PORT_INFO        4
#define IB_PIR_CM_LID           (1ull << 0)
#define IB_PIR_CM_PORT_NUM      (1ull << 1)

/* MTU and rate enums (IBA 15.2.5.16) */
#define IB_MTU_ENUM_2048        4
#define IB_MTU_ENUM_4096        5
#define IB_RATE_10_GBPS         3
#define IB_RATE_40_GBPS         7

/* IPoIB (RFC 4391): the broadcast group of P_Key 0xffff and its Q_Key */
#define IB_IPOIB_QKEY           0x00000b1bu

#endif
