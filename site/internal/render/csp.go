package render

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"

	"github.com/releasegate/releasegate/site/pages"
)

// ContentSecurityPolicy is the policy every page of the site satisfies:
// scripts and styles come only from the site's own files (chart options
// are JSON data blocks, never executed), nothing is fetched from another
// host, and no page may be framed by another. Inline styles stay allowed
// for the chart library's tooltips and the live-reload overlay; inline
// scripts and eval do not.
//
// Pages carry it as a <meta http-equiv> element, so that GitHub Pages and
// a site opened from disk apply it too. A meta element cannot carry
// frame-ancestors; a server adds FrameAncestors as a header (see
// HeaderPolicy).
// The one inline script, 404.html's, is allowed by its hash alone.
var ContentSecurityPolicy = "default-src 'none'; script-src 'self' " + ScriptHash(pages.FindHome) + "; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'"

// ScriptHash is a CSP source allowing exactly the inline script s.
func ScriptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// FrameAncestors forbids framing; valid only in a response header.
const FrameAncestors = "frame-ancestors 'none'"

// HeaderPolicy is ContentSecurityPolicy as a server sends it in the
// Content-Security-Policy header.
var HeaderPolicy = ContentSecurityPolicy + "; " + FrameAncestors

// cspMeta is the policy as the first element of a page's head, where it
// covers every script and style the page loads. The policy holds no
// character that needs escaping in an attribute (a test keeps it so).
func cspMeta() template.HTML {
	return template.HTML(`<meta http-equiv="Content-Security-Policy" content="` + ContentSecurityPolicy + `">`)
}
