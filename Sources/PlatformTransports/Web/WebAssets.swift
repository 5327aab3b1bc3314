import PlatformCore
import PlatformServer
import PlatformStorage

/// The one stylesheet and the one script every page uses, served by platformd itself
/// (`/assets/platformd.css`, `/assets/platformd.js`): no page loads anything from another host.
enum WebAssets {
    /// Versions in the assets' URLs (`?v=`), from their content: a page after an upgrade never
    /// gets the cached stylesheet or script of the one before.
    static let cssVersion = version(of: css)
    static let javascriptVersion = version(of: javascript)

    static func version(of text: String) -> String {
        String(ExperimentHash.fnv1a32(text), radix: 36)
    }

    /// Readable from a phone's width up, drawn from the theme's variables (`Theme`: the standard
    /// one here, a tenant's in `/assets/tenant/TENANT/theme.css` after it). Sizes are in rem so
    /// text follows the browser's size; every control is at least the theme's touch target;
    /// focus is always visible; motion stops when the person asks for less.
    static let css = """
        \(ThemeStyle.variables(Theme.standard, selector: ":root"))
        *, *::before, *::after { box-sizing: border-box; }
        html { font-family: var(--font); font-size: 100%; color: var(--text); background: var(--bg); line-height: 1.5; -webkit-text-size-adjust: 100%; }
        body { margin: 0; padding: 1rem; }
        .app-bar, .app-footer { max-width: 40rem; margin: 0 auto; display: flex; align-items: center; gap: .6rem; }
        .app-bar { padding: 0 0 .75rem; }
        .app-bar img { height: 2rem; width: auto; max-width: 10rem; }
        .app-name { font-weight: 700; font-size: 1.0625rem; }
        .app-footer { padding: 1rem 0 0; color: var(--muted); font-size: .8125rem; justify-content: center; }
        main { max-width: 40rem; margin: 0 auto; background: var(--surface); color: var(--text); border: 1px solid var(--border); border-radius: calc(var(--radius) + 4px); padding: 1.5rem 1.25rem; }
        main.wide { max-width: 64rem; }
        h1 { font-size: 1.5rem; line-height: 1.25; margin: .25rem 0 .5rem; }
        h2 { font-size: 1.125rem; margin: 1.25rem 0 .5rem; }
        .subtitle, .helper { color: var(--muted); margin: .25rem 0 1rem; }
        .progress { margin: 0 0 1rem; }
        .progress-segments { display: flex; gap: .25rem; }
        .progress-segments span { flex: 1; height: .25rem; border-radius: 2px; background: var(--track); }
        .progress-segments span.on { background: var(--accent); }
        .progress-dots { display: flex; gap: .5rem; justify-content: center; margin-bottom: .5rem; }
        .progress-dots span { width: .5rem; height: .5rem; border-radius: 50%; background: var(--track); }
        .progress-dots span.on { background: var(--accent); }
        progress.progress-native { display: block; width: 100%; height: .25rem; border: 0; border-radius: 2px; background: var(--track); color: var(--accent); appearance: none; }
        progress.progress-native::-webkit-progress-bar { background: var(--track); border-radius: 2px; }
        progress.progress-native::-webkit-progress-value { background: var(--accent); border-radius: 2px; }
        progress.progress-native::-moz-progress-bar { background: var(--accent); border-radius: 2px; }
        .progress-fraction { font-size: 1.25rem; font-weight: 700; margin: 0; }
        .progress-label { font-size: .875rem; color: var(--muted); margin: .4rem 0 0; }
        .signout { justify-content: flex-end; margin-top: 0; }
        .field { margin: 0 0 1.25rem; border: 0; padding: 0; min-width: 0; }
        [hidden] { display: none !important; }
        .field > label:not(.option), .field > legend { display: block; font-weight: 600; margin-bottom: .4rem; padding: 0; }
        .required { color: var(--error); }
        input[type=text], input[type=email], input[type=number], input[type=date], input[type=time], input[type=search], input[type=password], select {
          width: 100%; min-height: var(--touch); font: inherit; padding: .6rem .8rem; border: 1px solid var(--border); border-radius: var(--radius); background: var(--bg); color: var(--text); }
        input[type=range] { width: 100%; min-height: var(--touch); accent-color: var(--primary); }
        .option { position: relative; display: flex; gap: .75rem; align-items: center; min-height: var(--touch); padding: .75rem 1rem; border: 1px solid var(--border); border-radius: var(--radius); background: var(--bg); color: var(--text); margin-bottom: .5rem; cursor: pointer; font-weight: 400; transition: border-color .2s ease, box-shadow .2s ease; }
        .option input { position: absolute; opacity: 0; width: 1px; height: 1px; margin: 0; }
        .option > span:first-of-type { flex: 1; }
        .option:has(input:checked) { border-color: var(--primary); box-shadow: inset 0 0 0 1px var(--primary); }
        .option:has(input:focus-visible) { outline: 3px solid var(--link); outline-offset: 2px; }
        .option .tick { flex: none; width: 1.375rem; height: 1.375rem; border-radius: 50%; border: 2px solid var(--border); display: flex; align-items: center; justify-content: center; }
        .option:has(input[type=checkbox]) .tick { border-radius: 6px; }
        .option .tick::after { content: ""; width: .375rem; height: .7rem; border: solid var(--bg); border-width: 0 2px 2px 0; transform: rotate(45deg) translate(-1px, -1px); opacity: 0; }
        .option input:checked ~ .tick { border-color: var(--accent); background: var(--accent); }
        .option input:checked ~ .tick::after { opacity: 1; }
        .option input:focus-visible ~ span:first-of-type { text-decoration: underline; }
        .option .detail { display: block; color: var(--muted); font-size: .875rem; }
        .option .badge { display: inline-block; font-size: .75rem; border: 1px solid var(--border); color: var(--text); border-radius: 999px; padding: 0 .5rem; margin-left: .4rem; }
        .option.locked { color: var(--muted); background: var(--surface); cursor: not-allowed; }
        [aria-invalid=true] { border-color: var(--error) !important; border-width: 2px !important; }
        .field-help { color: var(--muted); font-size: .875rem; margin: .4rem 0 0; }
        .error { color: var(--error); font-weight: 600; margin: .4rem 0 0; }
        .errors { border: 2px solid var(--error); border-radius: var(--radius); padding: .5rem .75rem; color: var(--error); margin-bottom: 1rem; }
        .entry { border: 1px solid var(--border); border-radius: var(--radius); padding: .75rem; margin-bottom: .6rem; }
        .actions { display: flex; flex-wrap: wrap; gap: .6rem; margin-top: 1.5rem; }
        .actions .primary { flex: 1 1 12rem; }
        button, .button { display: inline-flex; align-items: center; justify-content: center; font: inherit; font-weight: 600; padding: .65rem 1.2rem; border-radius: var(--radius); border: 1px solid var(--link); background: transparent; color: var(--link); cursor: pointer; min-height: var(--touch); min-width: var(--touch); text-decoration: none; }
        button.primary, .button.primary { background: var(--primary); border-color: var(--primary); color: var(--on-primary); }
        button.link { border: 0; padding: .2rem .5rem; min-height: var(--touch); text-decoration: underline; font-weight: 400; }
        :focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
        .review section { border-top: 1px solid var(--border); padding: .5rem 0; }
        .review h2 { display: flex; justify-content: space-between; align-items: center; font-size: 1rem; }
        .message { font-size: 1.125rem; }
        main.motivational { background: linear-gradient(135deg, var(--primary), var(--gradient-end)); color: var(--on-primary); border: 0; text-align: center; padding: 2.5rem 1.5rem; }
        main.motivational h1 { font-size: 1.75rem; }
        main.motivational .progress-label, main.motivational .message { color: var(--on-primary); }
        main.motivational .progress-segments span, main.motivational .progress-dots span { background: var(--on-primary); opacity: .35; }
        main.motivational .progress-segments span.on, main.motivational .progress-dots span.on { opacity: 1; }
        main.motivational button.primary { background: var(--on-primary); border-color: var(--on-primary); color: var(--primary); }
        main.motivational button { color: var(--on-primary); border-color: var(--on-primary); }
        main.motivational :focus-visible { outline-color: var(--on-primary); }
        .done { text-align: center; }
        .done .summary { text-align: left; background: var(--bg); border: 1px solid var(--border); border-radius: var(--radius); padding: .75rem 1rem; list-style: none; }
        .done .summary li + li { border-top: 1px solid var(--border); margin-top: .5rem; padding-top: .5rem; }
        .suggestions { list-style: none; padding: 0; margin: .4rem 0 0; }
        .suggestions button { width: 100%; justify-content: flex-start; border-color: var(--border); color: var(--text); margin-bottom: .3rem; font-weight: 400; }
        table { border-collapse: collapse; width: 100%; font-size: .875rem; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--border); vertical-align: top; }
        figure { margin: 1rem 0; overflow-x: auto; }
        figcaption { font-size: .875rem; color: var(--muted); }
        nav a, main a { color: var(--link); }
        .muted { color: var(--muted); font-size: .875rem; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .no-emoji .emoji { display: none; }
        svg .chart-text { fill: var(--text); }
        svg .chart-muted { fill: var(--muted); }
        svg .chart-box { fill: var(--bg); stroke: var(--link); }
        svg .chart-line { stroke: var(--muted); }
        svg .chart-line-fill { fill: var(--muted); }
        svg .chart-branch { stroke: var(--link); }
        svg .chart-branch-text { fill: var(--link); }
        svg .chart-reached { fill: var(--track); }
        svg .chart-left { fill: var(--primary); }
        @media (max-width: 30rem) { body { padding: .5rem; } main { padding: 1.25rem 1rem; } }
        @media (prefers-reduced-motion: reduce) { *, *::before, *::after { transition: none !important; animation: none !important; scroll-behavior: auto !important; } }
        """

    /// What the pages do with JavaScript, all of it optional: a search field suggests places as
    /// the person types (the form's own Search button does the same without it).
    static let javascript = """
        "use strict";
        (function () {
          // No color emoji font (a bare Linux browser draws an empty box): emoji are decoration
          // here, so they are hidden rather than shown as boxes.
          var canvas = document.createElement("canvas");
          var context = canvas.getContext && canvas.getContext("2d");
          if (!context) return;
          canvas.width = canvas.height = 20;
          context.textBaseline = "top";
          context.font = "16px sans-serif";
          context.fillText("\\uD83D\\uDC4B", 0, 0);
          var pixels = context.getImageData(0, 0, 20, 20).data, colored = false;
          for (var i = 0; i < pixels.length; i += 4) {
            if (pixels[i + 3] > 0 && (pixels[i] !== pixels[i + 1] || pixels[i + 1] !== pixels[i + 2])) { colored = true; break; }
          }
          if (!colored) document.documentElement.classList.add("no-emoji");
        })();
        document.querySelectorAll("[data-search-field]").forEach(function (box) {
          var input = box.querySelector("input[data-search-query]");
          var list = box.querySelector(".suggestions");
          var url = box.getAttribute("data-search-url");
          var field = box.getAttribute("data-search-field");
          var timer = null;
          if (!input || !list || !url) return;
          input.addEventListener("input", function () {
            clearTimeout(timer);
            timer = setTimeout(function () {
              var query = input.value.trim();
              if (query.length < 2) { list.innerHTML = ""; return; }
              fetch(url + "&q=" + encodeURIComponent(query), { credentials: "same-origin" })
                .then(function (response) { return response.ok ? response.json() : { results: [] }; })
                .then(function (answer) {
                  list.innerHTML = "";
                  (answer.results || []).forEach(function (result) {
                    var item = document.createElement("li");
                    var button = document.createElement("button");
                    button.type = "submit";
                    button.name = field;
                    button.value = result.value;
                    button.textContent = result.label;
                    item.appendChild(button);
                    list.appendChild(item);
                  });
                  list.setAttribute("aria-live", "polite");
                })
                .catch(function () {});
            }, 200);
          });
        });
        (function () {
          // Field conditions (visibleWhen, requiredWhen), decided from the form as the server
          // decides them from a submit: a hidden field reads as unanswered and is not posted.
          var conditional = document.querySelectorAll("[data-visible-when], [data-required-when]");
          if (!conditional.length) return;
          function box(name) { return document.querySelector('[data-field="' + CSS.escape(name) + '"]'); }
          // A field's own controls: not those of a field inside it (a list's entries).
          function controls(field, selector) {
            return Array.prototype.filter.call(field.querySelectorAll(selector), function (input) {
              return input.closest("[data-field]") === field;
            });
          }
          function read(name) {
            var field = box(name);
            if (!field || field.closest("[hidden]")) return null;
            var type = field.getAttribute("data-field-type");
            if (type === "multi_choice") {
              return Array.prototype.map.call(field.querySelectorAll("input[type=checkbox]:checked"), function (input) { return input.value; });
            }
            if (type === "boolean") {
              var tick = field.querySelector("input[type=checkbox]");
              return tick ? (tick.checked ? "true" : "false") : null;
            }
            var radio = field.querySelector("input[type=radio]");
            if (radio) {
              var picked = field.querySelector("input[type=radio]:checked");
              return picked ? picked.value : null;
            }
            var input = field.querySelector("input:not([type=hidden]), select, textarea");
            // Text is compared as the server keeps it: trimmed.
            return input ? input.value.trim() : null;
          }
          function answered(value) { return value !== null && (Array.isArray(value) ? value.length > 0 : value.trim() !== ""); }
          function same(value, expected) {
            if (typeof expected === "number") return value.trim() !== "" && Number(value) === expected;
            return value === String(expected);
          }
          function order(value, bound) {
            if (!answered(value) || Array.isArray(value)) return null;
            if (typeof bound === "number") { var n = Number(value); return isNaN(n) ? null : (n < bound ? -1 : (n > bound ? 1 : 0)); }
            if (typeof bound === "string") return value < bound ? -1 : (value > bound ? 1 : 0);
            return null;
          }
          function holds(condition, scope) {
            if (condition.all) return condition.all.every(function (c) { return holds(c, scope); });
            if (condition.any) return condition.any.some(function (c) { return holds(c, scope); });
            if (condition.not) return !holds(condition.not, scope);
            var value = read(scope + condition.field);
            var has = answered(value);
            if ("answered" in condition) return has === condition.answered;
            if ("equals" in condition) return has && !Array.isArray(value) && same(value, condition.equals);
            if ("notEquals" in condition) return !(has && !Array.isArray(value) && same(value, condition.notEquals));
            if ("in" in condition) return has && !Array.isArray(value) && condition["in"].some(function (x) { return same(value, x); });
            if ("contains" in condition) return has && Array.isArray(value) && value.indexOf(String(condition.contains)) >= 0;
            var checks = { lessThan: function (o) { return o < 0; }, atMost: function (o) { return o <= 0; },
                           greaterThan: function (o) { return o > 0; }, atLeast: function (o) { return o >= 0; } };
            for (var name in checks) {
              if (name in condition) { var o = order(value, condition[name]); return o !== null && checks[name](o); }
            }
            return false;
          }
          function apply() {
            conditional.forEach(function (field) {
              var scope = field.getAttribute("data-scope") || "";
              var visibleWhen = field.getAttribute("data-visible-when");
              var shown = !visibleWhen || holds(JSON.parse(visibleWhen), scope);
              field.hidden = !shown;
              // Inside a hidden field (an entry of a hidden list) it is hidden with it.
              if (field.parentElement && field.parentElement.closest("[hidden]")) shown = false;
              // Hidden, a field's inputs are not posted; shown again, only those this script
              // disabled are enabled (a locked option stays disabled).
              field.querySelectorAll("input, select, textarea").forEach(function (input) {
                if (!shown && !input.disabled) { input.disabled = true; input.setAttribute("data-hidden-by-condition", ""); }
                if (shown && input.hasAttribute("data-hidden-by-condition")) { input.disabled = false; input.removeAttribute("data-hidden-by-condition"); }
              });
              var requiredWhen = field.getAttribute("data-required-when");
              if (requiredWhen) {
                var needed = shown && holds(JSON.parse(requiredWhen), scope);
                var mark = controls(field, ".required")[0] || field.querySelector(".required");
                if (mark) mark.hidden = !needed;
                controls(field, "input:not([type=hidden]):not([type=checkbox]):not([type=radio]), select, textarea").forEach(function (input) {
                  input.required = needed;
                  input.setAttribute("aria-required", needed ? "true" : "false");
                });
              }
            });
          }
          document.querySelectorAll("form").forEach(function (form) {
            form.addEventListener("input", apply);
            form.addEventListener("change", apply);
          });
          apply();
        })();
        document.querySelectorAll("input[type=range][data-output]").forEach(function (range) {
          var output = document.getElementById(range.getAttribute("data-output"));
          if (!output) return;
          range.addEventListener("input", function () { output.textContent = range.value; });
        });
        """
}
