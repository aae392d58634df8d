# SPDX-License-Identifier: MIT
"""One device span longer than the collector's lateness (2 s), for the
end-to-end test of CUDA-event spans: a rank that declares cuda-events runs a
fake 5 s piece of device work (tests/python/fake_cuda_runtime.py) 0.5 s after
it starts, resolved by the SpanResolver on its side thread as with a GPU, and
stays 2.5 s longer. Prints the resolver's counters."""

import sys
import time

import stallwatch
from stallwatch import _agent
from stallwatch._device_spans import SpanResolver
from fake_cuda_runtime import FakeCuda

MS = 1_000_000


def main() -> int:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    stallwatch.gpu_start("cuda-events")
    cuda = FakeCuda(_agent.now_ns, devices=1)
    resolver = SpanResolver(device_guard=cuda.device)
    resolver.start()
    stream = cuda.current_stream(0)
    lane = _agent.device_lane(0, stream.stream_id)
    time.sleep(0.5)
    start = cuda.Event(enable_timing=True)
    start.record(stream)
    cuda.launch(stream, int(seconds * 1000) * MS)
    end = cuda.Event(enable_timing=True)
    end.record(stream)
    resolver.submit("step", 0, lane, start, end)
    time.sleep(seconds + 2.5)
    resolver.stop()
    stallwatch.gpu_stop()
    print(stallwatch.gpu_stats()["source"], resolver.stats()["resolved"], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
