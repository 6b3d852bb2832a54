"""`planeshift characterize`: the scan's dispatchers -> a generated pytest module pinning each
dispatch path's ADR-0120 D2 policy, the Phase 0 gate a rewrite must keep green."""
