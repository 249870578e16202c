"""Lets the examples run from a checkout, before anything is installed:
imports bindings/python of this checkout (not an installed copy) and, unless
AGORAISH_LIBRARY says otherwise, loads the checkout's dist/lib (`make dist`).

An example imports it before `agoraish`; a host with agoraish installed needs
neither this module nor that import.
"""
import os
import sys

CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(CHECKOUT, "bindings", "python"))
_DIST_LIBRARY = os.path.join(CHECKOUT, "dist", "lib", "libagoraish.so.0")
if "AGORAISH_LIBRARY" not in os.environ and os.path.exists(_DIST_LIBRARY):
    os.environ["AGORAISH_LIBRARY"] = _DIST_LIBRARY
