// The search page's conveniences. The page works without them: the form posts, every
// result has a link, and the file box only fills the text area.
(function () {
  "use strict";
  var TAIL_BYTES = 1000000; // what the server analyses of a long log (kb/textin.py)
  var form = document.getElementById("search-form");
  var box = document.getElementById("error-box");
  var lang = document.getElementById("lang");
  var status = document.getElementById("file-status");
  if (!form || !box) return;

  // Ctrl+Enter (Cmd+Enter on a Mac) searches from the text area.
  box.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit ? form.requestSubmit() : form.submit();
    }
  });

  // A log file, picked or dropped: read its tail into the box, where the error is.
  function readLog(file) {
    var start = Math.max(0, file.size - TAIL_BYTES);
    file.slice(start).text().then(function (text) {
      if (start > 0) text = text.slice(text.indexOf("\n") + 1); // no half line at the top
      box.value = text;
      status.textContent = start > 0
        ? "Read the last " + (TAIL_BYTES / 1e6).toFixed(1) + " MB of " + file.name + " (" + (file.size / 1e6).toFixed(1) + " MB)."
        : "Read " + file.name + ".";
    }, function () { status.textContent = "Could not read " + file.name + "."; });
  }
  var picker = document.getElementById("log-file");
  if (picker) picker.addEventListener("change", function () { if (picker.files.length) readLog(picker.files[0]); });
  box.addEventListener("dragover", function (event) { event.preventDefault(); box.classList.add("dropping"); });
  box.addEventListener("dragleave", function () { box.classList.remove("dropping"); });
  box.addEventListener("drop", function (event) {
    box.classList.remove("dropping");
    if (event.dataTransfer && event.dataTransfer.files.length) {
      event.preventDefault();
      readLog(event.dataTransfer.files[0]);
    }
  });

  // The docs language is kept between visits; a shared link's own language wins.
  var params = new URLSearchParams(window.location.search);
  var saved = null;
  try { saved = window.localStorage.getItem("exportkb-lang"); } catch (e) { /* storage off */ }
  if (lang) {
    if (!params.has("lang") && saved && saved !== lang.value && lang.querySelector('option[value="' + saved + '"]')) {
      lang.value = saved;
    }
    lang.addEventListener("change", function () {
      try { window.localStorage.setItem("exportkb-lang", lang.value); } catch (e) { /* storage off */ }
    });
  }

  // A result's link: the address bar shows it after a search, and the button copies it.
  var share = document.getElementById("share");
  if (share) {
    var link = share.getAttribute("data-link");
    if (window.history && window.history.replaceState && link) window.history.replaceState(null, "", link);
    var copy = document.getElementById("copy-link");
    var field = document.getElementById("permalink");
    var said = document.getElementById("copy-status");
    copy.addEventListener("click", function () {
      function done() { said.textContent = "Link copied."; }
      function fallback() {
        field.focus();
        field.select();
        try { document.execCommand("copy"); done(); } catch (e) { said.textContent = "Select the link and copy it."; }
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(done, fallback);
      } else {
        fallback();
      }
    });
  }
}());
