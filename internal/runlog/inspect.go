package runlog

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/klauspost/compress/zstd"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// An Inspect AI log (inspect_ai/log/_log.py, EvalLog) is a JSON document
// {version, status, eval, plan, results, stats, samples, …}, or an .eval
// zip archive holding the same: header.json (the log without samples;
// _journal/start.json until the run ends) and one samples/<id>_epoch_<n>.json
// per sample. Members are deflate- or zstd-compressed (method 93, the
// default of recent Inspect versions).
//
// Of the log's eval (EvalSpec) the importer reads model, created, task,
// revision.commit, config.epochs and dataset.sample_ids; of each sample
// (EvalSample) id, epoch, messages (the tool_calls of the assistant's
// messages), model_usage, total_time, error and attachments.

// readInspect reads an Inspect log, .eval or .json, whichever it is.
func readInspect(im *importer) error {
	magic := make([]byte, 4)
	n, _ := im.src.Data.ReadAt(magic, 0)
	if n == 4 && string(magic[:2]) == "PK" {
		return readInspectEval(im)
	}
	return readInspectJSON(im)
}

// inspectHeader is what the log says about the whole run.
type inspectHeader struct {
	status    string
	model     string
	created   string
	task      string
	commit    string
	epochs    int
	sampleIDs []string
}

// inspectSection reads a top-level member of the log that is not a
// sample: status and eval.
func (r *reader) inspectSection(name []byte, h *inspectHeader) error {
	switch string(name) {
	case "status":
		s, _, err := r.optStr()
		h.status = s
		return err
	case "eval":
		return r.inspectEval(h)
	}
	return r.skip()
}

// inspectEval reads EvalSpec.
func (r *reader) inspectEval(h *inspectHeader) error {
	return r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "model":
			h.model, _, err = r.optStr()
		case "created":
			h.created, _, err = r.optStr()
		case "task":
			h.task, _, err = r.optStr()
		case "revision":
			if null, err := r.isNull(); null || err != nil {
				return err
			}
			return r.members(func(name []byte) error {
				if string(name) == "commit" {
					var err error
					h.commit, _, err = r.optStr()
					return err
				}
				return r.skip()
			})
		case "config":
			return r.members(func(name []byte) error {
				if string(name) != "epochs" {
					return r.skip()
				}
				if null, err := r.isNull(); null || err != nil {
					return err
				}
				h.epochs, err = r.integer()
				return err
			})
		case "dataset":
			return r.members(func(name []byte) error {
				if string(name) != "sample_ids" {
					return r.skip()
				}
				if null, err := r.isNull(); null || err != nil {
					return err
				}
				h.sampleIDs = h.sampleIDs[:0]
				return r.elements(func(int) error {
					id, _, err := r.sampleID()
					h.sampleIDs = append(h.sampleIDs, id)
					return err
				})
			})
		default:
			err = r.skip()
		}
		return err
	})
}

// sampleID reads a sample id, a string or a number (written in decimal).
func (r *reader) sampleID() (string, int64, error) {
	off := r.here()
	k, err := r.peek()
	if err != nil {
		return "", off, err
	}
	switch k {
	case '"':
		s, err := r.str()
		return s, off, err
	case '0':
		lit, err := r.num()
		if err != nil {
			return "", off, err
		}
		id, err := idText(lit)
		if err != nil {
			return "", off, &problem{doc: r.doc, off: off, field: r.field(), msg: err.Error()}
		}
		return id, off, nil
	}
	return "", off, r.fail("expected a string or a number, got %s", kindName(k))
}

// maxEpoch bounds an epoch number, far above any run's.
const maxEpoch = 1 << 20

// attachmentPrefix marks a string that Inspect moved into the sample's
// attachments to keep the log small (inspect_ai/log/_condense.py).
const attachmentPrefix = "attachment://"

// inspectSample reads one EvalSample into a record.
func (im *importer) inspectSample(r *reader, at int64) (*record, error) {
	rec := &record{at: at, trial: 1, idDoc: r.doc}
	start, field := r.here(), r.field()
	var (
		hasID, needAttachments bool
		usage                  inspectUsage
		latency                *Decimal
		attachments            map[string]string
	)
	err := r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "id":
			rec.idField = r.field()
			rec.caseID, rec.idOff, err = r.sampleID()
			hasID = true
		case "epoch":
			err = r.inspectEpoch(&rec.trial)
		case "messages":
			err = r.inspectMessages(&rec.calls, &needAttachments)
		case "model_usage":
			err = usage.read(r)
		case "total_time":
			var t *Decimal
			if t, err = r.decimal(); t != nil {
				ms := t.Shift(3)
				latency = &ms
			}
		case "error":
			rec.failed, err = r.inspectError()
		case "attachments":
			if !needAttachments {
				return r.skip()
			}
			attachments, err = r.inspectAttachments()
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !hasID {
		return nil, &problem{doc: r.doc, off: start, field: field, msg: "a sample has no id"}
	}
	if needAttachments && attachments != nil {
		for i := range rec.calls {
			rec.calls[i].args = resolveAttachments(rec.calls[i].args, attachments)
		}
	}
	rec.latency = latency
	rec.cost = usage.cost(im)
	return rec, nil
}

// inspectEpoch reads a sample's epoch into trial, which keeps its value
// when the epoch is null.
func (r *reader) inspectEpoch(trial *int) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	off := r.here()
	n, err := r.integer()
	if err != nil {
		return err
	}
	if n < 1 || n > maxEpoch {
		return &problem{doc: r.doc, off: off, field: r.field(), msg: fmt.Sprintf("epoch %d is not a whole number from 1 to %d", n, maxEpoch)}
	}
	*trial = n
	return nil
}

// inspectMessages reads a sample's messages and appends the assistant's
// tool calls to calls; needAttachments is set when an argument refers to
// one of the sample's attachments.
func (r *reader) inspectMessages(calls *[]call, needAttachments *bool) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.elements(func(int) error {
		got, err := r.inspectMessage()
		for _, c := range got {
			if bytes.Contains(c.args, []byte(attachmentPrefix)) {
				*needAttachments = true
			}
		}
		*calls = append(*calls, got...)
		return err
	})
}

// inspectAttachments reads a sample's attachments: text by key.
func (r *reader) inspectAttachments() (map[string]string, error) {
	if null, err := r.isNull(); null || err != nil {
		return nil, err
	}
	attachments := map[string]string{}
	err := r.members(func(key []byte) error {
		s, _, err := r.optStr()
		attachments[string(key)] = s
		return err
	})
	return attachments, err
}

// inspectUsage adds up a sample's model_usage over its models.
type inspectUsage struct {
	total     Decimal // of total_cost
	hasCost   bool
	in, out   Decimal
	hasTokens bool
	missing   bool // a model without both token counts
}

// read reads model_usage: an object of ModelUsage by model name.
func (u *inspectUsage) read(r *reader) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.members(func([]byte) error {
		if null, err := r.isNull(); null || err != nil {
			return err
		}
		var in, out *Decimal
		err := r.members(func(name []byte) error {
			var err error
			switch string(name) {
			case "input_tokens":
				in, err = r.decimal()
			case "output_tokens":
				out, err = r.decimal()
			case "total_cost":
				var c *Decimal
				if c, err = r.decimal(); c != nil {
					u.total, u.hasCost = u.total.Add(*c), true
				}
			default:
				err = r.skip()
			}
			return err
		})
		if in == nil || out == nil {
			u.missing = true
		} else {
			u.in, u.out, u.hasTokens = u.in.Add(*in), u.out.Add(*out), true
		}
		return err
	})
}

// cost is the sample's cost: the recorded total, or else its tokens at
// the importer's prices when every model counted both; nil when neither.
func (u *inspectUsage) cost(im *importer) *Decimal {
	switch {
	case u.hasCost:
		return &u.total
	case u.hasTokens && !u.missing:
		return im.priced(&u.in, &u.out)
	}
	return nil
}

// inspectMessage reads one ChatMessage and returns its tool calls when
// it is the assistant's.
func (r *reader) inspectMessage() ([]call, error) {
	var role string
	var calls []call
	err := r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "role":
			role, _, err = r.optStr()
		case "tool_calls":
			if null, err := r.isNull(); null || err != nil {
				return err
			}
			calls, err = r.strictCalls(`{"function": "<name>", "arguments": {…}}`)
		default:
			err = r.skip()
		}
		return err
	})
	if role != "assistant" {
		return nil, err
	}
	return calls, err
}

// inspectError reads a sample's error (EvalError, or a plain message in
// older logs); any error but null fails the sample.
func (r *reader) inspectError() (string, error) {
	k, err := r.peek()
	if err != nil {
		return "", err
	}
	switch k {
	case 'n':
		_, err := r.isNull()
		return "", err
	case '"':
		s, err := r.str()
		return firstLine(s, "the sample stopped with an error"), err
	case '{':
		msg := ""
		err := r.members(func(name []byte) error {
			if string(name) == "message" {
				var err error
				msg, _, err = r.optStr()
				return err
			}
			return r.skip()
		})
		return firstLine(msg, "the sample stopped with an error"), err
	}
	return "the sample stopped with an error", r.skip()
}

// firstLine is the first line of a message, cut to a readable length;
// def when it is empty.
func firstLine(s, def string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.TrimSpace(s)
	if s == "" {
		return def
	}
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}

// resolveAttachments puts back the strings Inspect moved into the
// sample's attachments, in a call's arguments.
func resolveAttachments(v jsontext.Value, attachments map[string]string) jsontext.Value {
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out)
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return v
		}
		if tok.Kind() == '"' {
			if key, ok := strings.CutPrefix(tok.String(), attachmentPrefix); ok {
				if text, ok := attachments[key]; ok {
					tok = jsontext.String(text)
				}
			}
		}
		if err := enc.WriteToken(tok); err != nil {
			return v
		}
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}

// readInspectJSON reads an EvalLog JSON document, one sample at a time.
func readInspectJSON(im *importer) error {
	_, r := im.document()
	var h inspectHeader
	err := r.members(func(name []byte) error {
		if string(name) != "samples" {
			return r.inspectSection(name, &h)
		}
		if null, err := r.isNull(); null || err != nil {
			return err
		}
		return r.elements(func(i int) error {
			rec, err := im.inspectSample(r, int64(i))
			if err != nil {
				return err
			}
			return im.add(rec)
		})
	})
	if err != nil {
		return err
	}
	if err := r.end(); err != nil {
		return err
	}
	im.locate = func(at int64) string { return fmt.Sprintf("samples[%d]", at) }
	return im.inspectFinish(&h)
}

// end checks that nothing but white space follows the document.
func (r *reader) end() error {
	_, err := r.dec.ReadToken()
	switch {
	case err == io.EOF:
		return nil
	case err == nil:
		return r.fail("unexpected data after the end of the JSON document")
	}
	return r.syntax(err)
}

// maxZstdWindow is the largest zstd window a member may use.
const maxZstdWindow = 64 << 20

// readInspectEval reads an .eval archive: the header, then each sample
// member in the order the archive lists them.
func readInspectEval(im *importer) error {
	zr, err := zip.NewReader(&blockCache{r: im.src.Data, size: im.src.Size}, im.src.Size)
	if err != nil {
		return &suite.InputError{File: im.src.Name, Msg: fmt.Sprintf("not a complete zip archive (%v): the .eval log is truncated or damaged; import the complete file", err)}
	}
	// Registered on this reader only: other zip readers of the program
	// keep the standard methods. The window bound keeps a hostile frame
	// from asking for gigabytes; Inspect's default level uses a few MiB.
	dz := zstd.ZipDecompressor(zstd.WithDecoderLowmem(true), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
	zr.RegisterDecompressor(zstd.ZipMethodWinZip, dz)
	zr.RegisterDecompressor(zstd.ZipMethodPKWare, dz)
	var h inspectHeader
	header, finished := findMember(zr, "header.json"), true
	if header == nil {
		header, finished = findMember(zr, "_journal/start.json"), false
	}
	if header != nil {
		if err := readMember(im, header, func(r *reader) error {
			return r.members(func(name []byte) error { return r.inspectSection(name, &h) })
		}); err != nil {
			return err
		}
	}
	if !finished {
		h.status = "started" // Inspect writes header.json when the run ends
	}
	for i, f := range zr.File {
		if !strings.HasPrefix(f.Name, "samples/") || !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		if err := readMember(im, f, func(r *reader) error {
			rec, err := im.inspectSample(r, int64(i))
			if err != nil {
				return err
			}
			return im.add(rec)
		}); err != nil {
			return err
		}
	}
	im.locate = func(at int64) string { return "samples/" + strings.TrimPrefix(zr.File[at].Name, "samples/") }
	return im.inspectFinish(&h)
}

// blockCache reads an archive a block at a time: a member is read in
// many small reads, which would otherwise each be a system call.
type blockCache struct {
	r     io.ReaderAt
	size  int64
	block []byte
	start int64 // the offset of block[0]; the block is empty at first
}

const cacheBlock = 1 << 20

func (c *blockCache) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset") // a damaged directory can ask for one
	}
	if len(p) >= cacheBlock {
		return c.r.ReadAt(p, off)
	}
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= c.size {
			return n, io.EOF
		}
		if at < c.start || at >= c.start+int64(len(c.block)) {
			if c.block == nil {
				c.block = make([]byte, cacheBlock)
			}
			start := at - at%cacheBlock
			got, err := c.r.ReadAt(c.block[:cap(c.block)], start)
			if got == 0 && err != nil {
				return n, err
			}
			c.block, c.start = c.block[:got], start
		}
		n += copy(p[n:], c.block[at-c.start:])
	}
	return n, nil
}

func findMember(zr *zip.Reader, name string) *zip.File {
	for _, f := range zr.File {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// readMember reads one JSON member of the archive with read, then makes
// sure the member ends there (which also checks its checksum).
func readMember(im *importer, f *zip.File, read func(r *reader) error) error {
	name := fmt.Sprintf("%s (%s)", im.src.Name, f.Name)
	rc, err := f.Open()
	if err != nil {
		return memberError(name, err)
	}
	defer rc.Close()
	if im.memberBuf == nil {
		im.memberBuf = bufio.NewReaderSize(rc, 64<<10)
	} else {
		im.memberBuf.Reset(rc)
	}
	r := readerWith(im.memberBuf, doc{name: name, lines: linesOf(f.Open)})
	err = read(r)
	if err == nil {
		err = r.end()
	}
	var rf *readFailure
	if errors.As(err, &rf) {
		return memberError(name, rf.err)
	}
	return err
}

// memberError words a member that cannot be read: a method that is not
// deflate or zstd, or a damaged or cut-off member.
func memberError(name string, err error) error {
	if errors.Is(err, zip.ErrAlgorithm) {
		return &suite.InputError{File: name, Msg: "compressed with a method other than deflate or zstd; write the log again with Inspect"}
	}
	// The innermost error says what is wrong, without the layers that
	// passed it on.
	for inner := errors.Unwrap(err); inner != nil; inner = errors.Unwrap(inner) {
		err = inner
	}
	return &suite.InputError{File: name, Msg: fmt.Sprintf("damaged or cut off (%v): import the complete log", err)}
}

// inspectFinish applies what the header says to the snapshot.
func (im *importer) inspectFinish(h *inspectHeader) error {
	if h.status != "" && h.status != "success" {
		im.status = h.status
	}
	if h.sampleIDs != nil {
		im.setRunOrder(h.sampleIDs)
	}
	s, ok := im.byGroup[""]
	if !ok {
		return nil
	}
	s.trialsByRun = h.epochs > 1
	s.Meta = Meta{Model: h.model, Commit: h.commit, Description: h.task}
	if h.created != "" {
		if _, ok := load.RecordedAt(&suite.Meta{RecordedAt: h.created}); ok {
			s.Meta.RecordedAt = h.created
		} else {
			im.note("the log's eval.created %q is not an RFC 3339 date and time, so meta.json has no recorded_at", h.created)
		}
	}
	return nil
}
