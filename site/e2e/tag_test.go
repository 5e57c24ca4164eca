//go:build !e2e

// Package e2e checks the built report site the way a reader meets it: in a
// real browser, through the Nu Html Checker and through axe-core. Its tests
// carry the e2e build tag, so that "go test ./..." stays quick; run them
// with "go test -tags e2e ./site/e2e" (docs/testing.md).
package e2e

import "testing"

// TestBrowserSuiteNeedsTag says where the browser suite went when it is
// left out.
func TestBrowserSuiteNeedsTag(t *testing.T) {
	t.Skip("the browser suite runs with the e2e build tag: go test -tags e2e ./site/e2e")
}
