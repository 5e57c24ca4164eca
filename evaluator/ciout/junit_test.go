package ciout

import (
	"encoding/xml"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
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
	SystemOut string `xml:"system-out"`
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

// parseJUnit decodes a report and checks that its counts add up. Its
// structure is checked against the JUnit schema by TestXSD.
func parseJUnit(t testing.TB, report []byte) junitDoc {
	t.Helper()
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

// TestXSD validates reports against testdata/junit.xsd, the common JUnit
// schema, with xmllint: the sample's, and one whose case title and detail
// hold everything XML must escape or cannot carry. Locally it is skipped
// when xmllint is missing; CI must have it.
func TestXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint is missing; CI installs it with apt-get install -y libxml2-utils")
		}
		t.Skip("xmllint is not installed (apt-get install -y libxml2-utils)")
	}
	hostile := "<a href=\"x\">&amp;</a> 'q' ]]> line\r\nbreak\ttab \x00\x1b\xff §4.2 😀"
	reports := map[string][]byte{
		"release":      JUnit(sampleRelease(t)),
		"candidate-v2": JUnit(singleRelease(t, "candidate-v2")),
		"noise":        JUnit(noiseRelease(t)),
		"hostile":      JUnit(syntheticRelease(hostile, hostile, metrics(big.NewRat(0, 1), 1, "", ""), sampleGate)),
		// The schema must be able to say no: a suite needs its tests count.
		"invalid": []byte(`<testsuites><testsuite name="a"/></testsuites>`),
	}
	for name, report := range reports {
		path := filepath.Join(t.TempDir(), name+".xml")
		if err := os.WriteFile(path, report, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit.xsd"), path).CombinedOutput()
		switch {
		case name == "invalid" && err == nil:
			t.Errorf("xmllint accepted a suite without tests:\n%s", out)
		case name != "invalid" && err != nil:
			t.Errorf("%s: xmllint: %v\n%s\n%s", name, err, out, report)
		}
	}
}
