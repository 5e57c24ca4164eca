package pages

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime/debug"
	"strconv"

	"github.com/releasegate/releasegate/evaluator"
)

// Provenance says where every number of the site came from: the program
// that built it, the policy version and one hash over the suite's inputs.
// It holds no clock reading, so two builds of the same inputs stay
// byte-identical.
type Provenance struct {
	Version       string // of releasegate, "(devel)" for an untagged build
	PolicyVersion string
	// InputsHash is the SHA-256 of the hashes of cases.jsonl, POLICY.md
	// and gate.json; InputsShort is its first twelve digits.
	InputsHash  string
	InputsShort string
	// InputsTitle lists the hashes it was made from, for a tooltip.
	InputsTitle string
}

// HashRow is one input file's SHA-256, short for the eye and in full for
// the tooltip.
type HashRow struct {
	File  string
	Short string
	Full  string
}

func hashRow(file, full string) HashRow {
	short := full
	if len(short) > 12 {
		short = short[:12]
	}
	return HashRow{File: file, Short: short, Full: full}
}

// inputHashes lists the hashes of the files a snapshot was judged from.
func inputHashes(in evaluator.Inputs) []HashRow {
	return []HashRow{
		hashRow("cases.jsonl", in.CasesSHA256),
		hashRow("outputs", in.OutputsSHA256),
		hashRow("POLICY.md", in.PolicySHA256),
		hashRow("gate.json", in.GateSHA256),
	}
}

// newProvenance sums up the release's suite inputs. The outputs are left
// out on purpose: each snapshot's outputs hash is on its own card, and a
// new recording of one snapshot then leaves every other page as it was.
func newProvenance(rel *evaluator.Release) Provenance {
	p := Provenance{Version: toolVersion(), PolicyVersion: rel.Suite.PolicyVersion()}
	if len(rel.Snapshots) == 0 {
		return p
	}
	in := rel.Snapshots[0].Result.Inputs
	h := sha256.New()
	title := ""
	for _, r := range []HashRow{hashRow("cases.jsonl", in.CasesSHA256), hashRow("POLICY.md", in.PolicySHA256), hashRow("gate.json", in.GateSHA256)} {
		h.Write([]byte(r.Full + "  " + r.File + "\n"))
		title += r.File + " sha256 " + r.Full + "\n"
	}
	p.InputsHash = hex.EncodeToString(h.Sum(nil))
	p.InputsShort = p.InputsHash[:12]
	p.InputsTitle = "sha256 " + p.InputsHash + " of:\n" + title
	return p
}

// toolVersion is the module version the program was built as.
func toolVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// FooterData is what the footer of every page shows. It holds nothing
// about the page it is on, so one rendering of the "footer" template
// serves every page of a site, and a live server can swap the footer of
// every page it holds without rendering any page again.
type FooterData struct {
	Footer     string // "Policy ER-2026.10 · 12 cases · 3 snapshots"
	Provenance Provenance
}

// FooterData is what the footer of every page of the site shows.
func (s SiteInfo) FooterData() FooterData {
	return FooterData{
		Footer:     s.policyText() + " · " + strconv.Itoa(s.CaseCount) + " " + plural(s.CaseCount, "case", "cases") + " · " + strconv.Itoa(len(s.Labels)) + " " + plural(len(s.Labels), "snapshot", "snapshots"),
		Provenance: s.Provenance,
	}
}
