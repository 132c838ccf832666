// Package manifest parses, checks and normalises multi-document Kubernetes YAML: what a promise's
// dependencies hold. It decides what counts as a change (only meaning, never formatting) and tells
// CustomResourceDefinitions apart for the splitByKind layout.
//
// It is pure: no Terraform, no I/O.
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

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
	}
	return &Error{Document: index, Line: line, Message: msg}
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
	for i, d := range docs {
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
		parts[i] = b.Bytes()
	}
	return parts
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
