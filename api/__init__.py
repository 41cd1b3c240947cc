"""The JSON API (Django REST framework): one module per subject, each view calling use cases
and domain selectors; ``urls.py`` lists every route."""
