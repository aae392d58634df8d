# SPDX-License-Identifier: MIT
"""``python -m stallwatch.run [--posix] [--transfer] [--gpu MODE] [-m module | script.py] [args...]``:
run a training script with zero-code PyTorch instrumentation.

The script sees the command line it expects (``sys.argv[0]`` is the script),
runs as ``__main__`` (so ``if __name__ == "__main__":`` and multiprocessing's
spawn work), and the process exits with the script's own exit status. With
``STALLWATCH_DFTRACER_ALIAS=1``, ``import dftracer...`` resolves to stallwatch
when dftracer is not installed. ``STALLWATCH_ENABLE=0`` runs the script
untouched. ``--transfer`` also records ``Tensor.to(device)`` copies as
``device/transfer`` regions. ``--gpu MODE`` picks the device-busy source:
``auto`` (the default, or ``STALLWATCH_GPU``), ``cupti``, ``cuda-events``,
``nvml``, ``none``, or a comma-separated preference list. Without PyTorch
installed the script runs with only its own annotations (the ``ai`` API).

``--posix`` (or ``STALLWATCH_POSIX=1``) also captures the POSIX and stdio
calls on data files (libstallwatch_posix.so, agent/posix/README.md): the
process re-executes itself once with the library in ``LD_PRELOAD``, which
every child inherits, so DataLoader workers under fork, spawn and forkserver
are captured too; the Python installation is excluded from the capture.
"""

from __future__ import annotations

import importlib.util
import os
import runpy
import site
import sys
import sysconfig
from typing import Dict, List, Optional

_USAGE = ("usage: python -m stallwatch.run [--posix] [--transfer] [--gpu MODE] "
          "[-m module | script.py] [args...]")

_POSIX_LIBRARY = "libstallwatch_posix.so"


def posix_library() -> str:
    """The path of libstallwatch_posix.so shipped next to this package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), _POSIX_LIBRARY)


def python_prefixes() -> List[str]:
    """Where this interpreter's own files live: never data, never captured."""
    paths = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        value = sysconfig.get_paths().get(key)
        if value:
            paths.add(value)
    try:
        paths.update(site.getsitepackages())
    except AttributeError:  # virtualenv's old site.py
        pass
    user_site = site.getusersitepackages() if hasattr(site, "getusersitepackages") else ""
    if user_site:
        paths.add(user_site)
    paths.add(os.path.dirname(os.path.abspath(__file__)))
    return sorted(os.path.abspath(p) for p in paths if os.path.isabs(p))


def posix_environment(environ: Dict[str, str], library: str) -> Dict[str, str]:
    """`environ` with `library` preloaded and the Python installation excluded."""
    env = dict(environ)
    preload = [p for p in env.get("LD_PRELOAD", "").split(":") if p]
    env["LD_PRELOAD"] = ":".join([library] + [p for p in preload if p != library])
    env["STALLWATCH_POSIX"] = "1"
    exclude = [p for p in env.get("STALLWATCH_POSIX_EXCLUDE", "").split(":") if p]
    env["STALLWATCH_POSIX_EXCLUDE"] = ":".join(
        exclude + [p for p in python_prefixes() if p not in exclude])
    return env


def _preloaded(library: str) -> bool:
    return library in os.environ.get("LD_PRELOAD", "").split(":")


def _exec_with_posix(args: List[str]) -> None:
    """Re-executes this command with the capture preloaded; returns when it cannot."""
    library = posix_library()
    if _preloaded(library):
        return
    if not os.path.isfile(library):
        print(f"stallwatch: --posix: {library} not found; running without POSIX capture",
              file=sys.stderr)
        return
    env = posix_environment(dict(os.environ), library)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "stallwatch.run"] + args, env)


def main(argv: Optional[List[str]] = None) -> None:
    """Instruments PyTorch, then runs the script or module named in `argv`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not args else sys.stdout)
        raise SystemExit(2 if not args else 0)

    transfer = False
    posix = os.environ.get("STALLWATCH_POSIX", "") == "1"
    gpu: Optional[str] = None
    passed: List[str] = []
    while args and (args[0] in ("--transfer", "--gpu", "--posix") or args[0].startswith("--gpu=")):
        option = args.pop(0)
        if option == "--posix":
            posix = True
        elif option == "--transfer":
            transfer = True
        elif option.startswith("--gpu="):
            gpu = option[len("--gpu="):]
        elif args:
            gpu = args.pop(0)
        else:
            print(_USAGE, file=sys.stderr)
            raise SystemExit(2)
    if not args:
        print(_USAGE, file=sys.stderr)
        raise SystemExit(2)
    if posix:
        if transfer:
            passed.append("--transfer")
        if gpu is not None:
            passed.append("--gpu=" + gpu)
        _exec_with_posix(passed + args)

    import stallwatch
    from stallwatch import torch as sw_torch

    if os.environ.get("STALLWATCH_DFTRACER_ALIAS", "") == "1":
        stallwatch.install_dftracer_alias()
    if importlib.util.find_spec("torch") is not None:
        sw_torch.instrument(transfer=transfer, gpu=gpu)

    if args[0] == "-m":
        if len(args) < 2:
            print(_USAGE, file=sys.stderr)
            raise SystemExit(2)
        sys.argv = args[1:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return
    script = args[0]
    sys.argv = args
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
