"""Accessibility measured with axe-core in Chromium: every page of every tenant's flow, in each
language, light and dark, with and without the errors of an empty submit, the completion page,
and every dashboard page.

Usage: accessibility.py BASE_URL ADMIN_SECRET SCREENSHOT_DIR LANGUAGES TENANT [TENANT ...]

LANGUAGES is a comma-separated list of browser languages (en-US,es-ES). The server runs
`serve --http ... --preview`. For each language and tenant the script opens /preview/TENANT/ in a
browser asking for that language and walks the flow with the helpers of browser_flow.py. On each
step it first submits the page as the walker found it (required fields empty where they are):
the page the server answers, its errors shown, is checked too. Each page is checked twice, with
`prefers-color-scheme` emulated light and dark. One flow per tenant is also walked with the
keyboard alone (Tab, Space, Enter), answering only what needs no typing where the keyboard walk
cannot. Every control of a flow's page is measured against the theme's touch target (`--touch`).
The last line printed is a JSON summary: for each page checked, the violations of impact serious
or critical (rule, impact, the first nodes' selectors), and the controls smaller than the target.
"""

import json
import os
import sys

from axe_selenium_python import Axe
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import browser_flow as flow

SERIOUS = ("serious", "critical")
summary = {"pages": 0, "violations": [], "walks": {}, "keyboard": {}, "lang": [], "shots": [], "small": [], "titles": [],
           "returns": [], "audited": []}


def scheme(driver, name):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": name}]})


SMALL_TARGETS = """
const touch = getComputedStyle(document.documentElement).getPropertyValue('--touch').trim();
const least = touch.endsWith('rem') ? parseFloat(touch) * parseFloat(getComputedStyle(document.documentElement).fontSize) : 44;
return Array.from(document.querySelectorAll('button, select, input:not([type=hidden]), label.option, a.button'))
  .filter(e => !(e.tagName === 'INPUT' && e.closest('label.option')))
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height + 0.5 < least; })
  .map(e => e.outerHTML.slice(0, 100));
"""


def audit(driver, label):
    """axe-core over the page as it is, light then dark; serious and critical violations kept.
    On a flow's page, every control is also measured against the theme's touch target."""
    summary["audited"].append(driver.current_url)
    if "/flow/" in driver.current_url:
        for small in driver.execute_script(SMALL_TARGETS):
            summary["small"].append({"page": label, "element": small})
        tenant = driver.current_url.split("/flow/")[1].split("/")[0]
        summary["titles"].append({"tenant": tenant, "title": driver.title,
                                  "logo": bool(driver.find_elements(By.CSS_SELECTOR, ".app-bar img"))})
        for link in driver.find_elements(By.CSS_SELECTOR, "a.return"):
            summary["returns"].append({"tenant": tenant, "href": link.get_attribute("href")})
    for name in ("light", "dark"):
        scheme(driver, name)
        axe = Axe(driver)
        axe.inject()
        results = axe.run()
        summary["pages"] += 1
        for violation in results["violations"]:
            if violation.get("impact") in SERIOUS:
                summary["violations"].append({
                    "page": label, "scheme": name, "url": driver.current_url, "rule": violation["id"],
                    "impact": violation["impact"], "help": violation["help"],
                    "nodes": [" ".join(node["target"]) if isinstance(node["target"], list) else str(node["target"])
                              for node in violation["nodes"][:3]],
                })
    scheme(driver, "light")


def language_of(driver):
    return driver.find_element(By.TAG_NAME, "html").get_attribute("lang")


def walk(driver, tenant, language):
    """The flow to its end, every page audited; the first visit of each step also submitted
    as found, to audit the page with its errors."""
    driver.get(f"{flow.BASE}/preview/{tenant}/")
    attempts, last_step, pages, tried_empty = {}, None, 0, set()
    for _ in range(90):
        forms = driver.find_elements(By.CSS_SELECTOR, "form[action^='/flow/']")
        step = flow.current_step(driver)
        label = f"{language} {tenant} {step or 'end'}"
        if step is None or not forms:
            audit(driver, label)
            summary["lang"].append({"page": label, "lang": language_of(driver)})
            flow.shot(driver, f"a11y-{language}-{tenant}-end")
            # A flow's end page, not an error page that has no form either.
            if not driver.find_elements(By.CSS_SELECTOR, "main.done"):
                return {"status": "no form", "pages": pages, "title": driver.title}
            return {"status": "ended", "pages": pages}
        if step not in tried_empty:
            tried_empty.add(step)
            audit(driver, label)
            summary["lang"].append({"page": label, "lang": language_of(driver)})
            if pages < 2:
                flow.shot(driver, f"a11y-{language}-{tenant}-{step}")
            required = forms[0].find_elements(By.CSS_SELECTOR, "[required], [aria-required=true]")
            if required:
                flow.submit(driver, forms[0].find_element(By.CSS_SELECTOR, ".actions button[value=continue]"))
                if flow.current_step(driver) == step and driver.find_elements(By.CSS_SELECTOR, "[aria-invalid=true], .errors"):
                    audit(driver, label + " (errors)")
                    if tenant not in summary["walks"]:
                        flow.shot(driver, f"a11y-{language}-{tenant}-{step}-errors")
                continue
        attempt = attempts.get(step, 0) if step == last_step else 0
        if step == last_step:
            attempt += 1
            if attempt > 8:
                return {"status": "stuck", "step": step}
        attempts[step] = attempt
        last_step = step
        form = driver.find_element(By.CSS_SELECTOR, "form[action^='/flow/']")
        for name in [f.get_attribute("data-field") for f in form.find_elements(By.CSS_SELECTOR, "[data-field-type='search']")]:
            flow.search(driver, driver.find_element(By.CSS_SELECTOR, f"[data-field-type='search'][data-field='{name}']"), attempt)
        form = driver.find_element(By.CSS_SELECTOR, "form[action^='/flow/']")
        order = 0
        for field in form.find_elements(By.CSS_SELECTOR, "[data-field-type]"):
            if field.get_attribute("data-field-type") in ("search", "list") or ".custom." in (field.get_attribute("data-field") or ""):
                continue
            flow.fill(driver, field, attempt, order)
            order += 1
        buttons = form.find_elements(By.CSS_SELECTOR, ".actions button[value=continue]") or \
            [b for b in form.find_elements(By.CSS_SELECTOR, ".actions button") if b.get_attribute("value") not in ("back", "later")]
        flow.submit(driver, buttons[0])
        pages += 1
    return {"status": "too long", "pages": pages}


def replaced(element):
    """True once the page `element` belonged to has been replaced by the next one."""
    try:
        element.is_enabled()
        return False
    except Exception:
        return True


def keyboard_walk(driver, tenant):
    """The flow walked with the keyboard alone: Tab to each control, Space to choose, Arrow Down
    in a list box, typing into boxes, Enter on Search and on Continue; nothing is clicked and no
    script sets a value. A page refused is walked again with the next answers to try. Counts the
    pages it moved through."""
    driver.get(f"{flow.BASE}/preview/{tenant}/")
    moved, last, attempt, searched = 0, None, 0, set()
    texts = ["Alex", "123456", "Alex Morgan"]
    for _ in range(60):
        step = flow.current_step(driver)
        if step is None:
            return {"status": "ended" if driver.find_elements(By.CSS_SELECTOR, "main.done") else "no form", "pages": moved}
        attempt = attempt + 1 if step == last else 0
        if attempt > 4:
            return {"status": "stuck", "step": step, "pages": moved,
                    "errors": [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".error, .errors")]}
        last = step
        chosen, times, reloaded = set(), 0, False
        ActionChains(driver).send_keys(Keys.TAB).perform()
        for _ in range(120):
            element = driver.switch_to.active_element
            tag, kind = element.tag_name, (element.get_attribute("type") or "")
            name, value = element.get_attribute("name") or "", element.get_attribute("value") or ""
            action = element.get_attribute("value") if tag == "button" else None
            if action == "continue" or (action or "").startswith("search:") and name == "_action" and step not in searched:
                if action != "continue":
                    searched.add(step)
                page = driver.find_element(By.TAG_NAME, "html")
                element.send_keys(Keys.ENTER)
                flow.WebDriverWait(driver, 20).until(lambda d: replaced(page))
                flow.WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.readyState") == "complete")
                reloaded = True
                break
            if kind == "radio" and name not in chosen and element.is_enabled():
                chosen.add(name)
                element.send_keys(Keys.SPACE)
            elif kind == "checkbox" and name not in chosen and element.is_enabled() and not element.is_selected():
                chosen.add(name)
                element.send_keys(Keys.SPACE)
            elif tag == "select" and not value:
                element.send_keys(Keys.ARROW_DOWN)
            elif tag == "input" and kind == "time" and (not value or attempt > 0):
                # Later boxes get later hours, so a block ends after it starts.
                hour = 7 + 2 * times
                times += 1
                element.send_keys(f"{hour % 12 or 12:02d}00{'AM' if hour < 12 else 'PM'}")
            elif tag == "input" and kind == "date" and not value:
                element.send_keys("06152000")
            elif tag == "input" and kind in ("text", "email", "number") and (not value or attempt > 0) and element.get_attribute("role") != "searchbox":
                if value:
                    element.send_keys(Keys.CONTROL, "a")
                    element.send_keys(Keys.BACKSPACE)
                low = element.get_attribute("min")
                typed = "alex@example.com" if kind == "email" or "email" in name.lower() else (low or "20") if kind == "number" else texts[attempt % len(texts)]
                element.send_keys(typed)
            elif element.get_attribute("role") == "searchbox" and not value:
                element.send_keys("austin")
            element.send_keys(Keys.TAB)
        if reloaded and flow.current_step(driver) != step:
            moved += 1
    return {"status": "too long", "pages": moved}


def admin_pages(driver):
    driver.get(f"{flow.BASE}/admin/")
    audit(driver, "admin sign-in")
    driver.find_element(By.ID, "secret").send_keys(flow.ADMIN_SECRET)
    flow.submit(driver, driver.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    audit(driver, "admin tenants")
    links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "main a[href*='/admin/']")]
    for link in sorted(set(links)):
        driver.get(link)
        audit(driver, "admin " + link.split("/admin/")[-1])


def main():
    flow.BASE, flow.ADMIN_SECRET, flow.SHOTS = sys.argv[1], sys.argv[2], sys.argv[3]
    languages = sys.argv[4].split(",")
    tenants = sys.argv[5:]
    os.makedirs(flow.SHOTS, exist_ok=True)
    for language in languages:
        phone = flow.browser(390, 844, language)
        try:
            for tenant in tenants:
                summary["walks"][f"{language} {tenant}"] = walk(phone, tenant, language)
        finally:
            phone.quit()
    keys = flow.browser(390, 844)
    try:
        for tenant in tenants:
            try:
                summary["keyboard"][tenant] = keyboard_walk(keys, tenant)
            except Exception as error:  # recorded, so the other tenants are still walked
                summary["keyboard"][tenant] = {"status": "error", "error": str(error).splitlines()[0]}
    finally:
        keys.quit()
    desk = flow.browser(1280, 1000)
    try:
        admin_pages(desk)
    finally:
        desk.quit()
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
