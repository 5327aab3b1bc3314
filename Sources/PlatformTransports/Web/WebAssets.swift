import PlatformCore
import PlatformServer
import PlatformStorage

/// The one stylesheet and the one script every page uses, served by platformd itself
/// (`/assets/platformd.css`, `/assets/platformd.js`): no page loads anything from another host.
enum WebAssets {
    /// Readable from a phone's width up; colours keep at least 4.5:1 contrast on their background
    /// (the text #1d2433 on white is 15:1, the primary button's white on #1f4fbf 7:1, the error
    /// #a4161a on white 7.6:1); focus is always visible.
    static let css = """
        *, *::before, *::after { box-sizing: border-box; }
        html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2433; background: #f4f6fa; line-height: 1.45; }
        body { margin: 0; padding: 1rem; }
        main { max-width: 40rem; margin: 0 auto; background: #fff; border-radius: 12px; padding: 1.25rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
        main.wide { max-width: 64rem; }
        h1 { font-size: 1.5rem; margin: .25rem 0 .5rem; }
        h2 { font-size: 1.15rem; margin: 1.25rem 0 .5rem; }
        .subtitle, .helper { color: #3d4759; margin: .25rem 0 1rem; }
        progress.progress { display: block; width: 100%; height: .5rem; border: 0; border-radius: 4px; background: #dfe4ee; color: #1f4fbf; appearance: none; }
        progress.progress::-webkit-progress-bar { background: #dfe4ee; border-radius: 4px; }
        progress.progress::-webkit-progress-value { background: #1f4fbf; border-radius: 4px; }
        progress.progress::-moz-progress-bar { background: #1f4fbf; border-radius: 4px; }
        .signout { justify-content: flex-end; margin-top: 0; }
        .progress-label { font-size: .875rem; color: #3d4759; margin: .35rem 0 0; }
        .field { margin: 0 0 1.1rem; border: 0; padding: 0; }
        .field > label, .field > legend { display: block; font-weight: 600; margin-bottom: .35rem; padding: 0; }
        .required { color: #a4161a; }
        input[type=text], input[type=email], input[type=number], input[type=date], input[type=time], input[type=search], input[type=password], select {
          width: 100%; font: inherit; padding: .6rem .7rem; border: 1px solid #8a94a6; border-radius: 8px; background: #fff; color: inherit; }
        input[type=range] { width: 100%; }
        .option { display: flex; gap: .6rem; align-items: flex-start; padding: .55rem .6rem; border: 1px solid #c9d0dc; border-radius: 8px; margin-bottom: .4rem; }
        .option input { margin-top: .25rem; width: 1.1rem; height: 1.1rem; flex: none; }
        .option .detail { display: block; color: #3d4759; font-size: .9rem; }
        .option .badge { display: inline-block; font-size: .75rem; background: #e7ebf3; color: #1d2433; border-radius: 999px; padding: 0 .5rem; margin-left: .35rem; }
        .option.locked { color: #5a6375; background: #f4f6fa; }
        [aria-invalid=true] { border-color: #a4161a !important; border-width: 2px !important; }
        .error { color: #a4161a; font-weight: 600; margin: .35rem 0 0; }
        .errors { border: 2px solid #a4161a; border-radius: 8px; padding: .5rem .75rem; color: #a4161a; margin-bottom: 1rem; }
        .entry { border: 1px solid #c9d0dc; border-radius: 8px; padding: .75rem; margin-bottom: .6rem; }
        .actions { display: flex; flex-wrap: wrap; gap: .6rem; margin-top: 1.25rem; }
        button { font: inherit; padding: .65rem 1.1rem; border-radius: 8px; border: 1px solid #1f4fbf; background: #fff; color: #1f4fbf; cursor: pointer; min-height: 44px; }
        button.primary { background: #1f4fbf; color: #fff; }
        button.link { border: 0; padding: .2rem; min-height: auto; text-decoration: underline; }
        :focus-visible { outline: 3px solid #f0a202; outline-offset: 2px; }
        .review section { border-top: 1px solid #dfe4ee; padding: .5rem 0; }
        .review h2 { display: flex; justify-content: space-between; align-items: center; font-size: 1rem; }
        .message { font-size: 1.1rem; }
        .suggestions { list-style: none; padding: 0; margin: .35rem 0 0; }
        .suggestions button { width: 100%; text-align: left; border-color: #c9d0dc; color: #1d2433; margin-bottom: .3rem; }
        table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #dfe4ee; vertical-align: top; }
        figure { margin: 1rem 0; overflow-x: auto; }
        figcaption { font-size: .9rem; color: #3d4759; }
        nav a, main a { color: #1f4fbf; }
        .muted { color: #3d4759; font-size: .9rem; }
        @media (max-width: 30rem) { body { padding: .5rem; } main { padding: 1rem; border-radius: 8px; } }
        """

    /// What the pages do with JavaScript, all of it optional: a search field suggests places as
    /// the person types (the form's own Search button does the same without it).
    static let javascript = """
        "use strict";
        document.querySelectorAll("[data-search-field]").forEach(function (box) {
          var input = box.querySelector("input[type=search]");
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
        document.querySelectorAll("input[type=range][data-output]").forEach(function (range) {
          var output = document.getElementById(range.getAttribute("data-output"));
          if (!output) return;
          range.addEventListener("input", function () { output.textContent = range.value; });
        });
        """
}
