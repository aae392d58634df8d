"""``python -m stallwatch.run [--transfer] [--gpu MODE] [-m module | script.py] [args...]``:
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
"""

from __future__ import annotations

import importlib.util
import os
import runpy
import sys
from typing import List, Optional

_USAGE = ("usage: python -m stallwatch.run [--transfer] [--gpu MODE] "
          "[-m module | script.py] [args...]")


def main(argv: Optional[List[str]] = None) -> None:
    """Instruments PyTorch, then runs the script or module named in `argv`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not args else sys.stdout)
        raise SystemExit(2 if not args else 0)

    transfer = False
    gpu: Optional[str] = None
    while args and (args[0] in ("--transfer", "--gpu") or args[0].startswith("--gpu=")):
        option = args.pop(0)
        if option == "--transfer":
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
