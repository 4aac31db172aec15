"""The page-logic test page: a plain HTTP server for pages that are not the product, a Chromium
on tests/clients/web/unit_page/unit.html, and a call into the page's modules from Python.

Used by the tests of the page's own modules (tests/clients/web/test_web_state.py, test_web_model.py,
test_web_numbers.py, test_web_results.py, test_web_review_words.py, test_web_keyboard.py) and by
tests/test_i18n_catalogs.py.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from browser_helpers import ROOT, chromium, wait_for
from selenium.webdriver.remote.webdriver import WebDriver


@contextmanager
def static_site(folders: dict[str, Path]) -> Iterator[str]:
    """A plain HTTP server on a free loopback port serving `folders` ({"/web/": path, ...});
    yields its base URL. For pages that are not the product (the page-logic test page)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from server.edge.web import CONTENT_TYPES

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            for prefix, folder in folders.items():
                if path.startswith(prefix):
                    file = (folder / path[len(prefix) :]).resolve()
                    if file.is_relative_to(folder.resolve()) and file.is_file():
                        body = file.read_bytes()
                        self.send_response(200)
                        self.send_header(
                            "Content-Type", CONTENT_TYPES.get(file.suffix, "text/plain")
                        )
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                        return
            self.send_error(404)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def unit_page() -> Iterator[WebDriver]:
    """A Chromium on the page-logic test page (tests/clients/web/unit_page/unit.html), its modules on `window.unit`."""
    folders = {
        "/web/": ROOT / "clients" / "web",
        "/test/": ROOT / "tests" / "clients" / "web" / "unit_page",
    }
    with static_site(folders) as base, chromium(800, 600) as driver:
        driver.get(base + "/test/unit.html")
        wait_for(lambda: driver.execute_script("return window.unitReady === true"), what="modules")
        yield driver


def call(driver: WebDriver, expression: str, *args: Any) -> Any:
    """Evaluate `expression` on the test page (arguments as `a[0]`, `a[1]`...) and return it,
    copied through JSON."""
    return driver.execute_script(
        f"const a = arguments; return JSON.parse(JSON.stringify({expression}));", *args
    )
