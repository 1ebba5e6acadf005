"""`fanscan serve`: the phone page and its JSON API (the `web` extra: FastAPI on uvicorn).

`create_app()` builds the ASGI app: `/` the page, `/batch` the batch page, `/static/` their files, `/api/...` the
JSON API (OpenAPI docs at `/docs`). Nothing is written to disk except uploads, held in a temporary folder for the
time of one request.
"""
