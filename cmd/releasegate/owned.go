package main

import (
	"bytes"
)

// What releasegate recognises as a file it wrote, from the file's first
// bytes: the only single files it replaces (docs/ownership.md).

// isResultsFile reports whether head opens a results file as evaluate
// writes it.
func isResultsFile(head []byte) bool {
	return bytes.HasPrefix(head, []byte("{\n  \"label\": ")) && bytes.Contains(head, []byte("\n  \"decision\": ")) ||
		bytes.HasPrefix(head, []byte("[\n  {\n    \"label\": ")) && bytes.Contains(head, []byte("\n    \"decision\": "))
}

// isJUnitReport reports whether head opens a JUnit report as evaluate
// writes it.
func isJUnitReport(head []byte) bool {
	return bytes.HasPrefix(head, []byte(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<testsuites name="releasegate" `))
}
