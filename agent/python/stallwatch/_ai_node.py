# SPDX-License-Identifier: MIT
"""One node of the ``ai`` tree: :class:`DFTracerAI`, pydftracer's AI logging node.

A node is a subclass of the C type ``stallwatch._native.Region``: ``with
node:`` opens and closes an agent region in C (``__enter__``/``__exit__`` are C
methods; tokens live on a per-thread stack), so nodes are safe to share
between threads and to re-enter. The rest of the API (decorators, ``iter``,
``update``, ``derive``, ``init``, metadata marks) is plain Python over that.
The tree itself (categories and their events) is in :mod:`stallwatch._ai`.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from typing import Any, Callable, Dict, Iterable, Iterator, Optional, TypeVar, overload

from stallwatch import _agent

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

ITER_COUNT_NAME = "count"
INIT_NAME = "init"
BLOCK_NAME = "block"
ITER_NAME = "iter"
CTX_SEPARATOR = "."
ROOT_NAME = "ai_root"
ROOT_CAT = "ai_root"
START_METADATA_NAME = "start"
STOP_METADATA_NAME = "end"

STEP_MARK = "step"
BATCH_SIZE_COUNTER = "batch_size"
PIPELINE_CAT = "pipeline"

_STICKY_KEYS = ("epoch", "step", "image_idx", "image_size")


def _suffixed(name: str, suffix: str) -> str:
    tail = f"{CTX_SEPARATOR}{suffix}"
    return name if name.endswith(tail) else f"{name}{tail}"


def get_iter_block_name(name: str) -> str:
    """``"<name>.block"``: the loop-body event of ``iter()``."""
    return _suffixed(name, BLOCK_NAME)


def get_iter_handle_name(name: str) -> str:
    """``"<name>.iter"``: the wait-for-next-item event of ``iter()``."""
    return _suffixed(name, ITER_NAME)


def _announce(args: Dict[str, Any]) -> None:
    """Writes what the collector needs from update() arguments to the wire."""
    step = args.get("step")
    if step is not None:
        try:
            _agent.mark(PIPELINE_CAT, STEP_MARK, int(step))
        except (TypeError, ValueError):
            pass
    batch_size = args.get(BATCH_SIZE_COUNTER)
    if batch_size is not None:
        try:
            _agent.counter(PIPELINE_CAT, BATCH_SIZE_COUNTER, int(batch_size))
        except (TypeError, ValueError):
            pass


def traced_iter(owner: Any, cat: str, iterable: Iterable[T], wait_name: Optional[str],
                body_name: Optional[str], count_key: str) -> Iterator[T]:
    """Yields from `iterable`, recording each wait and each loop body as regions.

    `owner` is the node whose ``enabled`` decides per item and whose sticky
    arguments get `count_key` = the 1-based item count. Each wait is an open
    region while the loop waits, so a loop stuck waiting for data shows as
    stuck at the collector while it is stuck, and long waits are exact. The
    wait that ends the loop is closed with END_LOOP_EXHAUSTED on its END:
    pydftracer records no event for it, so counting tools skip it, while the
    collector still measures the time the loop spent waiting. A body left
    early (break, exception) is still closed.
    """
    cat_id = _agent.name_id(cat) if owner.enabled else 0
    wait_id = _agent.name_id(wait_name) if wait_name and cat_id else 0
    body_id = _agent.name_id(body_name) if body_name and cat_id else 0
    source = iter(iterable)
    count = 0
    while True:
        wait = _agent.begin(cat_id, wait_id) if wait_id and owner.enabled else 0
        try:
            item = next(source)
        except StopIteration:
            _agent.end_exhausted(wait)
            return
        except BaseException:
            _agent.end(wait)
            raise
        _agent.end(wait)
        count += 1
        recording = owner.enabled
        if recording:
            owner._args[count_key] = count
        token = _agent.begin(cat_id, body_id) if recording and body_id else 0
        try:
            yield item
        finally:
            _agent.end(token)


class DFTracerAI(_agent.Region):
    """One node of the ``ai`` tree: a region named ``name`` in category ``cat``.

    Use it as a context manager (``with ai.compute.forward:``), a decorator with
    or without arguments (``@ai.compute.forward``,
    ``@ai.compute.forward(epoch=1)``), an iterable wrapper
    (``for x in ai.dataloader.fetch.iter(loader):``), a constructor hook
    (``@ai.checkpoint.init``) or explicitly (``start()``/``stop()``).
    Arguments set by ``update()`` are sticky on the node and its subtree.
    Thread-safe and re-entrant.
    """

    def __init__(
        self,
        *,
        cat: str,
        name: Optional[str] = None,
        epoch: Optional[int] = None,
        step: Optional[int] = None,
        image_idx: Optional[int] = None,
        image_size: Optional[Any] = None,
        enable: bool = True,
    ) -> None:
        super().__init__(str(cat), str(name) if name else str(cat), bool(enable))
        self._args: Dict[str, Any] = {}
        self._children: Dict[str, DFTracerAI] = {}
        self._metadata_index = itertools.count()
        self._last_metadata_index = 0
        self._set_args(epoch=epoch, step=step, image_idx=image_idx, image_size=image_size)

    def __repr__(self) -> str:
        return f"<DFTracerAI cat={self.cat!r} name={self.name!r} enabled={self.enabled}>"

    @property
    def arguments(self) -> Dict[str, Any]:
        """A copy of the sticky arguments (epoch, step, image_idx, image_size, args)."""
        return dict(self._args)

    def _set_args(
        self,
        epoch: Optional[int] = None,
        step: Optional[int] = None,
        image_idx: Optional[int] = None,
        image_size: Optional[Any] = None,
        args: Optional[Dict[str, Any]] = None,
    ) -> None:
        for key, value in zip(_STICKY_KEYS, (epoch, step, image_idx, image_size)):
            if value is not None:
                self._args[key] = value
        if args:
            self._args.update(args)

    def _child(self, name: str) -> "DFTracerAI":
        child = self._children.get(name)
        if child is None:
            child = DFTracerAI(cat=self.cat, name=name, enable=self.enabled)
            child._args.update(self._args)
            child = self._children.setdefault(name, child)
        return child

    @overload
    def __call__(self, fn: F, *, enable: Optional[bool] = ..., epoch: Optional[int] = ...,
                 step: Optional[int] = ..., image_idx: Optional[int] = ...,
                 image_size: Optional[Any] = ..., args: Optional[Dict[str, Any]] = ...) -> F: ...

    @overload
    def __call__(self, fn: None = None, *, enable: Optional[bool] = ...,
                 epoch: Optional[int] = ..., step: Optional[int] = ...,
                 image_idx: Optional[int] = ..., image_size: Optional[Any] = ...,
                 args: Optional[Dict[str, Any]] = ...) -> "DFTracerAI": ...

    def __call__(
        self,
        fn: Optional[Callable[..., Any]] = None,
        *,
        enable: Optional[bool] = None,
        epoch: Optional[int] = None,
        step: Optional[int] = None,
        image_idx: Optional[int] = None,
        image_size: Optional[Any] = None,
        args: Optional[Dict[str, Any]] = None,
    ) -> Any:
        """Decorates `fn`, or returns a configured copy of this node.

        ``enable=False`` makes the decorated function (or the copy) record
        nothing; otherwise the node's enabled state at call time decides.
        """
        self._set_args(epoch=epoch, step=step, image_idx=image_idx, image_size=image_size,
                       args=args)
        if fn is not None:
            return self._decorate(fn, enable)
        copy = DFTracerAI(cat=self.cat, name=self.name,
                          enable=self.enabled if enable is None else enable)
        copy._args.update(self._args)
        return copy

    def _decorate(self, fn: Callable[..., Any], enable: Optional[bool]) -> Callable[..., Any]:
        if enable is False:
            return fn
        region = self

        if inspect.isgeneratorfunction(fn):
            # A generator function returns at once, before any item: the call
            # is recorded (pydftracer records it too) with END_NO_ITEM, so
            # the collector never counts it as a fetched batch or a step.
            @functools.wraps(fn)
            def traced_generator(*args: Any, **kwargs: Any) -> Any:
                token = (_agent.begin(_agent.name_id(region.cat), _agent.name_id(region.name))
                         if region.enabled else 0)
                try:
                    return fn(*args, **kwargs)
                finally:
                    _agent.end_value(token, _agent.END_NO_ITEM)

            return traced_generator

        @functools.wraps(fn)
        def traced(*args: Any, **kwargs: Any) -> Any:
            with region:
                return fn(*args, **kwargs)

        return traced

    def start(self, metadata: bool = False) -> None:
        """Opens the region, or with ``metadata=True`` records mark ``"<name>.start"`` now.

        The mark's value is the 0-based count of earlier metadata starts of
        this node (for ``pipeline.epoch`` that is the epoch index).
        """
        if metadata:
            if self.enabled:
                self._last_metadata_index = next(self._metadata_index)
                _agent.mark(self.cat, f"{self.name}{CTX_SEPARATOR}{START_METADATA_NAME}",
                            self._last_metadata_index)
        else:
            self.__enter__()

    def stop(self, metadata: bool = False) -> None:
        """Closes the region, or with ``metadata=True`` records mark ``"<name>.end"`` now."""
        if metadata:
            if self.enabled:
                _agent.mark(self.cat, f"{self.name}{CTX_SEPARATOR}{STOP_METADATA_NAME}",
                            self._last_metadata_index)
        else:
            self.__exit__(None, None, None)

    def reset(self) -> None:
        """Kept for pydftracer compatibility; regions need no reset."""

    def get_time(self) -> int:
        """The agent's clock in microseconds (dftracer's default time unit)."""
        return _agent.now_ns() // 1000

    def enable(self) -> None:
        """Enables this node and its subtree."""
        self.enabled = True
        for child in list(self._children.values()):
            child.enable()

    def disable(self) -> None:
        """Disables this node and its subtree (regions already open still close)."""
        self.enabled = False
        for child in list(self._children.values()):
            child.disable()

    def update(
        self,
        epoch: Optional[int] = None,
        step: Optional[int] = None,
        image_idx: Optional[int] = None,
        image_size: Optional[Any] = None,
        args: Optional[Dict[str, Any]] = None,
    ) -> "DFTracerAI":
        """Sets sticky arguments on this node and its subtree.

        On the wire (which has no per-event arguments) ``step=`` becomes one
        mark ``pipeline/step`` with the step, and ``args={"batch_size": n}`` a
        counter ``pipeline/batch_size``: once per call, not per node.
        """
        self._update_tree(epoch, step, image_idx, image_size, args)
        if self.enabled:
            _announce({"step": step, **(args or {})})
        return self

    def _update_tree(self, epoch: Any, step: Any, image_idx: Any, image_size: Any,
                     args: Optional[Dict[str, Any]]) -> None:
        if self.enabled:
            self._set_args(epoch=epoch, step=step, image_idx=image_idx, image_size=image_size,
                           args=args)
        for child in list(self._children.values()):
            child._update_tree(epoch, step, image_idx, image_size, args)

    def derive(self, name: str) -> "DFTracerAI":
        """The child ``"<name>.<sub>"`` of this node, created once and cached."""
        return self._child(f"{self.name}{CTX_SEPARATOR}{name}")

    def init(self, fn: Optional[Callable[..., Any]] = None, **kwargs: Any) -> Any:
        """Constructor hook: child ``"<name>.init"`` applied like ``__call__``."""
        return self._child(f"{self.name}{CTX_SEPARATOR}{INIT_NAME}")(fn, **kwargs)

    def iter(
        self,
        iterator: Iterable[T],
        *,
        include_block: bool = True,
        include_iter: bool = True,
        iter_name: Optional[str] = None,
        block_name: Optional[str] = None,
    ) -> Iterator[T]:
        """Yields from `iterator`, recording ``"<name>.iter"`` and ``"<name>.block"``.

        ``<name>.iter`` is the wait for each item that arrives, recorded when
        it arrives (pydftracer records no event for the wait that ends the
        loop, and neither does this); ``<name>.block`` is the loop body, open
        while it runs and closed even when the loop is left early.
        """
        wait_name = iter_name or get_iter_handle_name(self.name)
        body_name = block_name or get_iter_block_name(self.name)
        return traced_iter(self, self.cat, iterator, wait_name if include_iter else None,
                           body_name if include_block else None, ITER_COUNT_NAME)
