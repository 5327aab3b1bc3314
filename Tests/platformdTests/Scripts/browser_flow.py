"""The hosted flow and the dashboard in a real browser: Chromium driven through Selenium.

Usage: browser_flow.py BASE_URL ADMIN_SECRET SCREENSHOT_DIR TENANT [TENANT ...]

The server runs `serve --http ... --preview`. For each tenant the script opens /preview/TENANT/
(a throwaway user), then answers every step with the form alone, from what the page says of each
field (its type, its bounds, its options), retrying a field the server refuses with another
answer, until the flow ends. Every page is parsed by html5lib's strict parser and searched for
URLs of another host. On the first tenant it also submits an empty required field and checks that
the message is shown beside it and tied to it. Then it signs in to /admin/ and opens each
tenant's first flow, checking the diagram and the funnel are there. Screenshots go to
SCREENSHOT_DIR. Each flow is walked again in Spanish with the dark scheme emulated. The last line printed is
a JSON summary.
"""

import json
import os
import re
import sys
import urllib.request

import html5lib
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

# Set by main(), or by a script that imports this one's helpers (accessibility.py).
BASE, ADMIN_SECRET, SHOTS, TENANTS = "", "", "", []

summary = {"tenants": {}, "invalid": [], "external": [], "screenshots": "", "refusal": None, "admin": {}, "suggested": {}}
checked_pages = set()
EXTERNAL = re.compile(r"""(?:src|href|action|xlink:href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


def browser(width, height, language="en-US"):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", f"--lang={language}"]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    return webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)


def check_page(driver, name):
    """Strict HTML5 parse and no URL of another host, once per distinct page."""
    source = driver.page_source
    key = (name, driver.find_element(By.TAG_NAME, "h1").text if driver.find_elements(By.TAG_NAME, "h1") else "")
    if key in checked_pages:
        return
    checked_pages.add(key)
    # The browser's page_source is its DOM serialised; the bytes the server sent are what must
    # validate, so fetch them again with the page's cookie.
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in driver.get_cookies())
    request = urllib.request.Request(driver.current_url, headers={"Cookie": cookies})
    try:
        raw = urllib.request.urlopen(request).read().decode("utf-8")
    except urllib.error.HTTPError as error:
        raw = error.read().decode("utf-8")
    try:
        html5lib.HTMLParser(strict=True).parse(raw)
    except Exception as error:  # html5lib raises ParseError with the first problem
        summary["invalid"].append({"page": name, "url": driver.current_url, "problem": str(error)})
    for text in (raw, source):
        if EXTERNAL.search(text):
            summary["external"].append({"page": name, "match": EXTERNAL.search(text).group(0)})


def submit(driver, button):
    """Clicks a submit button and waits for the page it leads to."""
    page = driver.find_element(By.TAG_NAME, "html")
    button.click()

    def gone(_):
        # The old document's element stops answering once the new page replaced it (Chromium
        # says so as stale, or as a node that no longer belongs to the document).
        try:
            page.is_enabled()
            return False
        except Exception:
            return True

    WebDriverWait(driver, 20).until(gone)
    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.readyState") == "complete")


def shot(driver, name, whole=False):
    """A screenshot; `whole`: of the whole page, the window stretched to its height."""
    path = os.path.join(SHOTS, re.sub(r"[^A-Za-z0-9_.-]", "-", name) + ".png")
    if whole:
        size = driver.get_window_size()
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(size["width"], min(max(height + 40, size["height"]), 6000))
        driver.save_screenshot(path)
        driver.set_window_size(size["width"], size["height"])
    else:
        driver.save_screenshot(path)
    return path


TEXTS = ["Alex", "alex@example.com", "Alex Morgan 2", "123456"]
QUERIES = ["austin", "san", "a"]


def number_between(low, high, step, integer, attempt):
    low = float(low) if low not in (None, "") else 0.0
    high = float(high) if high not in (None, "") else max(low, 10.0)
    value = [(low + high) / 2, low, high][attempt % 3]
    if step not in (None, "", "any"):
        step = float(step)
        value = low + int((value - low) / step) * step
    return str(int(value)) if integer or value == int(value) else str(value)


def fill(driver, field, attempt, order=0):
    kind = field.get_attribute("data-field-type")
    name = field.get_attribute("data-field")
    if kind in ("text", "integer", "number", "date", "time"):
        box = field.find_element(By.CSS_SELECTOR, "input")
        if box.get_attribute("value") and attempt == 0:
            return
        if kind == "text":
            candidates = ([box.get_attribute("placeholder")] if box.get_attribute("placeholder") else []) + TEXTS
            if box.get_attribute("type") == "email":
                candidates = ["alex@example.com"]
            value = candidates[attempt % len(candidates)]
            minimum = int(box.get_attribute("minlength") or 0)
            maximum = int(box.get_attribute("maxlength") or 256)
            value = (value + "a" * max(0, minimum - len(value)))[:maximum]
        elif kind in ("integer", "number"):
            value = number_between(box.get_attribute("min"), box.get_attribute("max"), box.get_attribute("step"), kind == "integer", attempt)
        elif kind == "date":
            low = box.get_attribute("min") or "1970-01-01"
            high = box.get_attribute("max") or "2020-12-31"
            value = [f"{(int(low[:4]) + int(high[:4])) // 2}-06-15", high, low][attempt % 3]
        else:
            # Later fields of a step get later times, so a block's end comes after its start.
            value = f"{(7 + 2 * order + attempt) % 24:02d}:00"
        # Date and time inputs take their value through script most reliably across locales.
        driver.execute_script("arguments[0].value = arguments[1];", box, value)
    elif kind == "boolean":
        box = field.find_element(By.CSS_SELECTOR, "input[type=checkbox]")
        if box.is_selected() != (attempt % 2 == 0):
            box.click()
    elif kind == "choice":
        selects = field.find_elements(By.TAG_NAME, "select")
        if selects:
            select = Select(selects[0])
            enabled = [o for o in select.options if o.get_attribute("value") and o.is_enabled()]
            if enabled and (attempt > 0 or not select.first_selected_option.get_attribute("value")):
                select.select_by_value(enabled[attempt % len(enabled)].get_attribute("value"))
            return
        radios = [r for r in field.find_elements(By.CSS_SELECTOR, "input[type=radio]") if r.is_enabled()]
        if radios and (attempt > 0 or not any(r.is_selected() for r in radios)):
            driver.execute_script("arguments[0].click();", radios[attempt % len(radios)])
    elif kind == "multi_choice":
        boxes = [b for b in field.find_elements(By.CSS_SELECTOR, ":scope > label input[type=checkbox]") if b.is_enabled()]
        if not boxes or (attempt == 0 and any(b.is_selected() for b in boxes)):
            return
        minimum = int(field.get_attribute("data-min-items") or 1)
        maximum = min(int(field.get_attribute("data-max-items") or len(boxes)), len(boxes))
        count = maximum if attempt % 2 == 0 else max(minimum, 1)
        start = (attempt // 2) % len(boxes)
        wanted = {(start + i) % len(boxes) for i in range(count)}
        for index, box in enumerate(boxes):
            if box.is_selected() != (index in wanted):
                driver.execute_script("arguments[0].click();", box)


def search(driver, field, attempt):
    """Types a query, presses the form's own Search button, picks a result."""
    if field.find_elements(By.CSS_SELECTOR, "input[type=radio]:checked") and attempt == 0:
        return False
    name = field.get_attribute("data-field")
    box = field.find_element(By.CSS_SELECTOR, "input[data-search-query]")
    box.clear()
    box.send_keys(QUERIES[attempt % len(QUERIES)])
    # The page's script suggests places as one types; the Search button works without it.
    try:
        WebDriverWait(driver, 5).until(lambda d: field.find_elements(By.CSS_SELECTOR, ".suggestions li"))
        summary["suggested"][name] = len(field.find_elements(By.CSS_SELECTOR, ".suggestions li"))
        shot(driver, f"suggestions-{name}")
    except Exception:
        summary["suggested"][name] = 0
    submit(driver, field.find_element(By.CSS_SELECTOR, "button[value^='search:']"))
    results = driver.find_elements(By.CSS_SELECTOR, f"[data-field='{name}'] input[type=radio]")
    if results:
        driver.execute_script("arguments[0].click();", results[0])
    return True


def current_step(driver):
    """The step the page shows, or None on a page that ends the flow."""
    steps = driver.find_elements(By.NAME, "_step")
    return steps[0].get_attribute("value") if steps else None


def press(driver, form, value):
    """Presses the form's button `value` (back, skip, later, edit:STEP); the step shown after."""
    submit(driver, form.find_element(By.CSS_SELECTOR, f"button[name=_action][value='{value}']"))
    return current_step(driver)


def walk(driver, tenant, label=None):
    """Answers every page until the flow ends. On the way it presses each of the page's other
    buttons once where the flow offers it: Back (after a step forward), Later, Skip, and the first
    Edit of a review, recording where each led."""
    label = label or tenant
    driver.get(f"{BASE}/preview/{tenant}/")
    attempts, last_step, pages = {}, None, 0
    previous, pressed, offered, conditional = None, {}, set(), []
    for _ in range(90):
        check_page(driver, label)
        forms = driver.find_elements(By.CSS_SELECTOR, "form[action^='/flow/']")
        heading = driver.find_element(By.TAG_NAME, "h1").text
        if not forms:
            shot(driver, f"{label}-end")
            # A flow's end page (main.done), not an error page that has no form either.
            ended = "ended" if driver.find_elements(By.CSS_SELECTOR, "main.done") else "no form"
            return {"status": ended, "message": heading, "pages": pages, "pressed": pressed, "offered": sorted(offered),
                    "conditional": conditional}
        form = forms[0]
        step = form.find_element(By.NAME, "_step").get_attribute("value")
        values = {b.get_attribute("value") for b in form.find_elements(By.CSS_SELECTOR, "button[name=_action]")}
        edits = sorted(v[5:] for v in values if v.startswith("edit:"))
        offered |= {v for v in values if v in ("back", "skip", "later")} | ({"edit"} if edits else set())
        if "back" in values and "back" not in pressed and previous is not None and previous != step:
            pressed["back"] = {"from": step, "expected": previous, "to": press(driver, form, "back")}
            shot(driver, f"{label}-back-{step}")
            last_step = None
            continue
        if "later" in values and "later" not in pressed:
            pressed["later"] = {"from": step, "to": press(driver, form, "later")}
            last_step = None
            continue
        if "skip" in values and "skip" not in pressed:
            pressed["skip"] = {"from": step, "to": press(driver, form, "skip")}
            previous, last_step = step, None
            continue
        if edits and "edit" not in pressed:
            pressed["edit"] = {"from": step, "expected": edits[0], "to": press(driver, form, "edit:" + edits[0])}
            last_step = None
            continue
        if pages == 0:
            shot(driver, f"{label}-first-{step}")
        attempt = attempts.get(step, 0) if step == last_step else 0
        if step == last_step:
            attempt += 1
            if attempt > 8:
                shot(driver, f"{label}-stuck-{step}")
                return {"status": "stuck", "step": step, "errors": [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".error, .errors")]}
        attempts[step] = attempt
        last_step = step
        searched = False
        names = [f.get_attribute("data-field") for f in form.find_elements(By.CSS_SELECTOR, "[data-field-type='search']")]
        for name in names:
            field = driver.find_element(By.CSS_SELECTOR, f"[data-field-type='search'][data-field='{name}']")
            searched = search(driver, field, attempt) or searched
        form = driver.find_element(By.CSS_SELECTOR, "form[action^='/flow/']")
        # Fields shown by a condition: whether each was out of sight before and after the answers
        # were filled in (StatLocker's club fields appear once its switch is on).
        shown_by = form.find_elements(By.CSS_SELECTOR, "[data-visible-when]")
        hidden_before = [not f.is_displayed() for f in shown_by]
        order = 0
        for field in form.find_elements(By.CSS_SELECTOR, "[data-field-type]"):
            # A multi-choice's "add your own" inputs are left empty: the options answer it.
            if field.get_attribute("data-field-type") in ("search", "list") or ".custom." in (field.get_attribute("data-field") or ""):
                continue
            fill(driver, field, attempt, order)
            order += 1
        for field, before in zip(shown_by, hidden_before):
            conditional.append({"step": step, "field": field.get_attribute("data-field"), "hiddenBefore": before,
                                "hiddenAfter": not field.is_displayed()})
        buttons = form.find_elements(By.CSS_SELECTOR, ".actions button[value=continue]") or \
            [b for b in form.find_elements(By.CSS_SELECTOR, ".actions button") if b.get_attribute("value") not in ("back", "later")]
        submit(driver, buttons[0])
        if current_step(driver) != step:
            previous = step
        pages += 1
    return {"status": "too long", "pages": pages, "pressed": pressed}


def refusal(driver, tenant):
    """An empty required text field: the message beside the field, tied to it."""
    driver.get(f"{BASE}/preview/{tenant}/")
    form = driver.find_element(By.CSS_SELECTOR, "form[action^='/flow/']")
    for field in form.find_elements(By.CSS_SELECTOR, "[data-field-type]"):
        kind = field.get_attribute("data-field-type")
        if kind in ("text", "integer", "number", "date"):
            driver.execute_script("arguments[0].value = '';", field.find_element(By.CSS_SELECTOR, "input"))
    submit(driver, form.find_element(By.CSS_SELECTOR, ".actions button[value=continue]"))
    invalid = driver.find_elements(By.CSS_SELECTOR, "[aria-invalid=true]")
    result = {"invalid": len(invalid), "tied": [], "path": None}
    for element in invalid:
        described = element.get_attribute("aria-describedby")
        try:
            message = driver.find_element(By.ID, described)
            inside = bool(element.find_elements(By.ID, described))
            siblings = message.find_element(By.XPATH, "..") == element.find_element(By.XPATH, "..")
            result["tied"].append({"field": element.get_attribute("name") or element.get_attribute("data-field"), "message": message.text,
                                   "beside": inside or siblings})
        except NoSuchElementException:
            result["tied"].append({"field": element.get_attribute("name"), "message": None, "beside": False})
    result["path"] = shot(driver, f"{tenant}-refused")
    check_page(driver, tenant + "-refused")
    return result


def admin(driver):
    driver.get(f"{BASE}/admin/")
    check_page(driver, "admin-login")
    shot(driver, "admin-login")
    driver.find_element(By.ID, "secret").send_keys(ADMIN_SECRET)
    submit(driver, driver.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    check_page(driver, "admin")
    shot(driver, "admin-tenants")
    links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "td a[href^='/admin/'], td a[href*='/admin/']")]
    pages = {}
    for link in links:
        driver.get(link)
        name = link.rstrip("/").split("/admin/")[-1]
        check_page(driver, "admin-" + name)
        pages[name] = {
            "diagram": len(driver.find_elements(By.CSS_SELECTOR, "svg.diagram")),
            "steps": len(driver.find_elements(By.CSS_SELECTOR, "svg.diagram g.step")),
            "funnel": len(driver.find_elements(By.CSS_SELECTOR, "svg.funnel")),
            "bars": len(driver.find_elements(By.CSS_SELECTOR, "svg.funnel g.bar")),
            "path": shot(driver, "admin-" + name, whole=True),
        }
    return pages


def main():
    global BASE, ADMIN_SECRET, SHOTS, TENANTS
    BASE, ADMIN_SECRET, SHOTS = sys.argv[1], sys.argv[2], sys.argv[3]
    TENANTS = sys.argv[4:]
    os.makedirs(SHOTS, exist_ok=True)
    summary["screenshots"] = SHOTS
    phone = browser(390, 844)
    try:
        for tenant in TENANTS:
            summary["tenants"][tenant] = walk(phone, tenant)
        summary["refusal"] = refusal(phone, TENANTS[0])
    finally:
        phone.quit()
    # Every button again in Spanish, in the dark scheme.
    summary["spanish"] = {}
    phone = browser(390, 844, "es-ES")
    try:
        phone.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        for tenant in TENANTS:
            summary["spanish"][tenant] = walk(phone, tenant, label=f"{tenant}-es-dark")
    finally:
        phone.quit()
    desk = browser(1280, 1000)
    try:
        summary["admin"] = admin(desk)
    finally:
        desk.quit()
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
