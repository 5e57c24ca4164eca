package pages

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
)

// NotFoundPage is 404.html. A host serves it for a missing file at any
// depth, so it holds its own styles, and its links are made absolute by
// a small script that finds the site's top folder from the address.
type NotFoundPage struct {
	Title string
	CSS   template.CSS
	// Icon is the site icon inlined as a data URL, so that the browser
	// asks no other address for one.
	Icon template.URL
	Home string
	// Pages are the main pages, relative to the site's top folder.
	Pages []NavLink
	// Markers are paths that exist only in the top folder and in no
	// folder below it, for the script to recognise where the top is.
	Markers []string
	// Script finds the top folder; ScriptHash allows it, and no other
	// inline script, in the page's content security policy. Scripts of
	// the site's own origin stay allowed, as on every page: a live
	// server's reload script is one.
	Script     template.JS
	ScriptHash string
}

// FindHome is 404.html's script. A host such as GitHub Pages serves the
// page at the missing address, so relative links would resolve from
// there. The report's top folder is the part of the address before the
// first folder that only the top folder holds (snapshots/, cases/, …).
// Failing that, the script asks the folders of the address, deepest
// first, for the stylesheet that only the top folder has.
const FindHome = `(function () {
  var list = document.querySelector(".not-found-pages");
  var markers = list.getAttribute("data-markers").split(" ");
  var path = location.pathname;
  var links = list.querySelectorAll("a[data-page]");
  function use(top, found) {
    links.forEach(function (a) { a.href = top + a.getAttribute("data-page"); });
    if (found) list.setAttribute("data-top", top);
  }
  var best = -1;
  markers.forEach(function (m) {
    var i = path.indexOf("/" + m);
    if (i >= 0 && (best < 0 || i < best)) best = i;
  });
  if (best >= 0) { use(path.slice(0, best + 1), true); return; }
  var tops = [];
  for (var i = path.lastIndexOf("/"); i >= 0; i = path.lastIndexOf("/", i - 1)) {
    tops.push(path.slice(0, i + 1));
    if (i === 0) break;
  }
  use(tops[0], false);
  if (location.protocol === "file:" || !window.fetch) return;
  (function probe(k) {
    if (k >= tops.length) return;
    fetch(tops[k] + "` + StylePath + `", {method: "HEAD"}).then(function (r) {
      if (r.ok) use(tops[k], true); else probe(k + 1);
    }, function () { probe(k + 1); });
  })(0);
})();`

// NotFoundPage builds 404.html, which inlines the stylesheet css and
// the icon so that it works at any depth.
func (v *Model) NotFoundPage(css template.CSS, icon template.URL) *NotFoundPage {
	p := &NotFoundPage{Title: "Page not found", CSS: css, Icon: icon, Home: OverviewPath,
		Markers: []string{"snapshots/", "cases/", "results/", "assets/"}, Script: template.JS(FindHome)}
	sum := sha256.Sum256([]byte(FindHome))
	p.ScriptHash = "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
	p.Pages = []NavLink{{Href: OverviewPath, Text: "Release overview"}}
	if v.Info.HasPolicy {
		p.Pages = append(p.Pages, NavLink{Href: PolicyPath, Text: "Policy"})
	}
	if v.Info.HasHandoff {
		p.Pages = append(p.Pages, NavLink{Href: HandoffPath, Text: "Handoff"})
	}
	p.Pages = append(p.Pages, NavLink{Href: ReportPagePath, Text: "Release report"}, NavLink{Href: GlossaryPath, Text: "Glossary"})
	labels := v.Info.Labels
	for i := len(labels) - 1; i >= max(0, len(labels)-navSnapshots); i-- {
		p.Pages = append(p.Pages, NavLink{Href: SnapshotPath(labels[i]), Text: "Snapshot " + labels[i]})
	}
	return p
}
