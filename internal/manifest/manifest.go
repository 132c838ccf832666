package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	yaml3 "go.yaml.in/yaml/v3"
)

// Document is one Kubernetes object of a stream.
type Document struct {
	Index      int // 1-based, counting only non-empty documents
	Line       int // where the document starts in the source
	APIVersion string
	Kind       string
	Name       string
	Namespace  string
	// Object holds the document's values as YAML 1.2 reads them: map[string]any, []any, string,
	// bool, nil, and Scalar for numbers and timestamps.
	Object map[string]any
}

// Error says which document and line are wrong, and what is wrong with them.
type Error struct {
	Document int
	Line     int
	Message  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("document %d (line %d): %s", e.Document, e.Line, e.Message)
}

var lineInMessage = regexp.MustCompile(`^yaml: line (\d+): `)

// Parse reads a stream of YAML documents and checks that each is a Kubernetes object.
//
// The documents are read as YAML 1.2, the way kustomize reads them (see values.go): `n`, `on` or
// `yes` are strings, integers of any size stay exact, anchors and aliases are expanded and merge
// keys (`<<`) are applied.
func Parse(src []byte) ([]Document, error) {
	if docs, ok := parseSplit(src); ok {
		return docs, nil
	}
	return parseStream(src)
}

// parseStream is Parse, one document after the other.
func parseStream(src []byte) ([]Document, error) {
	dec := yaml3.NewDecoder(bytes.NewReader(src))
	var docs []Document
	for {
		var node yaml3.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, syntaxError(src, len(docs)+1, err)
		}
		if len(node.Content) == 0 {
			continue
		}
		content := node.Content[0]
		if content.Kind == yaml3.ScalarNode && content.Tag == "!!null" {
			continue // a document with nothing but comments, or an empty one between separators
		}
		doc, err := toDocument(len(docs)+1, content)
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
}

func syntaxError(src []byte, index int, err error) error {
	msg := err.Error()
	line := 0
	if m := lineInMessage.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(msg, m[0])
	}
	msg = "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")
	// A parser notices an unclosed quote only where the text stops making sense, often many
	// lines later; point at the quote instead, which is what the user has to fix.
	if open := unclosedQuote(src, line); open > 0 {
		msg = fmt.Sprintf("%s (found at line %d; the quoted value opened on line %d is never closed)", msg, line, open)
		line = open
	} else if bad := firstBadLine(src, line); bad > 0 {
		line = bad
	}
	return &Error{Document: index, Line: line, Message: msg}
}

// maxPrefixParses bounds firstBadLine's work on a very long document; past it the parser's own
// line stands.
const maxPrefixParses = 400

// firstBadLine finds the line that makes the document around reported invalid: the line after
// the longest run of the document's first lines that still parses. The parser's own number is
// often not that line: it names the line where the enclosing mapping or sequence began, or
// counts from zero, so an indentation mistake was reported one line (or a whole block) above
// the line to fix. A construct left open (a `[` never closed) is found at the line that opens
// it, which is the one to fix. It returns 0 when it cannot tell.
func firstBadLine(src []byte, reported int) int {
	lines := strings.SplitAfter(string(src), "\n")
	if reported <= 0 || reported > len(lines) {
		return 0
	}
	start, end := 0, len(lines) // the document's lines: [start, end)
	for i := reported - 1; i >= 0; i-- {
		if marker([]byte(lines[i]), "---") {
			start = i + 1
			break
		}
	}
	for i := reported; i < len(lines); i++ {
		if marker([]byte(lines[i]), "---") {
			end = i
			break
		}
	}
	for k, tries := end-1, 0; k >= start && tries < maxPrefixParses; k, tries = k-1, tries+1 {
		var node yaml3.Node
		if yaml3.Unmarshal([]byte(strings.Join(lines[start:k], "")), &node) == nil {
			return k + 1 // lines[k] is the first line the document cannot take
		}
	}
	return 0
}

// unclosedQuote finds, in the document that contains line, the first line with a double-quoted
// value that the same line does not close. It returns 0 when there is none.
func unclosedQuote(src []byte, line int) int {
	lines := strings.Split(string(src), "\n")
	if line <= 0 || line > len(lines) {
		return 0
	}
	start := 0
	for i := line - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "---") {
			start = i + 1
			break
		}
	}
	for i := start; i < line; i++ {
		text := lines[i]
		if c := strings.Index(text, " #"); c >= 0 && strings.Count(text[:c], `"`)%2 == 0 {
			text = text[:c]
		}
		if strings.Count(strings.ReplaceAll(text, `\"`, ""), `"`)%2 == 1 && !strings.HasPrefix(strings.TrimSpace(text), "#") {
			return i + 1
		}
	}
	return 0
}

func toDocument(index int, n *yaml3.Node) (Document, error) {
	fail := func(line int, format string, args ...any) error {
		return &Error{Document: index, Line: line, Message: fmt.Sprintf(format, args...)}
	}
	if n.Kind != yaml3.MappingNode {
		what := map[yaml3.Kind]string{yaml3.SequenceNode: "a list", yaml3.ScalarNode: "a single value", yaml3.AliasNode: "an alias"}[n.Kind]
		return Document{}, fail(n.Line, "is %s, not a Kubernetes object", what)
	}
	c := converter{active: map[*yaml3.Node]bool{}}
	v, err := c.value(n)
	if err != nil {
		var ce *convertError
		if errors.As(err, &ce) {
			return Document{}, fail(ce.line, "%s", ce.msg)
		}
		return Document{}, fail(n.Line, "%v", err)
	}
	obj, _ := v.(map[string]any)
	doc := Document{Index: index, Line: n.Line, Object: obj}
	doc.APIVersion, _ = obj["apiVersion"].(string)
	doc.Kind, _ = obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	doc.Name, _ = meta["name"].(string)
	doc.Namespace, _ = meta["namespace"].(string)
	var missing []string
	for field, value := range map[string]string{"apiVersion": doc.APIVersion, "kind": doc.Kind, "metadata.name": doc.Name} {
		if value == "" {
			missing = append(missing, field)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return Document{}, fail(n.Line, "missing %s; every document must be a Kubernetes object with apiVersion, kind and metadata.name", strings.Join(missing, ", "))
	}
	return doc, nil
}

// Canonical is the bytes written to stores: each document with its keys sorted (by their bytes)
// and two-space indentation (list items at the indentation of their key), joined with "---\n" in
// input order. It depends only on the documents' meaning, so a change of key order, indentation,
// quoting, flow or block style, comments or anchors gives the same bytes. A string that any YAML
// reader, 1.1 or 1.2, could take for something else (`on`, `n`, `0x1F`, `2026-01-01`, `<<`) is
// quoted; lines are never wrapped.
func Canonical(docs []Document) []byte { return Join(Encode(docs)) }

// Encode is the canonical form of each document on its own: Canonical(docs) is
// Join(Encode(docs)), so one serialisation serves a stream and any selection of its documents.
func Encode(docs []Document) [][]byte {
	parts := make([][]byte, len(docs))
	// Documents are serialised independently, so a long stream (a release of hundreds of
	// documents) is shared among the processors; the parts are the same either way.
	eachInParallel(len(docs), len(docs)/encodePerWorker, func(i int) { parts[i] = encodeOne(docs[i]) })
	return parts
}

const (
	encodePerWorker = 8 // documents each processor is worth starting for
	maxWorkers      = 4
)

// eachInParallel calls fn(i) for every i below n, on up to min(workers, GOMAXPROCS,
// maxWorkers) goroutines, and returns when all calls have.
func eachInParallel(n, workers int, fn func(i int)) {
	workers = min(workers, runtime.GOMAXPROCS(0), maxWorkers)
	if workers < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// A long stream (a release of hundreds of documents) is parsed in pieces side by side. A line
// "---" at the start of a line always begins a new document, whatever comes before it (YAML
// forbids it inside any scalar or collection, and the parser stops there), so the pieces cut at
// such lines parse to the stream's documents. Anything else that spans documents (directives,
// "..." markers) sends the whole stream to parseStream, and so does any error in a piece, so that
// the error is the stream's, with its document number and line.

// splitMin is the size from which a stream is parsed in pieces.
const splitMin = 128 << 10

// parseSplit is Parse in pieces; ok is false when the stream is not worth splitting, cannot be
// split, or does not parse.
func parseSplit(src []byte) ([]Document, bool) {
	workers := min(runtime.GOMAXPROCS(0), maxWorkers)
	if len(src) < splitMin || workers < 2 {
		return nil, false
	}
	pieces, ok := splitDocuments(src, workers*4)
	if !ok || len(pieces) < 2 {
		return nil, false
	}
	results := make([][]Document, len(pieces))
	failed := make([]bool, len(pieces))
	eachInParallel(len(pieces), workers, func(i int) {
		docs, err := parseStream(src[pieces[i].start:pieces[i].end])
		results[i], failed[i] = docs, err != nil
	})
	var docs []Document
	for i, piece := range pieces {
		if failed[i] {
			return nil, false
		}
		for _, d := range results[i] {
			d.Index = len(docs) + 1
			d.Line += piece.line - 1
			docs = append(docs, d)
		}
	}
	return docs, true
}

// piece is a run of whole documents: src[start:end], whose first line is line of the stream.
type piece struct{ start, end, line int }

// splitDocuments cuts src before document-start lines into about n pieces of similar size; ok
// is false when src holds a directive or a document-end marker.
func splitDocuments(src []byte, n int) ([]piece, bool) {
	target := len(src)/n + 1
	var pieces []piece
	start, startLine := 0, 1
	line := 1
	for at := 0; at < len(src); line++ {
		end := bytes.IndexByte(src[at:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += at + 1
		}
		text := src[at:end]
		switch {
		case len(text) > 0 && text[0] == '%', marker(text, "..."):
			return nil, false
		case marker(text, "---") && at > start && at-start >= target:
			pieces = append(pieces, piece{start, at, startLine})
			start, startLine = at, line
		}
		at = end
	}
	return append(pieces, piece{start, len(src), startLine}), true
}

// marker reports whether line (with its line break) is the document marker m, alone or followed
// by a space or tab.
func marker(line []byte, m string) bool {
	if !bytes.HasPrefix(line, []byte(m)) {
		return false
	}
	rest := line[len(m):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

// encodeOne is one document, serialised canonically: by emitDocument, or by the YAML library
// when that gives up.
func encodeOne(d Document) []byte {
	if b, ok := emitDocument(d); ok {
		return b
	}
	return encodeLibrary(d)
}

// encodeLibrary is one document serialised canonically by the YAML library's encoder.
func encodeLibrary(d Document) []byte {
	var b bytes.Buffer
	enc := yaml3.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	err := enc.Encode(node(d.Object))
	if err == nil {
		err = enc.Close()
	}
	if err != nil {
		// The nodes hold only valid UTF-8 text and the kinds node makes, which always encode.
		panic(fmt.Sprintf("manifest: document %d cannot be serialised: %v", d.Index, err))
	}
	return b.Bytes()
}

// Join is a stream of canonical documents (from Encode) in the order given.
func Join(parts [][]byte) []byte {
	if len(parts) == 0 {
		return nil
	}
	n := len(docSeparator) * (len(parts) - 1)
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			out = append(out, docSeparator...)
		}
		out = append(out, p...)
	}
	return out
}

const docSeparator = "---\n"

// IsCRD reports whether a document is a CustomResourceDefinition.
func IsCRD(d Document) bool {
	return d.Kind == "CustomResourceDefinition" && strings.HasPrefix(d.APIVersion, "apiextensions.k8s.io/")
}

// Split separates the CustomResourceDefinitions from the other documents, keeping their order.
func Split(docs []Document) (crds, others []Document) {
	for _, d := range docs {
		if IsCRD(d) {
			crds = append(crds, d)
		} else {
			others = append(others, d)
		}
	}
	return crds, others
}
