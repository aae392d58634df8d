# SPDX-License-Identifier: MIT
"""Test support for the POSIX capture: where the built library and probe are, and how
to read regions back from captured events: a call timed whole is a Complete with the
CompleteValue flag (value = bytes, region_id = file id); a longer one a Begin (value = file id)
and an End (value = bytes)."""

from __future__ import annotations

import os
from typing import Dict, List, Tuple

import pytest

from wire_capture import Capture

LIB = os.environ.get("STALLWATCH_TEST_POSIX_LIB", "")
PROBE = os.environ.get("STALLWATCH_TEST_POSIX_PROBE", "")

# wire EventFlags.CompleteValue: the Complete's value counts (bytes moved).
COMPLETE_VALUE = 2

requires_posix = pytest.mark.skipif(not (os.path.isfile(LIB) and os.path.isfile(PROBE)),
                                    reason="libstallwatch_posix.so / posix_probe not built")


class Region:
    """One closed POSIX/STDIO region: what was called on which file, bytes moved."""

    def __init__(self, pid: int, cat: str, name: str, path: str, value: int, seconds: float):
        self.pid, self.cat, self.name, self.path = pid, cat, name, path
        self.value, self.seconds = value, seconds

    def __repr__(self) -> str:
        return f"{self.cat}/{self.name}({self.path})={self.value}"


def regions(capture: Capture) -> List[Region]:
    """Every closed POSIX or STDIO region the capture received, in order per process."""
    paths: Dict[Tuple[int, int], str] = {}
    open_regions: Dict[Tuple[int, int, int], Tuple[str, str, int, int]] = {}
    out: List[Region] = []
    for e in capture.events():
        if e.kind == "mark" and e.cat == "posix_file":
            paths[(e.pid, e.value)] = e.name
        elif e.kind == "complete" and e.cat in ("POSIX", "STDIO"):
            assert e.flags & COMPLETE_VALUE, f"a whole call without its value: {e}"
            out.append(Region(e.pid, e.cat, e.name, paths.get((e.pid, e.region_id), ""), e.value,
                              e.dur_ns / 1e9))
        elif e.kind == "begin" and e.cat in ("POSIX", "STDIO"):
            open_regions[(e.pid, e.tid, e.region_id)] = (e.cat, e.name, e.value, e.ts_ns)
        elif e.kind == "end":
            begun = open_regions.pop((e.pid, e.tid, e.region_id), None)
            if begun is not None:
                cat, name, file_id, start = begun
                out.append(Region(e.pid, cat, name, paths.get((e.pid, file_id), ""), e.value,
                                  (e.ts_ns - start) / 1e9))
    return out
