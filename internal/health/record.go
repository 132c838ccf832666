// Package health reads the health that each destination reports about a promise or a resource
// request, and decides what the provider shows and what a rollout gate may rely on (issue 24).
//
// A health agent on each cluster (Kratix's health checks) writes HealthRecord documents
// (apiVersion platform.kratix.io/v1alpha1, kind HealthRecord) into a store location that the
// promise or request names with observe.state_store. The provider reads them back on refresh.
//
// # Layout
//
// The records of destination D are the files ending in ".yaml" or ".yml" (case-sensitive) at any
// depth under <observe root>/D/: each cluster's agent writes into its own folder, named like the
// destination. A file directly in the root belongs to no destination and is not read. A file may
// hold several YAML documents; documents of any other kind or apiVersion, documents that are not
// mappings, and empty documents are skipped, so that an agent may keep other objects beside its
// records. Text that the YAML parser rejects is an error naming the file.
//
// # Choosing and judging a record
//
// Latest picks, among the records of one destination, the newest for a promise or a request.
// Observe judges it against what the provider wrote there: whether it is fresh (checked after the
// write and recently enough) and, on git, whether the revision Flux applied is the one the
// provider committed. Passing is the rule a rollout gate applies to the result.
//
// It is pure: no Terraform, no I/O.
package health

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	yaml3 "go.yaml.in/yaml/v3"
)

// The values of HealthRecord data.state, as Kratix's schema enumerates them.
const (
	StateUnknown   = "unknown"
	StateReady     = "ready"
	StateUnhealthy = "unhealthy"
	StateHealthy   = "healthy"
	StateDegraded  = "degraded"
)

// States lists the values data.state may take, in the order Kratix's schema gives them.
var States = []string{StateUnknown, StateReady, StateUnhealthy, StateHealthy, StateDegraded}

const (
	recordAPIVersion = "platform.kratix.io/v1alpha1"
	recordKind       = "HealthRecord"
)

// ResourceRef names a resource request. Generation is what the agent recorded; matching ignores it.
type ResourceRef struct {
	Name      string
	Namespace string
	// Generation of the request when the check ran; 0 when the record does not say.
	Generation int64
}

// Record is one HealthRecord as read from a store.
type Record struct {
	// Promise is data.promiseRef.name.
	Promise string
	// Resource is data.resourceRef; its Name is empty on a promise's own record.
	Resource ResourceRef
	// State is one of States; "unknown" when the record does not say, as Kratix defaults it.
	State string
	// LastRun is when the check ran (data.lastRun, Unix seconds); zero when absent or 0.
	LastRun time.Time
	// Revision is the lower-case git commit Flux reported as applied in data.details (see
	// RevisionOf); empty when the details name none that can be read.
	Revision string
	// Source is the path of the file the record came from.
	Source string
}

// Error says which file and document are wrong, and what is wrong with them.
type Error struct {
	File string
	// Document is 1-based, counting only non-empty documents (as package manifest does).
	Document int
	// Line is where the fault is in the file; 0 when the parser did not say.
	Line    int
	Message string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("health record file %q, document %d (line %d): %s", e.File, e.Document, e.Line, e.Message)
	}
	return fmt.Sprintf("health record file %q, document %d: %s", e.File, e.Document, e.Message)
}

var lineInMessage = regexp.MustCompile(`^yaml: line (\d+): `)

// Parse returns the HealthRecords of a file, in the order of its documents. Each record's Source
// is path.
//
// It fails, naming the file and the document, on YAML it cannot read, and on a HealthRecord
// without data.promiseRef.name, with a data.state outside States, or with a data.lastRun that is
// not a non-negative integer.
func Parse(path string, data []byte) ([]Record, error) {
	dec := yaml3.NewDecoder(bytes.NewReader(data))
	var records []Record
	index := 0
	for {
		var doc yaml3.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return records, nil
		}
		if err != nil {
			return nil, syntaxError(path, index+1, err)
		}
		if len(doc.Content) == 0 || isNull(doc.Content[0]) {
			continue // empty, or only comments
		}
		index++
		root := resolve(doc.Content[0])
		if !isRecord(root) {
			continue
		}
		rec, fault := toRecord(root)
		if fault != nil {
			return nil, &Error{File: path, Document: index, Line: fault.line, Message: fault.msg}
		}
		rec.Source = path
		records = append(records, rec)
	}
}

func syntaxError(path string, index int, err error) error {
	msg := err.Error()
	line := 0
	if m := lineInMessage.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(msg, m[0])
	}
	return &Error{File: path, Document: index, Line: line, Message: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// isRecord tells a HealthRecord from the other documents a file may hold.
func isRecord(n *yaml3.Node) bool {
	if n.Kind != yaml3.MappingNode {
		return false
	}
	return scalarValue(lookup(n, "apiVersion")) == recordAPIVersion && scalarValue(lookup(n, "kind")) == recordKind
}

// fieldError is a fault in one document; Parse adds the file and the document's index.
type fieldError struct {
	line int
	msg  string
}

func faultAt(n *yaml3.Node, format string, args ...any) *fieldError {
	return &fieldError{line: n.Line, msg: fmt.Sprintf(format, args...)}
}

func toRecord(doc *yaml3.Node) (Record, *fieldError) {
	data := lookup(doc, "data")
	if err := mustBeMapping(data, "data"); err != nil {
		return Record{}, err
	}
	promiseRef := lookup(data, "promiseRef")
	if err := mustBeMapping(promiseRef, "data.promiseRef"); err != nil {
		return Record{}, err
	}
	promise, err := stringAt(lookup(promiseRef, "name"), "data.promiseRef.name")
	if err != nil {
		return Record{}, err
	}
	if promise == "" {
		return Record{}, faultAt(doc, "data.promiseRef.name is missing: a HealthRecord must name the promise it reports on")
	}
	resource, err := resourceRef(lookup(data, "resourceRef"))
	if err != nil {
		return Record{}, err
	}
	state, err := stateOf(lookup(data, "state"))
	if err != nil {
		return Record{}, err
	}
	lastRun, err := lastRunOf(lookup(data, "lastRun"))
	if err != nil {
		return Record{}, err
	}
	return Record{
		Promise:  promise,
		Resource: resource,
		State:    state,
		LastRun:  lastRun,
		Revision: revisionOfDetails(lookup(data, "details")),
	}, nil
}

func resourceRef(n *yaml3.Node) (ResourceRef, *fieldError) {
	if err := mustBeMapping(n, "data.resourceRef"); err != nil {
		return ResourceRef{}, err
	}
	name, err := stringAt(lookup(n, "name"), "data.resourceRef.name")
	if err != nil {
		return ResourceRef{}, err
	}
	namespace, err := stringAt(lookup(n, "namespace"), "data.resourceRef.namespace")
	if err != nil {
		return ResourceRef{}, err
	}
	generation, err := integerAt(lookup(n, "generation"), "data.resourceRef.generation", "an integer")
	if err != nil {
		return ResourceRef{}, err
	}
	return ResourceRef{Name: name, Namespace: namespace, Generation: generation}, nil
}

func stateOf(n *yaml3.Node) (string, *fieldError) {
	if isNull(n) {
		return StateUnknown, nil // Kratix's schema defaults the state to unknown
	}
	state, err := stringAt(n, "data.state")
	if err != nil {
		return "", err
	}
	for _, s := range States {
		if state == s {
			return state, nil
		}
	}
	return "", faultAt(n, "data.state is %q; it must be one of %s", state, strings.Join(States, ", "))
}

func lastRunOf(n *yaml3.Node) (time.Time, *fieldError) {
	seconds, err := integerAt(n, "data.lastRun", "an integer number of seconds since 1970 (Unix time)")
	if err != nil || seconds == 0 {
		return time.Time{}, err // Kratix omits a zero lastRun: it means "never ran"
	}
	return time.Unix(seconds, 0).UTC(), nil
}

// integerAt reads a non-negative integer; absent or null reads as 0.
func integerAt(n *yaml3.Node, path, what string) (int64, *fieldError) {
	if isNull(n) {
		return 0, nil
	}
	if n.Kind != yaml3.ScalarNode || n.ShortTag() != "!!int" {
		return 0, faultAt(n, "%s is %s; it must be %s", path, describe(n), what)
	}
	var v int64
	if err := n.Decode(&v); err != nil || v < 0 {
		return 0, faultAt(n, "%s is %s; it must be %s", path, n.Value, what)
	}
	return v, nil
}

// stringAt reads a scalar as its text (a name may look like a number); absent or null reads as "".
func stringAt(n *yaml3.Node, path string) (string, *fieldError) {
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml3.ScalarNode {
		return "", faultAt(n, "%s is %s; it must be a string", path, describe(n))
	}
	return n.Value, nil
}

func mustBeMapping(n *yaml3.Node, path string) *fieldError {
	if isNull(n) || n.Kind == yaml3.MappingNode {
		return nil
	}
	return faultAt(n, "%s is %s; it must be a mapping", path, describe(n))
}

func describe(n *yaml3.Node) string {
	switch n.Kind {
	case yaml3.MappingNode:
		return "a mapping"
	case yaml3.SequenceNode:
		return "a list"
	}
	if n.ShortTag() == "!!str" {
		return fmt.Sprintf("the string %q", n.Value)
	}
	return n.Value
}

// lookup returns the value of key in mapping m, aliases followed; nil when m is no mapping or has
// no such key.
func lookup(m *yaml3.Node, key string) *yaml3.Node {
	if m == nil || m.Kind != yaml3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := resolve(m.Content[i]); k.Kind == yaml3.ScalarNode && k.Value == key {
			return resolve(m.Content[i+1])
		}
	}
	return nil
}

func resolve(n *yaml3.Node) *yaml3.Node {
	for n != nil && n.Kind == yaml3.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml3.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml3.ScalarNode && n.ShortTag() == "!!null")
}

func scalarValue(n *yaml3.Node) string {
	if n == nil || n.Kind != yaml3.ScalarNode {
		return ""
	}
	return n.Value
}
