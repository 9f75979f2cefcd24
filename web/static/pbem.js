// pbem pages: small improvements on top of plain forms (every page works without this file).
// 1. A page with data-poll-url reloads itself when the game's version changes, unless the
//    player is typing a move or a message (then it says so and waits for them).
// 2. The history slider jumps to its version as soon as it is moved.
(function () {
  "use strict";
  var main = document.querySelector("[data-poll-url]");
  if (main && window.fetch) {
    var url = main.getAttribute("data-poll-url");
    var version = main.getAttribute("data-version");
    var notice = document.getElementById("moved");
    // The page's own address: a page that answers a form (a refusal) is at the form's
    // address, and reloading it would send the form again.
    var home = main.getAttribute("data-page-url");
    // Once a form of the page is being sent, its answer is the next page: no reload races it.
    var sending = false;
    document.addEventListener("submit", function () { sending = true; });
    // A move being typed, or a message to the table (its box: templates/_talk.html).
    var typing = function () {
      return ["action", "talk-text"].some(function (id) {
        var box = document.getElementById(id);
        return box && (box.value.trim() !== "" || document.activeElement === box);
      });
    };
    var check = function () {
      fetch(url, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (d) {
          if (!d || String(d.version) === version || sending) { return; }
          if (typing()) {
            if (notice) { notice.hidden = false; }
          } else if (home && window.location.pathname !== home) {
            window.location.assign(home);
          } else {
            window.location.reload();
          }
        })
        .catch(function () { /* offline for a moment: try again at the next tick */ });
    };
    var delay = parseInt(main.getAttribute("data-poll-ms") || "3000", 10);
    window.setInterval(check, delay);
  }
  // 3. The history's log box shows the current step's line (the page itself stays put).
  var box = document.querySelector(".logbox");
  var line = box && box.querySelector("li.current");
  if (line) { box.scrollTop = line.offsetTop - box.offsetTop - box.clientHeight / 3; }
  var slider = document.getElementById("at-slider");
  if (slider) {
    slider.addEventListener("change", function () { slider.form.submit(); });
  }
})();
// 5. A page that answers a form (a notice or a refusal at its top) is shown from its top: a
//    browser sent back to the address it was on would otherwise keep its scroll position,
//    below the fold where the form was, and nothing would seem to happen.
(function () {
  "use strict";
  var said = document.querySelector("#notices > [role=status], #notices > [role=alert]");
  if (!said) { return; }
  if ("scrollRestoration" in window.history) { window.history.scrollRestoration = "manual"; }
  window.scrollTo(0, 0);
})();
// 4. The /new page shows the five law groups' choices only when the laws are combined (without
//    this file they are always shown, and used only when "combined" is chosen).
(function () {
  "use strict";
  var groups = document.getElementById("law-groups");
  var radios = document.querySelectorAll("input[name=laws]");
  if (!groups || !radios.length) { return; }
  var update = function () {
    var chosen = document.querySelector("input[name=laws]:checked");
    groups.hidden = !(chosen && chosen.value === "combine");
  };
  for (var i = 0; i < radios.length; i += 1) { radios[i].addEventListener("change", update); }
  update();
})();
