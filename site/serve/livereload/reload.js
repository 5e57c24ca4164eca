// Reloads this page when "releasegate serve --watch" has rebuilt the site.
// Served only by the development server; never part of a built page.
(function () {
  "use strict";
  var tag = document.currentScript;
  var shown = Number(tag && tag.getAttribute("data-generation")) || 0;
  var events = new EventSource("/__releasegate/events");
  function maybeReload(e) {
    if (Number(e.data) > shown) {
      events.close();
      location.reload();
    }
  }
  // "hello" covers a rebuild that finished while this page was loading.
  events.addEventListener("hello", maybeReload);
  events.addEventListener("reload", maybeReload);
})();
