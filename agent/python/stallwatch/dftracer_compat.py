# SPDX-License-Identifier: MIT
"""pydftracer's function-level API (``dft_fn``, ``dftracer``) over the stallwatch agent.

Code annotated for DFTracer/DFAnalyzer runs unchanged except for its import
line (or with no change at all through :mod:`stallwatch.dftracer_alias`)::

    from stallwatch import dft_fn, dftracer
    dlp = dft_fn("dataloader")

    @dlp.log
    def read(path): ...

    for batch in dlp.iter(loader):   # "loop.iter" waits, "loop.yield" bodies
        ...
    with dft_fn("compute", "train_step") as p:
        p.update(step=step)

dftracer times are in microseconds (its default ``DFTRACER_TIME_METRIC``):
``dftracer.get_time()`` returns them and ``log_event`` takes them.
"""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, TypeVar

from stallwatch import _agent
from stallwatch._ai_node import _STICKY_KEYS, _announce, traced_iter

T = TypeVar("T")

DFTRACER_ENABLE = not _agent.switched_off()


class dftracer:  # noqa: N801 - pydftracer's name
    """pydftracer's process-wide logger handle; the stallwatch agent is its backend."""

    _instance: Optional["dftracer"] = None

    @classmethod
    def get_instance(cls) -> "dftracer":
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    @staticmethod
    def initialize_log(logfile: Optional[str] = None, data_dir: Optional[str] = None,
                       process_id: int = -1) -> "dftracer":
        """Starts the agent (from the environment) if it is not running; returns the handle."""
        _agent.start()
        return dftracer.get_instance()

    def get_time(self) -> int:
        """The agent's clock in microseconds."""
        return _agent.now_ns() // 1000

    def enter_event(self) -> None:
        """Kept for compatibility: nesting is implicit in regions."""

    def exit_event(self) -> None:
        """Kept for compatibility: nesting is implicit in regions."""

    def log_event(self, name: str, cat: str, start_time: int, duration: int,
                  int_args: Optional[Dict[str, Any]] = None,
                  string_args: Optional[Dict[str, Any]] = None,
                  float_args: Optional[Dict[str, Any]] = None) -> None:
        """Records a finished region; `start_time` and `duration` in microseconds."""
        _agent.complete(_agent.name_id(cat), _agent.name_id(name), int(start_time) * 1000,
                        int(duration) * 1000)

    def log_metadata_event(self, key: str, value: str) -> None:
        """Records mark `key` (category ``metadata``); an integer `value` is its payload."""
        _agent.mark("metadata", key, _int_or_zero(value))

    def finalize(self) -> None:
        """Sends what was recorded (the agent itself stops at process exit)."""
        _agent.flush()


def _int_or_zero(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


class dft_fn:  # noqa: N801 - pydftracer's name
    """A category (and default name) to log functions, blocks and loops under.

    ``with dft_fn(cat, name):`` records one region named `name` (open while
    the block runs). ``reset()`` ... ``flush()`` records one from the reset (or
    construction) to the flush. ``.log``/``.log_init``/``.log_static`` decorate
    functions (event named by their qualified name), ``.iter`` wraps a loop.
    """

    def __init__(self, cat: str, name: Optional[str] = None, epoch: Optional[int] = None,
                 step: Optional[int] = None, image_idx: Optional[int] = None,
                 image_size: Optional[Any] = None, enable: bool = True) -> None:
        if not name:
            name = sys._getframe(1).f_code.co_name
        self._cat = str(cat)
        self._name = str(name)
        self._enable = bool(enable)
        self._args: Dict[str, Any] = {}
        for key, value in zip(_STICKY_KEYS, (epoch, step, image_idx, image_size)):
            if value is not None:
                self._args[key] = value
        self._region = _agent.Region(self._cat, self._name, self._enable)
        self._t1 = _agent.now_ns()
        self._flushed = False

    @property
    def enabled(self) -> bool:
        return self._enable and DFTRACER_ENABLE

    def __enter__(self) -> "dft_fn":
        self._t1 = _agent.now_ns()
        self._flushed = False
        self._region.enabled = self._enable
        self._region.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        if not self._flushed:
            self._region.__exit__(exc_type, exc_val, exc_tb)
            self._flushed = True

    def update(self, epoch: Optional[int] = None, step: Optional[int] = None,
               image_idx: Optional[int] = None, image_size: Optional[Any] = None,
               args: Optional[Dict[str, Any]] = None) -> "dft_fn":
        """Sets sticky arguments; ``step=`` also records mark ``pipeline/step``."""
        if self.enabled:
            for key, value in zip(_STICKY_KEYS, (epoch, step, image_idx, image_size)):
                if value is not None:
                    self._args[key] = value
            if args:
                self._args.update(args)
            _announce({"step": step, **(args or {})})
        return self

    def reset(self) -> "dft_fn":
        """Restarts the interval that ``flush()`` records."""
        self._t1 = _agent.now_ns()
        self._flushed = False
        return self

    def flush(self) -> "dft_fn":
        """Records the interval since ``reset()`` (or closes the open ``with`` region)."""
        if not self.enabled:
            return self
        if self._region.active():
            self._region.__exit__(None, None, None)
        else:
            _agent.complete(_agent.name_id(self._cat), _agent.name_id(self._name), self._t1,
                            _agent.now_ns() - self._t1)
        self._flushed = True
        return self

    def log_metadata(self, key: str, value: str) -> None:
        """Records mark `key` in this category; an integer `value` is its payload."""
        if self.enabled:
            _agent.mark(self._cat, key, _int_or_zero(value))

    def _traced(self, fn: Callable[..., Any], name: str, keep_result: bool) -> Callable[..., Any]:
        region = _agent.Region(self._cat, name)
        owner = self

        @functools.wraps(fn)
        def traced(*args: Any, **kwargs: Any) -> Any:
            if not owner._enable:
                result = fn(*args, **kwargs)
            else:
                with region:
                    result = fn(*args, **kwargs)
            return result if keep_result else None

        return traced

    def log(self, func: Optional[Callable[..., Any]] = None,
            name: Optional[str] = None) -> Any:
        """Decorator: one region per call, named `name` or the function's qualified name."""

        def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
            return self._traced(f, name or f.__qualname__, keep_result=True)

        return decorate(func) if callable(func) else decorate

    def log_init(self, init: Optional[Callable[..., Any]] = None,
                 name: Optional[str] = None) -> Any:
        """Decorator for ``__init__``: one region per construction."""

        def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
            return self._traced(f, name or f.__qualname__, keep_result=False)

        return decorate(init) if callable(init) else decorate

    def log_static(self, func: Optional[Callable[..., Any]] = None,
                   name: Optional[str] = None) -> Any:
        """Decorator for static methods (accepts the staticmethod object too)."""

        def decorate(f: Any) -> Callable[..., Any]:
            actual = f.__func__ if isinstance(f, staticmethod) else f
            return self._traced(actual, name or actual.__qualname__, keep_result=True)

        return decorate(func) if func is not None else decorate

    def iter(self, func: Iterable[T], name: str = "loop", iter_name: str = "step") -> Iterator[T]:
        """Yields from `func`, recording ``"<name>.iter"`` waits and ``"<name>.yield"`` bodies."""
        owner = _EnabledView(self)
        return traced_iter(owner, self._cat, func, f"{name}.iter", f"{name}.yield", iter_name)


class _EnabledView:
    """Adapts a dft_fn to what traced_iter reads (``enabled``, ``_args``)."""

    __slots__ = ("_fn",)

    def __init__(self, fn: dft_fn) -> None:
        self._fn = fn

    @property
    def enabled(self) -> bool:
        return self._fn.enabled

    @property
    def _args(self) -> Dict[str, Any]:
        return self._fn._args


def get_default_args(func: Callable[..., Any]) -> Dict[str, Any]:
    """The parameters of `func` that have defaults (pydftracer helper)."""
    signature = inspect.signature(func)
    return {k: v.default for k, v in signature.parameters.items()
            if v.default is not inspect.Parameter.empty}


__all__: List[str] = ["DFTRACER_ENABLE", "dft_fn", "dftracer", "get_default_args"]
