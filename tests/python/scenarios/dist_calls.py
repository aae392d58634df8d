# SPDX-License-Identifier: MIT
"""One rank of a 2-rank gloo job making each kind of torch.distributed call once,
then 3 DDP steps; rank 0 prints a checksum of the trained parameters.

    dist_calls.py RANK PORT [starve-threads]

starve-threads: before the last step's backward pass, every thread but the
main one is put on the main thread's CPU with the idle scheduling policy, so it
runs only while the main thread waits. The process group's threads then finish
their work after the main thread has moved on, as on a heavily loaded machine:
a job must still end even though they may need the GIL then.
"""

import datetime
import os
import sys
import threading

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

rank, port = int(sys.argv[1]), int(sys.argv[2])
starve = sys.argv[3:] == ["starve-threads"]


def starve_other_threads() -> None:
    cpu = min(os.sched_getaffinity(0))
    me = threading.get_native_id()
    for tid in map(int, os.listdir("/proc/self/task")):
        os.sched_setaffinity(tid, {cpu})
        if tid != me:
            os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))


torch.set_num_threads(1)
# A rank whose peer is gone fails its collective after 2 minutes instead of
# the default 30.
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2,
                        timeout=datetime.timedelta(seconds=120))
dist.broadcast(torch.zeros(16), src=0)                      # 64 bytes
work = dist.all_reduce(torch.ones(8), async_op=True)        # recorded at wait()
assert isinstance(work, dist.Work), type(work)              # torch's own work
work.wait()
work.wait()                                                 # recorded once
unwaited = dist.all_reduce(torch.ones(2), async_op=True)    # never waited: not recorded
unwaited.get_future().wait()
gathered = [None, None]
dist.all_gather_object(gathered, {"rank": rank})            # not its inner all_gather
if rank == 0:
    dist.send(torch.ones(4), dst=1)                         # 16 bytes
else:
    dist.recv(torch.empty(4), src=0)
dist.barrier()

torch.manual_seed(0)
model = DistributedDataParallel(torch.nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.full((4, 8), float(rank + step))
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    if starve and step == 2:
        starve_other_threads()
    loss.backward()
    optimizer.step()
if rank == 0:
    print("checksum", repr(sum(float(p.sum()) for p in model.parameters())))
dist.destroy_process_group()
