package bundle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// checkNames refuses, from the names of the inputs alone, snapshot labels
// that are equal under case folding, so that a bundle that could not be
// unpacked on a case-insensitive disk is refused before the suite is
// evaluated. Case ids need no such check: the site names the pages of ids
// equal under case folding apart (pagename.Stems).
func checkNames(data string, inputs []input) error {
	labels := map[string]string{}
	for _, in := range inputs {
		name, ok := strings.CutPrefix(in.path, load.OutputsDir+"/")
		label, isSnapshot := strings.CutSuffix(name, ".jsonl")
		if !ok || !isSnapshot {
			continue
		}
		folded := strings.ToLower(label)
		if prev, seen := labels[folded]; seen {
			return labelsFold(data, label, prev)
		}
		labels[folded] = label
	}
	return nil
}

// labelsFold is the error for two snapshot labels equal under case
// folding.
func labelsFold(data, label, prev string) error {
	return &suite.InputError{
		File: filepath.Join(data, load.OutputsDir, label+".jsonl"),
		Msg:  fmt.Sprintf("snapshot label %q is the same as %q under case folding; a bundle cannot hold both, since their pages would share a file name on a case-insensitive disk", label, prev),
	}
}

// LooksLikeBundle reports whether head, the first bytes of a file, opens
// a bundle: a zip archive whose first entry lies in a
// releasegate-<version>-<hash>/ folder. Create replaces no other file.
func LooksLikeBundle(head []byte) bool {
	if len(head) < 30 || !bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return false
	}
	n := int(binary.LittleEndian.Uint16(head[26:28]))
	if len(head) < 30+n {
		return false
	}
	top, _, nested := strings.Cut(string(head[30:30+n]), "/")
	return nested && strings.HasPrefix(top, "releasegate-")
}
