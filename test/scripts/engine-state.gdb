# gdb command file (interop-common.sh's ic_watch): the state of every
# dpverbs device's engines in a process about to be timed out, beside its
# threads' stacks. It reads library internals; after a change of theirs it
# prints gdb's error and stops, nothing worse.
set pagination off
set $d = 0
while $d < 64
  set $dev = 'verbs_device.c'::g_devs[$d]
  if $dev != 0
    printf "device %s: shards %u\n", $dev->vdev.device.name, $dev->nshards
    if $dev->progress_thr != 0
      printf " progress thread: kick %d, application calls %lu\n", $dev->progress_thr->kick, $dev->progress_thr->app_calls
    end
    set $s = 0
    while $s < $dev->nshards
      set $e = $dev->engines[$s]
      printf " engine %u: qps %u, run list %u, frames queued %u, posts unbuilt %u, post missed %u, locked %d\n", $s, $e->nqps, $e->nrun, $e->ntx, $e->posts_unbuilt, $e->post_missed, $e->lock.locked
      set $i = 0
      set $seen = 0
      while $i <= $e->qpn_mask && $i < 4096 && $seen < 16
        set $q = $e->qpn_tab[$i]
        if $q != 0
          printf "  qp %u type %d state %d active %d: wqes %u fetched %u sent %u done %u; psn next %u acked %u timer %lu; expects psn %u msn %u\n", $q->qpn, $q->type, $q->state, $q->active, $q->sq ? $q->sq->wq.head : 0, $q->s_head, $q->s_cur, $q->s_tail, $q->req.psn, $q->comp.psn, $q->comp.deadline, $q->resp.epsn, $q->resp.msn
          set $seen = $seen + 1
        end
        set $i = $i + 1
      end
      set $s = $s + 1
    end
  end
  set $d = $d + 1
end
detach
quit
