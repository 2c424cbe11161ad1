#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The implemented mlx5 direct-verbs entry points on a live dpverbs device
# (through our libibverbs.so.1, as an unmodified program would):
# mlx5dv_is_supported, mlx5dv_query_device, mlx5dv_open_device (plain and
# DEVX), mlx5dv_create_cq with and without mlx5 attributes (64- and
# 128-byte CQEs, padding, bad sizes), mlx5dv_init_obj on a CQ,
# mlx5dv_query_port and mlx5dv_alloc_dm (MEMIC).
#
# Usage: fast-dv-query.sh <our lib dir>
# Environment: DPV_DV_DEV (default: the first device named dpv*).
set -u
LIBDIR=$(readlink -f "${1:?usage: $0 <lib dir>}")
for l in libibverbs libmlx5; do
	if [ ! -e "$LIBDIR/$l.so.1" ]; then
		echo "FAIL: $LIBDIR/$l.so.1 does not exist (not built yet?)"
		exit 1
	fi
done

LD_LIBRARY_PATH="$LIBDIR" LIBDIR="$LIBDIR" timeout -k 5 60 \
	/usr/bin/python3 - <<'EOF'
import ctypes as C, errno, os, sys

libdir = os.environ['LIBDIR']
vb = C.CDLL(os.path.join(libdir, 'libibverbs.so.1'), use_errno=True)
dv = C.CDLL(os.path.join(libdir, 'libmlx5.so.1'), use_errno=True)
P = C.c_void_p

vb.ibv_get_device_list.restype = C.POINTER(P)
vb.ibv_get_device_list.argtypes = [C.POINTER(C.c_int)]
vb.ibv_free_device_list.argtypes = [C.POINTER(P)]
vb.ibv_get_device_name.restype = C.c_char_p
vb.ibv_get_device_name.argtypes = [P]
vb.ibv_open_device.restype = P
vb.ibv_open_device.argtypes = [P]
vb.ibv_close_device.argtypes = [P]
vb.ibv_destroy_cq.argtypes = [P]
dv.mlx5dv_is_supported.restype = C.c_bool
dv.mlx5dv_is_supported.argtypes = [P]
dv.mlx5dv_query_device.argtypes = [P, P]
dv.mlx5dv_open_device.restype = P
dv.mlx5dv_open_device.argtypes = [P, P]
dv.mlx5dv_create_cq.restype = P
dv.mlx5dv_create_cq.argtypes = [P, P, P]
dv.mlx5dv_init_obj.argtypes = [P, C.c_uint64]
dv._mlx5dv_query_port.argtypes = [P, C.c_uint32, P, C.c_size_t]
dv.mlx5dv_alloc_dm.restype = P
dv.mlx5dv_alloc_dm.argtypes = [P, P, P]


class Mlx5dvContextHead(C.Structure):
    # struct mlx5dv_context starts: uint8_t version; uint64_t flags;
    # uint64_t comp_mask; the rest is padded room for the caps.
    _fields_ = [('version', C.c_uint8), ('flags', C.c_uint64),
                ('comp_mask', C.c_uint64), ('rest', C.c_uint8 * 256)]


class Mlx5dvContextAttr(C.Structure):
    _fields_ = [('flags', C.c_uint32), ('comp_mask', C.c_uint64)]


class AllocDmAttr(C.Structure):      # struct ibv_alloc_dm_attr
    _fields_ = [('length', C.c_size_t), ('log_align_req', C.c_uint32),
                ('comp_mask', C.c_uint32)]


class Mlx5dvAllocDmAttr(C.Structure):
    _fields_ = [('type', C.c_int), ('comp_mask', C.c_uint64)]


DM_TO = C.CFUNCTYPE(C.c_int, P, C.c_uint64, P, C.c_size_t)
DM_FROM = C.CFUNCTYPE(C.c_int, P, P, C.c_uint64, C.c_size_t)


class IbvDm(C.Structure):            # struct ibv_dm
    _fields_ = [('context', P), ('to_dm', DM_TO), ('from_dm', DM_FROM),
                ('comp_mask', C.c_uint32), ('handle', C.c_uint32)]


class CqInitAttrEx(C.Structure):
    _fields_ = [('cqe', C.c_uint32), ('cq_context', P), ('channel', P),
                ('comp_vector', C.c_uint32), ('wc_flags', C.c_uint64),
                ('comp_mask', C.c_uint32), ('flags', C.c_uint32),
                ('parent_domain', P)]


class Mlx5dvObj(C.Structure):
    # seven {in, out} pointer pairs: qp, cq, srq, rwq, dm, ah, pd
    _fields_ = [('p', P * 14)]


class Mlx5dvCq(C.Structure):
    _fields_ = [('buf', P), ('dbrec', P), ('cqe_cnt', C.c_uint32),
                ('cqe_size', C.c_uint32), ('cq_uar', P), ('cqn', C.c_uint32),
                ('comp_mask', C.c_uint64)]


class Mlx5dvCqInitAttr(C.Structure):
    _fields_ = [('comp_mask', C.c_uint64), ('cqe_comp_res_format', C.c_uint8),
                ('flags', C.c_uint32), ('cqe_size', C.c_uint16)]


fails = []


def check(cond, what):
    print('%s: %s' % ('ok' if cond else 'FAIL', what))
    if not cond:
        fails.append(what)


n = C.c_int(0)
lst = vb.ibv_get_device_list(C.byref(n))
if not lst or n.value == 0:
    print('SKIP: no verbs device (errno %d)' % C.get_errno())
    sys.exit(77)
want = os.environ.get('DPV_DV_DEV')
dev = None
for i in range(n.value):
    name = vb.ibv_get_device_name(lst[i]).decode()
    if (want and name == want) or (not want and name.startswith('dpv')):
        dev = lst[i]
        break
if dev is None:
    print('SKIP: no dpverbs device among %d' % n.value)
    sys.exit(77)
print('device %s' % name)

check(dv.mlx5dv_is_supported(dev), 'mlx5dv_is_supported(%s) is true' % name)
ctx = vb.ibv_open_device(dev)
check(bool(ctx), 'ibv_open_device')
if ctx:
    out = Mlx5dvContextHead()
    out.comp_mask = (1 << 14) - 1          # every group this ABI defines
    out.flags = 0xdead
    for i in range(len(out.rest)):
        out.rest[i] = 0xff
    rc = dv.mlx5dv_query_device(ctx, C.byref(out))
    check(rc == 0, 'mlx5dv_query_device returns 0 (got %d)' % rc)
    # Clock groups (bits 5 and 8) need a mapped HCA clock: not reported.
    check(out.comp_mask & ((1 << 5) | (1 << 8)) == 0 and out.comp_mask != 0,
          'comp_mask answered 0x%x (no clock groups)' % out.comp_mask)
    # Our CQEs are version 0 (SRQ number in srqn_uidx: test_verbs_dv.c),
    # no MPW: CQE_V1 (bit 0) clear; 128-byte CQEs can be padded:
    # CQE_128B_PAD (bit 5) and compressed: CQE_128B_COMP (bit 4); RC QPs
    # take packet-based credits: PACKET_BASED_CREDIT_MODE (bit 6).
    check(out.flags == (1 << 6) | (1 << 5) | (1 << 4) and out.version == 0,
          'version %d flags 0x%x (PACKET_BASED_CREDIT_MODE, CQE_128B_PAD, '
          'CQE_128B_COMP; CQE_V1 clear: version-0 CQEs)'
          % (out.version, out.flags))
    # cqe_comp_caps (offset 24): max_num 64, HASH | CSUM | CSUM_STRIDX
    check(bytes(out.rest[0:8]) == bytes([64, 0, 0, 0, 7, 0, 0, 0]),
          'cqe_comp_caps max_num 64, formats 7 (got %s)'
          % bytes(out.rest[0:8]).hex())
    # Striding RQ caps (offsets 40..60 of the struct, rest[16:36]): none.
    check(out.comp_mask & (1 << 2) and all(b == 0 for b in out.rest[16:36]),
          'striding RQ answered with zero caps')
    # Offsets 32..68 (sw_parsing_caps .. max_dynamic_bfregs) and 80..84
    # (flow_action_flags) hold groups reported as "none", but for
    # tunnel_offloads_caps (offset 60): VXLAN, GRE and GENEVE.
    check(all(b == 0 for b in out.rest[8:36] + out.rest[40:44] +
              out.rest[56:60]),
          'reported capability fields are zero (nothing offloaded)')
    # dc_odp_caps (offset 84): SEND, WRITE, READ, ATOMIC, SRQ_RECV
    check(bytes(out.rest[60:64]) == bytes([0x3d, 0, 0, 0]),
          'dc_odp_caps SEND | WRITE | READ | ATOMIC | SRQ_RECV (got %s)'
          % bytes(out.rest[60:64]).hex())
    check(bytes(out.rest[36:40]) == bytes([7, 0, 0, 0]),
          'tunnel_offloads_caps VXLAN | GRE | GENEVE (got %s)'
          % bytes(out.rest[36:40]).hex())
    check(all(b == 0xff for b in out.rest[48:56]),
          'unreported clock field left untouched')
    # sig_caps (offset 104, rest[80:96]): block sizes 512, 520, 4048,
    # 4096, 4160; T10-DIF and CRC; CRC and checksum guards; CRC32 and
    # CRC32C (no CRC64_XP10)
    check(bytes(out.rest[80:96]) ==
          bytes([0x1f] + [0] * 7 + [3, 0, 0, 0, 3, 0, 3, 0]),
          'sig_caps: what the engine computes (got %s)'
          % bytes(out.rest[80:96]).hex())

    cqa = CqInitAttrEx(cqe=16)
    # CQE compression without a format or with two, a size neither 64
    # nor 128, padding of 64-byte CQEs: EINVAL
    for cm, cf, fl, sz, what in ((1, 0, 0, 0, 'CQE compression, no format'),
                                 (1, 3, 0, 0, 'CQE compression, 2 formats'),
                                 (4, 0, 0, 100, 'cqe_size 100'),
                                 (6, 0, 1, 64, 'padding of 64-byte CQEs'),
                                 (2, 0, 2, 0, 'unknown flag')):
        mcq = Mlx5dvCqInitAttr(comp_mask=cm, cqe_comp_res_format=cf,
                               flags=fl, cqe_size=sz)
        C.set_errno(0)
        cq = dv.mlx5dv_create_cq(ctx, C.byref(cqa), C.byref(mcq))
        e = C.get_errno()
        check(not cq and e == errno.EINVAL,
              'mlx5dv_create_cq, %s: EINVAL (errno %d)' % (what, e))
    # one format, 64- and 128-byte CQEs: created
    for cf in (1, 2, 4):
        for sz in (64, 128):
            mcq = Mlx5dvCqInitAttr(comp_mask=5, cqe_comp_res_format=cf,
                                   cqe_size=sz)
            cq = dv.mlx5dv_create_cq(ctx, C.byref(cqa), C.byref(mcq))
            check(bool(cq), 'mlx5dv_create_cq, compression format %d, '
                  'cqe_size %d (errno %d)' % (cf, sz, C.get_errno()))
            if cq:
                vb.ibv_destroy_cq(cq)
    for pad in (0, 1):
        mcq = Mlx5dvCqInitAttr(comp_mask=6, flags=pad, cqe_size=128)
        cq = dv.mlx5dv_create_cq(ctx, C.byref(cqa), C.byref(mcq))
        check(bool(cq), 'mlx5dv_create_cq cqe_size 128, pad %d (errno %d)'
              % (pad, C.get_errno()))
        if cq:
            obj = Mlx5dvObj()
            dcq = Mlx5dvCq()
            obj.p[2] = cq
            obj.p[3] = C.cast(C.byref(dcq), P)
            rc = dv.mlx5dv_init_obj(C.byref(obj), 2)
            ring = (C.string_at(dcq.buf, dcq.cqe_cnt * 128)
                    if rc == 0 and dcq.buf else b'')
            check(rc == 0 and dcq.cqe_size == 128 and len(ring) > 0 and
                  all(ring[i * 128 + 127] >> 4 == 0xf
                      for i in range(dcq.cqe_cnt)),
                  'mlx5dv_cq of it: cqe_size %d, entries invalid at byte 127'
                  % dcq.cqe_size)
            vb.ibv_destroy_cq(cq)
    mcq = Mlx5dvCqInitAttr(comp_mask=0)
    # mlx5dv_query_port: a port without e-switch attributes (flags 0,
    # every field 0, written up to the length given); no port 0 or 2
    info = (C.c_uint8 * 48)(*([0xff] * 48))
    rc = dv._mlx5dv_query_port(ctx, 1, C.cast(info, P), 40)
    check(rc == 0 and all(b == 0 for b in info[:40]) and
          all(b == 0xff for b in info[40:]),
          'mlx5dv_query_port(1): 0, zeroed (rc %d)' % rc)
    for port in (0, 2):
        rc = dv._mlx5dv_query_port(ctx, port, C.cast(info, P), 40)
        check(rc == errno.EINVAL,
              'mlx5dv_query_port(%d): EINVAL (got %d)' % (port, rc))
    cq = dv.mlx5dv_create_cq(ctx, C.byref(cqa), C.byref(mcq))
    check(bool(cq), 'mlx5dv_create_cq without mlx5 attributes (errno %d)'
          % C.get_errno())
    if cq:
        # mlx5dv_init_obj (both versions resolve to the same code): the
        # CQ's ring as an mlx5 program sees it
        obj = Mlx5dvObj()
        dcq = Mlx5dvCq(comp_mask=0xff)
        obj.p[2] = cq
        obj.p[3] = C.cast(C.byref(dcq), P)
        rc = dv.mlx5dv_init_obj(C.byref(obj), 2)   # MLX5DV_OBJ_CQ
        check(rc == 0, 'mlx5dv_init_obj(CQ) returns 0 (got %d)' % rc)
        check(bool(dcq.buf) and bool(dcq.dbrec) and bool(dcq.cq_uar) and
              dcq.cqe_size == 64 and dcq.cqe_cnt >= 17 and
              dcq.cqe_cnt & (dcq.cqe_cnt - 1) == 0 and dcq.cqn != 0 and
              dcq.comp_mask == 0,
              'mlx5dv_cq: %d CQEs of %d bytes, cqn %d' %
              (dcq.cqe_cnt, dcq.cqe_size, dcq.cqn))
        # every CQE starts invalid (opcode nibble 0xf in op_own)
        ring = C.string_at(dcq.buf, dcq.cqe_cnt * 64) if dcq.buf else b''
        check(len(ring) > 0 and
              all(ring[i * 64 + 63] >> 4 == 0xf for i in range(dcq.cqe_cnt)),
              'CQEs in the dv buffer are all invalid')
        rc = dv.mlx5dv_init_obj(None, 2)
        check(rc == errno.EINVAL, 'mlx5dv_init_obj(NULL): EINVAL (%d)' % rc)
        rc = vb.ibv_destroy_cq(cq)
        check(rc == 0, 'ibv_destroy_cq of it (got %d)' % rc)
    # mlx5dv_alloc_dm: MEMIC is ibv_alloc_dm's device memory (its words
    # written and read back through the ibv_dm's own copy functions);
    # the ICM kinds are not supported; a comp_mask is refused
    dma = AllocDmAttr(length=256)
    for kind, mask, want in ((1, 0, errno.EOPNOTSUPP),
                             (0, 1, errno.EINVAL)):
        C.set_errno(0)
        dm = dv.mlx5dv_alloc_dm(ctx, C.byref(dma),
                                C.byref(Mlx5dvAllocDmAttr(type=kind,
                                                          comp_mask=mask)))
        e = C.get_errno()
        check(not dm and e == want,
              'mlx5dv_alloc_dm type %d comp_mask %d: errno %d (got %d)'
              % (kind, mask, want, e))
    dm = dv.mlx5dv_alloc_dm(ctx, C.byref(dma),
                            C.byref(Mlx5dvAllocDmAttr(type=0)))
    check(bool(dm), 'mlx5dv_alloc_dm MEMIC (errno %d)' % C.get_errno())
    if dm:
        ibdm = C.cast(dm, C.POINTER(IbvDm)).contents
        src = (C.c_uint8 * 16)(*range(1, 17))
        back = (C.c_uint8 * 16)()
        rc = ibdm.to_dm(dm, 32, C.cast(src, P), 16)
        rc2 = ibdm.from_dm(C.cast(back, P), dm, 32, 16)
        check(rc == 0 and rc2 == 0 and bytes(back) == bytes(src),
              'MEMIC memory: 16 bytes there and back (rc %d %d)'
              % (rc, rc2))
        check(ibdm.to_dm(dm, 252, C.cast(src, P), 8) == errno.EFAULT,
              'MEMIC memory: beyond its end EFAULT')
        # (ibv_free_dm is an inline of verbs.h: test_verbs_dm.c frees)
    vb.ibv_close_device(ctx)

attr = Mlx5dvContextAttr(flags=1)          # MLX5DV_CONTEXT_FLAGS_DEVX
C.set_errno(0)
c2 = dv.mlx5dv_open_device(dev, C.byref(attr))
e = C.get_errno()
check(not c2 and e == errno.EOPNOTSUPP,
      'mlx5dv_open_device(DEVX): EOPNOTSUPP (errno %d)' % e)
attr.flags = 0
c2 = dv.mlx5dv_open_device(dev, C.byref(attr))
check(bool(c2), 'mlx5dv_open_device without DEVX (errno %d)' % C.get_errno())
if c2:
    vb.ibv_close_device(c2)
vb.ibv_free_device_list(lst)
sys.exit(1 if fails else 0)
EOF
