"""The use cases: one module per thing a person or the system does, named by its subject.

Each calls the domain apps' services and selectors explicitly (what happens after a
message is appended is a line here, not a signal). Interfaces (``web``, ``api``,
``backoffice``, the Celery tasks) call these.
"""
