/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_CM_MAD_H
#define DPV_CM_MAD_H

/**
 * @file
 * InfiniBand CM MADs (IBTA vol. 1 chapter 12, MAD header of 13.4) and the
 * private-data header of the RDMA IP CM service annex: pure functions over
 * 256-byte buffers. Field offsets are those of the spec's message tables
 * (counted from the start of the MAD, i.e. 24 + the table's byte offset).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define CM_MAD_LEN	 256
#define CM_MAD_HDR_LEN	 24
#define CM_MGMT_CLASS	 0x07
#define CM_CLASS_VERSION 2
#define CM_METHOD_SEND	 0x03
#define CM_GSI_QKEY	 0x80010000u

/** CM attribute IDs (message types). */
enum cm_attr {
	CM_ATTR_REQ = 0x0010,
	CM_ATTR_MRA = 0x0011,
	CM_ATTR_REJ = 0x0012,
	CM_ATTR_REP = 0x0013,
	CM_ATTR_RTU = 0x0014,
	CM_ATTR_DREQ = 0x0015,
	CM_ATTR_DREP = 0x0016,
	CM_ATTR_SIDR_REQ = 0x0017,
	CM_ATTR_SIDR_REP = 0x0018,
	CM_ATTR_LAP = 0x0019,
	CM_ATTR_APR = 0x001a,
};

/** Private data room per message. */
enum {
	CM_REQ_PDATA = 92,
	CM_MRA_PDATA = 222,
	CM_REJ_PDATA = 148,
	CM_REP_PDATA = 196,
	CM_RTU_PDATA = 224,
	CM_DREQ_PDATA = 220,
	CM_DREP_PDATA = 224,
	CM_SIDR_REQ_PDATA = 216,
	CM_SIDR_REP_PDATA = 136,
	CM_LAP_PDATA = 168,
	CM_APR_PDATA = 148,
	CM_IP_HDR_LEN = 36, /**< the IP CM service annex header */
};

/** REJ reasons used here. */
enum {
	CM_REJ_TIMEOUT = 1,
	CM_REJ_INVALID_SERVICE_ID = 8,
	CM_REJ_STALE_CONN = 10,
	CM_REJ_CONSUMER = 28,
	CM_REJ_VENDOR_OPTION = 35, /**< ECE options not supported */
};

/** APR status (AP status of the APR message) used here. */
enum {
	CM_APR_INVALID_COMM_ID = 1,
	CM_APR_UNSUPPORTED = 2, /**< no alternate path support */
};

/** Decoded CM message: the union of the fields the messages carry. */
struct cm_msg {
	uint16_t attr;		   /**< enum cm_attr */
	uint64_t tid;		   /**< transaction ID */
	uint32_t local_id;	   /**< sender's comm ID (SIDR: request ID) */
	uint32_t remote_id;	   /**< receiver's comm ID (0 in a REQ) */
	uint64_t service_id;	   /**< REQ, SIDR */
	uint64_t ca_guid;	   /**< REQ, REP */
	uint32_t qkey;		   /**< REQ, REP, SIDR_REP */
	uint32_t qpn;		   /**< REQ, REP, DREQ (remote), SIDR_REP */
	uint32_t psn;		   /**< REQ, REP */
	uint8_t resp_res;	   /**< REQ, REP */
	uint8_t init_depth;	   /**< REQ, REP */
	uint8_t remote_cm_timeout; /**< REQ */
	uint8_t local_cm_timeout;  /**< REQ */
	uint8_t transport;	   /**< REQ: 0 RC, 1 UC */
	uint8_t retry_count;	   /**< REQ */
	uint8_t rnr_retry;	   /**< REQ, REP */
	uint8_t mtu;		   /**< REQ: enum ibv_mtu */
	uint8_t max_cm_retries;	   /**< REQ */
	bool srq;		   /**< REQ, REP */
	uint16_t pkey;		   /**< REQ, SIDR_REQ */
	uint8_t sgid[16];	   /**< REQ primary local port GID */
	uint8_t dgid[16];	   /**< REQ primary remote port GID */
	uint8_t traffic_class;	   /**< REQ */
	uint8_t hop_limit;	   /**< REQ */
	uint8_t ack_timeout;	   /**< REQ local ACK timeout */
	uint8_t target_ack_delay;  /**< REP */
	uint8_t msg_ref;     /**< MRA message MRAed / REJ message rejected */
	uint8_t mra_timeout; /**< MRA service timeout */
	uint16_t reason;     /**< REJ */
	uint8_t status;	     /**< SIDR_REP; APR: AP status */
	uint32_t ece_vendor;  /**< REQ, REP: ECE vendor ID (24 bits) */
	uint32_t ece_options; /**< REQ, REP: ECE options (attr. modifier) */
	uint8_t pdata[CM_SIDR_REQ_PDATA + 8]; /**< private data (copy) */
	uint8_t pdata_len;		      /**< its room in this message */
};

/**
 * Build a CM MAD from m into mad (CM_MAD_LEN bytes, zeroed first).
 * @return 0, or -EINVAL for an unknown attribute.
 */
int cm_mad_build(uint8_t *mad, const struct cm_msg *m);

/**
 * Parse a received MAD. Checks the base version, class, class version
 * and method.
 * @return 0; -EPROTO not a CM MAD we take, -EINVAL len < CM_MAD_LEN,
 *   -ENOTSUP an attribute we do not handle (ClassPortInfo).
 */
int cm_mad_parse(const uint8_t *mad, unsigned int len, struct cm_msg *m);

/**
 * The APR that answers a LAP: we keep no alternate paths, so every LAP
 * is refused.
 * @param lap the parsed LAP.
 * @param known whether lap names a connection of ours.
 * @param apr filled: AP status "unsupported request" for a known
 *   connection, "invalid communication ID" otherwise; the IDs swapped,
 *   the LAP's transaction ID.
 */
void cm_lap_answer(const struct cm_msg *lap, bool known, struct cm_msg *apr);

/** Service ID of port space ps (RDMA_PS_*) and port (host order). */
uint64_t cm_service_id(unsigned int ps, uint16_t port);

/**
 * Write the IP CM service annex header (36 bytes) for src -> dst
 * (AF_INET or AF_INET6, same family). @return 0 or -EAFNOSUPPORT.
 */
int cm_ip_hdr_build(uint8_t *p, const struct sockaddr *src,
		    const struct sockaddr *dst);

/**
 * Read the annex header: src (the sender's address and port) and dst
 * (its destination, port 0) as sockaddr_storage.
 * @return 0, or -EPROTO for an unknown version or IP version.
 */
int cm_ip_hdr_parse(const uint8_t *p, struct sockaddr_storage *src,
		    struct sockaddr_storage *dst);

/** Name of a CM attribute, for logs. */
const char *cm_attr_str(uint16_t attr);

#endif /* DPV_CM_MAD_H */
