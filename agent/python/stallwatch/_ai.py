# SPDX-License-Identifier: MIT
"""The ``ai`` tree: pydftracer's categories and events as :class:`DFTracerAI` nodes.

``ai`` is the root (``ai_root``); ``ai.compute.forward`` is the node named
``forward`` in category ``compute``, and so on for every category of
pydftracer's AI logging API. Names are pydftracer's exactly.
"""

from __future__ import annotations

import enum
import sys
from enum import auto
from typing import Any, List, Optional, Type

from stallwatch._ai_node import (
    BATCH_SIZE_COUNTER,
    BLOCK_NAME,
    CTX_SEPARATOR,
    INIT_NAME,
    ITER_COUNT_NAME,
    ITER_NAME,
    PIPELINE_CAT,
    ROOT_CAT,
    ROOT_NAME,
    START_METADATA_NAME,
    STEP_MARK,
    STOP_METADATA_NAME,
    DFTracerAI,
    get_iter_block_name,
    get_iter_handle_name,
)


if sys.version_info >= (3, 11):
    _StrEnum = enum.StrEnum
else:

    class _StrEnum(str, enum.Enum):
        """``enum.StrEnum`` before Python 3.11: members are their lower-cased names
        and ``str()``/``format()`` give the value."""

        @staticmethod
        def _generate_next_value_(name: str, start: int, count: int,
                                  last_values: List[Any]) -> str:
            return name.lower()

        def __str__(self) -> str:
            return str.__str__(self)

        def __format__(self, format_spec: str) -> str:
            return str.__format__(self, format_spec)


class ProfileCategory(_StrEnum):
    """The categories of the ``ai`` tree (pydftracer names)."""

    COMPUTE = auto()
    DATA = auto()
    DATALOADER = auto()
    COMM = auto()
    DEVICE = auto()
    CHECKPOINT = auto()
    PIPELINE = auto()


class ComputeEvent(_StrEnum):
    FORWARD = auto()
    BACKWARD = auto()
    STEP = auto()


class DataEvent(_StrEnum):
    PREPROCESS = auto()
    ITEM = auto()


class DataLoaderEvent(_StrEnum):
    FETCH = auto()


class CommunicationEvent(_StrEnum):
    SEND = auto()
    RECEIVE = auto()
    BARRIER = auto()
    BCAST = auto()
    REDUCE = auto()
    ALL_REDUCE = auto()
    GATHER = auto()
    ALL_GATHER = auto()
    SCATTER = auto()
    REDUCE_SCATTER = auto()
    ALL_TO_ALL = auto()


class DeviceEvent(_StrEnum):
    TRANSFER = auto()


class CheckpointEvent(_StrEnum):
    CAPTURE = auto()
    RESTART = auto()


class PipelineEvent(_StrEnum):
    EPOCH = auto()
    TRAIN = auto()
    EVALUATE = auto()
    TEST = auto()


class _Category(DFTracerAI):
    """A category node whose children are named by an event enum."""

    _category: ProfileCategory
    _events: Type[_StrEnum]

    def __init__(self, epoch: Optional[int] = None, step: Optional[int] = None,
                 image_idx: Optional[int] = None, image_size: Optional[Any] = None,
                 enable: bool = True) -> None:
        super().__init__(cat=str(self._category), name=str(self._category), epoch=epoch,
                         step=step, image_idx=image_idx, image_size=image_size, enable=enable)
        for event in self._events:
            child = DFTracerAI(cat=self.cat, name=str(event), epoch=epoch, step=step,
                               image_idx=image_idx, image_size=image_size, enable=enable)
            self._children[str(event)] = child
            setattr(self, str(event), child)


class Compute(_Category):
    _category, _events = ProfileCategory.COMPUTE, ComputeEvent
    forward: DFTracerAI
    backward: DFTracerAI
    step: DFTracerAI


class Data(_Category):
    _category, _events = ProfileCategory.DATA, DataEvent
    preprocess: DFTracerAI
    item: DFTracerAI


class DataLoader(_Category):
    _category, _events = ProfileCategory.DATALOADER, DataLoaderEvent
    fetch: DFTracerAI


class Communication(_Category):
    _category, _events = ProfileCategory.COMM, CommunicationEvent
    send: DFTracerAI
    receive: DFTracerAI
    barrier: DFTracerAI
    bcast: DFTracerAI
    reduce: DFTracerAI
    all_reduce: DFTracerAI
    gather: DFTracerAI
    all_gather: DFTracerAI
    scatter: DFTracerAI
    reduce_scatter: DFTracerAI
    all_to_all: DFTracerAI


class Device(_Category):
    _category, _events = ProfileCategory.DEVICE, DeviceEvent
    transfer: DFTracerAI


class Checkpoint(_Category):
    _category, _events = ProfileCategory.CHECKPOINT, CheckpointEvent
    capture: DFTracerAI
    restart: DFTracerAI


class Pipeline(_Category):
    _category, _events = ProfileCategory.PIPELINE, PipelineEvent
    epoch: DFTracerAI
    train: DFTracerAI
    evaluate: DFTracerAI
    test: DFTracerAI


class AI(DFTracerAI):
    """The root of the tree (category and name ``ai_root``)."""

    compute: Compute
    data: Data
    dataloader: DataLoader
    comm: Communication
    device: Device
    checkpoint: Checkpoint
    pipeline: Pipeline

    def __init__(self, epoch: Optional[int] = None, step: Optional[int] = None,
                 image_idx: Optional[int] = None, image_size: Optional[Any] = None,
                 enable: bool = True) -> None:
        super().__init__(cat=ROOT_CAT, name=ROOT_NAME, epoch=epoch, step=step,
                         image_idx=image_idx, image_size=image_size, enable=enable)
        for attr, cls in (("compute", Compute), ("data", Data), ("dataloader", DataLoader),
                          ("comm", Communication), ("device", Device),
                          ("checkpoint", Checkpoint), ("pipeline", Pipeline)):
            node = cls(epoch=epoch, step=step, image_idx=image_idx, image_size=image_size,
                       enable=enable)
            self._children[attr] = node
            setattr(self, attr, node)


ai = AI()
compute = ai.compute
data = ai.data
dataloader = ai.dataloader
comm = ai.comm
device = ai.device
checkpoint = ai.checkpoint
pipeline = ai.pipeline

__all__ = [
    "AI", "BATCH_SIZE_COUNTER", "BLOCK_NAME", "CTX_SEPARATOR", "Checkpoint", "CheckpointEvent",
    "Communication", "CommunicationEvent", "Compute", "ComputeEvent", "DFTracerAI", "Data",
    "DataEvent", "DataLoader", "DataLoaderEvent", "Device", "DeviceEvent", "INIT_NAME",
    "ITER_COUNT_NAME", "ITER_NAME", "PIPELINE_CAT", "Pipeline", "PipelineEvent",
    "ProfileCategory", "ROOT_CAT", "ROOT_NAME", "START_METADATA_NAME", "STEP_MARK",
    "STOP_METADATA_NAME", "ai", "checkpoint", "comm", "compute", "data", "dataloader", "device",
    "get_iter_block_name", "get_iter_handle_name", "pipeline",
]
