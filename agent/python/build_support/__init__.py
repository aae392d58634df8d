# SPDX-License-Identifier: MIT
"""Helpers that build the stallwatch wheel (setup.py, make_wheel.py); not part of the package."""
