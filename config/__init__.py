# Load the Celery app with Django so that @shared_task binds to it (and to its
# eager mode in the embedded default).
from .celery import app as celery_app

__all__ = ("celery_app",)
