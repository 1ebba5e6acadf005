"""The ASGI app of `fanscan serve`: the page, its static files, the JSON API, and the guards around them."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from fanscan.scoring.errors import FanscanError
from fanscan.web.api import router
from fanscan.web.server_timing import ServerTiming
from fanscan.web.upload_limit import UploadLimit

# A phone photo is 2-8 MB; 25 MB leaves room for a RAW-sized JPEG while refusing what is not a photo. The loader's
# own pixel limit (vision/load.py, 100 MP from the header) applies to what gets through.
MAX_UPLOAD_BYTES = 25 * 2**20
STATIC = Path(str(files("fanscan.web") / "static"))


def _one_line(error: RequestValidationError) -> str:
    """Pydantic's list of problems as one line: where, then what."""
    parts = []
    for problem in error.errors()[:3]:
        where = ".".join(str(p) for p in problem.get("loc", ()) if p not in ("body",)) or "request"
        parts.append(f"{where}: {problem.get('msg', 'invalid')}")
    return "; ".join(parts)


def learning_refitter(app: FastAPI):
    """The background refit of `--learn`: each new profile is swapped into the pipeline the photos are read with."""
    from fanscan.calibration.learn import BackgroundRefit
    from fanscan.vision.classify import learning_classifier
    from fanscan.vision.pipeline import default_pipeline

    def swap_in(profile) -> None:
        default_pipeline(str(app.state.learn)).classifier.use_profile(profile)
        app.state.profile = str(app.state.learn)
        app.state.profile_name = profile.name

    # each refit with the classifier the profile is built on (`learning_classifier`: a new one, the profiles' file)
    return BackgroundRefit(app.state.learn, lambda: learning_classifier(app.state.learn), swap_in)


def create_app(rules: str = "mcr", max_upload_bytes: int = MAX_UPLOAD_BYTES, profile: str | None = None,
               profile_name: str | None = None, save_labels: str | Path | None = None,
               learn: str | Path | None = None) -> FastAPI:
    """The app; `rules` is the page's default rule set (a request may name another); `profile`: the set profile
    file photos are read with (`profile_name` is what the page calls it); `save_labels`: the YOLO dataset folder
    where `POST /api/save-labels` keeps a scored photo and its labels (without it, that endpoint refuses); `learn`:
    the profile `POST /api/learn` adds a scored photo's tiles to and refits in the background (`calibration.learn`;
    photos are read with it once it exists)."""
    app = FastAPI(title="fanscan", summary="Score a finished mahjong hand from a photo, every fan explained.",
                  docs_url=None, redoc_url=None)  # FastAPI's own docs load their UI from a CDN: /docs is ours
    app.state.rules = rules
    app.state.max_upload_bytes = max_upload_bytes
    app.state.profile = profile
    app.state.profile_name = profile_name if profile_name is not None else (Path(profile).stem if profile else None)
    app.state.save_labels = Path(save_labels) if save_labels else None
    app.state.learn = Path(learn) if learn else None
    app.state.refitter = learning_refitter(app) if learn else None

    @app.exception_handler(FanscanError)
    async def user_error(_: Request, error: FanscanError) -> JSONResponse:
        return JSONResponse({"ok": False, "error": str(error)}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"ok": False, "error": _one_line(error)}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"ok": False, "error": str(error.detail)}, status_code=error.status_code,
                            headers=getattr(error, "headers", None))

    app.include_router(router)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/docs", include_in_schema=False)
    def api_page() -> FileResponse:
        return FileResponse(STATIC / "api.html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/batch", include_in_schema=False)
    def batch_page() -> FileResponse:
        return FileResponse(STATIC / "batch.html")

    # StaticFiles serves only files under its folder (it resolves the path and checks it stays inside).
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(UploadLimit, max_bytes=max_upload_bytes)
    app.add_middleware(ServerTiming)  # outermost: its time includes receiving the upload
    return app
