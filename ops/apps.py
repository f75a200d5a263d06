from django.apps import AppConfig


class OpsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ops"
    verbose_name = "Operations"

    def ready(self) -> None:
        from celery.signals import task_postrun, task_prerun
        from django.db import close_old_connections

        # With CELERY_DB_REUSE_MAX the worker keeps its connection between tasks; like
        # Django does around a request, drop it when it is broken (a PostgreSQL restart,
        # pg_terminate_backend) or older than CONN_MAX_AGE, so the next task reconnects.
        def _tidy(**kwargs) -> None:
            if not getattr(kwargs.get("task") and kwargs["task"].request, "is_eager", False):
                close_old_connections()

        task_prerun.connect(_tidy, weak=False, dispatch_uid="ops.close_old_connections.pre")
        task_postrun.connect(_tidy, weak=False, dispatch_uid="ops.close_old_connections.post")
