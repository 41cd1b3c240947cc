"""The staff's pages over the use cases: the admin of runs (approvals, time travel) and of
erasure, legal holds and retention, the per-person page, message corrections, and the
management commands that call use cases."""
