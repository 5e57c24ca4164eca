package runlog

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// A wrong file for the format should get one clear sentence, not a
// decoder's complaint about its third byte. Check looks at the start of
// the file (and at the names in a zip archive) and says what the file is
// when it is plainly something else.

// sniffBytes is how much of the file Check reads. The members that tell
// the formats apart come first in each of them.
const sniffBytes = 256 << 10

// WrongFormatError is a file that is not of the format asked for.
type WrongFormatError struct {
	File string
	Want Format
	// Looks is the format the file looks like; "" when it looks like
	// none of them.
	Looks Format
	// What says what the file is when it is none of the formats: "it is
	// empty", "it is an OpenAI Batch API input file (the requests)".
	What string
}

func (e *WrongFormatError) Error() string {
	if e.Looks != "" {
		return fmt.Sprintf("%s: this looks like %s, not %s; try `releasegate import %s %s`", e.File, e.Looks.Describe(), e.Want.Describe(), e.Looks, shellWord(e.File))
	}
	return fmt.Sprintf("%s: this is not %s: %s", e.File, e.Want.Describe(), e.What)
}

// shellWord quotes a path for a command line when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// look is what the start of a file shows.
type look struct {
	format Format // a format it plainly is, or ""
	what   string // what it is when it is none of them; "" when unsure
}

// Check refuses a file that is plainly not of the format asked for. A
// file it cannot tell about is left to the format's reader.
func Check(format Format, src Source) error {
	l := sniff(src)
	switch {
	case l.format == format:
		return nil
	case l.format != "":
		return &WrongFormatError{File: src.Name, Want: format, Looks: l.format}
	case l.what != "":
		return &WrongFormatError{File: src.Name, Want: format, What: l.what}
	}
	return nil
}

func sniff(src Source) look {
	head := make([]byte, min(src.Size, sniffBytes))
	n, err := src.Data.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return look{}
	}
	head = head[:n]
	text, l, decided := sniffShape(src, head)
	if decided {
		return l
	}
	keys, sub, complete := topKeys(text)
	return sniffMembers(keys, sub, complete)
}

// sniffShape tells what the first bytes of a file show before any JSON
// member is read: nothing at all, a zip archive, an array, not JSON. It
// returns the text from the first JSON object on when that decides
// nothing.
func sniffShape(src Source, head []byte) (text []byte, l look, decided bool) {
	if len(bytes.TrimSpace(head)) == 0 {
		switch {
		case src.Size == 0:
			return nil, look{what: "it is empty"}, true
		case len(head) == int(src.Size):
			return nil, look{what: "it holds nothing but white space"}, true
		}
	}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")) {
		return nil, sniffZip(src), true
	}
	text = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(text) == 0:
		return nil, look{}, true
	case text[0] == '[':
		return nil, look{what: "it is a JSON array; each format is a JSON object, or JSON Lines of objects"}, true
	case text[0] != '{':
		return nil, look{what: "it is not JSON (nor a zip archive)"}, true
	}
	return text, look{}, false
}

// sniffMembers tells the format from the member names of the first JSON
// object (keys) and of its "results" member (sub); complete says the
// whole object was read, so a missing member is really missing.
func sniffMembers(keys, sub map[string]bool, complete bool) look {
	has := func(k string) bool { return keys[k] }
	batch := has("custom_id")
	switch {
	case batch && has("result"):
		return look{format: AnthropicBatch}
	case batch && (has("response") || has("error")) && !has("body"):
		return look{format: OpenAIBatch}
	case batch && has("body") && has("url"):
		return look{what: "it is an OpenAI Batch API input file (the requests); import the output file the batch wrote"}
	case batch && has("params"):
		return look{what: "it is an Anthropic Message Batches requests file; import the results of the batch"}
	case has("eval") || has("samples") && (has("version") || has("status")):
		return look{format: Inspect}
	case looksLikePromptfoo(keys, sub):
		return look{format: Promptfoo}
	case complete && batch:
		return look{what: "its first line has a custom_id but neither a response (OpenAI) nor a result (Anthropic)"}
	case complete:
		return look{what: "its first JSON object has none of the members that tell the formats apart (eval and samples for Inspect AI, evalId and results for promptfoo, custom_id for the batch APIs)"}
	}
	return look{}
}

// looksLikePromptfoo: a promptfoo export (evalId, or results holding its
// members) or one of its result rows.
func looksLikePromptfoo(keys, sub map[string]bool) bool {
	if keys["evalId"] || isPromptfooResult(keys) {
		return true
	}
	return keys["results"] && (sub["results"] || sub["table"] || sub["timestamp"] || sub["prompts"])
}

// sniffZip tells an Inspect AI .eval log from any other zip archive.
func sniffZip(src Source) look {
	zr, err := zip.NewReader(src.Data, src.Size)
	if err != nil {
		// A zip that cannot be opened is most likely a cut-off .eval;
		// the Inspect reader says so in its own words.
		return look{format: Inspect}
	}
	for _, f := range zr.File {
		if f.Name == "header.json" || f.Name == "_journal/start.json" || strings.HasPrefix(f.Name, "samples/") {
			return look{format: Inspect}
		}
	}
	return look{what: "it is a zip archive without header.json or samples/, so not an Inspect AI .eval log"}
}

// topKeys reads the member names of the first JSON object in text (the
// start of the file, possibly cut off), and the names inside its
// "results" member. complete reports that the whole object was read.
func topKeys(text []byte) (keys, resultsKeys map[string]bool, complete bool) {
	keys, resultsKeys = map[string]bool{}, map[string]bool{}
	dec := jsontext.NewDecoder(bytes.NewReader(text), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		return keys, resultsKeys, false
	}
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return keys, resultsKeys, false
		}
		if tok.Kind() == '}' {
			return keys, resultsKeys, true
		}
		name := tok.String()
		keys[name] = true
		if string(name) == "results" && dec.PeekKind() == '{' {
			dec.ReadToken()
			for dec.PeekKind() == '"' {
				t, err := dec.ReadToken()
				if err != nil {
					return keys, resultsKeys, false
				}
				resultsKeys[t.String()] = true
				if dec.SkipValue() != nil {
					return keys, resultsKeys, false
				}
			}
			if _, err := dec.ReadToken(); err != nil {
				return keys, resultsKeys, false
			}
			continue
		}
		if dec.SkipValue() != nil {
			return keys, resultsKeys, false
		}
	}
}
