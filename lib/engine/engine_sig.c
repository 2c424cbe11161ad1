/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Block signature offload (mlx5dv_wr_set_mkey_sig_block): the data of a
 * signature key moves between its memory domain and its wire domain
 * block by block, each domain with or without a signature field after
 * every block. Going out (a local SGE read for the wire) the memory's
 * field is checked and the wire's inserted; coming in (written into the
 * memory) the wire's field is checked and the memory's written. Only
 * keys with a signature come here (struct dpv_engine_key.sig).
 *
 * Coordinates: the engine addresses such a key in wire bytes (block b at
 * b * (block + wire field)); dpv_sig_span() turns an SGE's data
 * addresses into them once, when its WQE is taken.
 */
#include <rte_hash_crc.h>

#include "dpv_engine_opts.h"
#include "dpv_roce_icrc.h"
#include "engine_int.h"

#define SIG_MAX_BLOCK 4160u
#define SIG_FIELD_MAX 8u

/* T10-DIF guard: CRC-16, polynomial 0x8bb7, MSB first, no final xor. */
static uint16_t
crc16_t10(uint16_t crc, const uint8_t *p, uint32_t len)
{
	static uint16_t tbl[256];
	static bool init;

	if (unlikely(!__atomic_load_n(&init, __ATOMIC_ACQUIRE))) {
		for (unsigned int i = 0; i < 256; i++) {
			uint16_t c = (uint16_t)(i << 8);

			for (int j = 0; j < 8; j++)
				c = (uint16_t)(c & 0x8000 ? (c << 1) ^ 0x8bb7
							  : c << 1);
			tbl[i] = c;
		}
		__atomic_store_n(&init, true, __ATOMIC_RELEASE);
	}
	while (len--)
		crc = (uint16_t)((crc << 8) ^ tbl[(crc >> 8) ^ *p++]);
	return crc;
}

/* T10-DIF guard as an IP checksum: the one's complement of the one's
 * complement sum of the big-endian 16-bit words, the seed added first. */
static uint16_t
csum16(uint16_t seed, const uint8_t *p, uint32_t len)
{
	uint32_t sum = seed;

	for (uint32_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static uint64_t
get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

uint64_t
dpv_sig_guard(uint8_t kind, uint32_t seed, const uint8_t *data, uint32_t len)
{
	switch (kind) {
	case DPV_SIG_CRC32:
		return dpv_crc32_update(~seed, data, len);
	case DPV_SIG_CRC32C:
		return (uint32_t)~rte_hash_crc(data, len, seed);
	case DPV_SIG_T10DIF_CRC:
		return crc16_t10((uint16_t)seed, data, len);
	case DPV_SIG_T10DIF_CSUM:
		return csum16((uint16_t)seed, data, len);
	default:
		return 0;
	}
}

static bool
is_dif(uint8_t kind)
{
	return kind == DPV_SIG_T10DIF_CRC || kind == DPV_SIG_T10DIF_CSUM;
}

/* The field domain d computes for data block bno (number in the key). */
static void
sig_field(const struct dpv_sig_domain *d, uint64_t bno, const uint8_t *data,
	  uint8_t *f)
{
	uint64_t g = dpv_sig_guard(d->kind, d->seed, data, d->block);

	if (!is_dif(d->kind)) {
		put_be(f, g, 4);
		return;
	}
	put_be(f, g, 2);
	put_be(f + 2, d->app_tag, 2);
	put_be(f + 4,
	       (uint32_t)(d->ref_tag +
			  (d->flags & DPV_SIG_DIF_REF_REMAP ? bno : 0)),
	       4);
}

/* Keep the key's first error (the application clears it). */
static void
sig_error(struct dpv_sig *s, uint32_t type, uint64_t actual, uint64_t expected,
	  uint64_t offset)
{
	if (__atomic_load_n(&s->err_type, __ATOMIC_ACQUIRE) != DPV_SIG_ERR_NONE)
		return;
	s->err_actual = actual;
	s->err_expected = expected;
	s->err_offset = offset;
	__atomic_store_n(&s->err_type, type, __ATOMIC_RELEASE);
}

/* Check the input field in (domain d) against the data's: the checked
 * bytes of guard, application tag, reference tag, in that order; true
 * if one is bad. */
static bool
sig_check(struct dpv_sig *s, const struct dpv_sig_domain *d, uint64_t bno,
	  const uint8_t *data, const uint8_t *in)
{
	static const struct {
		uint8_t at, len, type;
	} dif[] = { { 0, 2, DPV_SIG_ERR_GUARD },
		    { 2, 2, DPV_SIG_ERR_APPTAG },
		    { 4, 4, DPV_SIG_ERR_REFTAG } },
	  crc[] = { { 0, 4, DPV_SIG_ERR_GUARD } };
	uint8_t want[SIG_FIELD_MAX];
	bool d10 = is_dif(d->kind);
	unsigned int np = d10 ? 3 : 1;

	if (s->check_mask == 0)
		return false;
	if (d10 && get_be(in + 2, 2) == 0xffff &&
	    ((d->flags & DPV_SIG_DIF_APP_ESCAPE) ||
	     ((d->flags & DPV_SIG_DIF_APP_REF_ESCAPE) &&
	      get_be(in + 4, 4) == 0xffffffffu)))
		return false;
	sig_field(d, bno, data, want);
	for (unsigned int i = 0; i < np; i++) {
		unsigned int at = d10 ? dif[i].at : crc[i].at;
		unsigned int len = d10 ? dif[i].len : crc[i].len;
		bool bad = false;

		for (unsigned int b = at; b < at + len; b++)
			if ((s->check_mask & (0x80u >> b)) && want[b] != in[b])
				bad = true;
		if (bad) {
			sig_error(s, d10 ? dif[i].type : crc[i].type,
				  get_be(want + at, len), get_be(in + at, len),
				  bno * d->block);
			return true;
		}
	}
	return false;
}

/* A block failed its check on QP qp: signature pipelining stops the SQ
 * before its next fenced WQE (engine_req.c). */
static void
sig_failed(struct dpv_eqp *qp)
{
	if (qp->opts & DPV_QP_OPT_SIG_PIPE)
		qp->sigp |= SIGP_ERR;
}

/* The output field of domain out, from the data and (if the input domain
 * has one) the input field: copy_mask bytes copied, the others computed. */
static void
sig_output(const struct dpv_sig *s, const struct dpv_sig_domain *out,
	   const struct dpv_sig_domain *in, uint64_t bno, const uint8_t *data,
	   const uint8_t *infield, uint8_t *f)
{
	sig_field(out, bno, data, f);
	if (in->kind == DPV_SIG_NONE || in->size != out->size)
		return;
	for (unsigned int b = 0; b < out->size; b++)
		if (s->copy_mask & (0x80u >> b))
			f[b] = infield[b];
}

static uint32_t
sig_block(const struct dpv_sig *s)
{
	return s->mem.kind != DPV_SIG_NONE ? s->mem.block : s->wire.block;
}

enum dpv_key_status
dpv_sig_span(const struct dpv_engine_key *k, struct dpv_sge *sge,
	     uint64_t *total)
{
	const struct dpv_sig *s = k->sig;
	uint64_t b = sig_block(s);
	uint64_t b0 = sge->addr / b, nb = sge->length / b;
	uint64_t wlen = nb * (b + s->wire.size);

	if (sge->addr % b || sge->length % b ||
	    (b0 + nb) * (b + s->mem.size) > k->length || wlen > UINT32_MAX)
		return DPV_KEY_BAD_BOUNDS;
	*total += wlen - sge->length;
	sge->addr = b0 * (b + s->wire.size);
	sge->length = (uint32_t)wlen;
	return DPV_KEY_OK;
}

/* Memory block bno: its data into data[], its field (if any) into f[]. */
static enum dpv_key_status
mem_read(struct dpv_eqp *qp, const struct dpv_engine_key *k, uint64_t bno,
	 uint8_t *data, uint8_t *f, uint32_t need)
{
	const struct dpv_sig *s = k->sig;
	uint32_t b = sig_block(s);
	uint64_t at = bno * (b + s->mem.size);
	enum dpv_key_status st;

	st = dpv_engine_key_walk(qp, k, at, data, b, need, -1);
	if (st == DPV_KEY_OK && s->mem.size)
		st = dpv_engine_key_walk(qp, k, at + b, f, s->mem.size, need,
					 -1);
	return st;
}

enum dpv_key_status
dpv_sig_walk(struct dpv_eqp *qp, const struct dpv_engine_key *k, uint64_t va,
	     uint8_t *buf, uint64_t len, uint32_t need, int dir)
{
	struct dpv_sig *s = k->sig;
	const uint32_t b = sig_block(s);
	const uint64_t bw = (uint64_t)b + s->wire.size;
	const uint64_t bm = (uint64_t)b + s->mem.size;
	uint8_t data[SIG_MAX_BLOCK];
	uint8_t in[SIG_FIELD_MAX], out[SIG_FIELD_MAX];
	enum dpv_key_status st;

	while (len) {
		uint64_t bno = va / bw, pos = va % bw;
		uint64_t n = RTE_MIN(len, bw - pos);
		bool end = pos + n == bw;

		if (pos < b) {
			uint64_t dn = RTE_MIN(n, b - pos);

			st = dpv_engine_key_walk(qp, k, bno * bm + pos, buf, dn,
						 need, dir);
			if (st != DPV_KEY_OK)
				return st;
		}
		if (dir < 0 && (pos + n > b || (end && s->mem.size))) {
			/* out: the memory's field checked, the wire's made */
			st = mem_read(qp, k, bno, data, in, need);
			if (st != DPV_KEY_OK)
				return st;
			if (pos + n > b) {
				uint64_t f0 = RTE_MAX(pos, (uint64_t)b) - b;

				sig_output(s, &s->wire, &s->mem, bno, data, in,
					   out);
				memcpy(buf + (f0 + b - pos), out + f0,
				       pos + n - b - f0);
			}
			if (end && s->mem.size &&
			    sig_check(s, &s->mem, bno, data, in))
				sig_failed(qp);
		} else if (dir > 0 && pos + n > b) {
			uint64_t f0 = RTE_MAX(pos, (uint64_t)b) - b;

			/* in: the wire's field kept until the block ends */
			memcpy(s->stash + f0, buf + (f0 + b - pos),
			       pos + n - b - f0);
		}
		if (dir > 0 && end) {
			/* in: the wire's field checked, the memory's made */
			st = dpv_engine_key_walk(qp, k, bno * bm, data, b,
						 need, -1);
			if (st != DPV_KEY_OK)
				return st;
			if (s->wire.size &&
			    sig_check(s, &s->wire, bno, data, s->stash))
				sig_failed(qp);
			if (s->mem.size) {
				sig_output(s, &s->mem, &s->wire, bno, data,
					   s->stash, out);
				st = dpv_engine_key_walk(qp, k, bno * bm + b,
							 out, s->mem.size,
							 need, 1);
				if (st != DPV_KEY_OK)
					return st;
			}
		}
		buf += dir ? n : 0;
		va += n;
		len -= n;
	}
	return DPV_KEY_OK;
}
