package ciout

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// The structs below read a report back the way a CI system would. They
// are written independently of junit.go so that a mistake there cannot
// hide itself.

type junitDoc struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

func (s junitSuite) property(name string) string { return lookup(s.Properties, name) }

type junitCase struct {
	Classname  string          `xml:"classname,attr"`
	Name       string          `xml:"name,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Failures   []struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	} `xml:"failure"`
}

func (c junitCase) property(name string) string { return lookup(c.Properties, name) }

func lookup(ps []junitProperty, name string) string {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// parseJUnit checks a report against the common JUnit structure and
// decodes it.
func parseJUnit(t testing.TB, report []byte) junitDoc {
	t.Helper()
	if err := checkStructure(report); err != nil {
		t.Fatalf("the report breaks the JUnit structure: %v\n%s", err, report)
	}
	var doc junitDoc
	if err := xml.Unmarshal(report, &doc); err != nil {
		t.Fatalf("the report is not XML: %v", err)
	}
	total, failed := 0, 0
	for _, s := range doc.Suites {
		fails := 0
		for _, c := range s.Cases {
			if len(c.Failures) > 0 {
				fails++
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != fails {
			t.Fatalf("suite %s counts tests=%d failures=%d but holds %d cases, %d failing", s.Name, s.Tests, s.Failures, len(s.Cases), fails)
		}
		total, failed = total+s.Tests, failed+s.Failures
	}
	if doc.Tests != total || doc.Failures != failed {
		t.Fatalf("testsuites counts tests=%d failures=%d, its suites add up to %d and %d", doc.Tests, doc.Failures, total, failed)
	}
	return doc
}

// element describes what one element may hold, mirroring testdata/junit.xsd.
type element struct {
	required, optional []string          // attribute names
	typed              map[string]string // attribute name → "count" or "seconds"
	children           []particle        // in order
	text               bool              // character data allowed
}

// particle is a run of children: any of names, between min and max times.
type particle struct {
	names    []string
	min, max int // max < 0: unbounded
}

const unbounded = -1

var schema = map[string]element{
	"testsuites": {
		optional: []string{"name", "tests", "failures", "errors", "skipped", "disabled", "time"},
		typed:    map[string]string{"tests": "count", "failures": "count", "errors": "count", "skipped": "count", "disabled": "count", "time": "seconds"},
		children: []particle{{[]string{"testsuite"}, 0, unbounded}},
	},
	"testsuite": {
		required: []string{"name", "tests"},
		optional: []string{"failures", "errors", "skipped", "disabled", "time", "timestamp", "hostname", "id", "package", "file"},
		typed:    map[string]string{"tests": "count", "failures": "count", "errors": "count", "skipped": "count", "disabled": "count", "time": "seconds"},
		children: []particle{{[]string{"properties"}, 0, 1}, {[]string{"testcase"}, 0, unbounded}, {[]string{"system-out"}, 0, 1}, {[]string{"system-err"}, 0, 1}},
	},
	"properties": {children: []particle{{[]string{"property"}, 0, unbounded}}},
	"property":   {required: []string{"name", "value"}},
	"testcase": {
		required: []string{"name"},
		optional: []string{"classname", "time", "assertions", "file", "line"},
		typed:    map[string]string{"time": "seconds", "assertions": "count", "line": "count"},
		children: []particle{{[]string{"properties"}, 0, 1}, {[]string{"skipped", "error", "failure"}, 0, unbounded}, {[]string{"system-out"}, 0, 1}, {[]string{"system-err"}, 0, 1}},
	},
	"failure":    {optional: []string{"message", "type"}, text: true},
	"error":      {optional: []string{"message", "type"}, text: true},
	"skipped":    {optional: []string{"message", "type"}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
}

var attrTypes = map[string]*regexp.Regexp{
	"count":   regexp.MustCompile(`^[0-9]+$`),
	"seconds": regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`),
}

// node is a parsed element.
type node struct {
	name     string
	attrs    []xml.Attr
	children []*node
	text     bool // holds non-space character data
}

func parseTree(doc []byte) (*node, error) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []*node
	var root *node
	for {
		tok, err := dec.Token()
		if err != nil {
			if root != nil && len(stack) == 0 && err.Error() == "EOF" {
				return root, nil
			}
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attrs: tok.Attr}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, n)
			} else if root != nil {
				return nil, fmt.Errorf("a second root element <%s>", n.name)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && len(bytes.TrimSpace(tok)) > 0 {
				stack[len(stack)-1].text = true
			}
		}
	}
}

// checkStructure validates doc against the schema table above.
func checkStructure(doc []byte) error {
	root, err := parseTree(doc)
	if err != nil {
		return err
	}
	if root.name != "testsuites" {
		return fmt.Errorf("root element <%s>, want <testsuites>", root.name)
	}
	return checkNode(root, root.name)
}

func checkNode(n *node, path string) error {
	rule, ok := schema[n.name]
	if !ok {
		return fmt.Errorf("%s: unknown element", path)
	}
	seen := map[string]bool{}
	for _, a := range n.attrs {
		name := a.Name.Local
		if !slices.Contains(rule.required, name) && !slices.Contains(rule.optional, name) {
			return fmt.Errorf("%s: unknown attribute %q", path, name)
		}
		if typ, ok := rule.typed[name]; ok && !attrTypes[typ].MatchString(a.Value) {
			return fmt.Errorf("%s: attribute %s=%q is not a %s", path, name, a.Value, typ)
		}
		seen[name] = true
	}
	for _, name := range rule.required {
		if !seen[name] {
			return fmt.Errorf("%s: missing attribute %q", path, name)
		}
	}
	if n.text && !rule.text {
		return fmt.Errorf("%s: holds text", path)
	}
	i := 0
	for _, p := range rule.children {
		count := 0
		for i < len(n.children) && slices.Contains(p.names, n.children[i].name) && (p.max < 0 || count < p.max) {
			if err := checkNode(n.children[i], fmt.Sprintf("%s/%s[%d]", path, n.children[i].name, i)); err != nil {
				return err
			}
			i, count = i+1, count+1
		}
		if count < p.min {
			return fmt.Errorf("%s: needs at least %d of %v", path, p.min, p.names)
		}
	}
	if i < len(n.children) {
		return fmt.Errorf("%s: <%s> is not allowed here", path, n.children[i].name)
	}
	return nil
}

// TestStructureCheckRejects makes sure the structural check can fail.
func TestStructureCheckRejects(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"wrong root", `<testsuite name="a" tests="0"/>`},
		{"suite without tests", `<testsuites><testsuite name="a"/></testsuites>`},
		{"negative count", `<testsuites><testsuite name="a" tests="-1"/></testsuites>`},
		{"properties after cases", `<testsuites><testsuite name="a" tests="1"><testcase name="c"/><properties/></testsuite></testsuites>`},
		{"property without value", `<testsuites><testsuite name="a" tests="0"><properties><property name="x"/></properties></testsuite></testsuites>`},
		{"unknown element", `<testsuites><testsuite name="a" tests="1"><testcase name="c"><oops/></testcase></testsuite></testsuites>`},
		{"text in a case", `<testsuites><testsuite name="a" tests="1"><testcase name="c">words</testcase></testsuite></testsuites>`},
		{"bad time", `<testsuites><testsuite name="a" tests="1"><testcase name="c" time="soon"/></testsuite></testsuites>`},
		{"unclosed", `<testsuites><testsuite name="a" tests="1">`},
	}
	for _, tt := range tests {
		if err := checkStructure([]byte(tt.doc)); err == nil {
			t.Errorf("%s: accepted %s", tt.name, tt.doc)
		}
	}
	ok := `<testsuites><testsuite name="a" tests="1"><properties><property name="p" value="v"/></properties><testcase name="c" time="0.5"><properties/><failure message="m">body</failure><failure/></testcase><system-out>x</system-out></testsuite></testsuites>`
	if err := checkStructure([]byte(ok)); err != nil {
		t.Errorf("rejected a valid report: %v", err)
	}
}

// TestXSD validates the sample reports against testdata/junit.xsd with
// xmllint. Locally it is skipped when xmllint is missing; CI must have it.
func TestXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint is missing; CI installs it with apt-get install -y libxml2-utils")
		}
		t.Skip("xmllint is not installed (apt-get install -y libxml2-utils)")
	}
	for name, rel := range map[string]func(testing.TB) []byte{
		"release":      func(t testing.TB) []byte { return JUnit(sampleRelease(t)) },
		"candidate-v2": func(t testing.TB) []byte { return JUnit(singleRelease(t, "candidate-v2")) },
	} {
		path := filepath.Join(t.TempDir(), name+".xml")
		if err := os.WriteFile(path, rel(t), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit.xsd"), path).CombinedOutput()
		if err != nil {
			t.Errorf("%s: xmllint: %v\n%s", name, err, out)
		}
	}
	// The schema must be able to say no.
	bad := filepath.Join(t.TempDir(), "bad.xml")
	if err := os.WriteFile(bad, []byte(`<testsuites><testsuite name="a"/></testsuites>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit.xsd"), bad).CombinedOutput(); err == nil {
		t.Errorf("xmllint accepted a suite without tests:\n%s", out)
	}
}
