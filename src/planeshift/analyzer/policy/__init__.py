"""Dispatch-policy inference: each mechanism's policy read from the code that invokes its
handlers (the path walk, the axes, the named profiles), the pack's declaration as fallback."""
