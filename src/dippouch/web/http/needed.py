"""What the work pool's jobs (:mod:`dippouch.web.http.jobs`) import, the renderer and its libraries above all: a
second or two of a fresh interpreter's imports, paid once by the fork server for every worker
(:func:`dippouch.web.http.pool.work_pool`), or by each worker's first job where there is none
(:func:`dippouch.web.http.jobs.ready`), rather than by the first request a worker takes."""

import dippouch.contract
import dippouch.play.sandbox
import dippouch.render
import dippouch.web.views.player_page  # noqa: F401
