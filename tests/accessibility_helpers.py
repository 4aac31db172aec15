"""The page as assistive technology and the keyboard meet it: what axe-core finds, Chromium's
accessibility tree, what holds the keyboard focus, and keys pressed as a person would.

Used by the browser tests of accessibility and of play by keys (tests/clients/web/test_web_axe.py,
test_web_keyboard.py, test_web_tournament.py, test_web_tournament_axe.py,
test_web_tournament_play.py, test_web_tournament_standings.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from selenium.webdriver.remote.webdriver import WebDriver


def axe_problems(driver: WebDriver) -> list[dict[str, Any]]:
    """What axe-core (the copy PyPI's axe-selenium-python ships, nothing fetched) finds on the
    page as it is now, serious or critical only: each rule's id, impact and the nodes it names."""
    from axe_selenium_python import Axe

    axe = Axe(driver)
    axe.inject()
    results: dict[str, Any] = axe.run()
    return [
        {
            "id": violation["id"],
            "impact": violation["impact"],
            "nodes": [node["target"] for node in violation["nodes"]],
            "why": violation["nodes"][0]["failureSummary"] if violation["nodes"] else "",
        }
        for violation in results["violations"]
        if violation["impact"] in ("serious", "critical")
    ]


def ax_nodes(driver: WebDriver) -> list[dict[str, Any]]:
    """Chromium's accessibility tree of the page, through the DevTools protocol, as
    {role, name, ignored, disabled, dom (the DOM node's id, or "")} per node."""
    tree = driver.execute_cdp_cmd("Accessibility.getFullAXTree", {})
    ids: dict[int, str] = {}
    described = driver.execute_cdp_cmd("DOM.getDocument", {"depth": -1})
    stack = [described["root"]]
    while stack:
        node = stack.pop()
        attributes = node.get("attributes", [])
        named = dict(zip(attributes[::2], attributes[1::2], strict=False))
        ids[node["backendNodeId"]] = named.get("id", "")
        stack.extend(node.get("children", []))
    nodes = []
    for node in tree["nodes"]:
        properties = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
        nodes.append(
            {
                "role": node.get("role", {}).get("value", ""),
                "name": node.get("name", {}).get("value", ""),
                "ignored": node.get("ignored", False),
                "disabled": bool(properties.get("disabled")),
                "dom": ids.get(node.get("backendDOMNodeId", -1), ""),
            }
        )
    return nodes


#: What holds the keyboard focus.
FOCUSED = """
const el = document.activeElement;
return el ? { id: el.id, tag: el.tagName, name: el.getAttribute("name"), cls: el.getAttribute("class") ?? "", tile: el.dataset?.tile ?? null,
  end: el.dataset?.end ?? null, key: el.dataset?.key ?? null } : null;
"""


def focused(driver: WebDriver) -> dict[str, Any] | None:
    """The element holding the keyboard focus: its id, tag, name, class and data-tile/end/key."""
    seen: dict[str, Any] | None = driver.execute_script(FOCUSED)
    return seen


def keys(driver: WebDriver, *pressed: str) -> None:
    """Press keys as a person would, on whatever holds the focus (no element is clicked)."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*pressed).perform()


def tab_to(driver: WebDriver, wanted: Callable[[dict[str, Any]], bool], limit: int = 80) -> None:
    """Press Tab until the focused element is `wanted` (given `focused`'s reading); fails
    after `limit` presses."""
    from selenium.webdriver.common.keys import Keys

    for _ in range(limit):
        now = focused(driver)
        if now and wanted(now):
            return
        keys(driver, Keys.TAB)
    raise AssertionError(f"Tab never reached the control: last {focused(driver)}")
